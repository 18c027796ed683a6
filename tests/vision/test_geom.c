/* Unit tests for vision geometry: rectangles, polygon overlap, and the
 * difference between overlapping and merely touching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "vision.h"

static void test_corners_axis_aligned(void **state) {
  (void)state;
  vis_rect r = {{10, 20}, 59, 91, 90}; /* long axis along +y */
  vis_pt c[4];
  vis_rect_corners(&r, c);
  double minx = 1e9, maxx = -1e9, miny = 1e9, maxy = -1e9;
  for (int i = 0; i < 4; i++) {
    minx = fmin(minx, c[i].x), maxx = fmax(maxx, c[i].x);
    miny = fmin(miny, c[i].y), maxy = fmax(maxy, c[i].y);
  }
  assert_true(fabs(minx - (10 - 29.5)) < 1e-9 && fabs(maxx - (10 + 29.5)) < 1e-9);
  assert_true(fabs(miny - (20 - 45.5)) < 1e-9 && fabs(maxy - (20 + 45.5)) < 1e-9);
  assert_true(fabs(vis_polygon_area(c, 4) - 59 * 91) < 1e-6);
}

static void test_normalize_angle(void **state) {
  (void)state;
  assert_true(fabs(vis_normalize_angle180(-10) - 170) < 1e-9);
  assert_true(fabs(vis_normalize_angle180(180) - 0) < 1e-9);
  assert_true(fabs(vis_normalize_angle180(365) - 5) < 1e-9);
  double a = vis_normalize_angle180(-1e-17);
  assert_true(a >= 0 && a < 180);
}

static void test_overlap_known_areas(void **state) {
  (void)state;
  vis_rect a = {{0, 0}, 10, 20, 0}; /* 20 along x, 10 along y */
  vis_rect b = {{10, 0}, 10, 20, 0};
  assert_true(fabs(vis_rect_overlap_area(&a, &b) - 100) < 1e-6);
  vis_rect c = {{0, 0}, 10, 20, 90};
  assert_true(fabs(vis_rect_overlap_area(&a, &c) - 100) < 1e-6);
  /* a rotated copy: area of a square in a square turned 45 degrees */
  vis_rect s1 = {{0, 0}, 10, 10, 0}, s2 = {{0, 0}, 10, 10, 45};
  double expect = 100 * (2 * (sqrt(2) - 1)); /* regular octagon */
  assert_true(fabs(vis_rect_overlap_area(&s1, &s2) - expect) < 1e-6);
}

static void test_touching_is_not_overlap(void **state) {
  (void)state;
  vis_rect a = {{0, 0}, 10, 20, 0};
  vis_rect edge = {{20, 0}, 10, 20, 0};    /* shares the edge x = 10 */
  vis_rect corner = {{20, 10}, 10, 20, 0}; /* shares one corner */
  vis_rect apart = {{30, 0}, 10, 20, 0};
  assert_true(vis_rect_overlap_area(&a, &edge) < 1e-9);
  assert_true(vis_rect_overlap_area(&a, &corner) < 1e-9);
  assert_true(vis_rect_overlap_area(&a, &apart) < 1e-9);
}

static void test_overlap_symmetric_random(void **state) {
  (void)state;
  srand(7);
  for (int i = 0; i < 2000; i++) {
    vis_rect a = {{rand() % 100, rand() % 100}, 59, 91, rand() % 180};
    vis_rect b = {{rand() % 100, rand() % 100}, 59, 91, rand() % 180};
    double ab = vis_rect_overlap_area(&a, &b), ba = vis_rect_overlap_area(&b, &a);
    assert_true(fabs(ab - ba) < 1e-6);
    assert_true(ab >= 0 && ab <= 59 * 91 + 1e-6);
    /* a rectangle overlaps itself fully */
    assert_true(fabs(vis_rect_overlap_area(&a, &a) - 59 * 91) < 1e-6);
  }
}

static void test_contains(void **state) {
  (void)state;
  vis_rect r = {{0, 0}, 10, 20, 30};
  assert_true(vis_rect_contains(&r, (vis_pt){0, 0}));
  vis_pt c[4];
  vis_rect_corners(&r, c);
  for (int i = 0; i < 4; i++) assert_true(vis_rect_contains(&r, c[i]));
  assert_false(vis_rect_contains(&r, (vis_pt){11, 11}));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corners_axis_aligned),
      cmocka_unit_test(test_normalize_angle),
      cmocka_unit_test(test_overlap_known_areas),
      cmocka_unit_test(test_touching_is_not_overlap),
      cmocka_unit_test(test_overlap_symmetric_random),
      cmocka_unit_test(test_contains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
