/* parallel: independent items shared by a few worker threads.
 *
 * Items are handed out one at a time from a shared counter, so a slow item
 * does not hold up a whole share. Every item's result must depend on the
 * item alone (each writes only its own output, reads only what no item
 * writes): then which worker ran it, and in which order, changes nothing,
 * and the results are identical for any number of threads. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "vision_internal.h"

typedef struct {
  vis__item_fn fn;
  void *ctx;
  int n;
  atomic_int next;
} shared_items;

typedef struct {
  shared_items *items;
  int worker;
} worker_arg;

static void *work(void *arg) {
  const worker_arg *w = arg;
  shared_items *s = w->items;
  for (int i; (i = atomic_fetch_add(&s->next, 1)) < s->n;) s->fn(s->ctx, w->worker, i);
  return NULL;
}

void vis__parallel_for(int threads, int n, vis__item_fn fn, void *ctx) {
  if (n <= 0) return;
  int k = threads < 1 ? 1 : threads > VIS__MAX_THREADS ? VIS__MAX_THREADS : threads;
  if (k > n) k = n;
  shared_items s = {fn, ctx, n, 0};
  atomic_init(&s.next, 0);
  worker_arg args[VIS__MAX_THREADS];
  pthread_t tid[VIS__MAX_THREADS];
  bool started[VIS__MAX_THREADS] = {false};
  for (int w = 0; w < k; w++) {
    args[w] = (worker_arg){&s, w};
    /* a thread that cannot be had: the others take its items */
    if (w > 0) started[w] = pthread_create(&tid[w], NULL, work, &args[w]) == 0;
  }
  work(&args[0]);
  for (int w = 1; w < k; w++)
    if (started[w]) pthread_join(tid[w], NULL);
}
