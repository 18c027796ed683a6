/* Where the annotation's labels go (tools/analysis/label_place.c): on the
 * visible part of their own object and clear of each other. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis_internal.h"

static const vis_rect card = {{100, 100}, 59, 91, 90}; /* long axis along y */

static void spots_of_a_free_card_start_at_its_middle(void **state) {
  (void)state;
  vis_pt spots[AN__MAX_SPOTS];
  int n = an__label_spots(&card, NULL, 0, spots, AN__MAX_SPOTS);
  assert_true(n >= 15);
  assert_float_equal(spots[0].x, 100, 1e-9);
  assert_float_equal(spots[0].y, 100, 1e-9);
  for (int i = 0; i < n; i++) assert_true(vis_rect_contains(&card, spots[i]));
}

static void no_spot_lies_under_a_carpet_on_the_card(void **state) {
  (void)state;
  /* a carpet over the card's lower 60 % (y from 81.8 on) */
  vis_rect carpet = {{100, 140}, 59, 91, 90};
  vis_pt spots[AN__MAX_SPOTS];
  int n = an__label_spots(&card, &carpet, 1, spots, AN__MAX_SPOTS);
  assert_true(n >= 3);
  for (int i = 0; i < n; i++) {
    assert_true(vis_rect_contains(&card, spots[i]));
    assert_false(vis_rect_contains(&carpet, spots[i]));
  }
}

static void a_wholly_covered_card_has_no_spot(void **state) {
  (void)state;
  vis_rect carpet = {{100, 100}, 70, 100, 90};
  vis_pt spots[AN__MAX_SPOTS];
  assert_int_equal(an__label_spots(&card, &carpet, 1, spots, AN__MAX_SPOTS), 0);
}

static void max_bounds_the_spots(void **state) {
  (void)state;
  vis_pt spots[3];
  assert_int_equal(an__label_spots(&card, NULL, 0, spots, 3), 3);
}

static bool boxes_overlap(vis_pt a, vis_pt b, double w, double h) {
  return fabs(a.x - b.x) < w && fabs(a.y - b.y) < h;
}

static void a_second_label_moves_to_a_free_spot(void **state) {
  (void)state;
  an__labels l = {.n = 0};
  vis_pt cand[3] = {{50, 50}, {50, 58}, {50, 80}}, a, b;
  assert_int_equal(an__place_label(&l, cand, 3, 40, 10, &a), 0);
  assert_int_equal(an__place_label(&l, cand, 3, 40, 10, &b), 2);
  assert_false(boxes_overlap(a, b, 40, 10));
  assert_int_equal(l.n, 2);
}

static void when_all_collide_the_least_overlap_wins(void **state) {
  (void)state;
  an__labels l = {.n = 0};
  an__reserve(&l, (an__box){0, 0, 100, 100});
  vis_pt cand[3] = {{50, 50}, {95, 50}, {90, 50}}, at;
  assert_int_equal(an__place_label(&l, cand, 3, 20, 10, &at), 1);
  assert_float_equal(at.x, 95, 1e-9);
}

static void no_candidate_places_nothing(void **state) {
  (void)state;
  an__labels l = {.n = 0};
  vis_pt at = {7, 7};
  assert_int_equal(an__place_label(&l, NULL, 0, 20, 10, &at), -1);
  assert_int_equal(l.n, 0);
  assert_float_equal(at.x, 7, 0);
}

static void a_full_picture_still_places_without_overflow(void **state) {
  (void)state;
  an__labels l = {.n = 0};
  vis_pt cand[1] = {{10, 10}}, at;
  for (int i = 0; i < AN__MAX_LABELS + 50; i++)
    assert_int_equal(an__place_label(&l, cand, 1, 5, 5, &at), 0);
  assert_int_equal(l.n, AN__MAX_LABELS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spots_of_a_free_card_start_at_its_middle),
      cmocka_unit_test(no_spot_lies_under_a_carpet_on_the_card),
      cmocka_unit_test(a_wholly_covered_card_has_no_spot),
      cmocka_unit_test(max_bounds_the_spots),
      cmocka_unit_test(a_second_label_moves_to_a_free_spot),
      cmocka_unit_test(when_all_collide_the_least_overlap_wins),
      cmocka_unit_test(no_candidate_places_nothing),
      cmocka_unit_test(a_full_picture_still_places_without_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
