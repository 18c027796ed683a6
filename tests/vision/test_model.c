/* model.c and fit.c's shortcuts against their plain loops, and
 * reference.c's medians (vis__kth_smallest) against a full sort, and
 * evidence.c's vis__median on odd and even counts, and the type doubt's
 * clear win (vis__type_won_clearly).
 * model.c: the table's own colours (vis__background_histogram) must be
 * exactly what testing every sample against every object gives: the row
 * boxes only skip objects that cannot contain the sample. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vision_internal.h"

/* The plain loop: every 3rd pixel each way, seen, outside every object
 * grown by 3 mm, then smoothed and normalised as model.c does. */
static void background_plain(const vis__table *t, const vis_rect *objs, int n, float *hist) {
  memset(hist, 0, sizeof(float) * VIS__NBINS);
  double total = 0, margin = 3 * t->px_per_mm;
  for (int y = 0; y < t->lab.height; y += 3) {
    const uint8_t *p = tp_image_row(&t->lab, y), *q = tp_image_row(&t->rgb, y);
    for (int x = 0; x < t->lab.width; x += 3) {
      if (!(q[3 * x] | q[3 * x + 1] | q[3 * x + 2])) continue;
      bool inside = false;
      for (int k = 0; k < n && !inside; k++) {
        vis__frame f = vis__frame_of(&objs[k]);
        inside = vis__frame_contains(&f, x, y, margin);
      }
      if (inside) continue;
      hist[vis__bin(p + 3 * x)] += 1;
      total += 1;
    }
  }
  for (int k = 0; k < VIS__NBINS; k++) hist[k] = (float)(hist[k] / fmax(total, 1));
  vis__smooth_histogram(hist);
}

/* A table of random colours (some pixels unseen: black) at 2 px/mm. */
static void random_table(vis__table *t, int w, int h, unsigned *seed) {
  memset(t, 0, sizeof *t);
  t->px_per_mm = 2;
  assert_int_equal(tp_image_alloc(&t->rgb, w, h, 3), TP_OK);
  assert_int_equal(tp_image_alloc(&t->lab, w, h, 3), TP_OK);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < 3 * w; x++) {
      tp_image_row(&t->lab, y)[x] = (uint8_t)rand_r(seed);
      tp_image_row(&t->rgb, y)[x] = rand_r(seed) % 50 ? 1 + (uint8_t)(rand_r(seed) % 255) : 0;
    }
}

static double uniform(unsigned *seed, double lo, double hi) {
  return lo + (hi - lo) * (rand_r(seed) / (double)RAND_MAX);
}

static void test_background_equals_plain_loop(void **state) {
  (void)state;
  unsigned seed = 7;
  vis__table t;
  random_table(&t, 331, 257, &seed);
  float *fast = malloc(sizeof(float) * VIS__NBINS), *plain = malloc(sizeof(float) * VIS__NBINS);
  assert_non_null(fast);
  assert_non_null(plain);
  for (int round = 0; round < 40; round++) {
    vis_rect objs[70];
    int n = round == 0 ? 0 : round < 35 ? 1 + rand_r(&seed) % 20 : 70; /* > 64: the first 64 */
    for (int k = 0; k < n; k++) {
      /* some half off the table, some tiny, any angle, some exactly on
       * sample rows and columns (the box edges) */
      objs[k].center.x = round % 3 ? uniform(&seed, -40, 370) : 3 * (rand_r(&seed) % 110);
      objs[k].center.y = round % 3 ? uniform(&seed, -40, 300) : 3 * (rand_r(&seed) % 85);
      objs[k].w = uniform(&seed, 1, 120);
      objs[k].h = uniform(&seed, objs[k].w, 180);
      objs[k].angle_deg = round % 4 ? uniform(&seed, -180, 180) : 90 * (rand_r(&seed) % 4);
    }
    vis__background_histogram(&t, objs, n, fast);
    background_plain(&t, objs, n > 64 ? 64 : n, plain);
    assert_memory_equal(fast, plain, sizeof(float) * VIS__NBINS);
  }
  free(fast);
  free(plain);
  tp_image_free(&t.rgb);
  tp_image_free(&t.lab);
}

/* fit.c's early-stopping test agrees with the fraction's comparison on
 * random masks, rectangles and thresholds (0 and 1 included). */
static void test_object_fraction_above_agrees(void **state) {
  (void)state;
  unsigned seed = 11;
  vis__table t;
  memset(&t, 0, sizeof t);
  t.px_per_mm = 2;
  assert_int_equal(tp_image_alloc(&t.object, 240, 180, 1), TP_OK);
  int agreed = 0;
  for (int round = 0; round < 30; round++) {
    int density = rand_r(&seed) % 101; /* per cent of mask pixels set */
    for (int y = 0; y < t.object.height; y++)
      for (int x = 0; x < t.object.width; x++)
        tp_image_row(&t.object, y)[x] = rand_r(&seed) % 100 < density ? 255 : 0;
    for (int k = 0; k < 100; k++) {
      vis_rect r;
      r.center.x = uniform(&seed, -30, 270);
      r.center.y = uniform(&seed, -30, 210);
      r.w = uniform(&seed, 0, 90);
      r.h = uniform(&seed, r.w, 130);
      r.angle_deg = uniform(&seed, -180, 180);
      const double mins[] = {0, 0.02, 0.15, 0.5, uniform(&seed, 0, 1), 1, -0.1};
      for (int i = 0; i < 7; i++) {
        bool plain = vis__object_fraction(&t, &r) > mins[i];
        assert_int_equal(vis__object_fraction_above(&t, &r, mins[i]), plain);
        agreed += plain;
      }
    }
  }
  assert_true(agreed > 1000); /* both answers were asked for */
  tp_image_free(&t.object);
}

static int by_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* vis__kth_smallest (reference.c's medians) is what a full sort puts at
 * k, for every k, on arrays with many ties, sorted, reversed and random
 * runs of lengths 1..60 and one of 5001. */
static void test_kth_smallest_equals_sort(void **state) {
  (void)state;
  float v[5001], sorted[5001], work[5001];
  unsigned seed = 12345;
  for (int len = 1; len <= 5001; len = len < 60 ? len + 1 : 5001) {
    for (int shape = 0; shape < 4; shape++) {
      for (int i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        int r = (int)((seed >> 8) % 1000u);
        v[i] = shape == 0 ? (float)(r % 7) : shape == 1 ? (float)i
               : shape == 2 ? (float)(len - i) : (float)r / 37.0f - 9.0f;
      }
      memcpy(sorted, v, sizeof(float) * (size_t)len);
      qsort(sorted, (size_t)len, sizeof(float), by_float);
      for (int k = 0; k < len; k += len > 100 ? 97 : 1) {
        memcpy(work, v, sizeof(float) * (size_t)len);
        assert_true(vis__kth_smallest(work, (size_t)len, (size_t)k) == sorted[k]);
      }
    }
    if (len == 5001) break;
  }
}

/* vis__median: the middle value of an odd count, the mean of the middle
 * two of an even count, whatever the order; one value is itself. */
static void test_median_odd_even(void **state) {
  (void)state;
  double one[] = {0.7}, odd[] = {0.9, 0.5, 0.56, 0.58, 0.1}, even[] = {0.8, 0.6, 0.2, 0.7};
  assert_true(vis__median(one, 1) == 0.7);
  assert_true(vis__median(odd, 5) == 0.56);
  assert_true(fabs(vis__median(even, 4) - 0.65) < 1e-12);
  assert_true(odd[0] == 0.1 && odd[4] == 0.9); /* sorted in place */
}

/* vision_internal.h's type doubt: a runner-up never compared where the
 * faces differ (disc_samples -1) at 0.76 of the winner is a clear win,
 * one at 0.85 or one compared with a thin margin is in doubt. */
static void test_type_won_clearly(void **state) {
  (void)state;
  vis__object o = {.face = 0, .second_face = 1, .explained = 1270, .second_explained = 962,
                   .disc_samples = -1};
  assert_true(vis__type_won_clearly(&o));
  assert_true(vis__type_in_doubt(&o, 0.25)); /* the fallback margin alone: 0.24 */
  o.second_explained = 1080;                  /* 0.85 of the winner: compared in the matcher */
  assert_false(vis__type_won_clearly(&o));
  o.second_explained = 962;
  o.disc_samples = 40, o.disc_margin = 0.1; /* compared, won narrowly */
  assert_false(vis__type_won_clearly(&o));
  assert_true(vis__type_in_doubt(&o, 0.25));
  o.second_face = -1; /* no runner-up at all */
  assert_false(vis__type_won_clearly(&o));
  assert_false(vis__type_in_doubt(&o, 0.25));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_background_equals_plain_loop),
      cmocka_unit_test(test_object_fraction_above_agrees),
      cmocka_unit_test(test_kth_smallest_equals_sort),
      cmocka_unit_test(test_median_odd_even),
      cmocka_unit_test(test_type_won_clearly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
