/* Tests of the stateless flight resolution, the --players spec and the
 * rules settings of Fliegende Teppiche. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

#define CARPET(c, p, ...)                                                      \
  {                                                                            \
    c, p, (const int[]){__VA_ARGS__},                                          \
        (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int))                \
  }
#define CARPET_NONE(c, p)                                                      \
  { c, p, NULL, 0 }

static ft_resolution *res_new(void) {
  ft_resolution *r = malloc(sizeof *r);
  assert_non_null(r);
  return r;
}

/* The rules document: P on X and Y, Q on Y only: P takes X, Y contested. */
static void test_claim_and_contest_per_card(void **state) {
  (void)state;
  ft_carpet_on in[] = {CARPET("red", "p", 1, 2), CARPET("blue", "q", 2),
                       CARPET_NONE("green", "r")};
  ft_resolution *r = res_new();
  tp_error err;
  assert_int_equal(ft_resolve(NULL, in, 3, 12, r, &err), TP_OK);
  assert_int_equal(r->n_claims, 1);
  assert_string_equal(r->claims[0].player, "p");
  assert_int_equal(r->claims[0].n_cards, 1);
  assert_int_equal(r->claims[0].cards[0], 1);
  assert_int_equal(r->n_contests, 1);
  assert_int_equal(r->contests[0].card, 2);
  assert_int_equal(r->contests[0].n_players, 2);
  assert_string_equal(r->contests[0].players[0], "p");
  assert_string_equal(r->contests[0].players[1], "q");
  assert_int_equal(r->n_returned, 1);
  assert_string_equal(r->returned[0], "green");
  free(r);
}

/* Stable output: claims sorted by player, cards ascending, contests in
 * layout order with players sorted, returned sorted, whatever the input
 * order; duplicate indices count once. */
static void test_deterministic_order(void **state) {
  (void)state;
  ft_carpet_on a[] = {
      CARPET("yellow", "zoe", 9, 3, 3), CARPET("red", "anna", 7, 5),
      CARPET("blue", "ben", 7, 0),      CARPET("green", "cleo", 5),
      CARPET_NONE("white", "wim"),      CARPET_NONE("black", "bo")};
  ft_carpet_on b[] = {a[5], a[3], a[2], a[4], a[1], a[0]};
  ft_resolution *r1 = res_new(), *r2 = res_new();
  assert_int_equal(ft_resolve(NULL, a, 6, 12, r1, NULL), TP_OK);
  assert_int_equal(ft_resolve(NULL, b, 6, 12, r2, NULL), TP_OK);
  assert_memory_equal(r1, r2, sizeof *r1);
  assert_int_equal(r1->n_claims, 2);
  assert_string_equal(r1->claims[0].player, "ben");
  assert_int_equal(r1->claims[0].cards[0], 0);
  assert_string_equal(r1->claims[1].player, "zoe");
  assert_int_equal(r1->claims[1].n_cards, 2);
  assert_int_equal(r1->claims[1].cards[0], 3);
  assert_int_equal(r1->claims[1].cards[1], 9);
  assert_int_equal(r1->n_contests, 2);
  assert_int_equal(r1->contests[0].card, 5);
  assert_string_equal(r1->contests[0].players[0], "anna");
  assert_string_equal(r1->contests[0].players[1], "cleo");
  assert_int_equal(r1->contests[1].card, 7);
  assert_string_equal(r1->returned[0], "black");
  assert_string_equal(r1->returned[1], "white");
  free(r1);
  free(r2);
}

/* Two carpets of one player on one card: no contest (claim), or with
 * same_player_carpets = void the card stays; with another player it is
 * a contest of two players. */
static void test_same_player_two_carpets(void **state) {
  (void)state;
  ft_carpet_on in[] = {CARPET("red", "anna", 4, 6), CARPET("yellow", "anna", 4),
                       CARPET("blue", "ben", 6), CARPET("green", "ben", 6)};
  ft_resolution *r = res_new();
  assert_int_equal(ft_resolve(NULL, in, 4, 12, r, NULL), TP_OK);
  assert_int_equal(r->n_claims, 1);
  assert_int_equal(r->claims[0].cards[0], 4);
  assert_int_equal(r->n_contests, 1);
  assert_int_equal(r->contests[0].n_players, 2);
  ft_rules rules;
  ft_rules_default(&rules);
  rules.same_player = FT_SAME_PLAYER_VOID;
  assert_int_equal(ft_resolve(&rules, in, 4, 12, r, NULL), TP_OK);
  assert_int_equal(r->n_claims, 0);
  assert_int_equal(r->n_unclaimed, 1);
  assert_int_equal(r->unclaimed[0], 4);
  assert_int_equal(r->n_contests, 1);
  rules.same_player = FT_SAME_PLAYER_CLAIM;
  rules.contest_order = FT_CONTEST_REVERSE_ORDER;
  ft_carpet_on two[] = {CARPET("red", "a", 1, 2), CARPET("blue", "b", 1, 2)};
  assert_int_equal(ft_resolve(&rules, two, 2, 3, r, NULL), TP_OK);
  assert_int_equal(r->contests[0].card, 2);
  assert_int_equal(r->contests[1].card, 1);
  free(r);
}

static void expect_resolve_error(const ft_carpet_on *in, int n, int n_cards,
                                 const char *what) {
  ft_resolution *r = res_new();
  tp_error err = {{0}};
  memset(r, 0x55, sizeof *r);
  assert_int_equal(ft_resolve(NULL, in, n, n_cards, r, &err), TP_ERR_INVALID);
  if (!strstr(err.text, what)) fail_msg("'%s' lacks '%s'", err.text, what);
  assert_int_equal(r->n_claims + r->n_contests + r->n_returned, 0);
  free(r);
}

static void test_resolve_errors(void **state) {
  (void)state;
  ft_carpet_on bad_index[] = {CARPET("red", "a", 12)};
  expect_resolve_error(bad_index, 1, 12,
                       "card 12, but the cards are numbered 0..11");
  ft_carpet_on neg[] = {CARPET("red", "a", -1)};
  expect_resolve_error(neg, 1, 12, "card -1");
  ft_carpet_on twice[] = {CARPET("red", "a", 1), CARPET("red", "b", 2)};
  expect_resolve_error(twice, 2, 12, "carpet 'red' is given twice");
  ft_carpet_on noname[] = {CARPET("red", "", 1)};
  expect_resolve_error(noname, 1, 12, "no colour or no player");
  ft_carpet_on longname[] = {
      CARPET("red", "a-very-long-player-name-beyond-32", 1)};
  expect_resolve_error(longname, 1, 12, "longer than 31");
  expect_resolve_error(NULL, 0, FT_MAX_CARDS + 1, "at most 64");
  ft_carpet_on many[9];
  static const char *const names[] = {"a", "b", "c", "d", "e",
                                      "f", "g", "h", "i"};
  for (int i = 0; i < 9; i++)
    many[i] = (ft_carpet_on){names[i], names[i], NULL, 0};
  expect_resolve_error(many, 9, 4, "more than 8 players");
}

static void test_players_parse(void **state) {
  (void)state;
  ft_players p;
  tp_error err;
  assert_int_equal(ft_players_parse("anna=red+yellow,ben=blue+green", &p, &err),
                   TP_OK);
  assert_int_equal(p.n_players, 2);
  assert_string_equal(p.players[1].name, "ben");
  assert_int_equal(p.players[1].n_carpets, 2);
  assert_string_equal(p.players[1].carpets[1], "green");
  assert_int_equal(ft_players_by_colour(&p, "yellow"), 0);
  assert_int_equal(ft_players_by_colour(&p, "pink"), -1);
  assert_int_equal(ft_players_by_name(&p, "ben"), 1);
  char buf[128];
  assert_int_equal(ft_players_format(&p, buf, sizeof buf), 30);
  assert_string_equal(buf, "anna=red+yellow,ben=blue+green");
  assert_int_equal(ft_players_format(&p, buf, 5), 30);
  assert_string_equal(buf, "anna");
  ft_rules rules;
  ft_rules_default(&rules);
  assert_int_equal(ft_players_check_game(&p, &rules, &err), TP_OK);
  assert_int_equal(ft_players_parse("anna=red,ben=blue,cleo=green", &p, &err),
                   TP_OK);
  assert_int_equal(ft_players_check_game(&p, &rules, &err), TP_OK);
  assert_int_equal(ft_players_parse("anna=red,ben=blue", &p, &err), TP_OK);
  assert_int_equal(ft_players_check_game(&p, &rules, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "with 2 players each player has 2"));
  assert_int_equal(ft_players_parse("J\xc3\xbcrgen=red", &p, &err), TP_OK);
  assert_int_equal(ft_players_check_game(&p, &rules, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "2 to 4 players"));
}

static void expect_players_error(const char *spec, const char *what) {
  ft_players p;
  memset(&p, 0x33, sizeof p);
  ft_players before = p;
  tp_error err = {{0}};
  assert_int_equal(ft_players_parse(spec, &p, &err), TP_ERR_INVALID);
  if (!strstr(err.text, what)) fail_msg("'%s' lacks '%s'", err.text, what);
  assert_memory_equal(&p, &before, sizeof p);
}

static void test_players_errors(void **state) {
  (void)state;
  expect_players_error("", "empty");
  expect_players_error("anna", "'anna' lacks '=COLOUR'");
  expect_players_error("anna=", "empty carpet colour");
  expect_players_error("=red", "empty player name");
  expect_players_error("anna=red,", "empty player name");
  expect_players_error("anna=red+", "empty carpet colour");
  expect_players_error("anna=Red", "carpet colour 'Red' may only use");
  expect_players_error("an na=red", "player name 'an na'");
  expect_players_error("anna=red,anna=blue", "player 'anna' is named twice");
  expect_players_error("anna=red,ben=red", "carpet 'red' is given twice");
  expect_players_error("anna=red+red", "carpet 'red' is given twice");
  expect_players_error("a=1+2+3+4+5", "more than 4 carpets");
  expect_players_error("a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9",
                       "more than 8 players");
  expect_players_error("a=b=c", "carpet colour 'b=c'");
  expect_players_error("anna=red\nben=blue", "control character");
}

static void test_rules_defaults_and_shipped_file(void **state) {
  (void)state;
  ft_rules def, file;
  ft_rules_default(&def);
  assert_int_equal(def.carpets[2], 2);
  assert_int_equal(def.rounds[2], 4);
  assert_int_equal(def.rounds[3], 3);
  assert_int_equal(def.genie_set_size[2][0], 4);
  assert_int_equal(def.genie_sets[2][0][0], 8);
  assert_int_equal(def.genie_sets[4][3][1], 4);
  assert_int_equal(def.palace_fewest, -5);
  assert_int_equal(def.pair_points[2], 7);
  assert_int_equal(def.adventure_sets[4], 15);
  assert_true(def.lamp_needs_real_card);
  assert_false(def.edge_contact_counts);
  const char *src = getenv("TEPPICH_SOURCE_DIR");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/rules/fliegende-teppiche.rules", src);
  tp_error err;
  memset(&file, 0, sizeof file);
  if (ft_rules_load(path, &file, &err) != TP_OK) fail_msg("%s", err.text);
  assert_memory_equal(&def, &file, sizeof def);
}

static void expect_rules_error(const char *text, const char *what) {
  ft_rules r, before;
  ft_rules_default(&r);
  r.treasure = 42; /* a marker: a failed load must not touch *rules */
  before = r;
  tp_error err = {{0}};
  assert_int_not_equal(
      ft_rules_load_text("my.rules", text, strlen(text), &r, &err), TP_OK);
  if (!strstr(err.text, what)) fail_msg("'%s' lacks '%s'", err.text, what);
  assert_memory_equal(&r, &before, sizeof r);
}

static void test_rules_changes_and_errors(void **state) {
  (void)state;
  ft_rules r;
  const char *text = "palace_most = 4\ngenie_swap = after_flight\n"
                     "genies_3p_a = 8, 3, 1\nadventure_sets = 1,2,3,4,5\n"
                     "same_player_carpets = void\ntie = none\n";
  assert_int_equal(ft_rules_load_text("x", text, strlen(text), &r, NULL),
                   TP_OK);
  assert_int_equal(r.palace_most, 4);
  assert_int_equal(r.swap_timing, FT_SWAP_AFTER_FLIGHT);
  assert_int_equal(r.genie_set_size[3][0], 3);
  assert_int_equal(r.adventure_sets[1], 2);
  assert_int_equal(r.same_player, FT_SAME_PLAYER_VOID);
  assert_false(r.shared_win);
  assert_int_equal(r.palace_fewest, -5);
  expect_rules_error("\npalace_mots = 4\n",
                     "my.rules: line 2: unknown key 'palace_mots'");
  expect_rules_error("desert = -5\ndesert = -4\n",
                     "my.rules: line 2: key 'desert' is already set on line 1");
  expect_rules_error("desert = lots\n",
                     "my.rules: line 1: desert = 'lots': expected an integer");
  expect_rules_error("tie = coin\n", "one of shared|none");
  expect_rules_error("adventure_sets = 1, 3, 6\n",
                     "adventure_sets = '1, 3, 6': expected 5 to 5 integers");
  expect_rules_error(
      "# x\ngenies_4p_b = 7, 8\n",
      "my.rules: line 2: genies_4p_b: genie 8 is also in genies_4p_a");
  expect_rules_error("carpets_2p = 0\n", "line 1: carpets_2p = '0'");
  tp_error err;
  assert_int_equal(ft_rules_load("/no/such.rules", &r, &err), TP_ERR_IO);
  assert_non_null(strstr(err.text, "/no/such.rules"));
}

/* What "lies on" means: a depth in tenths of a mm, 0 (any overlap) by
 * default; edge_contact_counts = yes lets touching count. */
static void test_rules_contact_depth(void **state) {
  (void)state;
  ft_rules r;
  ft_rules_default(&r);
  assert_int_equal(r.contact_depth_tenths_mm, 0); /* any overlap */
  assert_true(ft_rules_contact_mm(&r) > 0 && ft_rules_contact_mm(&r) < 1e-3);
  const char *mm = "contact_depth_tenths_mm = 10\n";
  assert_int_equal(ft_rules_load_text("x", mm, strlen(mm), &r, NULL), TP_OK);
  assert_true(ft_rules_contact_mm(&r) == 1.0);
  const char *half = "contact_depth_tenths_mm = 5\n";
  assert_int_equal(ft_rules_load_text("x", half, strlen(half), &r, NULL), TP_OK);
  assert_true(ft_rules_contact_mm(&r) == 0.5);
  const char *any = "contact_depth_tenths_mm = 0\n";
  assert_int_equal(ft_rules_load_text("x", any, strlen(any), &r, NULL), TP_OK);
  assert_true(ft_rules_contact_mm(&r) > 0 && ft_rules_contact_mm(&r) < 1e-3);
  const char *edge = "edge_contact_counts = yes\n";
  assert_int_equal(ft_rules_load_text("x", edge, strlen(edge), &r, NULL), TP_OK);
  assert_true(ft_rules_contact_mm(&r) < 0 && ft_rules_contact_mm(&r) > -1e-3);
  expect_rules_error("contact_depth_tenths_mm = 101\n",
                     "my.rules: line 1: contact_depth_tenths_mm = '101': "
                     "expected an integer in 0..100");
  expect_rules_error("contact_depth_tenths_mm = 1.5\n",
                     "line 1: contact_depth_tenths_mm = '1.5'");
  expect_rules_error("contact_depth_tenths_mm = -1\n",
                     "line 1: contact_depth_tenths_mm = '-1'");
  expect_rules_error("edge_contact_counts = yes\ncontact_depth_tenths_mm = 10\n",
                     "my.rules: line 2: contact_depth_tenths_mm = 10: with "
                     "edge_contact_counts = yes (line 1)");
}

static void test_card_types(void **state) {
  (void)state;
  int total = 0;
  for (int t = 0; t < FT_N_TYPES; t++) {
    total += ft_deck_count((ft_card_type)t);
    assert_int_equal(ft_card_type_parse(ft_card_type_name((ft_card_type)t)), t);
  }
  assert_int_equal(total, FT_DECK_SIZE);
  assert_int_equal(ft_card_type_parse("castle"), -1);
  assert_string_equal(ft_card_type_name(FT_CAMEL_BAZAAR), "camel-bazaar");
}

static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Mutates text in buf (at most cap-1 bytes) a few times. */
static size_t mutate(char *buf, size_t len, size_t cap, uint32_t *seed,
                     const char *alphabet) {
  size_t n_alpha = strlen(alphabet);
  int edits = 1 + (int)(next_rand(seed) % 4);
  for (int e = 0; e < edits && len > 0; e++) {
    uint32_t r = next_rand(seed);
    size_t pos = r % len;
    switch ((r >> 8) % 4) {
    case 0:
      buf[pos] = alphabet[(r >> 12) % n_alpha];
      break;
    case 1:
      buf[pos] = (char)(1 + (r >> 16) % 255);
      break;
    case 2:
      memmove(buf + pos, buf + pos + 1, len - pos - 1);
      len--;
      break;
    case 3:
      if (len + 1 < cap) {
        memmove(buf + pos + 1, buf + pos, len - pos);
        buf[pos] = alphabet[(r >> 12) % n_alpha];
        len++;
      }
      break;
    }
  }
  buf[len] = '\0';
  return len;
}

/* Thousands of mutated --players specs and rules files: a clean result
 * or a one-line error; parsed specs are consistent; never a crash. */
static void test_fuzz_players_and_rules(void **state) {
  (void)state;
  uint32_t seed = 99;
  char buf[512];
  for (int i = 0; i < 5000; i++) {
    strcpy(buf, "anna=red+yellow,ben=blue+green,cleo=white");
    mutate(buf, strlen(buf), sizeof buf, &seed, "=+,abcdeRED-_ ");
    ft_players p;
    tp_error err = {{0}};
    if (ft_players_parse(buf, &p, &err) == TP_OK) {
      char back[512];
      ft_players_format(&p, back, sizeof back);
      assert_string_equal(back, buf);
      for (int k = 0; k < p.n_players; k++)
        assert_int_equal(ft_players_by_name(&p, p.players[k].name), k);
    } else {
      assert_non_null(strstr(err.text, "--players"));
      assert_null(strchr(err.text, '\n'));
    }
  }
  const char *base = "palace_most = 5\ngenies_4p_a = 8, 1\ntie = shared\n"
                     "adventure_sets = 1, 3, 6, 10, 15 # x\n";
  for (int i = 0; i < 5000; i++) {
    strcpy(buf, base);
    size_t len = mutate(buf, strlen(buf), sizeof buf, &seed,
                        "=,#\n -0123456789abcdefghijklmnopqrstuvwxyz_");
    ft_rules r;
    tp_error err = {{0}};
    if (ft_rules_load_text("fz.rules", buf, len, &r, &err) == TP_OK) {
      assert_true(r.genie_set_size[4][0] >= 1);
      assert_true(r.rounds[2] >= 1);
    } else {
      assert_int_equal(strncmp(err.text, "fz.rules: ", 10), 0);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_claim_and_contest_per_card),
      cmocka_unit_test(test_deterministic_order),
      cmocka_unit_test(test_same_player_two_carpets),
      cmocka_unit_test(test_resolve_errors),
      cmocka_unit_test(test_players_parse),
      cmocka_unit_test(test_players_errors),
      cmocka_unit_test(test_rules_defaults_and_shipped_file),
      cmocka_unit_test(test_rules_changes_and_errors),
      cmocka_unit_test(test_rules_contact_depth),
      cmocka_unit_test(test_card_types),
      cmocka_unit_test(test_fuzz_players_and_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
