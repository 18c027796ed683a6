/* web events: the /events stream (Server-Sent Events). Each stream runs
 * in its connection's own thread and sleeps on the hub's condition
 * variable until the state or the frame changes, the keep-alive is due, or
 * the server stops. */
#define _POSIX_C_SOURCE 200809L
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web_internal.h"

typedef struct {
  web_server *s;
  uint64_t state_sent, frame_sent; /* versions the phone has */
  char *pending;                   /* the message being sent */
  size_t pending_len, pending_pos;
  bool hello_sent;
} stream;

/* `event: state` with the JSON, one `data:` line per line of it (SSE
 * joins them with newlines again). Called with s->mu held. */
static char *state_message(const web_server *s, size_t *len) {
  size_t lines = 1;
  for (size_t i = 0; i < s->state_len; i++) lines += s->state[i] == '\n';
  size_t cap = s->state_len + lines * 6 + 32;
  char *m = malloc(cap);
  if (!m) return NULL;
  size_t n = (size_t)snprintf(m, cap, "event: state\ndata: ");
  for (size_t i = 0; i < s->state_len; i++) {
    char ch = s->state[i];
    if (ch == '\r') continue;
    if (ch == '\n') {
      memcpy(m + n, "\ndata: ", 7);
      n += 7;
    } else {
      m[n++] = ch;
    }
  }
  memcpy(m + n, "\n\n", 3);
  *len = n + 2;
  return m;
}

/* A short fixed message ("retry", "frame N", keep-alive). */
static char *short_message(size_t *len, const char *head,
                           unsigned long long v) {
  char *m = malloc(96);
  if (!m) return NULL;
  int n = snprintf(m, 96, "%s%llu\n\n", head, v);
  *len = n > 0 ? (size_t)n : 0;
  return m;
}

/* Waits for the next thing to say. NULL + *end: the server stops. */
static char *next_message(stream *st, size_t *len, bool *end) {
  web_server *s = st->s;
  if (!st->hello_sent) {
    st->hello_sent = true; /* reconnect soon if the stream breaks */
    return short_message(len, "retry: ", 2000ULL);
  }
  struct timespec deadline;
  web__deadline(&deadline, s->cfg.keepalive_ms);
  char *m = NULL;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    if (s->stopping) {
      *end = true;
      break;
    }
    if (s->state_version != st->state_sent) {
      st->state_sent = s->state_version;
      m = state_message(s, len);
      break;
    }
    if (s->frame_version != st->frame_sent) {
      st->frame_sent = s->frame_version;
      m = short_message(len, "event: frame\ndata: ",
                        (unsigned long long)s->frame_version);
      break;
    }
    if (!web__wait_until(s, &deadline)) {
      m = short_message(len, ": keep-alive ", 0ULL);
      break;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return m;
}

static ssize_t read_events(void *cls, uint64_t pos, char *buf, size_t max) {
  stream *st = cls;
  while (st->pending_pos >= st->pending_len) {
    free(st->pending);
    st->pending = NULL;
    st->pending_len = st->pending_pos = 0;
    bool end = false;
    st->pending = next_message(st, &st->pending_len, &end);
    if (end) return MHD_CONTENT_READER_END_OF_STREAM;
    if (!st->pending) return MHD_CONTENT_READER_END_WITH_ERROR;
  }
  size_t n = st->pending_len - st->pending_pos;
  if (n > max) n = max;
  memcpy(buf, st->pending + st->pending_pos, n);
  st->pending_pos += n;
  return (ssize_t)n;
}

static void free_stream(void *cls) {
  stream *st = cls;
  pthread_mutex_lock(&st->s->mu);
  st->s->streams--;
  pthread_mutex_unlock(&st->s->mu);
  free(st->pending);
  free(st);
}

struct MHD_Response *web__events_response(web_server *s) {
  stream *st = calloc(1, sizeof *st);
  struct MHD_Response *r =
      st ? MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
                                             read_events, st, free_stream)
         : NULL;
  if (!r) {
    free(st);
    pthread_mutex_lock(&s->mu);
    s->streams--;
    pthread_mutex_unlock(&s->mu);
    return NULL;
  }
  st->s = s;
  return r;
}
