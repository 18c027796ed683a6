/* Unit tests for identification (vision/detect): the demo deck's faces
 * pasted into a synthetic top-down photo at exact poses, analysed through
 * a known table mapping (no markers, no renderer, no lens): every type at
 * every kind of angle is found with its type and pose; a card under a
 * carpet that shows only a corner is still found; look-alikes (the five
 * adventures) are told apart. */
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
#include "vision.h"

#define PI 3.14159265358979323846
enum { PX_PER_MM = 3, TABLE_W = 560, TABLE_H = 420 };
static const double card_mm[2] = {59, 91};

/* The photo: table mm (x, y) -> pixel (x, y) * PX_PER_MM. */
static bool to_image(void *user, const double mm[2], double px[2]) {
  (void)user;
  px[0] = mm[0] * PX_PER_MM;
  px[1] = mm[1] * PX_PER_MM;
  return true;
}

typedef struct {
  rnd_deck *demo;
  vis_deck *deck;
  vis_analyzer *an;
  tp_image photo;
} fixture;

static const char *const types[12] = {
    "palace",       "adventure-a",   "adventure-b",  "adventure-c", "adventure-d", "adventure-e",
    "spice-bazaar", "carpet-bazaar", "camel-bazaar", "treasure",    "lamp",        "desert"};
static const char *const carpets[2] = {"carpet-red", "carpet-blue"};

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  tp_error err;
  assert_int_equal(rnd_deck_create_demo(&f->demo, &err), TP_OK);
  assert_int_equal(vis_deck_create(&f->deck, &err), TP_OK);
  for (int i = 0; i < 12; i++)
    assert_int_equal(vis_deck_add_face(f->deck, types[i], rnd_deck_face(f->demo, types[i]), &err),
                     TP_OK);
  for (int i = 0; i < 2; i++)
    assert_int_equal(
        vis_deck_add_face(f->deck, carpets[i], rnd_deck_face(f->demo, carpets[i]), &err), TP_OK);
  vis_deck_set_sizes(f->deck, card_mm, card_mm);
  assert_int_equal(vis_analyzer_create(f->deck, NULL, &f->an, &err), TP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  vis_analyzer_destroy(f->an);
  vis_deck_destroy(f->deck);
  rnd_deck_destroy(f->demo);
  tp_image_free(&f->photo);
  free(f);
  return 0;
}

/* A green felt table with a little deterministic noise (as a sensor). */
static void clear_table(fixture *f) {
  tp_image_free(&f->photo);
  assert_int_equal(tp_image_alloc(&f->photo, TABLE_W * PX_PER_MM, TABLE_H * PX_PER_MM, 3), TP_OK);
  uint32_t h = 12345;
  for (int y = 0; y < f->photo.height; y++) {
    uint8_t *row = tp_image_row(&f->photo, y);
    for (int x = 0; x < f->photo.width; x++) {
      h = h * 1664525u + 1013904223u;
      int n = (int)(h >> 29) - 4;
      row[3 * x] = (uint8_t)(31 + n), row[3 * x + 1] = (uint8_t)(92 + n);
      row[3 * x + 2] = (uint8_t)(51 + n);
    }
  }
}

/* Bilinear sample of an RGB face at face pixel (u, v). */
static void sample(const tp_image *face, double u, double v, double out[3]) {
  u = fmin(fmax(u, 0), face->width - 1.001), v = fmin(fmax(v, 0), face->height - 1.001);
  int x = (int)u, y = (int)v;
  double fx = u - x, fy = v - y;
  const uint8_t *r0 = tp_image_row(face, y) + 3 * x, *r1 = tp_image_row(face, y + 1) + 3 * x;
  for (int c = 0; c < 3; c++)
    out[c] = (1 - fy) * ((1 - fx) * r0[c] + fx * r0[3 + c]) + fy * ((1 - fx) * r1[c] + fx * r1[3 + c]);
}

/* Pastes a face at centre (mm) and face angle (degrees, as the scene
 * format: the long axis from +x toward +y, the face's top at the
 * -long-axis end; 90 upright, 270 upside down), 3 x 3 samples per pixel. */
static void paste(fixture *f, const tp_image *face, double cx, double cy, double face_deg) {
  double t = face_deg * PI / 180, ux = cos(t), uy = sin(t);
  double r = 0.5 * hypot(card_mm[0], card_mm[1]) + 1;
  int x0 = (int)((cx - r) * PX_PER_MM), x1 = (int)((cx + r) * PX_PER_MM);
  int y0 = (int)((cy - r) * PX_PER_MM), y1 = (int)((cy + r) * PX_PER_MM);
  for (int y = y0; y <= y1; y++)
    for (int x = x0; x <= x1; x++) {
      if (x < 0 || y < 0 || x >= f->photo.width || y >= f->photo.height) continue;
      double sum[3] = {0, 0, 0};
      int inside = 0;
      for (int s = 0; s < 9; s++) {
        double mx = (x + (s % 3 + 0.5) / 3 - 0.5) / PX_PER_MM - cx;
        double my = (y + (s / 3 + 0.5) / 3 - 0.5) / PX_PER_MM - cy;
        double along = mx * ux + my * uy;  /* toward the face's bottom */
        double across = mx * uy - my * ux; /* toward the face's right */
        if (fabs(along) > card_mm[1] / 2 || fabs(across) > card_mm[0] / 2) continue;
        double c[3];
        sample(face, (0.5 + across / card_mm[0]) * face->width - 0.5,
               (0.5 + along / card_mm[1]) * face->height - 0.5, c);
        for (int k = 0; k < 3; k++) sum[k] += c[k];
        inside++;
      }
      if (!inside) continue;
      uint8_t *p = tp_image_row(&f->photo, y) + 3 * x;
      for (int k = 0; k < 3; k++) p[k] = (uint8_t)lround((sum[k] + (9 - inside) * p[k]) / 9);
    }
}

static void analyze(fixture *f, vis_result *res) {
  vis_table_map map = {to_image, NULL, {0, 0, TABLE_W, TABLE_H}};
  tp_error err;
  memset(res, 0, sizeof *res);
  tp_status st = vis_analyze(f->an, &f->photo, &map, res, &err);
  if (st) fprintf(stderr, "vis_analyze: %s\n", err.text);
  assert_int_equal(st, TP_OK);
}

static const vis_card *card_at(const vis_result *res, double x, double y) {
  for (int i = 0; i < res->n_cards; i++)
    if (hypot(res->cards[i].rect.center.x - x, res->cards[i].rect.center.y - y) < 5)
      return &res->cards[i];
  return NULL;
}

static double angle_diff180(double a, double b) {
  double d = fmod(fabs(a - b), 180);
  return fmin(d, 180 - d);
}

/* One card: found once, of this type, within 1 mm and 1 degree. */
static void expect_card(const vis_result *res, const char *type, double x, double y,
                        double face_deg) {
  const vis_card *c = card_at(res, x, y);
  if (!c) fail_msg("no card found at (%g, %g) (%s at %g degrees)", x, y, type, face_deg);
  const char *got = vis_type_name(c->type);
  if (!got || strcmp(got, type))
    fail_msg("card at (%g, %g): %s, expected %s (%g degrees)", x, y, got ? got : "none", type,
             face_deg);
  assert_true(hypot(c->rect.center.x - x, c->rect.center.y - y) < 1.0);
  assert_true(angle_diff180(c->rect.angle_deg, face_deg) < 1.0);
  assert_true(fabs(c->rect.w - card_mm[0]) < 0.5 && fabs(c->rect.h - card_mm[1]) < 0.5);
  /* the face's turn: its top toward -y (angle 90) is upright */
  double turn = fmod(face_deg - c->rect.angle_deg + 720, 360);
  if (c->upside_down != (fabs(turn - 180) < 90))
    fail_msg("card at (%g, %g): upside_down %d at face angle %g", x, y, c->upside_down, face_deg);
}

/* All twelve types, each at another angle: upright, upside down, sideways
 * both ways and skewed. */
static void test_every_type_every_angle(void **state) {
  fixture *f = *state;
  static const double angles[12] = {90, 270, 0, 180, 30, 210, 135, 315, 60, 250, 105, 345};
  clear_table(f);
  for (int i = 0; i < 12; i++)
    paste(f, rnd_deck_face(f->demo, types[i]), 80 + (i % 4) * 130, 75 + (i / 4) * 135, angles[i]);
  vis_result res;
  analyze(f, &res);
  for (int i = 0; i < 12; i++)
    expect_card(&res, types[i], 80 + (i % 4) * 130, 75 + (i / 4) * 135, angles[i]);
  assert_int_equal(res.n_cards, 12);
  assert_int_equal(res.n_carpets, 0);
  vis_result_free(&res);
}

/* A carpet hides all of a card but a strip 10 mm and 12 mm wide along two
 * edges (28 % of it shows): the card is still found and typed, and the
 * carpet lies on it. */
static void test_corner_under_carpet(void **state) {
  fixture *f = *state;
  clear_table(f);
  paste(f, rnd_deck_face(f->demo, "treasure"), 200, 200, 90);
  paste(f, rnd_deck_face(f->demo, "palace"), 360, 200, 90);
  paste(f, rnd_deck_face(f->demo, "carpet-red"), 210, 212, 90);
  vis_result res;
  analyze(f, &res);
  expect_card(&res, "treasure", 200, 200, 90);
  expect_card(&res, "palace", 360, 200, 90);
  assert_int_equal(res.n_cards, 2);
  assert_int_equal(res.n_carpets, 1);
  assert_string_equal(res.carpets[0].colour, "red");
  const vis_card *t = card_at(&res, 200, 200);
  assert_int_equal(res.carpets[0].n_on_cards, 1);
  assert_ptr_equal(&res.cards[res.carpets[0].on_cards[0]], t);
  vis_result_free(&res);
}

/* An empty table: nothing is found (no phantom cards in the noise). */
static void test_empty_table(void **state) {
  fixture *f = *state;
  clear_table(f);
  vis_result res;
  analyze(f, &res);
  assert_int_equal(res.n_cards, 0);
  assert_int_equal(res.n_carpets, 0);
  vis_result_free(&res);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type_every_angle),
      cmocka_unit_test(test_corner_under_carpet),
      cmocka_unit_test(test_empty_table),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
