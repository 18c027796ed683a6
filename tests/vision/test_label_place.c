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

static an__target spots_only(const vis_pt *spots, int n) {
  return (an__target){.spots = spots, .n_spots = n, .outline = NULL, .self = -1};
}

static void a_second_label_moves_to_a_free_spot(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  vis_pt cand[3] = {{50, 50}, {50, 58}, {50, 80}};
  an__target t = spots_only(cand, 3);
  an__placement a, b;
  assert_int_equal(an__place_label(&l, &t, 40, 10, &a), 0);
  assert_int_equal(an__place_label(&l, &t, 40, 10, &b), 2);
  assert_false(boxes_overlap(a.at, b.at, 40, 10));
  assert_false(a.moved || b.moved);
  assert_int_equal(l.n, 2);
}

static void when_all_collide_the_least_overlap_wins(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  an__reserve(&l, (an__box){0, 0, 100, 100});
  vis_pt cand[3] = {{50, 50}, {95, 50}, {90, 50}};
  an__target t = spots_only(cand, 3);
  an__placement at;
  assert_int_equal(an__place_label(&l, &t, 20, 10, &at), 1);
  assert_float_equal(at.at.x, 95, 1e-9);
}

static void no_candidate_places_nothing(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  an__target t = spots_only(NULL, 0);
  an__placement at = {.at = {7, 7}};
  assert_int_equal(an__place_label(&l, &t, 20, 10, &at), -1);
  assert_int_equal(l.n, 0);
  assert_float_equal(at.at.x, 7, 0);
}

static void a_full_picture_still_places_without_overflow(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  vis_pt cand[1] = {{10, 10}};
  an__target t = spots_only(cand, 1);
  an__placement at;
  for (int i = 0; i < AN__MAX_LABELS + 50; i++)
    assert_int_equal(an__place_label(&l, &t, 5, 5, &at), 0);
  assert_int_equal(l.n, AN__MAX_LABELS);
}

static an__quad square(double x, double y, double side) {
  return (an__quad){{{x, y}, {x + side, y}, {x + side, y + side}, {x, y + side}}};
}

static bool box_covers_quad(const an__box *b, const an__quad *q) {
  vis_pt c[4] = {{b->x0, b->y0}, {b->x1, b->y0}, {b->x1, b->y1}, {b->x0, b->y1}};
  return vis_convex_overlap_area(c, 4, q->p, 4) > 0;
}

static bool boxes_intersect(const an__box *a, const an__box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static void a_label_never_covers_a_marker(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  an__quad marker = square(40, 40, 30);
  an__add_marker(&l, &marker);
  vis_pt on_marker[1] = {{55, 55}};
  an__quad object = square(45, 45, 20); /* an object under the marker */
  an__target t = {.spots = on_marker, .n_spots = 1, .outline = &object, .self = -1};
  an__placement at;
  assert_true(an__place_label(&l, &t, 40, 12, &at) >= 1);
  assert_true(at.moved);
  assert_false(box_covers_quad(&l.placed[0], &marker));
}

static void a_label_moved_off_its_object_leads_back_to_it(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 1000);
  an__reserve(&l, (an__box){400, 400, 600, 600}); /* over the whole object */
  an__quad object = square(450, 450, 100);
  an__add_object(&l, &object);
  vis_pt spots[2] = {{470, 470}, {500, 500}};
  an__target t = {.spots = spots, .n_spots = 2, .outline = &object, .self = 0};
  an__placement at;
  assert_true(an__place_label(&l, &t, 60, 14, &at) >= 2);
  assert_true(at.moved);
  assert_float_equal(at.anchor.x, 470, 0);
  assert_float_equal(at.anchor.y, 470, 0);
  assert_false(boxes_intersect(&l.placed[1], &l.placed[0]));
}

static void a_moved_label_stays_in_the_picture_and_off_other_objects(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 300, 200);
  an__quad own = square(0, 0, 60), neighbour = square(0, 80, 60);
  an__add_object(&l, &own);
  an__add_object(&l, &neighbour);
  an__reserve(&l, (an__box){0, 0, 60, 60}); /* its own spots are taken */
  vis_pt spots[1] = {{30, 30}};
  an__target t = {.spots = spots, .n_spots = 1, .outline = &own, .self = 0};
  an__placement at;
  assert_true(an__place_label(&l, &t, 50, 14, &at) >= 1);
  const an__box *b = &l.placed[1];
  assert_true(b->x0 >= 0 && b->y0 >= 0 && b->x1 <= 300 && b->y1 <= 200);
  assert_false(box_covers_quad(b, &neighbour));
}

/* A crowded picture: a grid of cards with markers in the corners; every
 * label finds a place, none covers another or a marker, and every label
 * that stays on its object has its centre on it. */
static void labels_on_a_crowded_table_never_collide(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1280, 720);
  an__quad markers[4] = {square(10, 10, 60), square(1210, 10, 60), square(1210, 650, 60),
                         square(10, 650, 60)};
  for (int i = 0; i < 4; i++) an__add_marker(&l, &markers[i]);
  enum { COLS = 8, ROWS = 3 };
  vis_rect cards[COLS * ROWS];
  an__quad outlines[COLS * ROWS];
  int moved = 0;
  for (int i = 0; i < COLS * ROWS; i++) {
    /* 59 x 91 cards at 1 px/mm, 6 px apart, some turned */
    cards[i] = (vis_rect){{240 + (i % COLS) * 65, 180 + (i / COLS) * 97}, 59, 91,
                          i % 3 == 0 ? 80 : 90};
    vis_rect_corners(&cards[i], outlines[i].p);
    an__add_object(&l, &outlines[i]);
  }
  for (int i = 0; i < COLS * ROWS; i++) {
    vis_pt spots[AN__MAX_SPOTS];
    int n = an__label_spots(&cards[i], NULL, 0, spots, AN__MAX_SPOTS);
    an__target t = {.spots = spots, .n_spots = n, .outline = &outlines[i], .self = i};
    an__placement at;
    assert_true(an__place_label(&l, &t, 240, 36, &at) >= 0);
    if (!at.moved) assert_true(vis_rect_contains(&cards[i], at.at));
    moved += at.moved;
  }
  assert_int_equal(l.n, COLS * ROWS);
  assert_true(moved > 0); /* the labels are wider than the cards: some must move */
  for (int i = 0; i < l.n; i++) {
    for (int k = 0; k < 4; k++) assert_false(box_covers_quad(&l.placed[i], &markers[k]));
    for (int j = i + 1; j < l.n; j++) assert_false(boxes_intersect(&l.placed[i], &l.placed[j]));
  }
}

static void the_summary_block_keeps_clear_of_markers_and_objects(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 1000, 600);
  an__quad marker = square(20, 20, 80), object = square(400, 10, 100);
  an__add_marker(&l, &marker);
  an__add_object(&l, &object);
  an__box at;
  assert_true(an__place_block(&l, 300, 120, &at));
  assert_false(box_covers_quad(&at, &marker));
  assert_false(box_covers_quad(&at, &object));
  assert_true(at.x0 >= 0 && at.y0 >= 0 && at.x1 <= 1000 && at.y1 <= 600);
  assert_true(at.y0 == 0 || at.y1 == 600); /* along the top or bottom edge */
}

static void a_summary_with_no_room_says_so(void **state) {
  (void)state;
  an__labels l;
  an__labels_init(&l, 400, 300);
  an__quad table = square(-10, -10, 420); /* one object over everything */
  an__add_object(&l, &table);
  an__box at;
  assert_false(an__place_block(&l, 100, 50, &at));
  an__labels_init(&l, 400, 300);
  assert_false(an__place_block(&l, 500, 50, &at)); /* wider than the picture */
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
      cmocka_unit_test(a_label_never_covers_a_marker),
      cmocka_unit_test(a_label_moved_off_its_object_leads_back_to_it),
      cmocka_unit_test(a_moved_label_stays_in_the_picture_and_off_other_objects),
      cmocka_unit_test(labels_on_a_crowded_table_never_collide),
      cmocka_unit_test(the_summary_block_keeps_clear_of_markers_and_objects),
      cmocka_unit_test(a_summary_with_no_room_says_so),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
