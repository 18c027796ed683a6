/* Property tests: whole random games of 2, 3 and 4 players, checked after
 * every move (card and genie conservation), scores recomputed from the
 * final collections by an independent simple scorer, and every game's
 * transcript replayed to the same result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "random_game.h"

static void check_conservation(const ft_game *g, void *user) {
  (void)user;
  int n = ft_game_players(g)->n_players, total = ft_game_deck_left(g);
  int counts[FT_N_TYPES], per_type[FT_N_TYPES] = {0};
  ft_card table[FT_MAX_CARDS];
  int n_table = ft_game_table(g, table);
  total += n_table;
  for (int i = 0; i < n_table; i++)
    per_type[table[i].type]++;
  total += ft_game_removed(g, counts);
  for (int t = 0; t < FT_N_TYPES; t++)
    per_type[t] += counts[t];
  for (int p = 0; p < n; p++) {
    total += ft_game_collection(g, p, counts);
    for (int t = 0; t < FT_N_TYPES; t++)
      per_type[t] += counts[t];
  }
  assert_int_equal(total, FT_DECK_SIZE);
  for (int t = 0; t < FT_N_TYPES; t++)
    assert_true(per_type[t] <= ft_deck_count((ft_card_type)t));
  /* genies: exactly the values of the sets for n players, each once */
  const ft_rules *r = ft_game_rules(g);
  int want[100] = {0}, have[100] = {0};
  for (int s = 0; s < n; s++)
    for (int i = 0; i < r->genie_set_size[n][s]; i++)
      want[r->genie_sets[n][s][i]]++;
  for (int p = 0; p < n; p++) {
    ft_hand h = ft_game_genies(g, p);
    assert_int_equal(h.n, r->genie_set_size[n][0]);
    for (int i = 0; i < h.n; i++)
      have[h.values[i]]++;
  }
  assert_memory_equal(want, have, sizeof want);
}

/* A scorer written from the rules text, without lamps. */
static int simple_score(const int c[FT_N_TYPES]) {
  int points = c[FT_SPICE_BAZAAR] / 2 * 5 + c[FT_CARPET_BAZAAR] / 2 * 6 +
               c[FT_CAMEL_BAZAAR] / 2 * 7 + 3 * c[FT_TREASURE] -
               5 * c[FT_DESERT];
  static const int table[6] = {0, 1, 3, 6, 10, 15};
  int left[5];
  for (int k = 0; k < 5; k++)
    left[k] = c[FT_ADVENTURE_A + k];
  for (;;) {
    int kinds = 0;
    for (int k = 0; k < 5; k++)
      kinds += left[k] > 0, left[k] -= left[k] > 0;
    if (!kinds) break;
    points += table[kinds];
  }
  return points;
}

static void check_final(const ft_game *g) {
  ft_final f;
  assert_int_equal(ft_game_final(g, &f, NULL), TP_OK);
  int best = -1000;
  for (int p = 0; p < f.n_players; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(g, p, counts);
    assert_int_equal(counts[FT_PALACE], 0); /* palaces all left */
    const ft_score *s = &f.scores[p];
    assert_int_equal(s->palace_points, ft_game_palace_points(g, p));
    int base = simple_score(counts) + s->palace_points;
    if (counts[FT_LAMP] == 0) assert_int_equal(s->total, base);
    /* a lamp is worth 0..7 points (a camel pair at most) */
    assert_true(s->total >= base && s->total <= base + 7 * counts[FT_LAMP]);
    assert_int_equal(s->lamps, counts[FT_LAMP]);
    assert_int_equal(s->bazaar_points + s->adventure_points +
                         s->treasure_points + s->desert_points +
                         s->palace_points,
                     s->total);
    if (s->total > best) best = s->total;
  }
  for (int p = 0; p < f.n_players; p++)
    assert_int_equal(f.winner[p], f.scores[p].total == best);
}

static void replay_matches(const ft_game *g, const rg_text *t) {
  ft_transcript *tr;
  tp_error err;
  assert_int_equal(
      ft_transcript_open(NULL, "mem", t->text, t->len, 0, &tr, &err), TP_OK);
  ft_event ev;
  int finals = 0;
  do {
    if (ft_transcript_next(tr, &ev, &err) != TP_OK) fail_msg("%s", err.text);
    finals += ev.kind == FT_EV_FINAL;
  } while (ev.kind != FT_EV_END);
  assert_int_equal(finals, 1);
  ft_final a, b;
  ft_game_final(g, &a, NULL);
  ft_game_final(ft_transcript_game(tr), &b, NULL);
  assert_memory_equal(&a, &b, sizeof a);
  assert_int_equal(ft_transcript_good_bytes(tr), t->len);
  ft_transcript_close(tr);
}

static void test_random_games(void **state) {
  (void)state;
  static const char *const specs[] = {
      "anna=red+yellow,ben=blue+green", "anna=red,ben=blue,cleo=green",
      "anna=red,ben=blue,cleo=green,dirk=white"};
  ft_rules r;
  ft_rules_default(&r);
  for (uint64_t seed = 1; seed <= 240; seed++) {
    ft_players p;
    ft_players_parse(specs[seed % 3], &p, NULL);
    rg_text t = {.text = NULL};
    ft_game *g = rg_play(seed, &p, &r, &t, check_conservation, NULL);
    assert_int_equal(ft_game_phase(g), FT_PHASE_OVER);
    assert_int_equal(ft_game_round(g), r.rounds[p.n_players] + 1);
    check_final(g);
    replay_matches(g, &t);
    ft_game_destroy(g);
    free(t.text);
  }
}

/* Same under changed rules: deferred swaps, leftovers back in the deck,
 * a void for two carpets of one player, grouped throws. */
static void test_random_games_other_rules(void **state) {
  (void)state;
  ft_rules r;
  ft_rules_default(&r);
  r.swap_timing = FT_SWAP_AFTER_FLIGHT;
  r.leftovers_removed = false;
  r.same_player = FT_SAME_PLAYER_VOID;
  r.throw_order = FT_THROW_GROUPED;
  r.rounds[2] = 3;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    ft_players p;
    ft_players_parse(seed % 2 ? "a=red+yellow,b=blue+green"
                              : "a=red,b=blue,c=green",
                     &p, NULL);
    rg_text t = {.text = NULL};
    ft_game *g = rg_play(seed, &p, &r, &t, check_conservation, NULL);
    assert_int_equal(ft_game_phase(g), FT_PHASE_OVER);
    ft_transcript *tr;
    assert_int_equal(ft_transcript_open(&r, "mem", t.text, t.len, 0, &tr, NULL),
                     TP_OK);
    ft_event ev;
    do
      assert_int_equal(ft_transcript_next(tr, &ev, NULL), TP_OK);
    while (ev.kind != FT_EV_END);
    assert_true(ft_game_equal(g, ft_transcript_game(tr)));
    ft_transcript_close(tr);
    ft_game_destroy(g);
    free(t.text);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_games),
      cmocka_unit_test(test_random_games_other_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
