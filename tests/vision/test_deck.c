/* Unit tests for the deck folder (spec section 2): loading, sizes, clear
 * errors that name the file, and fuzzed deck.json. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvw.h"
#include "vision.h"

static void write_face(const char *dir, const char *file, uint8_t shade) {
  tp_image img;
  assert_int_equal(tp_image_alloc(&img, 24, 36, 3), TP_OK);
  for (int y = 0; y < img.height; y++)
    for (int x = 0; x < img.width * 3; x++) tp_image_row(&img, y)[x] = (uint8_t)(shade + x + y);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  assert_int_equal(cvw_image_write(path, &img, 90, NULL), TP_OK);
  tp_image_free(&img);
}

static void write_text(const char *dir, const char *file, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *make_deck(void) {
  char tmpl[] = "/tmp/tp_vis_deck_XXXXXX";
  char *dir = strdup(mkdtemp(tmpl));
  write_face(dir, "palace.png", 10);
  write_face(dir, "camel-bazaar.jpg", 60);
  write_face(dir, "carpet-red.png", 100);
  write_face(dir, "carpet-blue.png", 140);
  write_face(dir, "carpet-blue-back.png", 180);
  write_text(dir, "README.txt", "not an image: ignored\n");
  return dir;
}

static void remove_deck(char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  free(dir);
}

static void test_load_defaults(void **state) {
  (void)state;
  char *dir = make_deck();
  vis_deck *d = NULL;
  tp_error err;
  assert_int_equal(vis_deck_load(dir, &d, &err), TP_OK);
  double card[2], carpet[2];
  vis_deck_card_mm(d, card);
  vis_deck_carpet_mm(d, carpet);
  assert_true(card[0] == 59 && card[1] == 91 && carpet[0] == 59 && carpet[1] == 91);
  assert_true(vis_deck_corner_mm(d) == 3); /* printed cards' rounded corners */
  assert_true(vis_deck_has_type(d, vis_type_from_name("palace")));
  assert_true(vis_deck_has_type(d, vis_type_from_name("camel-bazaar")));
  assert_false(vis_deck_has_type(d, vis_type_from_name("desert")));
  assert_int_equal(vis_deck_carpet_count(d), 2);
  assert_string_equal(vis_deck_carpet_colour(d, 0), "blue"); /* sorted */
  assert_string_equal(vis_deck_carpet_colour(d, 1), "red");
  assert_non_null(vis_deck_carpet_back(d, 0));
  assert_null(vis_deck_carpet_back(d, 1));
  assert_int_equal(vis_deck_type_face(d, 0)->width, 24);
  vis_deck_destroy(d);
  remove_deck(dir);
}

static void test_deck_json_sizes(void **state) {
  (void)state;
  char *dir = make_deck();
  write_text(dir, "deck.json", "{\"card_mm\": [91, 59], \"carpet_mm\": [50, 70]}");
  vis_deck *d = NULL;
  tp_error err;
  assert_int_equal(vis_deck_load(dir, &d, &err), TP_OK);
  double card[2], carpet[2];
  vis_deck_card_mm(d, card);
  vis_deck_carpet_mm(d, carpet);
  assert_true(card[0] == 59 && card[1] == 91); /* width is the short side */
  assert_true(carpet[0] == 50 && carpet[1] == 70);
  assert_true(vis_deck_corner_mm(d) == 3);
  vis_deck_destroy(d);
  remove_deck(dir);
}

/* deck.json "corner_mm": the radius of the cards' rounded corners, which
 * decides whether two corners meet (vis_rect_contact_depth). */
static void test_deck_json_corner(void **state) {
  (void)state;
  vis_deck *d;
  tp_error err;
  assert_int_equal(vis_deck_create(&d, NULL), TP_OK);
  const char *sharp = "{\"corner_mm\": 0}";
  assert_int_equal(vis_deck_parse_json(d, sharp, strlen(sharp), "deck.json", &err), TP_OK);
  assert_true(vis_deck_corner_mm(d) == 0);
  const char *bad[] = {"{\"corner_mm\": -1}", "{\"corner_mm\": 25}", "{\"corner_mm\": \"3\"}"};
  for (int i = 0; i < 3; i++) {
    assert_int_not_equal(vis_deck_parse_json(d, bad[i], strlen(bad[i]), "my/deck.json", &err), TP_OK);
    assert_non_null(strstr(err.text, "my/deck.json"));
    assert_non_null(strstr(err.text, "corner_mm"));
  }
  assert_true(vis_deck_corner_mm(d) == 0); /* a bad file changes nothing */
  /* a carpet corner 0.8 mm into a card's corner on both sides: the sharp
   * outlines overlap, the rounded ones do not meet */
  vis_rect card = {{0, 0}, 59, 91, 90}, carpet = {{58.2, 90.2}, 59, 91, 90};
  assert_true(vis_rect_contact_depth(&carpet, &card, 0) > 0.79);
  assert_true(vis_rect_contact_depth(&carpet, &card, 3) < -1);
  vis_deck_destroy(d);
}

static void expect_error(const char *dir, const char *needle) {
  vis_deck *d = (vis_deck *)1;
  tp_error err = {{0}};
  assert_int_not_equal(vis_deck_load(dir, &d, &err), TP_OK);
  assert_null(d);
  if (!strstr(err.text, needle)) fail_msg("error '%s' lacks '%s'", err.text, needle);
  assert_null(strchr(err.text, '\n'));
}

static void test_errors_name_the_file(void **state) {
  (void)state;
  char *dir = make_deck();
  write_face(dir, "castle.png", 0);
  expect_error(dir, "castle.png");
  remove_deck(dir);

  dir = make_deck();
  write_text(dir, "lamp.png", "\x89PNG\r\n\x1a\n truncated");
  expect_error(dir, "lamp.png");
  remove_deck(dir);

  dir = make_deck();
  write_text(dir, "deck.json", "{\"card_mm\": [59]}");
  expect_error(dir, "deck.json");
  remove_deck(dir);

  dir = make_deck();
  write_face(dir, "carpet-Red.png", 0); /* colours are lower case */
  expect_error(dir, "carpet-Red");
  remove_deck(dir);

  expect_error("/nonexistent/deck", "/nonexistent/deck");
}

static void test_incomplete_decks(void **state) {
  (void)state;
  char tmpl[] = "/tmp/tp_vis_deck_XXXXXX";
  char *dir = strdup(mkdtemp(tmpl));
  expect_error(dir, "no destination card images");
  write_face(dir, "palace.png", 1);
  expect_error(dir, "no carpet images");
  write_face(dir, "carpet-green-back.png", 1);
  expect_error(dir, "carpet-green-back without");
  remove_deck(dir);
}

/* Random and mutated deck.json texts: never a crash, sizes stay sane. */
static void test_fuzz_deck_json(void **state) {
  (void)state;
  static const char *seeds[] = {
      "{\"card_mm\": [59, 91], \"carpet_mm\": [59, 91]}", "{}", "[]", "null",
      "{\"card_mm\": [1e308, -1]}", "{\"card_mm\": \"x\"}", "{\"carpet_mm\": [59, 91, 3]}"};
  const char alphabet[] = "{}[]\",:0123456789.-eE cardmpt_ntrufals\\";
  srand(42);
  vis_deck *d;
  assert_int_equal(vis_deck_create(&d, NULL), TP_OK);
  char buf[256];
  for (int i = 0; i < 20000; i++) {
    const char *seed = seeds[rand() % 7];
    size_t n = strlen(seed);
    memcpy(buf, seed, n);
    int edits = 1 + rand() % 6;
    for (int e = 0; e < edits; e++) {
      int op = rand() % 3;
      size_t pos = n ? (size_t)rand() % n : 0;
      if (op == 0 && n) buf[pos] = alphabet[rand() % (sizeof alphabet - 1)];
      if (op == 1 && n + 1 < sizeof buf) {
        memmove(buf + pos + 1, buf + pos, n - pos);
        buf[pos] = alphabet[rand() % (sizeof alphabet - 1)];
        n++;
      }
      if (op == 2 && n) {
        memmove(buf + pos, buf + pos + 1, n - pos - 1);
        n--;
      }
    }
    tp_error err;
    tp_status st = vis_deck_parse_json(d, buf, n, "deck.json", &err);
    double card[2], carpet[2];
    vis_deck_card_mm(d, card);
    vis_deck_carpet_mm(d, carpet);
    assert_true(card[0] >= 10 && card[1] <= 400 && card[0] <= card[1]);
    assert_true(carpet[0] >= 10 && carpet[1] <= 400);
    if (st) assert_non_null(strstr(err.text, "deck.json"));
  }
  vis_deck_destroy(d);
}

static void test_add_face_rejects_unknown(void **state) {
  (void)state;
  vis_deck *d;
  assert_int_equal(vis_deck_create(&d, NULL), TP_OK);
  tp_image img;
  assert_int_equal(tp_image_alloc(&img, 8, 8, 3), TP_OK);
  tp_error err;
  assert_int_equal(vis_deck_add_face(d, "palace", &img, &err), TP_OK);
  assert_int_not_equal(vis_deck_add_face(d, "pal", &img, &err), TP_OK);
  assert_int_not_equal(vis_deck_add_face(d, "carpet-", &img, &err), TP_OK);
  assert_int_equal(vis_deck_add_face(d, "carpet-red-back", &img, &err), TP_OK);
  tp_image_free(&img);
  vis_deck_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_defaults),
      cmocka_unit_test(test_deck_json_sizes),
      cmocka_unit_test(test_deck_json_corner),
      cmocka_unit_test(test_errors_name_the_file),
      cmocka_unit_test(test_incomplete_decks),
      cmocka_unit_test(test_fuzz_deck_json),
      cmocka_unit_test(test_add_face_rejects_unknown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
