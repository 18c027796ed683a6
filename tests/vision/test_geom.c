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
#include "vision_internal.h"

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

/* Overlap areas against an independent estimate: the share of a fine grid
 * of points that both rectangles contain (vis_rect_contains). */
static double grid_overlap(const vis_rect *a, const vis_rect *b) {
  vis_pt c[4];
  vis_rect_corners(a, c);
  double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
  for (int i = 0; i < 4; i++) {
    x0 = fmin(x0, c[i].x), x1 = fmax(x1, c[i].x);
    y0 = fmin(y0, c[i].y), y1 = fmax(y1, c[i].y);
  }
  const double step = 0.25;
  int n = 0;
  for (double y = y0 + step / 2; y < y1; y += step)
    for (double x = x0 + step / 2; x < x1; x += step)
      n += vis_rect_contains(a, (vis_pt){x, y}) && vis_rect_contains(b, (vis_pt){x, y});
  return n * step * step;
}

static void test_overlap_against_grid(void **state) {
  (void)state;
  srand(11);
  for (int i = 0; i < 40; i++) {
    vis_rect a = {{rand() % 60, rand() % 60}, 59, 91, rand() % 360};
    vis_rect b = {{rand() % 60, rand() % 60}, 50, 76, (rand() % 3600) / 10.0};
    double exact = vis_rect_overlap_area(&a, &b), est = grid_overlap(&a, &b);
    /* the grid's error is about its step times the outline's length */
    if (fabs(exact - est) > 0.25 * 2 * (150 + 126) / 2)
      fail_msg("overlap %.2f, grid estimate %.2f (case %d)", exact, est, i);
  }
}

/* A card at angle a and at a + 180 (upside down) covers the same area,
 * and so does one given with a negative or large angle. */
static void test_turned_half_is_same_area(void **state) {
  (void)state;
  for (double a = -720; a <= 720; a += 37.5) {
    vis_rect r = {{100, 50}, 59, 91, a}, t = {{100, 50}, 59, 91, a + 180};
    vis_rect n = {{100, 50}, 59, 91, vis_normalize_angle180(a)};
    assert_true(fabs(vis_rect_overlap_area(&r, &t) - 59 * 91) < 1e-6);
    assert_true(fabs(vis_rect_overlap_area(&r, &n) - 59 * 91) < 1e-6);
    double na = vis_normalize_angle180(a);
    assert_true(na >= 0 && na < 180);
    assert_true(fabs(fmod(fabs(na - a), 180)) < 1e-9 ||
                fabs(fmod(fabs(na - a), 180) - 180) < 1e-9);
  }
}

/* A carpet wholly on a card overlaps it by its own area; the overlap
 * shrinks linearly as it slides off an edge (table coordinates of a real
 * game, far from the origin, keep their precision). */
static void test_contained_and_sliding(void **state) {
  (void)state;
  vis_rect card = {{500.25, 380.5}, 59, 91, 90}, small = {{500.25, 380.5}, 40, 60, 90};
  assert_true(fabs(vis_rect_overlap_area(&card, &small) - 40 * 60) < 1e-6);
  for (double dx = 0; dx <= 70; dx += 0.5) {
    vis_rect carpet = {{500.25 + dx, 380.5}, 59, 91, 90};
    double want = fmax(0, 59 - dx) * 91;
    assert_true(fabs(vis_rect_overlap_area(&card, &carpet) - want) < 1e-6);
  }
  /* a hair's breadth of overlap is tiny but positive */
  vis_rect hair = {{500.25 + 58.99, 380.5}, 59, 91, 90};
  double a = vis_rect_overlap_area(&card, &hair);
  assert_true(a > 0.9 && a < 0.92);
}

/* Polygons: winding does not matter, degenerate input is empty. */
static void test_polygon_winding_and_degenerate(void **state) {
  (void)state;
  vis_pt sq[4] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  vis_pt rev[4] = {{0, 10}, {10, 10}, {10, 0}, {0, 0}};
  vis_pt tri[3] = {{5, -5}, {15, 5}, {5, 5}}; /* half inside the square */
  assert_true(fabs(vis_polygon_area(sq, 4) - 100) < 1e-9);
  assert_true(fabs(vis_polygon_area(rev, 4) - 100) < 1e-9);
  double a = vis_convex_overlap_area(sq, 4, tri, 3);
  assert_true(fabs(a - vis_convex_overlap_area(rev, 4, tri, 3)) < 1e-9);
  assert_true(fabs(a - vis_convex_overlap_area(tri, 3, rev, 4)) < 1e-9);
  assert_true(fabs(a - 25) < 1e-9); /* the triangle's part with y >= 0, x <= 10 */
  assert_true(vis_convex_overlap_area(sq, 2, tri, 3) == 0);
  assert_true(vis_convex_overlap_area(sq, 4, tri, 0) == 0);
  vis_pt line[3] = {{0, 0}, {5, 5}, {10, 10}}; /* no area */
  assert_true(vis_convex_overlap_area(sq, 4, line, 3) < 1e-9);
  vis_rect zero = {{5, 5}, 0, 0, 0};
  vis_rect r = {{5, 5}, 10, 10, 0};
  assert_true(vis_rect_overlap_area(&zero, &r) < 1e-9);
}

/* Corners: a closed convex outline with sides w and h whatever the angle,
 * and the first two corners are one short side (the face's top). */
static void test_corners_any_angle(void **state) {
  (void)state;
  for (double a = 0; a < 360; a += 7.5) {
    vis_rect r = {{-30, 12}, 59, 91, a};
    vis_pt c[4];
    vis_rect_corners(&r, c);
    double s01 = hypot(c[1].x - c[0].x, c[1].y - c[0].y);
    double s12 = hypot(c[2].x - c[1].x, c[2].y - c[1].y);
    double s23 = hypot(c[3].x - c[2].x, c[3].y - c[2].y);
    assert_true(fabs(s01 - 59) < 1e-9 && fabs(s23 - 59) < 1e-9 && fabs(s12 - 91) < 1e-9);
    double mx = 0, my = 0;
    for (int i = 0; i < 4; i++) mx += c[i].x / 4, my += c[i].y / 4;
    assert_true(fabs(mx + 30) < 1e-9 && fabs(my - 12) < 1e-9);
    /* the long side runs along the angle */
    double dir = atan2(c[2].y - c[1].y, c[2].x - c[1].x) * 180 / 3.14159265358979323846;
    double d = fmod(fabs(dir - a) + 360, 180);
    assert_true(d < 1e-6 || d > 180 - 1e-6);
  }
}

/* Outlines drawn `scale` times their size: two cards end to end 100 mm
 * apart (centres) leave a gap of 100 - 91 s, in mm of the table as it is
 * (divided by s); scale 1 is vis_rect_contact_depth. */
static void test_contact_depth_at_scale(void **state) {
  (void)state;
  vis_rect a = {{0, 0}, 59, 91, 0}, b = {{100, 0}, 59, 91, 0};
  assert_true(fabs(vis_rect_contact_depth_at(&a, &b, 3, 1) - vis_rect_contact_depth(&a, &b, 3)) <
              1e-12);
  assert_true(fabs(vis_rect_contact_depth_at(&a, &b, 3, 1) + 9) < 1e-9);
  assert_true(fabs(vis_rect_contact_depth_at(&a, &b, 3, 1.01) + (100 - 91 * 1.01) / 1.01) < 1e-9);
  assert_true(fabs(vis_rect_contact_depth_at(&a, &b, 3, 0.99) + (100 - 91 * 0.99) / 0.99) < 1e-9);
}

/* A carpet's own scale; else the others' mean; else 1. */
static void test_local_scale(void **state) {
  (void)state;
  const double s[4] = {NAN, 1.004, NAN, 0.998}, none[2] = {NAN, NAN};
  assert_true(fabs(vis__local_scale(s, 4, 1) - 1.004) < 1e-12);
  assert_true(fabs(vis__local_scale(s, 4, 3) - 0.998) < 1e-12);
  assert_true(fabs(vis__local_scale(s, 4, 0) - 1.001) < 1e-12);
  assert_true(vis__local_scale(none, 2, 0) == 1);
}

/* A carpet's scale is measured within VIS__SCALE_REACH_MM of a card, and
 * not when something that may cover it and is listed before it reaches
 * VIS__SCALE_EDGE_MM into it; an object in neither role is not looked at. */
static void test_scale_measurable(void **state) {
  (void)state;
  const vis_rect card = {{0, 0}, 59, 91, 0}; /* x within 45.5 mm, y within 29.5 mm */
  const double beside = 45.5 + 91 + 1;      /* a carpet 1 mm beside it along x */
  vis__outline o[3] = {{card, true, true},
                       {{{beside, 0}, 59, 182, 0}, false, true},
                       {{{beside, 59 - 6}, 59, 182, 0}, false, true}}; /* 6 mm into o[1] */
  o[2].rect.center.y += 100; /* first far away */
  assert_true(vis__scale_measurable(o, 3, 1, 3));
  o[1].rect.center.x += 1.5; /* 2.5 mm off the card */
  assert_false(vis__scale_measurable(o, 3, 1, 3));
  o[1].rect.center.x -= 1.5;
  o[0].card = false; /* not a card: nothing near */
  assert_false(vis__scale_measurable(o, 3, 1, 3));
  o[0].card = true;
  o[2].rect.center.y -= 100; /* listed after it: under it */
  assert_true(vis__scale_measurable(o, 3, 1, 3));
  vis__outline before[3] = {o[2], o[1], o[0]};
  assert_false(vis__scale_measurable(before, 3, 1, 3));
  before[0].may_cover = false;
  assert_true(vis__scale_measurable(before, 3, 1, 3));
  before[0].may_cover = true, before[0].rect.center.y += 2; /* 4 mm into it */
  assert_true(vis__scale_measurable(before, 3, 1, 3));
}

/* A card's corners are rounded: a point in a corner's cut-off is not on
 * the card (it shows what lies beneath), so a stacking sample there must
 * not count for the card or against it (vis__frame_contains_rounded). */
static void test_frame_contains_rounded(void **state) {
  (void)state;
  vis_rect r = {{100, 200}, 59, 91, 30};
  vis__frame f = vis__frame_of(&r);
  vis_pt c[4];
  vis_rect_corners(&r, c);
  for (int k = 0; k < 4; k++) {
    /* toward the centre along the diagonal: the sharp corner, a point in
     * the cut-off (the arc lies r (sqrt 2 - 1) = 1.24 mm in for r = 3) and
     * one just inside the arc */
    double dx = r.center.x - c[k].x, dy = r.center.y - c[k].y, len = hypot(dx, dy);
    dx /= len, dy /= len;
    assert_true(vis__frame_contains(&f, c[k].x + 0.01 * dx, c[k].y + 0.01 * dy, 0));
    assert_false(vis__frame_contains_rounded(&f, c[k].x + 0.01 * dx, c[k].y + 0.01 * dy, 3));
    assert_false(vis__frame_contains_rounded(&f, c[k].x + 1.1 * dx, c[k].y + 1.1 * dy, 3));
    assert_true(vis__frame_contains_rounded(&f, c[k].x + 1.4 * dx, c[k].y + 1.4 * dy, 3));
    assert_true(vis__frame_contains_rounded(&f, c[k].x + 0.01 * dx, c[k].y + 0.01 * dy, 0));
  }
  /* on a grid: inside the rounded outline is inside the sharp one, and the
   * cut-offs hold (4 - pi) r^2 of area; r = 0 is the sharp rectangle */
  int sharp = 0, rounded = 0, same0 = 1;
  const double step = 0.05;
  for (double y = 140; y <= 260; y += step)
    for (double x = 40; x <= 160; x += step) {
      bool in = vis__frame_contains(&f, x, y, 0), in_r = vis__frame_contains_rounded(&f, x, y, 3);
      assert_true(!in_r || in);
      sharp += in, rounded += in_r;
      same0 &= in == vis__frame_contains_rounded(&f, x, y, 0);
    }
  assert_true(same0);
  double cut = (sharp - rounded) * step * step;
  assert_true(fabs(cut - (4 - VIS_PI) * 9) < 0.3);
  /* a radius beyond half the short side is clipped to it (a stadium) */
  assert_true(vis__frame_contains_rounded(&f, r.center.x, r.center.y, 100));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corners_axis_aligned),
      cmocka_unit_test(test_normalize_angle),
      cmocka_unit_test(test_overlap_known_areas),
      cmocka_unit_test(test_touching_is_not_overlap),
      cmocka_unit_test(test_overlap_symmetric_random),
      cmocka_unit_test(test_contains),
      cmocka_unit_test(test_overlap_against_grid),
      cmocka_unit_test(test_turned_half_is_same_area),
      cmocka_unit_test(test_contained_and_sliding),
      cmocka_unit_test(test_polygon_winding_and_degenerate),
      cmocka_unit_test(test_corners_any_angle),
      cmocka_unit_test(test_contact_depth_at_scale),
      cmocka_unit_test(test_local_scale),
      cmocka_unit_test(test_scale_measurable),
      cmocka_unit_test(test_frame_contains_rounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
