/* Randomized whole games: after every turn the invariants of the rules
 * hold (money is conserved, rugs are counted, the market is consistent),
 * and the transcript of each game replays to the same scores. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrakech.h"

static const char *names[4] = {"anna", "ben", "cleo", "dirk"};
static const char *one_colour[4] = {"red", "blue", "green", "yellow"};
static const char *two_colours[2] = {"red+yellow", "blue+green"};

static mk_game *new_game(int players, uint64_t seed, const mk_settings *s) {
  mk_game *g = mk_game_create(s, seed);
  assert_non_null(g);
  const int none[2] = {0, 0};
  for (int i = 0; i < players; i++)
    assert_int_equal(
        mk_game_set_player(g, names[i],
                           players == 2 ? two_colours[i] : one_colour[i], 0,
                           none, true, NULL),
        TP_OK);
  assert_int_equal(mk_game_deal(g, NULL), TP_OK);
  mk_game_next_turn(g);
  return g;
}

typedef struct {
  int placed[MK_MAX_PLAYERS];
  int start_rugs;
  int start_money;
} ledger;

static void check_invariants(const mk_game *g, const ledger *l) {
  int money = 0, in = 0;
  int squares_by_colour[MK_MAX_COLOURS] = {0};
  for (int y = 0; y < MK_SIZE; y++)
    for (int x = 0; x < MK_SIZE; x++) {
      mk_cell c = mk_game_cell(g, x, y);
      if (c.colour >= 0) squares_by_colour[c.colour]++;
    }
  assert_int_equal(mk_game_check_board(g, NULL), TP_OK);
  mk_score s[MK_MAX_PLAYERS];
  mk_game_score(g, s);
  int visible = 0;
  for (int i = 0; i < mk_game_player_count(g); i++) {
    const mk_player *p = mk_game_player(g, i);
    assert_true(p->dirhams >= 0);
    money += p->dirhams;
    in += p->in;
    /* rugs: what is left plus what was placed is what was dealt */
    assert_int_equal(mk_game_rugs_left(p) + l->placed[i], l->start_rugs);
    int squares = 0;
    for (int k = 0; k < p->colour_count; k++) {
      assert_true(p->rugs_left[k] >= 0);
      squares += squares_by_colour[p->colours[k]];
    }
    /* a player's visible squares: at most two per rug laid */
    assert_true(squares <= 2 * l->placed[i]);
    assert_int_equal(s[i].squares, squares);
    assert_int_equal(s[i].total, p->dirhams + squares);
    visible += squares;
  }
  assert_int_equal(money, l->start_money); /* nobody makes or burns money */
  assert_true(visible <= MK_SQUARES);
  assert_true(in >= 1);
  mk_assam a = mk_game_assam(g);
  assert_true(a.x >= 0 && a.x < 7 && a.y >= 0 && a.y < 7);
}

typedef struct {
  char text[1 << 16];
  size_t len;
} buffer;

static void append(buffer *b, const char *line) {
  size_t n = strlen(line);
  assert_true(b->len + n + 2 < sizeof b->text);
  memcpy(b->text + b->len, line, n);
  b->len += n;
  b->text[b->len++] = '\n';
  b->text[b->len] = '\0';
}

static void collect(void *ctx, const char *line) {
  append(ctx, line);
}

static void play_one(int players, uint64_t seed, const mk_settings *s) {
  mk_game *g = new_game(players, seed, s);
  tp_rng rng;
  tp_rng_seed(&rng, seed * 7919);
  const mk_settings *set = mk_game_settings(g);
  ledger l = {
      {0}, set->rugs_per_player[players], players * set->starting_dirhams};
  static buffer transcript, report;
  transcript.len = report.len = 0;
  for (int i = 0; i < players; i++) {
    char line[64];
    snprintf(line, sizeof line, "player %s %s", names[i],
             players == 2 ? two_colours[i] : one_colour[i]);
    append(&transcript, line);
  }
  mk_turn_record t;
  int turns = 0, payments = 0;
  while (mk_game_play_random_turn(g, &rng, &t)) {
    turns++;
    if (t.placed) l.placed[t.player]++;
    assert_true(t.placed || t.payment.eliminated);
    if (t.payment.payer >= 0) {
      payments++;
      assert_int_equal(t.payment.payer, t.player);
      assert_true(t.payment.paid <= t.payment.owed);
      assert_true(t.payment.owed >= 1);
    }
    check_invariants(g, &l);
    char line[256];
    assert_true(mk_transcript_format_turn(g, &t, line, sizeof line) > 0);
    append(&transcript, line);
    assert_true(turns <= 4 * 24 + 4);
  }
  assert_true(mk_game_over(g));
  /* replaying the transcript reaches the same scores */
  tp_error err;
  if (mk_transcript_replay(transcript.text, s, NULL, collect, &report, &err) !=
      TP_OK)
    fail_msg("seed %llu: %s\n%s", (unsigned long long)seed, err.text,
             transcript.text);
  mk_score sc[MK_MAX_PLAYERS];
  mk_game_score(g, sc);
  for (int i = 0; i < players; i++) {
    char line[128];
    snprintf(line, sizeof line, "\n%s %d %d %d\n", names[i], sc[i].dirhams,
             sc[i].squares, sc[i].total);
    if (!strstr(report.text, line))
      fail_msg("seed %llu: replay lacks '%s'", (unsigned long long)seed,
               line + 1);
  }
  assert_non_null(strstr(report.text, "game over after"));
  mk_game_destroy(g);
}

static void test_random_games_keep_the_invariants(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 300; seed++)
    play_one(2 + (int)(seed % 3), seed, NULL);
}

static void test_random_games_with_other_settings(void **state) {
  (void)state;
  mk_settings s;
  mk_settings_default(&s);
  s.cover_own_rug = true;
  s.starting_dirhams = 3; /* many eliminations */
  s.die_faces[0] = 6;
  for (uint64_t seed = 1; seed <= 150; seed++)
    play_one(2 + (int)(seed % 3), seed, &s);
}

static void test_same_seed_same_game(void **state) {
  (void)state;
  for (int players = 2; players <= 4; players++) {
    mk_game *a = new_game(players, 42, NULL), *b = new_game(players, 42, NULL);
    tp_rng ra, rb;
    tp_rng_seed(&ra, 9);
    tp_rng_seed(&rb, 9);
    while (mk_game_play_random_turn(a, &ra, NULL))
      assert_true(mk_game_play_random_turn(b, &rb, NULL));
    assert_false(mk_game_play_random_turn(b, &rb, NULL));
    for (int y = 0; y < 7; y++)
      for (int x = 0; x < 7; x++) {
        assert_int_equal(mk_game_cell(a, x, y).colour,
                         mk_game_cell(b, x, y).colour);
        assert_int_equal(mk_game_cell(a, x, y).rug, mk_game_cell(b, x, y).rug);
      }
    mk_game_destroy(a);
    mk_game_destroy(b);
  }
}

static void test_rng_is_uniform_enough(void **state) {
  (void)state;
  tp_rng r;
  tp_rng_seed(&r, 1);
  int counts[6] = {0};
  for (int i = 0; i < 60000; i++)
    counts[tp_rng_below(&r, 6)]++;
  for (int i = 0; i < 6; i++)
    assert_true(counts[i] > 9000 && counts[i] < 11000);
  assert_int_equal(tp_rng_below(&r, 1), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_games_keep_the_invariants),
      cmocka_unit_test(test_random_games_with_other_settings),
      cmocka_unit_test(test_same_seed_same_game),
      cmocka_unit_test(test_rng_is_uniform_enough),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
