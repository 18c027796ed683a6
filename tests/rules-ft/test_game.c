/* Tests of the whole-game rules of Fliegende Teppiche: one test (or more)
 * per rule of the rules document, its worked examples and edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

#define IDS(...)                                                               \
  (const int[]){__VA_ARGS__},                                                  \
      (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int))
#define LAND(colour, ...)                                                      \
  { colour, IDS(__VA_ARGS__) }
#define LAND_NONE(colour)                                                      \
  { colour, NULL, 0 }

static ft_game *new_game(const char *spec, const ft_rules *rules, int first) {
  ft_players p;
  tp_error err;
  if (ft_players_parse(spec, &p, &err) != TP_OK) fail_msg("%s", err.text);
  ft_game *g;
  if (ft_game_create(rules, &p, first, &g, &err) != TP_OK)
    fail_msg("%s", err.text);
  return g;
}

/* Hands in seat order, e.g. {{2,{8,3}},{2,{7,4}},{2,{6,5}}}. */
static void give(ft_game *g, const ft_hand *hands) {
  ft_hand h[FT_MAX_PLAYERS];
  memset(h, 0, sizeof h);
  memcpy(h, hands, (size_t)ft_game_players(g)->n_players * sizeof *h);
  tp_error err;
  if (ft_game_set_genies(g, h, &err) != TP_OK) fail_msg("%s", err.text);
}

/* Lays out cards with ids first, first+1, ... of the given types. */
static void lay(ft_game *g, int first, const ft_card_type *types, int n) {
  ft_card cards[FT_MAX_CARDS];
  for (int i = 0; i < n; i++)
    cards[i] = (ft_card){first + i, types[i], false, 0, 0};
  tp_error err;
  if (ft_game_layout(g, cards, n, &err) != TP_OK) fail_msg("%s", err.text);
}

/* 12 cards: ids first..first+11: palace x4, desert x2, lamp, treasure,
 * spice, camel, adventure-a, adventure-b. */
static const ft_card_type mixed12[12] = {
    FT_PALACE,       FT_PALACE,       FT_PALACE,      FT_PALACE,
    FT_DESERT,       FT_DESERT,       FT_LAMP,        FT_TREASURE,
    FT_SPICE_BAZAAR, FT_CAMEL_BAZAAR, FT_ADVENTURE_A, FT_ADVENTURE_B};

static void fly(ft_game *g, const ft_landing *ls, int n,
                ft_flight_report *rep) {
  tp_error err;
  if (ft_game_flight(g, ls, n, rep, &err) != TP_OK) fail_msg("%s", err.text);
}

static void reveal(ft_game *g, int card, const int *genies,
                   ft_contest_result *r) {
  int gs[FT_MAX_PLAYERS] = {0};
  memcpy(gs, genies, (size_t)ft_game_players(g)->n_players * sizeof(int));
  tp_error err;
  if (ft_game_reveal(g, card, gs, r, &err) != TP_OK) fail_msg("%s", err.text);
}

static bool hand_is(ft_hand h, int n, const int *values) {
  if (h.n != n) return false;
  for (int i = 0; i < n; i++)
    if (h.values[i] != values[i]) return false;
  return true;
}

/* A rejected move: the status, a message with `what`, and no change. */
#define EXPECT_REJECTED(g, call, what)                                         \
  do {                                                                         \
    ft_game *before_ = ft_game_clone(g);                                       \
    tp_error err_ = {{0}};                                                     \
    tp_error *err = &err_;                                                     \
    tp_status st_ = (call);                                                    \
    assert_int_not_equal(st_, TP_OK);                                          \
    if (!strstr(err_.text, what))                                              \
      fail_msg("'%s' lacks '%s'", err_.text, what);                            \
    assert_true(ft_game_equal(g, before_));                                    \
    ft_game_destroy(before_);                                                  \
  } while (0)

/* ---- setup ---- */

static void test_setup_players_and_rounds(void **state) {
  (void)state;
  ft_players p;
  ft_game *g;
  tp_error err;
  ft_players_parse("anna=red,ben=blue", &p, &err);
  assert_int_equal(ft_game_create(NULL, &p, 0, &g, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "each player has 2"));
  ft_players_parse("a=1,b=2,c=3,d=4,e=5", &p, &err);
  assert_int_equal(ft_game_create(NULL, &p, 0, &g, &err), TP_ERR_INVALID);
  g = new_game("anna=red+yellow,ben=blue+green", NULL, 1);
  assert_int_equal(ft_game_rounds(g), 4);
  assert_int_equal(ft_game_layer(g), 1);
  assert_int_equal(ft_game_phase(g), FT_PHASE_GENIES);
  ft_game_destroy(g);
  g = new_game("a=red,b=blue,c=green", NULL, 0);
  assert_int_equal(ft_game_rounds(g), 3);
  ft_game_destroy(g);
  g = new_game("a=red,b=blue,c=green,d=white", NULL, 3);
  assert_int_equal(ft_game_rounds(g), 4);
  ft_game_destroy(g);
  ft_game_destroy(NULL);
}

static void test_genie_deal_is_seeded_and_complete(void **state) {
  (void)state;
  bool seen_first[2] = {false, false};
  for (uint64_t seed = 0; seed < 40; seed++) {
    ft_game *g = new_game("a=red,b=blue,c=green,d=white", NULL, 0);
    ft_game *h = new_game("a=red,b=blue,c=green,d=white", NULL, 0);
    ft_rng r1, r2;
    ft_rng_seed(&r1, seed);
    ft_rng_seed(&r2, seed);
    ft_hand hands[FT_MAX_PLAYERS];
    assert_int_equal(ft_game_deal_genies(g, &r1, hands, NULL), TP_OK);
    assert_int_equal(ft_game_deal_genies(h, &r2, NULL, NULL), TP_OK);
    assert_true(ft_game_equal(g, h));
    int all = 0;
    for (int p = 0; p < 4; p++) {
      assert_int_equal(hands[p].n, 2);
      assert_true(hand_is(ft_game_genies(g, p), 2, hands[p].values));
      assert_int_equal(hands[p].values[0] + hands[p].values[1], 9);
      all |= 1 << hands[p].values[0] | 1 << hands[p].values[1];
    }
    assert_int_equal(all, 0x1FE); /* 1..8 each once */
    seen_first[hands[0].values[0] == 8] = true;
    assert_int_equal(ft_game_phase(g), FT_PHASE_LAYOUT);
    ft_game_destroy(g);
    ft_game_destroy(h);
  }
  assert_true(seen_first[0] && seen_first[1]); /* really random */
  ft_game *g = new_game("a=red,b=blue,c=green", NULL, 0);
  ft_rng rng;
  ft_rng_seed(&rng, 1);
  ft_game_deal_genies(g, &rng, NULL, NULL);
  int total = 0;
  for (int p = 0; p < 3; p++) {
    ft_hand h = ft_game_genies(g, p);
    for (int i = 0; i < h.n; i++) {
      assert_true(h.values[i] >= 3); /* 1 and 2 are not used with 3 */
      total += h.values[i];
    }
  }
  assert_int_equal(total, 3 + 4 + 5 + 6 + 7 + 8);
  ft_game_destroy(g);
}

static void test_set_genies_validated(void **state) {
  (void)state;
  ft_game *g = new_game("a=red+pink,b=blue+green", NULL, 0);
  ft_hand wrong[FT_MAX_PLAYERS] = {{4, {8, 5, 4, 2}}, {4, {7, 6, 3, 1}}};
  EXPECT_REJECTED(g, ft_game_set_genies(g, wrong, err), "genies of a");
  ft_hand twice[FT_MAX_PLAYERS] = {{4, {8, 5, 4, 1}}, {4, {1, 4, 5, 8}}};
  EXPECT_REJECTED(g, ft_game_set_genies(g, twice, err), "genies of b");
  ft_hand ok[FT_MAX_PLAYERS] = {{4, {3, 7, 2, 6}}, {4, {1, 4, 5, 8}}};
  assert_int_equal(ft_game_set_genies(g, ok, NULL), TP_OK);
  assert_true(hand_is(ft_game_genies(g, 0), 4, (int[]){7, 6, 3, 2}));
  EXPECT_REJECTED(g, ft_game_set_genies(g, ok, err), "not possible now");
  ft_game_destroy(g);
}

/* ---- throw order ---- */

static void test_throw_order(void **state) {
  (void)state;
  const char *c[FT_MAX_CARPETS];
  ft_game *g = new_game("a=red,b=blue,c=green", NULL, 1);
  assert_int_equal(ft_game_throw_order(g, c), 3);
  assert_string_equal(c[0], "green"); /* left of the layer b first */
  assert_string_equal(c[1], "red");
  assert_string_equal(c[2], "blue"); /* the layer last */
  ft_game_destroy(g);
  g = new_game("a=red+yellow,b=blue+green", NULL, 0);
  assert_int_equal(ft_game_throw_order(g, c), 4);
  assert_string_equal(c[0], "blue");
  assert_string_equal(c[1], "red");
  assert_string_equal(c[2], "green");
  assert_string_equal(c[3], "yellow");
  ft_game_destroy(g);
  ft_rules r;
  ft_rules_default(&r);
  r.throw_order = FT_THROW_GROUPED;
  g = new_game("a=red+yellow,b=blue+green", &r, 0);
  ft_game_throw_order(g, c);
  assert_string_equal(c[0], "blue");
  assert_string_equal(c[1], "green");
  assert_string_equal(c[2], "red");
  ft_game_destroy(g);
}

/* ---- layout ---- */

static void test_layout_validated(void **state) {
  (void)state;
  ft_game *g = new_game("a=red,b=blue,c=green", NULL, 0);
  ft_card cards[13];
  for (int i = 0; i < 13; i++)
    cards[i] = (ft_card){i, mixed12[i % 12], false, 0, 0};
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 12, err),
                  "waits for the genies to be dealt");
  give(g, (ft_hand[]){{2, {8, 3}}, {2, {7, 4}}, {2, {6, 5}}});
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 11, err),
                  "has 11 cards, expected 12");
  cards[5].id = 3;
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 12, err),
                  "card 3 is already in the game");
  cards[5].id = 5;
  for (int i = 0; i < 12; i++)
    cards[i].type = FT_TREASURE;
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 12, err),
                  "only 3 treasure cards");
  cards[0].type = (ft_card_type)99;
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 12, err), "bad id or type");
  for (int i = 0; i < 12; i++)
    cards[i].type = mixed12[i];
  assert_int_equal(ft_game_layout(g, cards, 12, NULL), TP_OK);
  assert_int_equal(ft_game_deck_left(g), 40);
  ft_card table[FT_MAX_CARDS];
  assert_int_equal(ft_game_table(g, table), 12);
  assert_int_equal(table[6].type, FT_LAMP);
  ft_game_destroy(g);
}

/* ---- flights and claims ---- */

static ft_game *three_player_game(const ft_rules *rules) {
  ft_game *g = new_game("p1=red,p2=blue,p3=green", rules, 0);
  give(g, (ft_hand[]){{2, {7, 4}}, {2, {8, 3}}, {2, {6, 5}}});
  lay(g, 100, mixed12, 12);
  return g;
}

static void test_claims(void **state) {
  (void)state;
  ft_rules r;
  ft_rules_default(&r);
  ft_game *g = new_game("p1=red,p2=blue,p3=green", &r, 0);
  give(g, (ft_hand[]){{2, {8, 3}}, {2, {7, 4}}, {2, {6, 5}}});
  lay(g, 100, mixed12, 12);
  ft_flight_report rep;
  /* p1 on a palace and a desert (takes both, wanted or not); p2 on
   * nothing; p3 on a treasure. */
  ft_landing ls[] = {LAND("red", 100, 104), LAND_NONE("blue"),
                     LAND("green", 107)};
  fly(g, ls, 3, &rep);
  assert_int_equal(rep.n_claimed[0], 2);
  assert_int_equal(rep.claimed[0][1], 104);
  assert_int_equal(rep.n_claimed[1], 0);
  assert_int_equal(rep.n_claimed[2], 1);
  assert_int_equal(rep.n_returned, 1);
  assert_string_equal(rep.returned[0], "blue");
  assert_int_equal(rep.n_contests, 0);
  int counts[FT_N_TYPES];
  assert_int_equal(ft_game_collection(g, 0, counts), 2);
  assert_int_equal(counts[FT_PALACE], 1);
  assert_int_equal(counts[FT_DESERT], 1);
  assert_int_equal(ft_game_phase(g), FT_PHASE_FLIGHT); /* 9 cards left */
  assert_int_equal(ft_game_flight_number(g), 2);
  /* carpets may be left out: they lay on nothing */
  ft_landing one[] = {LAND("blue", 101)};
  fly(g, one, 1, &rep);
  assert_int_equal(rep.n_claimed[1], 1);
  assert_int_equal(rep.n_returned, 0);
  ft_game_destroy(g);
}

static void test_flight_validated(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  ft_landing unknown[] = {LAND("pink", 100)};
  EXPECT_REJECTED(g, ft_game_flight(g, unknown, 1, &rep, err),
                  "carpet 'pink' does not exist");
  ft_landing off[] = {LAND("red", 100), LAND("blue", 55)};
  EXPECT_REJECTED(g, ft_game_flight(g, off, 2, &rep, err),
                  "card 55, which is not on the table");
  ft_landing twice[] = {LAND("red", 100), LAND("red", 101)};
  EXPECT_REJECTED(g, ft_game_flight(g, twice, 2, &rep, err), "landed twice");
  ft_landing ok[] = {LAND("red", 100)};
  fly(g, ok, 1, &rep);
  ft_landing gone[] = {LAND("blue", 100)}; /* claimed: not on the table */
  EXPECT_REJECTED(g, ft_game_flight(g, gone, 1, &rep, err),
                  "card 100, which is not");
  int genies[FT_MAX_PLAYERS] = {8};
  EXPECT_REJECTED(g, ft_game_reveal(g, 100, genies, NULL, err),
                  "card 100 was already settled");
  EXPECT_REJECTED(g, ft_game_reveal(g, 101, genies, NULL, err),
                  "not possible now");
  int lamps[FT_MAX_PLAYERS] = {0};
  EXPECT_REJECTED(g, ft_game_round_end(g, lamps, NULL, err),
                  "waits for flight 2 of round 1");
  ft_final fin;
  assert_int_equal(ft_game_final(g, &fin, NULL), TP_ERR_UNSUPPORTED);
  ft_game_destroy(g);
}

/* P on X and Y, Q on Y: P takes X now, Y is contested. */
static void test_contest_per_card(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  ft_landing ls[] = {LAND("red", 100, 101), LAND("blue", 101)};
  fly(g, ls, 2, &rep);
  assert_int_equal(rep.n_claimed[0], 1);
  assert_int_equal(rep.claimed[0][0], 100);
  assert_int_equal(rep.n_contests, 1);
  assert_int_equal(rep.contests[0].card, 101);
  assert_int_equal(ft_game_phase(g), FT_PHASE_CONTEST);
  ft_game_contest c;
  assert_true(ft_game_next_contest(g, &c));
  assert_int_equal(c.n_players, 2);
  ft_game_destroy(g);
}

/* The rules document's worked example: 7 (P1), 3 (P2), 5 (P3) on a
 * palace: P1 wins it and now holds 3; P2 holds 7; P3 keeps 5. */
static void test_worked_example_contest(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  ft_landing ls[] = {LAND("red", 100), LAND("blue", 100), LAND("green", 100)};
  fly(g, ls, 3, &rep);
  assert_int_equal(rep.contests[0].n_players, 3);
  ft_contest_result r;
  reveal(g, 100, (int[]){7, 3, 5}, &r);
  assert_int_equal(r.winner, 0);
  assert_int_equal(r.lowest, 1);
  assert_true(hand_is(ft_game_genies(g, 0), 2, (int[]){4, 3}));
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){8, 7}));
  assert_true(hand_is(ft_game_genies(g, 2), 2, (int[]){6, 5}));
  int counts[FT_N_TYPES];
  ft_game_collection(g, 0, counts);
  assert_int_equal(counts[FT_PALACE], 1);
  assert_int_equal(ft_game_phase(g), FT_PHASE_FLIGHT);
  ft_game_destroy(g);
}

static void test_reveal_validated(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  ft_landing ls[] = {LAND("red", 100, 102), LAND("blue", 100),
                     LAND("green", 102)};
  fly(g, ls, 3, &rep);
  int held_not[FT_MAX_PLAYERS] = {6, 4};
  EXPECT_REJECTED(g, ft_game_reveal(g, 100, held_not, NULL, err),
                  "p1 does not hold genie 6");
  int missing[FT_MAX_PLAYERS] = {7, 0};
  EXPECT_REJECTED(g, ft_game_reveal(g, 100, missing, NULL, err),
                  "p2 does not hold genie 0");
  int extra[FT_MAX_PLAYERS] = {7, 3, 6};
  EXPECT_REJECTED(g, ft_game_reveal(g, 100, extra, NULL, err),
                  "p3 is not in the contest");
  int later[FT_MAX_PLAYERS] = {7, 0, 6};
  EXPECT_REJECTED(g, ft_game_reveal(g, 102, later, NULL, err),
                  "next contest is for card 100");
  EXPECT_REJECTED(g, ft_game_reveal(g, 105, later, NULL, err), "not card 105");
  reveal(g, 100, (int[]){7, 3, 0}, NULL);
  int again[FT_MAX_PLAYERS] = {4, 8};
  EXPECT_REJECTED(g, ft_game_reveal(g, 100, again, NULL, err),
                  "card 100 was already settled");
  ft_landing any[] = {LAND("red", 101)};
  EXPECT_REJECTED(g, ft_game_flight(g, any, 1, &rep, err),
                  "waits for the genies of the contest for card 102");
  ft_game_destroy(g);
}

/* Several contests in one flight: layout order; swaps count at once, so
 * the winner of the first may play the genie they just got. */
static void test_contests_in_layout_order_swap_at_once(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  ft_landing ls[] = {LAND("red", 105, 101), LAND("blue", 101, 105)};
  fly(g, ls, 2, &rep);
  assert_int_equal(rep.n_contests, 2);
  assert_int_equal(rep.contests[0].card, 101);
  assert_int_equal(rep.contests[1].card, 105);
  reveal(g, 101, (int[]){7, 3, 0}, NULL);
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){8, 7}));
  reveal(g, 105, (int[]){3, 8, 0}, NULL); /* p1 plays the 3 just received */
  assert_true(hand_is(ft_game_genies(g, 0), 2, (int[]){8, 4}));
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){7, 3}));
  int c0[FT_N_TYPES], c1[FT_N_TYPES];
  ft_game_collection(g, 0, c0);
  ft_game_collection(g, 1, c1);
  assert_int_equal(c0[FT_PALACE], 1);
  assert_int_equal(c1[FT_DESERT], 1);
  ft_game_destroy(g);
  /* genie_swap = after_flight: the swapped genie is not yet playable */
  ft_rules r;
  ft_rules_default(&r);
  r.swap_timing = FT_SWAP_AFTER_FLIGHT;
  g = three_player_game(&r);
  fly(g, ls, 2, &rep);
  ft_contest_result res;
  reveal(g, 101, (int[]){7, 3, 0}, &res);
  assert_true(res.swap_deferred);
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){8, 3}));
  int swapped[FT_MAX_PLAYERS] = {3, 8};
  EXPECT_REJECTED(g, ft_game_reveal(g, 105, swapped, NULL, err),
                  "does not hold genie");
  reveal(g, 105, (int[]){4, 8, 0}, NULL);
  /* at the end: p1 7<->3 with p2, then p2 8<->4 with p1 */
  assert_true(hand_is(ft_game_genies(g, 0), 2, (int[]){8, 3}));
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){7, 4}));
  ft_game_destroy(g);
  /* after_flight, one genie wins twice: the second swap is void */
  g = three_player_game(&r);
  ft_landing both[] = {LAND("red", 101, 105), LAND("blue", 101),
                       LAND("green", 105)};
  fly(g, both, 3, &rep);
  reveal(g, 101, (int[]){7, 3, 0}, NULL);
  reveal(g, 105, (int[]){7, 0, 5}, NULL);
  assert_true(hand_is(ft_game_genies(g, 0), 2, (int[]){4, 3}));
  assert_true(hand_is(ft_game_genies(g, 1), 2, (int[]){8, 7}));
  assert_true(hand_is(ft_game_genies(g, 2), 2, (int[]){6, 5}));
  ft_game_destroy(g);
  /* contest_order = reverse */
  ft_rules_default(&r);
  r.contest_order = FT_CONTEST_REVERSE_ORDER;
  g = three_player_game(&r);
  fly(g, ls, 2, &rep);
  assert_int_equal(rep.contests[0].card, 105);
  ft_game_destroy(g);
}

/* Two carpets of one player on one card: no contest. */
static void test_same_player_two_carpets_in_game(void **state) {
  (void)state;
  ft_game *g = new_game("a=red+yellow,b=blue+green", NULL, 0);
  give(g, (ft_hand[]){{4, {8, 5, 4, 1}}, {4, {7, 6, 3, 2}}});
  lay(g, 1, mixed12, 12);
  ft_flight_report rep;
  ft_landing ls[] = {LAND("red", 1), LAND("yellow", 1, 2), LAND("blue", 2)};
  fly(g, ls, 3, &rep);
  assert_int_equal(rep.n_claimed[0], 1);
  assert_int_equal(rep.n_contests, 1);
  assert_int_equal(rep.contests[0].card, 2);
  ft_game_destroy(g);
}

/* ---- end of flight ---- */

static void test_end_of_flight(void **state) {
  (void)state;
  ft_game *g = three_player_game(NULL);
  ft_flight_report rep;
  /* 12 - 8 = 4 left (not all deserts): fly again */
  ft_landing a[] = {LAND("red", 100, 101, 102), LAND("blue", 103, 106, 107),
                    LAND("green", 108, 109)};
  fly(g, a, 3, &rep);
  assert_int_equal(ft_game_phase(g), FT_PHASE_FLIGHT);
  /* 3 left: round over */
  ft_landing b[] = {LAND("red", 110)};
  fly(g, b, 1, &rep);
  assert_int_equal(ft_game_phase(g), FT_PHASE_LAMPS);
  ft_game_destroy(g);
  /* 4 or more left, all deserts: round over */
  static const ft_card_type deserty[12] = {
      FT_DESERT, FT_PALACE, FT_DESERT, FT_PALACE, FT_DESERT, FT_PALACE,
      FT_DESERT, FT_PALACE, FT_PALACE, FT_PALACE, FT_PALACE, FT_PALACE};
  g = new_game("p1=red,p2=blue,p3=green", NULL, 0);
  give(g, (ft_hand[]){{2, {8, 3}}, {2, {7, 4}}, {2, {6, 5}}});
  lay(g, 1, deserty, 12);
  ft_landing c[] = {LAND("red", 2, 4, 6), LAND("blue", 8, 9, 10),
                    LAND("green", 11, 12)};
  fly(g, c, 3, &rep);
  assert_int_equal(ft_game_phase(g), FT_PHASE_LAMPS);
  ft_game_destroy(g);
  /* with stop_if_only_deserts = no they fly on */
  ft_rules r;
  ft_rules_default(&r);
  r.stop_if_only_deserts = false;
  g = new_game("p1=red,p2=blue,p3=green", &r, 0);
  give(g, (ft_hand[]){{2, {8, 3}}, {2, {7, 4}}, {2, {6, 5}}});
  lay(g, 1, deserty, 12);
  fly(g, c, 3, &rep);
  assert_int_equal(ft_game_phase(g), FT_PHASE_FLIGHT);
  ft_game_destroy(g);
}

/* ---- palace comparison ---- */

/* Plays round 1 of a 3-player game so that p1 has `a` palaces, p2 `b`,
 * p3 `c` (1 <= a + b + c <= 4) and the lamp, p2 treasure and spice, p3
 * camel, adventures A and B and both deserts; the rest (palaces) stays. */
static ft_game *palaces_round(const ft_rules *r, int a, int b, int c) {
  ft_game *g = new_game("p1=red,p2=blue,p3=green", r, 0);
  give(g, (ft_hand[]){{2, {8, 3}}, {2, {7, 4}}, {2, {6, 5}}});
  lay(g, 100, mixed12, 12);
  int ids[3][8], n[3] = {0, 0, 0}, next = 100;
  int want[3] = {a, b, c};
  for (int p = 0; p < 3; p++)
    for (int k = 0; k < want[p]; k++)
      ids[p][n[p]++] = next++;
  ids[0][n[0]++] = 106; /* the lamp */
  ids[1][n[1]++] = 107; /* treasure */
  ids[1][n[1]++] = 108;
  ids[2][n[2]++] = 109;
  ids[2][n[2]++] = 110;
  ids[2][n[2]++] = 111;
  ids[2][n[2]++] = 104; /* both deserts: only unclaimed palaces remain */
  ids[2][n[2]++] = 105;
  ft_landing ls[] = {
      {"red", ids[0], n[0]}, {"blue", ids[1], n[1]}, {"green", ids[2], n[2]}};
  ft_flight_report rep;
  fly(g, ls, 3, &rep);
  assert_int_equal(ft_game_phase(g), FT_PHASE_LAMPS);
  return g;
}

static void round_end(ft_game *g, const int *lamps, ft_round_report *rep) {
  int l[FT_MAX_PLAYERS] = {0};
  memcpy(l, lamps, 3 * sizeof(int));
  tp_error err;
  if (ft_game_round_end(g, l, rep, &err) != TP_OK) fail_msg("%s", err.text);
}

static void test_palace_comparison(void **state) {
  (void)state;
  ft_round_report rep;
  ft_game *g = palaces_round(NULL, 2, 1, 0);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0], 5);
  assert_int_equal(rep.points[1], 0);
  assert_int_equal(rep.points[2], -5);
  assert_int_equal(ft_game_palace_points(g, 0), 5);
  int counts[FT_N_TYPES];
  ft_game_collection(g, 0, counts);
  assert_int_equal(counts[FT_PALACE], 0); /* palaces leave */
  assert_int_equal(counts[FT_LAMP], 1);   /* the unspent lamp stays */
  assert_int_equal(rep.n_leftovers, 1);   /* palace 103 */
  assert_int_equal(rep.leftovers[0], 103);
  assert_int_equal(ft_game_table(g, (ft_card[FT_MAX_CARDS]){0}), 0);
  assert_int_equal(ft_game_round(g), 2);
  assert_int_equal(ft_game_layer(g), 1); /* rotates clockwise */
  assert_int_equal(ft_game_phase(g), FT_PHASE_LAYOUT);
  ft_game_destroy(g);
  /* tie for most: both +5 ; fewest p3 -5 */
  g = palaces_round(NULL, 1, 1, 0);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0], 5);
  assert_int_equal(rep.points[1], 5);
  assert_int_equal(rep.points[2], -5);
  ft_game_destroy(g);
  /* the lamp as a palace breaks the tie, and is spent */
  g = palaces_round(NULL, 1, 1, 0);
  round_end(g, (int[]){1, 0, 0}, &rep);
  assert_int_equal(rep.palaces[0], 2);
  assert_int_equal(rep.points[0], 5);
  assert_int_equal(rep.points[1], 0);
  ft_game_collection(g, 0, counts);
  assert_int_equal(counts[FT_LAMP], 0);
  int removed[FT_N_TYPES];
  ft_game_removed(g, removed);
  assert_int_equal(removed[FT_LAMP], 1);
  ft_game_destroy(g);
  /* all equal: nobody scores */
  g = palaces_round(NULL, 1, 1, 1);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0] | rep.points[1] | rep.points[2], 0);
  ft_game_destroy(g);
  /* all equal with nobody having any (the palaces stay on the table) */
  ft_rules r;
  ft_rules_default(&r);
  r.refly_min_cards = 5;
  g = palaces_round(&r, 0, 0, 0);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0] | rep.points[1] | rep.points[2], 0);
  ft_game_destroy(g);
}

static void test_palace_settings_and_errors(void **state) {
  (void)state;
  ft_rules r;
  ft_rules_default(&r);
  r.palace_ties_all = false;
  r.palace_most = 4;
  ft_round_report rep;
  ft_game *g = palaces_round(&r, 1, 1, 0);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0], 0);
  assert_int_equal(rep.points[2], -5);
  ft_game_destroy(g);
  r.palace_all_equal_scores = true;
  g = palaces_round(&r, 1, 1, 1);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(rep.points[0], 4 - 5);
  ft_game_destroy(g);
  g = palaces_round(NULL, 1, 0, 0);
  int too_many[FT_MAX_PLAYERS] = {2, 0, 0};
  EXPECT_REJECTED(g, ft_game_round_end(g, too_many, NULL, err),
                  "p1 spends 2 lamps as palaces but holds 1");
  int none_held[FT_MAX_PLAYERS] = {0, 1, 0};
  EXPECT_REJECTED(g, ft_game_round_end(g, none_held, NULL, err),
                  "p2 spends 1 lamps");
  ft_game_destroy(g);
  ft_rules_default(&r);
  r.lamps_as_palaces = false;
  g = palaces_round(&r, 1, 0, 0);
  int one[FT_MAX_PLAYERS] = {1, 0, 0};
  EXPECT_REJECTED(g, ft_game_round_end(g, one, NULL, err),
                  "lamps_as_palaces = no");
  ft_game_destroy(g);
}

static void test_leftovers(void **state) {
  (void)state;
  ft_game *g = palaces_round(NULL, 1, 0, 0);
  ft_round_report rep;
  round_end(g, (int[]){0, 0, 0}, &rep);
  int removed[FT_N_TYPES];
  assert_int_equal(ft_game_removed(g, removed), 1 + rep.n_leftovers);
  ft_card again = {rep.leftovers[0], FT_PALACE, false, 0, 0};
  ft_card cards[12];
  for (int i = 0; i < 12; i++)
    cards[i] = (ft_card){200 + i, mixed12[i], false, 0, 0};
  cards[0] = again;
  EXPECT_REJECTED(g, ft_game_layout(g, cards, 12, err), "already in the game");
  ft_game_destroy(g);
  ft_rules r;
  ft_rules_default(&r);
  r.leftovers_removed = false;
  g = palaces_round(&r, 1, 0, 0);
  round_end(g, (int[]){0, 0, 0}, &rep);
  assert_int_equal(ft_game_removed(g, removed), 1);
  assert_int_equal(ft_game_deck_left(g), 40 + rep.n_leftovers);
  cards[0] = (ft_card){rep.leftovers[0], FT_PALACE, false, 0, 0};
  assert_int_equal(ft_game_layout(g, cards, 12, NULL), TP_OK);
  ft_game_destroy(g);
}

/* ---- final scoring ---- */

static int score_of(const ft_rules *r, const int *counts_in) {
  int counts[FT_N_TYPES];
  memcpy(counts, counts_in, sizeof counts);
  ft_score s;
  ft_score_collection(r, counts, &s);
  return s.total;
}

/* index: palace, a, b, c, d, e, spice, carpet, camel, treasure, lamp, desert */
static void test_worked_example_final(void **state) {
  (void)state;
  int c[FT_N_TYPES] = {0, 1, 2, 1, 0, 0, 2, 0, 1, 1, 1, 1};
  ft_score s;
  ft_score_collection(NULL, c, &s);
  assert_int_equal(s.total, 17);
  assert_int_equal(s.lamps_for_bazaar[2], 1); /* the wild camel */
  assert_int_equal(s.lamps_for_desert, 0);
  assert_int_equal(s.bazaar_points, 5 + 7);
  assert_int_equal(s.adventure_points, 6 + 1);
  assert_int_equal(s.n_adventure_sets, 2);
  assert_int_equal(s.adventure_set_sizes[0], 3);
  assert_int_equal(s.treasure_points, 3);
  assert_int_equal(s.desert_points, -5);
}

static void test_adventure_sets_and_bazaars(void **state) {
  (void)state;
  int aabc[FT_N_TYPES] = {0, 2, 1, 1};
  assert_int_equal(score_of(NULL, aabc), 7); /* {A,B,C} 6 + {A} 1 */
  int five[FT_N_TYPES] = {0, 1, 1, 1, 1, 1};
  assert_int_equal(score_of(NULL, five), 15);
  int all3[FT_N_TYPES] = {0, 3, 3, 3, 3, 3};
  assert_int_equal(score_of(NULL, all3), 45);
  int bazaars[FT_N_TYPES] = {
      [FT_SPICE_BAZAAR] = 5, [FT_CARPET_BAZAAR] = 2, [FT_CAMEL_BAZAAR] = 3};
  assert_int_equal(score_of(NULL, bazaars), 2 * 5 + 6 + 7);
  int t[FT_N_TYPES] = {[FT_TREASURE] = 3, [FT_DESERT] = 2, [FT_PALACE] = 4};
  assert_int_equal(score_of(NULL, t), 9 - 10); /* palaces count nothing */
  int empty[FT_N_TYPES] = {0};
  assert_int_equal(score_of(NULL, empty), 0);
}

static void test_lamp_uses(void **state) {
  (void)state;
  ft_score s;
  /* a lamp alone: nothing to complete, no desert: unused, 0 points */
  int lamp[FT_N_TYPES] = {[FT_LAMP] = 1};
  ft_score_collection(NULL, lamp, &s);
  assert_int_equal(s.total, 0);
  assert_int_equal(s.lamps_unused, 1);
  /* two lamps never make a pair */
  int two[FT_N_TYPES] = {[FT_LAMP] = 2};
  assert_int_equal(score_of(NULL, two), 0);
  /* a lamp never splits a real pair: 2 spice + lamp = 1 pair */
  int pair[FT_N_TYPES] = {[FT_SPICE_BAZAAR] = 2, [FT_LAMP] = 1};
  assert_int_equal(score_of(NULL, pair), 5);
  /* cancel a desert (5) beats a wild spice (5)? equal: either is right */
  int d[FT_N_TYPES] = {[FT_SPICE_BAZAAR] = 1, [FT_DESERT] = 1, [FT_LAMP] = 1};
  assert_int_equal(score_of(NULL, d), 0);
  /* wild adventure: {A,B} + lamp = {A,B,L} 6 */
  int adv[FT_N_TYPES] = {
      [FT_ADVENTURE_A] = 1, [FT_ADVENTURE_B] = 1, [FT_LAMP] = 1};
  ft_score_collection(NULL, adv, &s);
  assert_int_equal(s.total, 6);
  assert_int_equal(s.lamps_for_adventure, 1);
  /* with a desert, cancelling it (+5) beats the third kind (+3) */
  adv[FT_DESERT] = 1;
  ft_score_collection(NULL, adv, &s);
  assert_int_equal(s.total, 3);
  assert_int_equal(s.lamps_for_desert, 1);
  /* but a fourth kind (+4 from 6 to 10)... still less than +5; a fifth
   * (+5 from 10 to 15) ties: either is right, the total is the same */
  int adv4[FT_N_TYPES] = {0, 1, 1, 1, 1, 0, [FT_DESERT] = 1, [FT_LAMP] = 1};
  assert_int_equal(score_of(NULL, adv4), 10);
  /* 4 lamps: camel, carpet, desert, adventure: every use at once */
  int many[FT_N_TYPES] = {[FT_CAMEL_BAZAAR] = 1,
                          [FT_CARPET_BAZAAR] = 1,
                          [FT_DESERT] = 1,
                          [FT_ADVENTURE_C] = 1,
                          [FT_LAMP] = 4};
  ft_score_collection(NULL, many, &s);
  assert_int_equal(s.total, 7 + 6 + 0 + 3);
  assert_int_equal(s.lamps_unused, 0);
  /* a lamp joins the largest set: {A,B,C,D}+{A} -> 15 + 1, not 10 + 3 */
  int sets[FT_N_TYPES] = {0, 2, 1, 1, 1, 0, [FT_LAMP] = 1};
  assert_int_equal(score_of(NULL, sets), 16);
  /* rules: no wild lamps at all -> only the desert cancel is left */
  ft_rules r;
  ft_rules_default(&r);
  r.lamp_wild_bazaar = r.lamp_wild_adventure = false;
  int camel[FT_N_TYPES] = {
      [FT_CAMEL_BAZAAR] = 1, [FT_DESERT] = 1, [FT_LAMP] = 1};
  assert_int_equal(score_of(&r, camel), 0);
  r.lamp_cancels_desert = false;
  assert_int_equal(score_of(&r, camel), -5);
  /* lamp_needs_real_card = no: two lamps make a camel pair */
  ft_rules_default(&r);
  r.lamp_needs_real_card = false;
  assert_int_equal(score_of(&r, two), 7);
  assert_int_equal(score_of(&r, lamp), 1); /* a set of its own */
}

static void test_final_winners(void **state) {
  (void)state;
  /* one round only; all have one palace: no palace points */
  ft_rules r;
  ft_rules_default(&r);
  r.rounds[3] = 1;
  ft_game *g = palaces_round(&r, 1, 1, 1);
  round_end(g, (int[]){0, 0, 0}, NULL);
  assert_int_equal(ft_game_phase(g), FT_PHASE_OVER);
  ft_final f;
  assert_int_equal(ft_game_final(g, &f, NULL), TP_OK);
  /* p1: a lamp and nothing to use it on: 0. p2: treasure 3, a spice.
   * p3: camel, {A,B} 3, two deserts -10, no lamp: -7 */
  assert_int_equal(f.scores[0].total, 0);
  assert_int_equal(f.scores[1].total, 3);
  assert_int_equal(f.scores[2].total, -7);
  assert_int_equal(f.n_winners, 1);
  assert_true(f.winner[1]);
  int lamps[FT_MAX_PLAYERS] = {0};
  EXPECT_REJECTED(g, ft_game_round_end(g, lamps, NULL, err),
                  "waits for nothing: the game is over");
  ft_game_destroy(g);
  /* a tie at the top is a shared win... */
  r.treasure = 0;
  g = palaces_round(&r, 1, 1, 1);
  round_end(g, (int[]){0, 0, 0}, NULL);
  ft_game_final(g, &f, NULL);
  assert_int_equal(f.n_winners, 2);
  assert_true(f.winner[0] && f.winner[1] && !f.winner[2]);
  ft_game_destroy(g);
  /* ...or no win with tie = none; palace points count in the total */
  r.shared_win = false;
  g = palaces_round(&r, 1, 1, 0);
  round_end(g, (int[]){0, 0, 0}, NULL);
  ft_game_final(g, &f, NULL);
  assert_int_equal(f.scores[0].palace_points, 5);
  assert_int_equal(f.scores[0].total, 5);
  assert_int_equal(f.scores[1].total, 5);
  assert_int_equal(f.n_winners, 0);
  ft_game_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_setup_players_and_rounds),
      cmocka_unit_test(test_genie_deal_is_seeded_and_complete),
      cmocka_unit_test(test_set_genies_validated),
      cmocka_unit_test(test_throw_order),
      cmocka_unit_test(test_layout_validated),
      cmocka_unit_test(test_claims),
      cmocka_unit_test(test_flight_validated),
      cmocka_unit_test(test_contest_per_card),
      cmocka_unit_test(test_worked_example_contest),
      cmocka_unit_test(test_reveal_validated),
      cmocka_unit_test(test_contests_in_layout_order_swap_at_once),
      cmocka_unit_test(test_same_player_two_carpets_in_game),
      cmocka_unit_test(test_end_of_flight),
      cmocka_unit_test(test_palace_comparison),
      cmocka_unit_test(test_palace_settings_and_errors),
      cmocka_unit_test(test_leftovers),
      cmocka_unit_test(test_worked_example_final),
      cmocka_unit_test(test_adventure_sets_and_bazaars),
      cmocka_unit_test(test_lamp_uses),
      cmocka_unit_test(test_final_winners),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
