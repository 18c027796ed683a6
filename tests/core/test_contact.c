/* Unit tests for core's contact depth (tp_convex_contact_depth): what
 * decides "lies on" against "touches" for the truth and the vision. */
#define _DEFAULT_SOURCE /* M_PI */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>

#include "core.h"

/* A w x h rectangle centred at (cx, cy), long side turned deg from +x. */
static void rect(double cx, double cy, double w, double h, double deg,
                 double out[4][2]) {
  double a = deg * M_PI / 180, ux = cos(a), uy = sin(a), vx = -uy, vy = ux;
  const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  for (int i = 0; i < 4; i++) {
    out[i][0] = cx + su[i] * 0.5 * h * ux + sv[i] * 0.5 * w * vx;
    out[i][1] = cy + su[i] * 0.5 * h * uy + sv[i] * 0.5 * w * vy;
  }
}

static double depth(const double a[4][2], const double b[4][2]) {
  return tp_convex_contact_depth(a, 4, b, 4);
}

/* A card 59 x 91 upright at the origin: x -29.5..29.5, y -45.5..45.5. */
static void card(double out[4][2]) {
  rect(0, 0, 59, 91, 90, out);
}

static void test_corner_poke_is_its_depth(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  /* a carpet turned 45 degrees whose lowest corner pokes 1 mm into the
   * card's top edge (y = -45.5): its corner lies half its diagonal below
   * its centre */
  double half_diag = 0.5 * hypot(59, 91);
  double turn = atan2(91, 59) * 180 / M_PI; /* the diagonal vertical */
  rect(0, -45.5 + 1 - half_diag, 59, 91, turn, c);
  assert_float_equal(depth(c, k), 1.0, 1e-9);
  assert_float_equal(depth(k, c), 1.0, 1e-9); /* symmetric */
}

static void test_edge_sliver_has_no_depth(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  /* side by side, overlapping 0.3 mm along the whole long edge: 27 mm^2
   * of area, but 0.3 mm deep */
  rect(59 - 0.3, 0, 59, 91, 90, c);
  assert_float_equal(depth(c, k), 0.3, 1e-9);
}

static void test_touching_is_zero_and_a_gap_negative(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  rect(59, 0, 59, 91, 90, c); /* edge to edge */
  assert_float_equal(depth(c, k), 0.0, 1e-9);
  assert_false(tp_contact_lies_on(depth(c, k), 1e-6));
  assert_true(tp_contact_lies_on(depth(c, k), -1e-6)); /* edge contact counts */
  rect(59 + 2, 0, 59, 91, 90, c);
  assert_float_equal(depth(c, k), -2.0, 1e-9);
  assert_false(tp_contact_lies_on(depth(c, k), -1e-6));
}

static void test_rotated_overlap_takes_the_shortest_move(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  /* a carpet turned 30 degrees lying across the card's right edge: the
   * shortest way out is along one of the four normals, never longer than
   * the way out along x */
  rect(40, 5, 59, 91, 30, c);
  double d = depth(c, k);
  double min_x = 1e9;
  for (int i = 0; i < 4; i++)
    min_x = fmin(min_x, c[i][0]);
  assert_true(d > 0);
  assert_true(d <= 29.5 - min_x + 1e-9);
  /* turning both by the same angle about the same point changes nothing */
  double k2[4][2], c2[4][2];
  rect(0, 0, 59, 91, 90 + 17, k2);
  double a = 17 * M_PI / 180, x = 40 * cos(a) - 5 * sin(a),
         y = 40 * sin(a) + 5 * cos(a);
  rect(x, y, 59, 91, 30 + 17, c2);
  assert_float_equal(depth(c2, k2), d, 1e-9);
}

static void test_contained_is_the_way_out(void **state) {
  (void)state;
  double k[4][2], small[4][2];
  card(k);
  rect(0, 0, 10, 20, 90, small); /* in the middle of the card */
  /* out of the card sideways: 29.5 + 5 */
  assert_float_equal(depth(small, k), 34.5, 1e-9);
}

static void test_degenerate_outline_never_lies_on(void **state) {
  (void)state;
  double k[4][2], line[2][2] = {{0, 0}, {1, 1}};
  card(k);
  assert_true(tp_convex_contact_depth(line, 2, k, 4) == -DBL_MAX);
  double dot[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}}; /* no edges */
  assert_true(tp_convex_contact_depth(dot, 4, k, 4) <= 34.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corner_poke_is_its_depth),
      cmocka_unit_test(test_edge_sliver_has_no_depth),
      cmocka_unit_test(test_touching_is_zero_and_a_gap_negative),
      cmocka_unit_test(test_rotated_overlap_takes_the_shortest_move),
      cmocka_unit_test(test_contained_is_the_way_out),
      cmocka_unit_test(test_degenerate_outline_never_lies_on),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
