/* Tests of the analysis against the layout reference (vision/detect/
 * reference.c) on rendered frames: a layout of six cards (three look-alike
 * adventures, palace and lamp look alike too) is rendered without
 * carpets and kept as the reference; then the same table with carpets
 * thrown is analysed and compared with the renderer's truth exactly:
 * every card in reference order with its type, pose and visible fraction,
 * every carpet's colour and pose, and on which cards it lies. Cases: a
 * carpet on a card, a carpet slid under a card, a carpet on a carpet on a
 * card, a card wholly covered, a card bumped 3 cm and 10 degrees, a lamp
 * switched on after the layout, adventures mostly under carpets. Then
 * robustness: NULL arguments, an empty reference, removed slots, bad
 * cards, a frame of another size, random card lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "vision.h"

enum { N_LAYOUT = 6 };
static const char *const layout_types[N_LAYOUT] = {
    "adventure-a", "adventure-b", "palace", "adventure-c", "lamp", "treasure"};

typedef struct {
  an_scenes *sc;
  an_session *session;
  vis_analyzer *an;
  rnd_scene layout;
  tp_image layout_img;
  vis_card cards[N_LAYOUT];
  vis_reference *ref;
  int n_flights; /* flights analysed so far (names of dumped scenes) */
} fixture;

/* The cards' region and a bump's reach around it: a small table image
 * keeps every test fast. */
static vis_table_map map_of(const rnd_scene *s) {
  return an_scenes_true_map(s, (const double[4]){40, 20, 440, 360});
}

/* A 1280x720 camera 500 mm above the table: about 2 px per mm. */
static void layout_scene(rnd_scene *s) {
  rnd_scene_defaults(s);
  s->camera.width = 1280;
  s->camera.height = 720;
  s->camera.position_mm[2] = 500;
  rnd_camera_set_hfov(&s->camera, 66);
  s->n_cards = N_LAYOUT;
  for (int i = 0; i < N_LAYOUT; i++) {
    rnd_card *c = &s->cards[i];
    snprintf(c->type, sizeof c->type, "%s", layout_types[i]);
    c->pose.center_mm[0] = 150 + 80 * (i % 3);
    c->pose.center_mm[1] = 130 + 110 * (i / 3);
    c->pose.angle_deg = i == 2 ? 270 : 90 + 7 * i; /* the palace upside down */
    c->pose.z = i;
    c->pose.lift_mm = 0.3;
  }
}

static void add_carpet(rnd_scene *s, const char *colour, double x, double y,
                       double angle, double z) {
  rnd_carpet *c = &s->carpets[s->n_carpets++];
  memset(c, 0, sizeof *c);
  snprintf(c->colour, sizeof c->colour, "%s", colour);
  snprintf(c->player, sizeof c->player, "%s", colour);
  c->pose.center_mm[0] = x;
  c->pose.center_mm[1] = y;
  c->pose.angle_deg = angle;
  c->pose.z = z;
  c->pose.lift_mm = z < 0 ? 0.2 : 1.0;
}

static double card_x(const rnd_scene *s, int i) {
  return s->cards[i].pose.center_mm[0];
}
static double card_y(const rnd_scene *s, int i) {
  return s->cards[i].pose.center_mm[1];
}

static void render(fixture *f, const rnd_scene *s, tp_image *img) {
  tp_error err;
  assert_int_equal(an_scenes_render(f->sc, s, img, &err), TP_OK);
}

/* The layout's cards as the controller knows them: the truth's types and
 * poses. Returns how many. */
static int layout_cards(const rnd_scene *layout, vis_card *cards) {
  for (int i = 0; i < layout->n_cards; i++) {
    vis_card *c = &cards[i];
    memset(c, 0, sizeof *c);
    c->type = vis_type_from_name(layout->cards[i].type);
    c->rect.center.x = card_x(layout, i);
    c->rect.center.y = card_y(layout, i);
    c->rect.w = 59;
    c->rect.h = 91;
    c->rect.angle_deg = vis_normalize_angle180(layout->cards[i].pose.angle_deg);
  }
  return layout->n_cards;
}

/* A new reference of the layout's cards with their patches from its
 * picture img; with bare, img is the bare table too. */
static vis_reference *layout_reference(fixture *f, const rnd_scene *layout,
                                       const tp_image *img, bool bare) {
  tp_error err;
  vis_table_map map = map_of(layout);
  vis_card cards[RND_MAX_CARDS];
  int n = layout_cards(layout, cards);
  vis_reference *ref;
  assert_int_equal(vis_reference_create(&ref, &err), TP_OK);
  assert_int_equal(
      vis_reference_add_cards(ref, f->an, img, &map, cards, n, &err), TP_OK);
  if (bare)
    assert_int_equal(vis_reference_set_table(ref, f->an, img, &map, &err),
                     TP_OK);
  return ref;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  tp_error err;
  an_options ao = {.image = "scene"};
  assert_int_equal(an_session_create(&ao, &f->session, &err), TP_OK);
  assert_int_equal(an_scenes_create(&f->sc, &err), TP_OK);
  assert_int_equal(
      vis_analyzer_create(an_session_deck(f->session), NULL, &f->an, &err),
      TP_OK);
  layout_scene(&f->layout);
  render(f, &f->layout, &f->layout_img);
  layout_cards(&f->layout, f->cards);
  /* the layout frame is the bare table: carpets are searched where the
   * flight frames differ from it */
  f->ref = layout_reference(f, &f->layout, &f->layout_img, true);
  assert_int_equal(vis_reference_card_count(f->ref), N_LAYOUT);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  vis_reference_destroy(f->ref);
  vis_analyzer_destroy(f->an);
  an_scenes_destroy(f->sc);
  an_session_destroy(f->session);
  tp_image_free(&f->layout_img);
  free(f);
  return 0;
}

static bool in_list(const int *l, int n, int x) {
  for (int i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

static vis_pt centre(const double c[4][2]) {
  vis_pt p = {0, 0};
  for (int i = 0; i < 4; i++)
    p.x += c[i][0] / 4, p.y += c[i][1] / 4;
  return p;
}

/* The result against the truth of the flight scene, exactly. */
static void check_truth(const rnd_scene *s, const vis_result *r) {
  rnd_truth t;
  rnd_truth_compute(s, &t);
  assert_int_equal(r->n_cards, s->n_cards);
  for (int i = 0; i < s->n_cards; i++) {
    const vis_card *c = &r->cards[i];
    vis_pt tc = centre(t.cards[i].corners_mm);
    if (c->type != vis_type_from_name(s->cards[i].type) ||
        hypot(c->rect.center.x - tc.x, c->rect.center.y - tc.y) > 4 ||
        fabs(c->visible_fraction - t.cards[i].visible_fraction) > 0.08)
      fail_msg("card %d (%s): type %d at (%.1f, %.1f) visible %.2f; truth "
               "(%.1f, %.1f) "
               "visible %.2f",
               i, s->cards[i].type, c->type, c->rect.center.x, c->rect.center.y,
               c->visible_fraction, tc.x, tc.y, t.cards[i].visible_fraction);
  }
  assert_int_equal(r->n_carpets, s->n_carpets);
  for (int j = 0; j < s->n_carpets; j++) {
    const vis_carpet *c = NULL;
    for (int k = 0; k < r->n_carpets; k++)
      if (!strcmp(r->carpets[k].colour, s->carpets[j].colour))
        c = &r->carpets[k];
    if (!c) fail_msg("the %s carpet was not found", s->carpets[j].colour);
    vis_pt tc = centre(t.carpets[j].corners_mm);
    if (hypot(c->rect.center.x - tc.x, c->rect.center.y - tc.y) > 4)
      fail_msg("the %s carpet at (%.1f, %.1f), truth (%.1f, %.1f)", c->colour,
               c->rect.center.x, c->rect.center.y, tc.x, tc.y);
    for (int i = 0; i < s->n_cards; i++) {
      bool truth_on = in_list(t.carpets[j].on_cards, t.carpets[j].n_on, i);
      if (truth_on != in_list(c->on_cards, c->n_on_cards, i))
        fail_msg("the %s carpet %s card %d", c->colour,
                 truth_on ? "lies on" : "does not lie on", i);
    }
  }
}

static void analyze_flight(fixture *f, const rnd_scene *flight, vis_result *r) {
  const char *dump =
      getenv("TEPPICH_TEST_DUMP"); /* debugging: a folder for the scenes */
  char *json = dump ? rnd_scene_to_json(flight) : NULL;
  tp_error err;
  char path[1024];
  snprintf(path, sizeof path, "%s/flight-%d.json", dump ? dump : ".",
           f->n_flights++);
  if (json) tp_write_file_atomic(path, json, strlen(json), &err);
  free(json);
  tp_image img = {0};
  render(f, flight, &img);
  vis_table_map map = map_of(flight);
  tp_status st = vis_analyze_with_reference(f->an, f->ref, &img, &map, r, &err);
  if (st) fail_msg("%s", err.text);
  tp_image_free(&img);
  /* every stage timed, the total at least their sum */
  assert_true(r->profile.total_ms >= r->profile.identify_ms);
}

static void run_case(void **state, const rnd_scene *flight) {
  fixture *f = *state;
  vis_result r;
  analyze_flight(f, flight, &r);
  check_truth(flight, &r);
  vis_result_free(&r);
}

/* ------------------------------------------------------------ cases */

static void test_carpet_on_card(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "red", card_x(&s, 0) + 20, card_y(&s, 0) + 35, 60, 1000);
  run_case(state, &s);
}

static void test_carpet_slid_under_card(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "blue", card_x(&s, 2) + 15, card_y(&s, 2) + 60, 100, -100);
  rnd_truth t;
  rnd_truth_compute(&s, &t);
  assert_int_equal(t.carpets[0].n_on, 0); /* the scene is what it says */
  run_case(state, &s);
}

static void test_carpet_on_carpet_on_card(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "blue", card_x(&s, 3) + 10, card_y(&s, 3) - 30, 75, 1000);
  add_carpet(&s, "red", card_x(&s, 3) + 25, card_y(&s, 3) - 40, 120, 1001);
  run_case(state, &s);
}

static void test_card_wholly_covered(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "green", card_x(&s, 4), card_y(&s, 4),
             s.cards[4].pose.angle_deg, 1000);
  vis_result r;
  analyze_flight(f, &s, &r);
  check_truth(&s, &r);
  assert_true(r.cards[4].visible_fraction < 0.05);
  vis_result_free(&r);
}

static void test_card_bumped(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  s.cards[5].pose.center_mm[0] += 30; /* pushed 3 cm and turned 10 degrees */
  s.cards[5].pose.angle_deg += 10;
  add_carpet(&s, "yellow", card_x(&s, 5) - 45, card_y(&s, 5) + 10, 20, 1000);
  vis_result r;
  analyze_flight(f, &s, &r);
  check_truth(&s, &r);
  double da = fabs(vis_normalize_angle180(s.cards[5].pose.angle_deg) -
                   r.cards[5].rect.angle_deg);
  assert_true(fmin(da, 180 - da) < 2);
  vis_result_free(&r);
}

static void test_lamp_switched_on(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  s.look.brightness = 1.25;
  /* glare on a card, not on the carpets: a washed-out carpet face is
   * beyond the face model (tests/vision/todo/glare.json) */
  s.look.glare_mm[0] = card_x(&s, 0) - 20;
  s.look.glare_mm[1] = card_y(&s, 0);
  s.look.glare_radius_mm = 60;
  s.look.glare_strength = 0.25;
  s.look.gradient = 0.25;
  add_carpet(&s, "red", card_x(&s, 1) - 20, card_y(&s, 1) + 50, 30, 1000);
  add_carpet(&s, "blue", card_x(&s, 4) + 30, card_y(&s, 4) - 10, 80, -100);
  run_case(state, &s);
}

static void test_lookalikes_under_carpets(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "red", card_x(&s, 0), card_y(&s, 0) + 22,
             s.cards[0].pose.angle_deg, 1000);
  add_carpet(&s, "blue", card_x(&s, 1) + 4, card_y(&s, 1) - 24,
             s.cards[1].pose.angle_deg, 1001);
  add_carpet(&s, "green", card_x(&s, 3) - 5, card_y(&s, 3) + 26,
             s.cards[3].pose.angle_deg - 4, 1002);
  run_case(state, &s);
}

/* A carpet lying 8 mm beside another and beneath it (carpets thrown
 * onto each other land like that: the tuning game 3:11, round 3, had two
 * 12.6 mm and 4.6 degrees apart): a real carpet, showing its own face in
 * the strip the other does not cover, not a twin of it (the phantom rule
 * of reference.c must keep both). */
static void test_carpet_almost_on_carpet(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  double x = (card_x(&s, 4) + card_x(&s, 5)) / 2, y = card_y(&s, 4) - 5;
  add_carpet(&s, "blue", x, y, 95, 1001);
  add_carpet(&s, "yellow", x + 8, y + 1, 92, 1000);
  run_case(state, &s);
}

/* A carpet as big as card i, turned as it is, lying beside it to the right
 * over a strip `depth` mm wide along its whole long edge. */
static void add_carpet_beside_at(rnd_scene *s, const char *colour, int i,
                                 double depth, double z) {
  double a = s->cards[i].pose.angle_deg * 3.14159265358979323846 / 180;
  double ux = sin(a), uy = -cos(a); /* the card's short axis */
  if (ux < 0) ux = -ux, uy = -uy;
  double off = 59 - depth;
  add_carpet(s, colour, card_x(s, i) + off * ux, card_y(s, i) + off * uy,
             s->cards[i].pose.angle_deg, z);
}

static void add_carpet_beside(rnd_scene *s, const char *colour, int i,
                              double depth) {
  add_carpet_beside_at(s, colour, i, depth, 1000);
}

static bool carpet_on(const vis_result *r, const char *colour, int card) {
  for (int k = 0; k < r->n_carpets; k++)
    if (!strcmp(r->carpets[k].colour, colour))
      return in_list(r->carpets[k].on_cards, r->carpets[k].n_on_cards, card);
  fail_msg("the %s carpet was not found", colour);
  return false;
}

/* A sliver along a card's edge has area but no depth: by the default
 * rules (any overlap) a 0.5 mm wide one (45 mm^2) lies on the palace as a
 * 2 mm one lies on the treasure; with contact_depth_tenths_mm = 10
 * (docs/rules.md) the 0.5 mm sliver only touches. */
static void test_carpet_sliver_touches(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet_beside(&s, "red", 2, 0.5);
  add_carpet_beside(&s, "blue", 5, 2);
  rnd_truth t;
  rnd_truth_compute(&s, &t);
  assert_int_equal(t.carpets[0].n_on, 1); /* the scene is what it says */
  assert_int_equal(t.carpets[1].n_on, 1);
  run_case(state, &s);
  /* the same flight with the eyes of a 1 mm group */
  vis_analyzer *any_overlap = f->an;
  vis_reference *any_ref = f->ref;
  vis_settings vs;
  vis_settings_default(&vs);
  vs.contact_depth_mm = 1.0;
  tp_error err;
  assert_int_equal(
      vis_analyzer_create(an_session_deck(f->session), &vs, &f->an, &err),
      TP_OK);
  f->ref = layout_reference(f, &f->layout, &f->layout_img, true);
  vis_result r;
  analyze_flight(f, &s, &r);
  bool red_on = carpet_on(&r, "red", 2), blue_on = carpet_on(&r, "blue", 5);
  vis_result_free(&r);
  vis_reference_destroy(f->ref);
  vis_analyzer_destroy(f->an);
  f->an = any_overlap, f->ref = any_ref;
  assert_false(red_on);
  assert_true(blue_on);
}

/* A carpet slid under a card's long edge by a 3 mm strip: no sample lies
 * 1.5 mm off both outlines, so the samples nearer to them decide; those
 * next to the card's outline (its patch holds the table that lay beside
 * it at layout, the carpet lies there now) must not take it as on. */
static void test_carpet_slid_under_edge(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet_beside_at(&s, "yellow", 1, 3, -100);
  rnd_truth t;
  rnd_truth_compute(&s, &t);
  assert_int_equal(t.carpets[0].n_on, 0); /* the scene is what it says */
  vis_result r;
  analyze_flight(f, &s, &r);
  bool on = carpet_on(&r, "yellow", 1);
  vis_result_free(&r);
  assert_false(on);
}

/* The two results tell the same flight: the same carpets (colour, pose
 * within 2 mm) on the same cards, every card at the same place with the
 * same visible fraction (0.05). */
static void check_same(const vis_result *a, const vis_result *b) {
  assert_int_equal(a->n_cards, b->n_cards);
  assert_int_equal(a->n_carpets, b->n_carpets);
  for (int i = 0; i < a->n_cards; i++)
    if (a->cards[i].type != b->cards[i].type ||
        a->cards[i].gone != b->cards[i].gone ||
        hypot(a->cards[i].rect.center.x - b->cards[i].rect.center.x,
              a->cards[i].rect.center.y - b->cards[i].rect.center.y) > 2 ||
        fabs(a->cards[i].visible_fraction - b->cards[i].visible_fraction) >
            0.05)
      fail_msg("card %d: incremental and full analysis differ", i);
  for (int k = 0; k < a->n_carpets; k++) {
    const vis_carpet *c = &a->carpets[k], *d = NULL;
    for (int j = 0; j < b->n_carpets; j++)
      if (!strcmp(b->carpets[j].colour, c->colour)) d = &b->carpets[j];
    if (!d) fail_msg("the %s carpet only in one analysis", c->colour);
    if (hypot(c->rect.center.x - d->rect.center.x,
              c->rect.center.y - d->rect.center.y) > 2)
      fail_msg("the %s carpet: (%.1f, %.1f) vs (%.1f, %.1f)", c->colour,
               c->rect.center.x, c->rect.center.y, d->rect.center.x,
               d->rect.center.y);
    for (int i = 0; i < a->n_cards; i++)
      if (in_list(c->on_cards, c->n_on_cards, i) !=
          in_list(d->on_cards, d->n_on_cards, i))
        fail_msg("the %s carpet on card %d in one analysis only", c->colour,
                 i);
  }
}

/* A flight landing carpet by carpet (the last lands almost on the
 * first's place, 12.5 mm and 4.6 degrees off, on top of it), each still
 * frame analysed against the previous decided frame
 * (vis_reference_set_decided) and, but for the last, against the layout
 * alone: both are the truth exactly. The last: the first carpet mostly
 * hidden, the full analysis places it 5 mm off; kept from the decided
 * frame it stays where it landed. */
static void test_incremental_flight(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *inc = layout_reference(f, &f->layout, &f->layout_img, true);
  rnd_scene s = f->layout;
  double x = (card_x(&s, 0) + card_x(&s, 1)) / 2, y = card_y(&s, 0) + 10;
  add_carpet(&s, "red", x, y, 80, 1000);
  add_carpet(&s, "blue", card_x(&s, 3) + 10, card_y(&s, 3) - 30, 75, 1001);
  add_carpet(&s, "yellow", card_x(&s, 2) + 15, card_y(&s, 2) + 60, 100, -100);
  add_carpet(&s, "green", x - 2, y + 12.5, 84.6, 1003);
  for (int n = 1; n <= 4; n++) {
    rnd_scene now = s;
    now.n_carpets = n;
    tp_image img = {0};
    render(f, &now, &img);
    vis_result r, full;
    assert_int_equal(
        vis_analyze_with_reference(f->an, inc, &img, &map, &r, &err), TP_OK);
    check_truth(&now, &r);
    if (n < 4) {
      analyze_flight(f, &now, &full);
      check_truth(&now, &full);
      check_same(&r, &full);
      vis_result_free(&full);
    }
    assert_int_equal(
        vis_reference_set_decided(inc, f->an, &img, &map, &r, &err), TP_OK);
    vis_result_free(&r);
    tp_image_free(&img);
  }
  vis_reference_destroy(inc);
}

/* The first flight of the decided-frame tests: the layout with a red
 * carpet on card 0, rendered into img and analysed against ref into r. */
static void red_on_first_card(fixture *f, vis_reference *ref, rnd_scene *s,
                              tp_image *img, vis_result *r) {
  *s = f->layout;
  add_carpet(s, "red", card_x(s, 0) + 20, card_y(s, 0) + 35, 60, 1000);
  render(f, s, img);
  vis_table_map map = map_of(s);
  tp_error err;
  assert_int_equal(vis_analyze_with_reference(f->an, ref, img, &map, r, &err),
                   TP_OK);
}

/* A carpet kept from the decided frame (nothing changed where it lies)
 * lies on exactly the cards the decided frame says, whatever its overlap
 * with them measures now (a corner grazing a card overlaps it by a
 * fraction of a mm^2, on either side of the minimum from one frame to the
 * next at the same pose: tuning game 2:631). The decided result here is
 * one the caller corrected: red moved from card A (where it lies) to card
 * 2 (far from it); when blue lands elsewhere, red stays on card 2 alone. */
static void test_kept_carpet_keeps_its_cards(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *inc = layout_reference(f, &f->layout, &f->layout_img, true);
  rnd_scene s;
  tp_image img = {0};
  vis_result r;
  red_on_first_card(f, inc, &s, &img, &r);
  check_truth(&s, &r);
  assert_int_equal(r.n_carpets, 1);
  assert_false(in_list(r.carpets[0].on_cards, r.carpets[0].n_on_cards, 2));
  int a = r.carpets[0].on_cards[0];
  r.carpets[0].on_cards[0] = 2;
  for (int k = 0; k < r.n_overlaps; k++)
    if (!r.overlaps[k].other_is_carpet && r.overlaps[k].other == a)
      r.overlaps[k].other = 2;
  assert_int_equal(vis_reference_set_decided(inc, f->an, &img, &map, &r, &err),
                   TP_OK);
  vis_result_free(&r);
  tp_image_free(&img);
  add_carpet(&s, "blue", card_x(&s, 5), card_y(&s, 5) + 20, 95, 1001);
  render(f, &s, &img);
  assert_int_equal(vis_analyze_with_reference(f->an, inc, &img, &map, &r, &err),
                   TP_OK);
  const vis_carpet *red = NULL;
  for (int k = 0; k < r.n_carpets; k++)
    if (!strcmp(r.carpets[k].colour, "red")) red = &r.carpets[k];
  assert_non_null(red);
  assert_true(in_list(red->on_cards, red->n_on_cards, 2));
  assert_false(in_list(red->on_cards, red->n_on_cards, a));
  vis_result_free(&r);
  tp_image_free(&img);
  vis_reference_destroy(inc);
}

/* set_decided: bad arguments and results that are not an analysis
 * against this reference are errors that keep the last decided frame;
 * forget_decided is NULL-safe; after it (or after set_table) the next
 * frame is searched whole again (the carpet-free layout: no carpet). */
static void test_decided_arguments(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *inc = layout_reference(f, &f->layout, &f->layout_img, false);
  rnd_scene s;
  tp_image img = {0};
  vis_result r;
  red_on_first_card(f, inc, &s, &img, &r);
  assert_int_not_equal(
      vis_reference_set_decided(NULL, f->an, &img, &map, &r, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_decided(inc, NULL, &img, &map, &r, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, NULL, &map, &r, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, &img, NULL, &r, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, &img, &map, NULL, &err), TP_OK);
  vis_result bad = r;
  bad.n_cards = N_LAYOUT - 1;
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, &img, &map, &bad, &err), TP_OK);
  bad = r;
  vis_overlap ov = {.carpet = 5, .other = 0};
  bad.overlaps = &ov, bad.n_overlaps = 1;
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, &img, &map, &bad, &err), TP_OK);
  bad = r;
  vis_carpet cp = r.carpets[0];
  cp.carpet = -1;
  bad.carpets = &cp;
  assert_int_not_equal(
      vis_reference_set_decided(inc, f->an, &img, &map, &bad, &err), TP_OK);
  assert_int_equal(vis_reference_set_decided(inc, f->an, &img, &map, &r, &err),
                   TP_OK);
  vis_reference_forget_decided(NULL);
  for (int k = 0; k < 3; k++) { /* decided; forgotten; set_table */
    if (k == 1) vis_reference_forget_decided(inc);
    if (k == 2)
      assert_int_equal(
          vis_reference_set_table(inc, f->an, &f->layout_img, &map, &err),
          TP_OK);
    vis_result again;
    assert_int_equal(
        vis_analyze_with_reference(f->an, inc, &img, &map, &again, &err),
        TP_OK);
    check_truth(&s, &again);
    vis_result_free(&again);
    if (k == 0) /* set again: replaces the old one */
      assert_int_equal(
          vis_reference_set_decided(inc, f->an, &img, &map, &r, &err), TP_OK);
  }
  vis_result none;
  assert_int_equal(vis_analyze_with_reference(f->an, inc, &f->layout_img, &map,
                                              &none, &err),
                   TP_OK);
  assert_int_equal(none.n_carpets, 0);
  vis_result_free(&none);
  vis_result_free(&r);
  tp_image_free(&img);
  vis_reference_destroy(inc);
}

/* The same still table later: fresh sensor noise, a little brighter.
 * Nothing flew: no carpet (a striped card is not a carpet), no card gone,
 * every card whole. */
static void test_carpet_free_frame(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  s.look.noise_seed += 17;
  s.look.noise_sigma = 2.5;
  s.look.brightness = 1.06;
  vis_result r;
  analyze_flight(f, &s, &r);
  check_truth(&s, &r);
  for (int i = 0; i < N_LAYOUT; i++)
    assert_false(r.cards[i].gone);
  vis_result_free(&r);
}

/* Two cards picked up (the palace and the treasure), a carpet on another:
 * the two are reported gone with their reference types, the rest as the
 * truth has them. */
static void test_cards_taken(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "red", card_x(&s, 0) + 20, card_y(&s, 0) + 35, 60, 1000);
  rnd_scene shown = s; /* the scene without cards 2 and 5 */
  shown.n_cards = 0;
  for (int i = 0; i < N_LAYOUT; i++)
    if (i != 2 && i != 5) shown.cards[shown.n_cards++] = s.cards[i];
  tp_image img = {0};
  render(f, &shown, &img);
  vis_table_map map = map_of(&s);
  vis_result r;
  tp_error err;
  assert_int_equal(
      vis_analyze_with_reference(f->an, f->ref, &img, &map, &r, &err), TP_OK);
  rnd_truth t;
  rnd_truth_compute(&s, &t);
  assert_int_equal(r.n_cards, N_LAYOUT);
  for (int i = 0; i < N_LAYOUT; i++) {
    const vis_card *c = &r.cards[i];
    bool taken = i == 2 || i == 5;
    if (c->gone != taken || c->type != f->cards[i].type)
      fail_msg("card %d: gone %d type %d (%s)", i, c->gone, c->type, c->reason);
    if (taken) {
      assert_true(c->visible_fraction == 0);
      assert_false(c->uncertain);
    } else {
      assert_true(fabs(c->visible_fraction - t.cards[i].visible_fraction) <
                  0.08);
    }
  }
  assert_int_equal(r.n_carpets, 1);
  for (int i = 0; i < N_LAYOUT; i++) /* the truth, but not on a taken card */
    assert_int_equal(
        in_list(r.carpets[0].on_cards, r.carpets[0].n_on_cards, i),
        i != 2 && i != 5 &&
            in_list(t.carpets[0].on_cards, t.carpets[0].n_on, i));
  vis_result_free(&r);
  tp_image_free(&img);
}

/* Cards picked up from a patterned cloth (a beige print with blue lines,
 * as on tuning seed 3008 hard) are gone: the table's few colours around
 * them explain where they lay; one mean colour of the cloth lay between
 * beige and blue, and a camel bazaar's beige patch beat it there. The
 * cards still lying on the cloth (the mask calls them table) stay. */
static void test_cards_taken_on_cloth(void **state) {
  fixture *f = *state;
  rnd_scene lay = f->layout;
  lay.table.surface = RND_SURFACE_CLOTH;
  memcpy(lay.table.colour, (const double[3]){0.80, 0.78, 0.70},
         sizeof lay.table.colour);
  memcpy(lay.table.colour2, (const double[3]){0.20, 0.30, 0.55},
         sizeof lay.table.colour2);
  lay.table.pattern_mm = 62.7;
  snprintf(lay.cards[4].type, sizeof lay.cards[4].type, "camel-bazaar");
  tp_image lay_img = {0}, img = {0};
  render(f, &lay, &lay_img);
  vis_reference *ref = layout_reference(f, &lay, &lay_img, true);
  rnd_scene s = lay; /* without cards 4 and 5, a carpet on card 0 */
  s.n_cards = 4;
  add_carpet(&s, "red", card_x(&s, 0) + 20, card_y(&s, 0) + 35, 60, 1000);
  render(f, &s, &img);
  vis_table_map map = map_of(&s);
  vis_result r;
  tp_error err;
  assert_int_equal(vis_analyze_with_reference(f->an, ref, &img, &map, &r, &err),
                   TP_OK);
  assert_int_equal(r.n_cards, N_LAYOUT);
  for (int i = 0; i < N_LAYOUT; i++)
    if (r.cards[i].gone != (i >= 4))
      fail_msg("card %d: gone %d (%s)", i, r.cards[i].gone, r.cards[i].reason);
  vis_result_free(&r);
  tp_image_free(&img);
  tp_image_free(&lay_img);
  vis_reference_destroy(ref);
}

/* ------------------------------------------------------ robustness */

/* The bare table: bad arguments are errors that change nothing; set
 * again, it replaces the old one; a reference without cards but with a
 * bare table analyses a carpet on the table. */
static void test_bare_table(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *ref;
  assert_int_equal(vis_reference_create(&ref, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_table(NULL, f->an, &f->layout_img, &map, &err), TP_OK);
  assert_int_not_equal(
      vis_reference_set_table(ref, NULL, &f->layout_img, &map, &err), TP_OK);
  assert_int_not_equal(vis_reference_set_table(ref, f->an, NULL, &map, &err),
                       TP_OK);
  assert_int_not_equal(
      vis_reference_set_table(ref, f->an, &f->layout_img, NULL, &err), TP_OK);
  for (int k = 0; k < 2; k++)
    assert_int_equal(
        vis_reference_set_table(ref, f->an, &f->layout_img, &map, &err), TP_OK);
  rnd_scene s = f->layout;
  add_carpet(&s, "yellow", 420, 300, 15, 1000);
  tp_image img = {0};
  render(f, &s, &img);
  vis_result r;
  assert_int_equal(vis_analyze_with_reference(f->an, ref, &img, &map, &r, &err),
                   TP_OK);
  assert_int_equal(r.n_cards, 0);
  assert_int_equal(r.n_carpets, 1);
  assert_string_equal(r.carpets[0].colour, "yellow");
  assert_true(hypot(r.carpets[0].rect.center.x - 420,
                    r.carpets[0].rect.center.y - 300) < 4);
  vis_result_free(&r);
  tp_image_free(&img);
  vis_reference_destroy(ref);
}

static void test_null_arguments(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_result r;
  vis_table_map map = map_of(&f->layout);
  assert_int_not_equal(vis_reference_create(NULL, &err), TP_OK);
  vis_reference_destroy(NULL);
  assert_int_equal(vis_reference_card_count(NULL), 0);
  vis_reference_remove_card(NULL, 0);
  assert_int_not_equal(
      vis_analyze_with_reference(f->an, NULL, &f->layout_img, &map, &r, &err),
      TP_OK);
  assert_int_not_equal(
      vis_analyze_with_reference(NULL, f->ref, &f->layout_img, &map, &r, &err),
      TP_OK);
  assert_int_not_equal(
      vis_analyze_with_reference(f->an, f->ref, NULL, &map, &r, &err), TP_OK);
  assert_int_not_equal(
      vis_analyze_with_reference(f->an, f->ref, &f->layout_img, NULL, &r, &err),
      TP_OK);
  assert_int_not_equal(vis_analyze_with_reference(f->an, f->ref, &f->layout_img,
                                                  &map, NULL, &err),
                       TP_OK);
  assert_int_not_equal(vis_reference_add_cards(NULL, f->an, &f->layout_img,
                                               &map, f->cards, 1, &err),
                       TP_OK);
  assert_int_not_equal(vis_reference_add_cards(f->ref, f->an, &f->layout_img,
                                               &map, NULL, 1, &err),
                       TP_OK);
  assert_int_equal(vis_reference_card_count(f->ref), N_LAYOUT);
}

static void test_empty_reference(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  add_carpet(&s, "red", card_x(&s, 0) + 20, card_y(&s, 0) + 35, 60, 1000);
  tp_image img = {0};
  render(f, &s, &img);
  vis_table_map map = map_of(&s);
  tp_error err;
  vis_reference *ref;
  assert_int_equal(vis_reference_create(&ref, &err), TP_OK);
  assert_int_equal(
      vis_reference_add_cards(ref, f->an, &img, &map, f->cards, 0, &err),
      TP_OK);
  vis_result r;
  assert_int_equal(vis_analyze_with_reference(f->an, ref, &img, &map, &r, &err),
                   TP_OK);
  assert_int_equal(r.n_cards,
                   0); /* cards not in the reference are not reported */
  assert_int_equal(r.n_carpets, 1);
  assert_string_equal(r.carpets[0].colour, "red");
  assert_int_equal(r.carpets[0].n_on_cards, 0);
  vis_result_free(&r);
  vis_reference_destroy(ref);
  tp_image_free(&img);
}

static void test_bad_cards_add_nothing(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *ref;
  assert_int_equal(vis_reference_create(&ref, &err), TP_OK);
  vis_card bad[2] = {f->cards[0], f->cards[1]};
  bad[1].type = -1;
  assert_int_not_equal(
      vis_reference_add_cards(ref, f->an, &f->layout_img, &map, bad, 2, &err),
      TP_OK);
  bad[1] = f->cards[1];
  bad[1].rect.center.x = NAN;
  assert_int_not_equal(
      vis_reference_add_cards(ref, f->an, &f->layout_img, &map, bad, 2, &err),
      TP_OK);
  bad[1].rect.center.x = 5000; /* far beyond the picture */
  assert_int_not_equal(
      vis_reference_add_cards(ref, f->an, &f->layout_img, &map, bad, 2, &err),
      TP_OK);
  assert_non_null(strstr(err.text, "card 1"));
  assert_int_not_equal(
      vis_reference_add_cards(ref, f->an, &f->layout_img, &map, bad, -1, &err),
      TP_OK);
  assert_int_equal(vis_reference_card_count(ref), 0); /* all or nothing */
  vis_reference_destroy(ref);
}

static void test_removed_slots(void **state) {
  fixture *f = *state;
  tp_error err;
  rnd_scene s = f->layout;
  vis_table_map map = map_of(&s);
  vis_reference *ref = layout_reference(f, &f->layout, &f->layout_img, false);
  vis_reference_remove_card(ref, 2);
  vis_reference_remove_card(ref, 2); /* twice: no harm */
  vis_reference_remove_card(ref, -1);
  vis_reference_remove_card(ref, N_LAYOUT);
  assert_int_equal(vis_reference_card_count(ref), N_LAYOUT);
  /* the palace is taken away and a carpet lands where it was */
  s.cards[2] = s.cards[--s.n_cards];
  s.n_cards = N_LAYOUT - 1;
  add_carpet(&s, "green", card_x(&f->layout, 2), card_y(&f->layout, 2) + 10, 30,
             1000);
  tp_image img = {0};
  render(f, &s, &img);
  vis_result r;
  assert_int_equal(vis_analyze_with_reference(f->an, ref, &img, &map, &r, &err),
                   TP_OK);
  assert_int_equal(r.n_cards, N_LAYOUT);
  assert_int_equal(r.cards[2].type, -1);
  assert_true(r.cards[2].visible_fraction == 0);
  assert_string_equal(r.cards[2].reason, "removed");
  for (int i = 0; i < N_LAYOUT; i++)
    if (i != 2) assert_int_equal(r.cards[i].type, f->cards[i].type);
  assert_int_equal(r.n_carpets, 1);
  assert_false(in_list(r.carpets[0].on_cards, r.carpets[0].n_on_cards, 2));
  vis_result_free(&r);
  vis_reference_destroy(ref);
  tp_image_free(&img);
}

static void test_frame_of_another_size(void **state) {
  fixture *f = *state;
  rnd_scene s = f->layout;
  s.camera.width = 960; /* a smaller frame of the same table, its own mapping */
  s.camera.height = 540;
  rnd_camera_set_hfov(&s.camera, 66);
  add_carpet(&s, "red", card_x(&s, 0) + 20, card_y(&s, 0) + 35, 60, 1000);
  vis_result r;
  analyze_flight(f, &s, &r);
  check_truth(&s, &r);
  vis_result_free(&r);
  /* a tiny frame through the big frame's mapping: an honest result or a
   * clear error, no crash */
  tp_image tiny = {0};
  assert_int_equal(tp_image_alloc(&tiny, 16, 16, 3), TP_OK);
  memset(tiny.data, 90, (size_t)tiny.stride * 16);
  vis_table_map map = map_of(&f->layout);
  tp_error err;
  if (vis_analyze_with_reference(f->an, f->ref, &tiny, &map, &r, &err) ==
      TP_OK) {
    assert_int_equal(r.n_cards, N_LAYOUT);
    vis_result_free(&r);
  }
  tp_image_free(&tiny);
}

/* Random card lists (types, poses, NaN, far away), random removals: every
 * call ends cleanly, the count grows by whole lists only. */
static void test_random_cards(void **state) {
  fixture *f = *state;
  tp_error err;
  vis_table_map map = map_of(&f->layout);
  vis_reference *ref;
  assert_int_equal(vis_reference_create(&ref, &err), TP_OK);
  uint32_t h = 777;
  int expected = 0;
  for (int it = 0; it < 60; it++) {
    vis_card cards[4];
    int n = (int)((h = h * 1664525u + 1013904223u) >> 30); /* 0..3 */
    for (int k = 0; k < n; k++) {
      memset(&cards[k], 0, sizeof cards[k]);
      h = h * 1664525u + 1013904223u;
      cards[k].type = (int)(h >> 28) - 2; /* -2..13 */
      h = h * 1664525u + 1013904223u;
      cards[k].rect.center.x = (h >> 22) % 700 - 100.0;
      h = h * 1664525u + 1013904223u;
      cards[k].rect.center.y = (h >> 22) % 500 - 50.0;
      cards[k].rect.angle_deg = (h >> 8) % 720 - 360.0;
      cards[k].rect.w = 59, cards[k].rect.h = 91;
      if ((h >> 4) % 17 == 0) cards[k].rect.angle_deg = NAN;
    }
    if (vis_reference_add_cards(ref, f->an, &f->layout_img, &map, cards, n,
                                &err) == TP_OK)
      expected += n;
    assert_int_equal(vis_reference_card_count(ref), expected);
    h = h * 1664525u + 1013904223u;
    vis_reference_remove_card(ref, (int)(h >> 27) - 4);
  }
  vis_result r;
  assert_int_equal(
      vis_analyze_with_reference(f->an, ref, &f->layout_img, &map, &r, &err),
      TP_OK);
  assert_int_equal(r.n_cards, expected);
  for (int i = 0; i < r.n_cards; i++)
    if (r.cards[i].type < 0) assert_string_equal(r.cards[i].reason, "removed");
  assert_int_equal(r.n_carpets, 0);
  vis_result_free(&r);
  vis_reference_destroy(ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_carpet_on_card),
      cmocka_unit_test(test_carpet_slid_under_card),
      cmocka_unit_test(test_carpet_on_carpet_on_card),
      cmocka_unit_test(test_card_wholly_covered),
      cmocka_unit_test(test_card_bumped),
      cmocka_unit_test(test_lamp_switched_on),
      cmocka_unit_test(test_lookalikes_under_carpets),
      cmocka_unit_test(test_carpet_almost_on_carpet),
      cmocka_unit_test(test_carpet_sliver_touches),
      cmocka_unit_test(test_carpet_slid_under_edge),
      cmocka_unit_test(test_incremental_flight),
      cmocka_unit_test(test_kept_carpet_keeps_its_cards),
      cmocka_unit_test(test_decided_arguments),
      cmocka_unit_test(test_carpet_free_frame),
      cmocka_unit_test(test_cards_taken),
      cmocka_unit_test(test_cards_taken_on_cloth),
      cmocka_unit_test(test_bare_table),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_empty_reference),
      cmocka_unit_test(test_bad_cards_add_nothing),
      cmocka_unit_test(test_removed_slots),
      cmocka_unit_test(test_frame_of_another_size),
      cmocka_unit_test(test_random_cards),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
