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

/* ---- rounded corners (tp_rounded_rect_contact_depth) ---- */

static double rounded(const double a[4][2], const double b[4][2], double r) {
  return tp_rounded_rect_contact_depth(a, r, b, r);
}

static void test_rounded_corner_to_corner_meets_nothing(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  /* the carpet's corner lies 0.8 mm inside the card's corner on both
   * sides: the sharp outlines overlap 0.8 mm deep, but the two 3 mm
   * roundings leave a gap of (6 - 0.8) * sqrt 2 - 6 on the diagonal */
  rect(59 - 0.8, 91 - 0.8, 59, 91, 90, c);
  assert_float_equal(depth(c, k), 0.8, 1e-9);
  assert_float_equal(rounded(c, k, 3), 6 - 5.2 * sqrt(2), 1e-9);
  assert_false(tp_contact_lies_on(rounded(c, k, 3), 1e-6));
  /* 5 mm into both sides the rounded corners do reach each other */
  rect(59 - 5, 91 - 5, 59, 91, 90, c);
  assert_float_equal(rounded(c, k, 3), 6 - 1 * sqrt(2), 1e-9);
}

static void test_rounded_corner_into_an_edge_loses_the_tip(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  /* a carpet turned 45 degrees: its lowest corner points straight at the
   * card's top edge (y = -45.5), 2 mm deep; rounding a right angle by r
   * takes r (sqrt 2 - 1) off its tip */
  double below = 0.5 * (59 + 91) * sqrt(0.5);
  rect(0, -45.5 + 2 - below, 59, 91, 45, c);
  assert_float_equal(depth(c, k), 2.0, 1e-9);
  assert_float_equal(rounded(c, k, 3), 2 - 3 * (sqrt(2) - 1), 1e-9);
  assert_float_equal(rounded(k, c, 3), rounded(c, k, 3), 1e-9); /* symmetric */
}

static void test_rounded_edge_to_edge_is_the_sharp_depth(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  rect(59 - 0.3, 10, 59, 91, 90, c); /* 0.3 mm along the long edge */
  assert_float_equal(rounded(c, k, 3), 0.3, 1e-9);
  rect(59 + 2, 10, 59, 91, 90, c); /* a 2 mm gap */
  assert_float_equal(rounded(c, k, 3), -2.0, 1e-9);
}

static void test_rounded_rotated_and_contained(void **state) {
  (void)state;
  double k[4][2], c[4][2], small[4][2];
  card(k);
  /* across the card's right edge, turned 30 degrees: each rounded outline
   * lies within the sharp one and at most r (sqrt 2 - 1) inside it, so
   * the depth is at most the sharp one and at most twice that less */
  rect(40, 5, 59, 91, 30, c);
  double loss = depth(c, k) - rounded(c, k, 3);
  assert_true(loss > 0 && loss <= 2 * 3 * (sqrt(2) - 1) + 1e-9);
  /* turning both about the same point changes nothing */
  double k2[4][2], c2[4][2], a = 17 * M_PI / 180;
  rect(0, 0, 59, 91, 90 + 17, k2);
  rect(40 * cos(a) - 5 * sin(a), 40 * sin(a) + 5 * cos(a), 59, 91, 30 + 17, c2);
  assert_float_equal(rounded(c2, k2, 3), rounded(c, k, 3), 1e-9);
  /* the same card: the way out is its width, rounded or not */
  assert_float_equal(rounded(k, k, 3), 59, 1e-9);
  rect(0, 0, 10, 20, 90, small);
  assert_float_equal(tp_rounded_rect_contact_depth(small, 3, k, 3), 34.5, 1e-9);
  /* a radius over half the short side is cut to it (a 10 mm wide stick
   * with 5 mm ends) */
  assert_float_equal(tp_rounded_rect_contact_depth(small, 9, k, 3), 34.5, 1e-9);
}

static void test_rounded_radius_0_is_the_sharp_depth(void **state) {
  (void)state;
  double k[4][2], c[4][2];
  card(k);
  const double turns[] = {0, 17, 30, 45, 90, 133};
  for (int i = 0; i < 6; i++) {
    rect(30 + i, -20 + 3 * i, 59, 91, turns[i], c);
    assert_float_equal(rounded(c, k, 0), depth(c, k), 1e-9);
  }
  /* a gap is the true distance: corner to corner 3 and 4 mm apart */
  rect(59 + 3, 91 + 4, 59, 91, 90, c);
  assert_float_equal(rounded(c, k, 0), -5, 1e-9);
  assert_float_equal(depth(c, k), -4, 1e-9); /* the widest axis gap */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corner_poke_is_its_depth),
      cmocka_unit_test(test_edge_sliver_has_no_depth),
      cmocka_unit_test(test_touching_is_zero_and_a_gap_negative),
      cmocka_unit_test(test_rotated_overlap_takes_the_shortest_move),
      cmocka_unit_test(test_contained_is_the_way_out),
      cmocka_unit_test(test_degenerate_outline_never_lies_on),
      cmocka_unit_test(test_rounded_corner_to_corner_meets_nothing),
      cmocka_unit_test(test_rounded_corner_into_an_edge_loses_the_tip),
      cmocka_unit_test(test_rounded_edge_to_edge_is_the_sharp_depth),
      cmocka_unit_test(test_rounded_rotated_and_contained),
      cmocka_unit_test(test_rounded_radius_0_is_the_sharp_depth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
