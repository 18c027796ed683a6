/* Unit tests for tools/render: camera model, ground truth against the
 * pixels (edges where the truth says, stacking as the truth says), random
 * layouts against the game's rules, determinism, and the scene parser
 * (clear errors, and thousands of mutated inputs without a crash). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_internal.h"

/* ---------------- helpers ------------------------------------------ */

/* A deck of flat colours: every pixel tells which object it shows. */
static const uint8_t flat_colours[4][3] = {
    {40, 60, 230},  /* palace: blue */
    {30, 200, 60},  /* desert: green */
    {230, 30, 30},  /* carpet-red */
    {240, 220, 40}, /* carpet-yellow */
};

static rnd_deck *flat_deck(void) {
  rnd_deck *d;
  tp_error err;
  assert_int_equal(rnd_deck_create(NULL, NULL, &d, &err), TP_OK);
  const char *stems[4] = {"palace", "desert", "carpet-red", "carpet-yellow"};
  for (int k = 0; k < 4; k++) {
    tp_image img;
    assert_int_equal(tp_image_alloc(&img, 59, 91, 3), TP_OK);
    for (int y = 0; y < 91; y++)
      for (int x = 0; x < 59; x++) memcpy(tp_image_row(&img, y) + 3 * x, flat_colours[k], 3);
    assert_int_equal(rnd_deck_set_face(d, stems[k], &img, &err), TP_OK);
    tp_image_free(&img);
  }
  return d;
}

/* A clean scene: dark plain table, no noise, blur, glare or shadows. */
static void clean_scene(rnd_scene *s) {
  rnd_scene_defaults(s);
  s->table.surface = RND_SURFACE_PLAIN;
  for (int c = 0; c < 3; c++) s->table.colour[c] = s->table.colour2[c] = 0.05;
  s->camera.width = 960, s->camera.height = 540;
  rnd_camera_set_hfov(&s->camera, 66);
  s->look.noise_sigma = 0, s->look.blur_px = 0, s->look.shadow_strength = 0;
  s->look.vignette = 0, s->look.gradient = 0;
}

static void add_card(rnd_scene *s, const char *type, double x, double y, double a, double z) {
  rnd_card *c = &s->cards[s->n_cards++];
  memset(c, 0, sizeof *c);
  snprintf(c->type, sizeof c->type, "%s", type);
  c->pose = (rnd_pose){.center_mm = {x, y}, .angle_deg = a, .z = z};
}

static void add_carpet(rnd_scene *s, const char *colour, double x, double y, double a, double z) {
  rnd_carpet *c = &s->carpets[s->n_carpets++];
  memset(c, 0, sizeof *c);
  snprintf(c->colour, sizeof c->colour, "%s", colour);
  snprintf(c->player, sizeof c->player, "%s", colour);
  c->pose = (rnd_pose){.center_mm = {x, y}, .angle_deg = a, .z = z};
}

static void render_scene(const rnd_deck *deck, const rnd_scene *s, tp_image *img) {
  rnd_renderer *r;
  tp_error err;
  assert_int_equal(rnd_renderer_create(deck, NULL, NULL, &r, &err), TP_OK);
  assert_int_equal(tp_image_alloc(img, s->camera.width, s->camera.height, 3), TP_OK);
  tp_status st = rnd_render(r, s, img, NULL, &err);
  if (st != TP_OK) fail_msg("%s", err.text);
  rnd_renderer_destroy(r);
}

static double luma_at(const tp_image *img, double u, double v) {
  int x = (int)lround(u), y = (int)lround(v);
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  if (x >= img->width) x = img->width - 1;
  if (y >= img->height) y = img->height - 1;
  const uint8_t *p = tp_image_row(img, y) + 3 * x;
  return 0.3 * p[0] + 0.59 * p[1] + 0.11 * p[2];
}

/* Bilinear luma, for sub-pixel profiles across an edge. */
static double luma_bilinear(const tp_image *img, double u, double v) {
  int x = (int)floor(u), y = (int)floor(v);
  double fx = u - x, fy = v - y;
  double a = luma_at(img, x, y), b = luma_at(img, x + 1, y);
  double c = luma_at(img, x, y + 1), d = luma_at(img, x + 1, y + 1);
  return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}

static bool colour_near(const tp_image *img, double u, double v, const uint8_t want[3], int tol) {
  const uint8_t *p = tp_image_row(img, (int)lround(v)) + 3 * (int)lround(u);
  for (int c = 0; c < 3; c++)
    if (abs((int)p[c] - (int)want[c]) > tol) return false;
  return true;
}

/* ---------------- camera ------------------------------------------- */

static void test_camera_round_trip(void **state) {
  (void)state;
  rnd_scene s;
  rnd_scene_defaults(&s);
  s.camera.position_mm[0] = 100, s.camera.position_mm[1] = -150;
  s.camera.dist[0] = -0.2, s.camera.dist[1] = 0.05, s.camera.dist[2] = 0.001;
  s.camera.roll_deg = 30;
  for (double x = -50; x <= 600; x += 65)
    for (double y = -50; y <= 450; y += 50) {
      double u, v, bx, by;
      assert_true(rnd_camera_project(&s.camera, x, y, &u, &v));
      assert_true(rnd_camera_unproject(&s.camera, u, v, &bx, &by));
      assert_true(fabs(bx - x) < 1e-4 && fabs(by - y) < 1e-4);
    }
  /* straight down, no roll: +x runs right and +y down in the picture */
  rnd_scene_defaults(&s);
  double u0, v0, u1, v1, u2, v2;
  rnd_camera_project(&s.camera, 280, 200, &u0, &v0);
  rnd_camera_project(&s.camera, 380, 200, &u1, &v1);
  rnd_camera_project(&s.camera, 280, 300, &u2, &v2);
  assert_true(fabs(u0 - s.camera.cx) < 1e-6 && fabs(v0 - s.camera.cy) < 1e-6);
  assert_true(u1 > u0 + 100 && fabs(v1 - v0) < 1e-6);
  assert_true(v2 > v0 + 100 && fabs(u2 - u0) < 1e-6);
  assert_true(fabs(rnd_camera_tilt_deg(&s.camera)) < 1e-9);
}

/* ---------------- truth against pixels ------------------------------ */

/* Along every edge of a lone card, the steepest luma step across the edge
 * lies within 0.5 px of the projected edge (tilted camera with distortion). */
static void test_projected_edges_match_pixels(void **state) {
  (void)state;
  rnd_deck *deck = flat_deck();
  rnd_scene *s = malloc(sizeof *s);
  clean_scene(s);
  s->camera.position_mm[0] = 150, s->camera.position_mm[1] = 50, s->camera.position_mm[2] = 700;
  s->camera.dist[0] = -0.15;
  s->camera.roll_deg = 12;
  add_card(s, "palace", 200, 150, 73, 0);
  add_card(s, "desert", 360, 250, 118, 1);
  tp_image img;
  render_scene(deck, s, &img);
  rnd_truth t;
  rnd_truth_compute(s, &t);
  int checked = 0;
  for (int c = 0; c < s->n_cards; c++)
    for (int e = 0; e < 4; e++) {
      const double *a = t.cards[c].corners_mm[e], *b = t.cards[c].corners_mm[(e + 1) % 4];
      for (double f = 0.2; f <= 0.8; f += 0.1) {
        double x = a[0] + f * (b[0] - a[0]), y = a[1] + f * (b[1] - a[1]);
        double u, v, u2, v2;
        assert_true(rnd_camera_project(&s->camera, x, y, &u, &v));
        /* the normal of the edge in the image, from a point 1 mm inside */
        double cx = s->cards[c].pose.center_mm[0], cy = s->cards[c].pose.center_mm[1];
        double d = hypot(cx - x, cy - y);
        rnd_camera_project(&s->camera, x + (cx - x) / d, y + (cy - y) / d, &u2, &v2);
        double nx = u2 - u, ny = v2 - v, nl = hypot(nx, ny);
        nx /= nl, ny /= nl;
        double best = -1, best_at = 0;
        for (double o = -3; o <= 3; o += 0.05) {
          double g = fabs(luma_bilinear(&img, u + (o + 0.5) * nx, v + (o + 0.5) * ny) -
                          luma_bilinear(&img, u + (o - 0.5) * nx, v + (o - 0.5) * ny));
          if (g > best) best = g, best_at = o;
        }
        if (best < 20) {
          rnd_write_png(NULL, "/tmp/test_render_edges.png", &img, 0, NULL);
          fail_msg("card %d edge %d at (%.1f, %.1f) px: no step (%.1f)", c, e, u, v, best);
        }
        if (fabs(best_at) > 0.5) fail_msg("card %d edge %d: step at %.2f px", c, e, best_at);
        checked++;
      }
    }
  assert_true(checked >= 50);
  tp_image_free(&img);
  free(s);
  rnd_deck_destroy(deck);
}

/* Where objects overlap, the pixel shows the one the truth puts on top:
 * a carpet over a card, a card over a carpet slid under it, a carpet on a
 * carpet. */
static void test_stacking_matches_pixels(void **state) {
  (void)state;
  rnd_deck *deck = flat_deck();
  rnd_scene *s = malloc(sizeof *s);
  clean_scene(s);
  add_card(s, "palace", 150, 150, 90, 0);
  add_card(s, "desert", 300, 150, 90, 1);
  add_carpet(s, "red", 175, 160, 90, 10);    /* over the palace */
  add_carpet(s, "yellow", 330, 180, 60, -5); /* under the desert */
  tp_image img;
  render_scene(deck, s, &img);
  struct { double x, y; int colour; } probes[] = {
      {160, 160, 2}, /* palace under red carpet: red */
      {130, 120, 0}, /* palace only */
      {300, 150, 1}, /* desert over yellow carpet: green */
      {345, 195, 3}, /* yellow carpet sticking out */
  };
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
    double u, v;
    rnd_camera_project(&s->camera, probes[i].x, probes[i].y, &u, &v);
    if (!colour_near(&img, u, v, flat_colours[probes[i].colour], 16))
      fail_msg("probe %zu at (%.0f, %.0f) mm does not show colour %d", i, probes[i].x,
               probes[i].y, probes[i].colour);
  }
  rnd_truth t;
  rnd_truth_compute(s, &t);
  assert_int_equal(t.carpets[0].n_on, 1);
  assert_int_equal(t.carpets[0].on_cards[0], 0);
  assert_int_equal(t.carpets[1].n_on, 0); /* under a card is not on it */
  assert_true(t.cards[0].visible_fraction < 0.7 && t.cards[0].visible_fraction > 0.05);
  assert_true(fabs(t.cards[1].visible_fraction - 1.0) < 1e-9);
  assert_int_equal(t.stack[0], -2); /* yellow at the bottom */
  assert_int_equal(t.stack[t.n_stack - 1], -1);
  tp_image_free(&img);
  free(s);
  rnd_deck_destroy(deck);
}

static bool truth_on(const rnd_truth *t, int carpet, int card) {
  for (int i = 0; i < t->carpets[carpet].n_on; i++)
    if (t->carpets[carpet].on_cards[i] == card) return true;
  return false;
}

/* A carpet lies on a card when it reaches deeper into it than the rules'
 * contact depth, measured between the outlines as drawn (3 mm rounded
 * corners): by default any overlap (touching edge to edge does not
 * count). A carpet corner 0.5 mm inside a card's corner on both sides
 * meets nothing on the picture; 2 mm inside on both sides the rounded
 * corners overlap 6 - 4 sqrt 2 = 0.34 mm; a sliver 0.5 mm wide along a
 * whole edge is 0.5 mm deep. */
static void test_truth_contact_depth(void **state) {
  (void)state;
  rnd_scene *s = malloc(sizeof *s);
  clean_scene(s);
  /* cards 59 x 91 upright (angle 90: the long axis along y), far apart */
  add_card(s, "palace", 100, 150, 90, 0);
  add_card(s, "desert", 400, 150, 90, 1);
  add_card(s, "palace", 700, 150, 90, 2);
  add_card(s, "desert", 1000, 150, 90, 3);
  add_card(s, "palace", 1300, 150, 90, 4);
  add_carpet(s, "red", 100 + 59 - 2, 150 + 91 - 2, 90, 10);      /* corner 2 mm in */
  add_carpet(s, "yellow", 400 + 59 - 0.5, 150 + 91 - 0.5, 90, 11); /* corner 0.5 mm */
  add_carpet(s, "blue", 700 + 59 - 0.5, 150, 90, 12);              /* edge sliver */
  add_carpet(s, "green", 1000 + 59, 150, 90, 13);                  /* edge to edge */
  add_carpet(s, "red", 1300 + 59 - 4, 150 + 91 - 4, 90, 14);     /* corner 4 mm in */
  rnd_truth t;
  rnd_truth_compute(s, &t); /* the default rules: any overlap */
  assert_true(truth_on(&t, 0, 0) && truth_on(&t, 2, 2) && truth_on(&t, 4, 4));
  assert_false(truth_on(&t, 1, 1)); /* the rounded corners do not meet */
  assert_false(truth_on(&t, 3, 3));
  rnd_truth_compute_contact(s, 1.0, &t); /* contact_depth_tenths_mm = 10 */
  assert_true(truth_on(&t, 4, 4)); /* 6 - 2 sqrt 2 = 3.2 mm */
  assert_false(truth_on(&t, 0, 0));
  assert_false(truth_on(&t, 1, 1));
  assert_false(truth_on(&t, 2, 2));
  assert_false(truth_on(&t, 3, 3));
  /* half a millimetre is enough when the rules say so */
  rnd_truth_compute_contact(s, 0.4, &t);
  assert_true(truth_on(&t, 2, 2));
  assert_false(truth_on(&t, 1, 1) || truth_on(&t, 0, 0));
  /* edge_contact_counts = yes: touching counts too */
  rnd_truth_compute_contact(s, -1e-6, &t);
  assert_true(truth_on(&t, 3, 3));
  /* sharp corners (corner_mm 0): the corner 0.5 mm in lies on the card */
  s->corner_mm = 0;
  rnd_truth_compute(s, &t);
  assert_true(truth_on(&t, 1, 1));
  free(s);
}

static void test_truth_json_claims(void **state) {
  (void)state;
  rnd_scene *s = malloc(sizeof *s);
  clean_scene(s);
  add_card(s, "palace", 100, 150, 90, 0);
  add_card(s, "desert", 200, 150, 90, 1);
  add_card(s, "palace", 300, 150, 90, 2);
  add_carpet(s, "red", 100, 150, 20, 10);    /* card 0 alone */
  add_carpet(s, "blue", 200, 170, 80, 11);   /* card 1 ... */
  add_carpet(s, "green", 215, 130, 100, 12); /* ... contested with green */
  add_carpet(s, "yellow", 300, 330, 0, 13);  /* on nothing */
  tp_error err;
  char *json = rnd_truth_json(s, &err);
  assert_non_null(json);
  assert_non_null(strstr(json, "\"claims\""));
  assert_non_null(strstr(json, "\"player\":\t\"red\""));
  assert_non_null(strstr(json, "\"returned\":\t[\"yellow\"]"));
  assert_non_null(strstr(json, "\"players\":\t[\"blue\", \"green\"]"));
  free(json);
  free(s);
}

/* ---------------- random scenes ------------------------------------ */

static void test_random_layouts_follow_rules(void **state) {
  (void)state;
  rnd_deck *deck;
  tp_error err;
  assert_int_equal(rnd_deck_create_demo(&deck, &err), TP_OK);
  rnd_scene *s = malloc(sizeof *s);
  int under = 0, several = 0, none = 0, contested = 0;
  for (int d = 0; d < 3; d++)
    for (uint64_t seed = 0; seed < 40; seed++) {
      rnd_scene_random(seed, (rnd_difficulty)d, deck, s);
      assert_true(s->n_cards >= 4 && s->n_cards <= 12);
      assert_true(s->n_carpets >= 1 && s->n_carpets <= 4);
      rnd__poly p[RND_MAX_CARDS];
      for (int i = 0; i < s->n_cards; i++) {
        double c[4][2];
        rnd_pose_corners(&s->cards[i].pose, s->card_mm[0], s->card_mm[1], c);
        rnd__poly_from_corners(c, &p[i]);
      }
      for (int i = 0; i < s->n_cards; i++) {
        double nearest = 1e9;
        for (int j = 0; j < s->n_cards; j++)
          if (j != i) nearest = fmin(nearest, rnd__poly_distance(&p[i], &p[j]));
        if (nearest < 10 || nearest > s->card_mm[0])
          fail_msg("seed %d/%d card %d: nearest neighbour %.1f mm", (int)seed, d, i, nearest);
      }
      rnd_truth t;
      rnd_truth_compute(s, &t);
      int covered[RND_MAX_CARDS] = {0};
      for (int k = 0; k < s->n_carpets; k++) {
        several += t.carpets[k].n_on >= 2;
        none += t.carpets[k].n_on == 0 && s->carpets[k].pose.z >= 0;
        under += s->carpets[k].pose.z < 0;
        for (int i = 0; i < t.carpets[k].n_on; i++) contested += covered[t.carpets[k].on_cards[i]]++ == 1;
      }
      /* every marker is in the picture */
      char *json = rnd_truth_json(s, &err);
      assert_non_null(json);
      assert_non_null(strstr(json, "\"markers_seen\":\t[0, 1, 2, 3]"));
      free(json);
    }
  assert_true(under > 3 && several > 3 && none > 3 && contested > 3);
  free(s);
  rnd_deck_destroy(deck);
}

static void test_deterministic(void **state) {
  (void)state;
  rnd_deck *deck;
  tp_error err;
  assert_int_equal(rnd_deck_create_demo(&deck, &err), TP_OK);
  rnd_scene *s = malloc(sizeof *s);
  tp_image a, b, c;
  rnd_scene_random(11, RND_HARD, deck, s);
  s->camera.width = 480, s->camera.height = 270;
  rnd_camera_set_hfov(&s->camera, 66);
  render_scene(deck, s, &a);
  render_scene(deck, s, &b);
  assert_memory_equal(a.data, b.data, (size_t)a.stride * (size_t)a.height);
  rnd_scene_random(12, RND_HARD, deck, s);
  s->camera.width = 480, s->camera.height = 270;
  rnd_camera_set_hfov(&s->camera, 66);
  render_scene(deck, s, &c);
  assert_true(memcmp(a.data, c.data, (size_t)a.stride * (size_t)a.height) != 0);
  tp_image_free(&a), tp_image_free(&b), tp_image_free(&c);
  free(s);
  rnd_deck_destroy(deck);
}

/* A random scene made with the demo deck (render --random) is the one
 * made without a deck (eval, bench): the same carpets in the same colours,
 * so that an eval failure can be rendered and looked at. */
static void test_random_scene_same_with_demo_deck(void **state) {
  (void)state;
  rnd_deck *deck;
  tp_error err;
  assert_int_equal(rnd_deck_create_demo(&deck, &err), TP_OK);
  rnd_scene *with = malloc(sizeof *with), *without = malloc(sizeof *without);
  for (uint64_t seed = 3000; seed < 3020; seed++) {
    rnd_scene_random(seed, RND_NORMAL, deck, with);
    rnd_scene_random(seed, RND_NORMAL, NULL, without);
    char *a = rnd_scene_to_json(with), *b = rnd_scene_to_json(without);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a), free(b);
  }
  free(with), free(without);
  rnd_deck_destroy(deck);
}

/* ---------------- parser ------------------------------------------- */

static void test_scene_round_trip(void **state) {
  (void)state;
  rnd_scene *s = malloc(sizeof *s), *back = malloc(sizeof *back);
  rnd_scene_random(5, RND_HARD, NULL, s);
  char *json = rnd_scene_to_json(s);
  tp_error err;
  assert_int_equal(rnd_scene_parse(json, strlen(json), "x.json", NULL, NULL, back, &err), TP_OK);
  char *again = rnd_scene_to_json(back);
  assert_string_equal(json, again);
  free(json), free(again), free(s), free(back);
}

static void test_bad_scenes_have_clear_errors(void **state) {
  (void)state;
  struct { const char *json, *want; } cases[] = {
      {"{", "not valid JSON"},
      {"[]", "expected a JSON object"},
      {"{\"cards\": 3}", "cards: expected an array"},
      {"{\"cards\": [{\"type\": \"castle\", \"center_mm\": [0, 0]}]}", "cards[0].type: not one of"},
      {"{\"cards\": [{\"type\": \"palace\"}]}", "cards[0]: missing center_mm"},
      {"{\"cards\": [{\"type\": \"palace\", \"center_mm\": [0]}]}", "cards[0].center_mm: expected an array of 2"},
      {"{\"carpets\": [{\"colour\": \"Red\", \"center_mm\": [0, 0]}]}", "lower-case"},
      {"{\"camera\": {\"position_mm\": [0, 0, -5]}}", "above the table"},
      {"{\"camera\": {\"resolution\": [0, 10]}}", "camera.resolution"},
      {"{\"camra\": {}}", "unknown key 'camra'"},
      {"{\"sensor\": {\"jpeg_quality\": 101}}", "sensor.jpeg_quality"},
      {"{\"table\": {\"surface\": \"glass\"}}", "table.surface"},
      {"{\"table\": {\"rect_mm\": [10, 10, 0, 0]}}", "table.rect_mm"},
      {"{\"lighting\": {\"glare\": {\"strength\": 2}}}", "lighting.glare.strength"},
      {"{\"markers\": [{\"id\": 1.5, \"center_mm\": [0, 0]}]}", "whole number"},
  };
  rnd_scene *s = malloc(sizeof *s);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tp_error err = {{0}};
    tp_status st = rnd_scene_parse(cases[i].json, strlen(cases[i].json), "bad.json", NULL, NULL, s, &err);
    assert_int_not_equal(st, TP_OK);
    if (strncmp(err.text, "bad.json: ", 10) || !strstr(err.text, cases[i].want))
      fail_msg("case %zu: message '%s' lacks '%s'", i, err.text, cases[i].want);
    assert_null(strchr(err.text, '\n'));
  }
  free(s);
}

/* Thousands of mutations of a valid scene: byte flips, cuts, splices of
 * JSON tokens. Every result is either a scene or a one-line error naming
 * the file; ASan/UBSan catch the rest. */
static void test_fuzz_scene_parser(void **state) {
  (void)state;
  rnd_scene *s = malloc(sizeof *s);
  rnd_scene_random(3, RND_HARD, NULL, s);
  s->n_hands = 1;
  s->hands[0] = (rnd_hand){.center_mm = {1, 2}, .radius_mm = 40, .arm_deg = 10, .height_mm = 50};
  char *seed = rnd_scene_to_json(s);
  size_t len = strlen(seed);
  static const char *tokens[] = {"{", "}", "[", "]", ",", ":", "\"", "1e309", "-0", "null",
                                 "true", "\"palace\"", "[1,2]", "99999999", "\\u0000", "NaN"};
  rnd__rng g = {42};
  char *buf = malloc(len + 64);
  int ok = 0;
  for (int iter = 0; iter < 4000; iter++) {
    memcpy(buf, seed, len);
    size_t n = len;
    int edits = 1 + (int)(rnd__unit(&g) * 4);
    for (int e = 0; e < edits; e++) {
      size_t at = (size_t)(rnd__unit(&g) * (double)n);
      switch ((int)(rnd__unit(&g) * 3)) {
      case 0: buf[at] = (char)(rnd__next(&g) & 0xff); break;
      case 1: n = at; break;
      default: {
        const char *t = tokens[(int)(rnd__unit(&g) * 16)];
        size_t tl = strlen(t);
        if (at + tl <= len + 60 && at + tl <= n) memcpy(buf + at, t, tl);
      }
      }
    }
    tp_error err = {{0}};
    tp_status st = rnd_scene_parse(buf, n, "fuzz.json", NULL, NULL, s, &err);
    if (st == TP_OK) {
      ok++;
      assert_true(s->n_cards <= RND_MAX_CARDS && s->n_carpets <= RND_MAX_CARPETS);
    } else {
      assert_int_equal(strncmp(err.text, "fuzz.json: ", 11), 0);
      assert_null(strchr(err.text, '\n'));
    }
  }
  assert_true(ok > 10 && ok < 4000);
  free(buf), free(seed), free(s);
}

static void test_demo_deck(void **state) {
  (void)state;
  rnd_deck *deck;
  tp_error err;
  assert_int_equal(rnd_deck_create_demo(&deck, &err), TP_OK);
  for (int i = 0; i < 12; i++) assert_non_null(rnd_deck_face(deck, rnd_card_types[i]));
  assert_int_equal(rnd_deck_colour_count(deck), 4);
  assert_string_equal(rnd_deck_colour(deck, 0), "red"); /* the demo colours' order */
  assert_non_null(rnd_deck_face(deck, "carpet-red"));
  assert_null(rnd_deck_face(deck, "carpet-bazaar-back"));
  /* faces differ from each other, also family members */
  const tp_image *a = rnd_deck_face(deck, "adventure-a"), *b = rnd_deck_face(deck, "adventure-b");
  assert_int_equal(a->width, b->width);
  size_t diff = 0;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width * 3; x++) diff += tp_image_row(a, y)[x] != tp_image_row(b, y)[x];
  assert_true(diff > (size_t)a->width * a->height / 4);
  tp_image tiny = {0};
  assert_int_not_equal(rnd_deck_set_face(deck, "castle", a, &err), TP_OK);
  assert_non_null(strstr(err.text, "castle"));
  assert_int_not_equal(rnd_deck_set_face(deck, "palace", &tiny, &err), TP_OK);
  rnd_deck_destroy(deck);
  rnd_deck_destroy(NULL);
  rnd_renderer_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_camera_round_trip),
      cmocka_unit_test(test_projected_edges_match_pixels),
      cmocka_unit_test(test_stacking_matches_pixels),
      cmocka_unit_test(test_truth_contact_depth),
      cmocka_unit_test(test_truth_json_claims),
      cmocka_unit_test(test_random_layouts_follow_rules),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_random_scene_same_with_demo_deck),
      cmocka_unit_test(test_scene_round_trip),
      cmocka_unit_test(test_bad_scenes_have_clear_errors),
      cmocka_unit_test(test_fuzz_scene_parser),
      cmocka_unit_test(test_demo_deck),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
