/* A random but plausible game of Fliegende Teppiche, played through the
 * ft_game API, with its transcript written by the ft_transcript writers.
 * Shared by the property tests and the example generator. */
#ifndef TEPPICH_TEST_RANDOM_GAME_H
#define TEPPICH_TEST_RANDOM_GAME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

typedef struct {
  char *text; /* the transcript */
  size_t len, cap;
  char line[8192]; /* the line being written */
} rg_text;

static void rg_append(rg_text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->text = realloc(t->text, t->cap);
  }
  memcpy(t->text + t->len, s, n);
  t->len += n;
  t->text[t->len] = '\0';
}

/* Formats a line into t->line with a writer call, then appends it. */
#define RG_WRITE(t, call) rg_append((t), (t)->line, call)

/* Called after every move; the property test checks invariants there. */
typedef void (*rg_check_fn)(const ft_game *game, void *user);

static void rg_random_landing(ft_rng *rng, const ft_game *g, int *ids, int *n) {
  ft_card table[FT_MAX_CARDS];
  int n_table = ft_game_table(g, table), r = ft_rng_below(rng, 100);
  int want = r < 15 ? 0 : r < 70 ? 1 : r < 95 ? 2 : 3;
  *n = 0;
  for (int k = 0; k < want && n_table > 0; k++) {
    int id = table[ft_rng_below(rng, n_table)].id;
    bool dup = false;
    for (int j = 0; j < *n; j++)
      dup = dup || ids[j] == id;
    if (!dup) ids[(*n)++] = id;
  }
}

static void rg_flight(ft_rng *rng, ft_game *g, rg_text *out) {
  const char *order[FT_MAX_CARPETS];
  int n = ft_game_throw_order(g, order);
  int ids[FT_MAX_CARPETS][4], counts[FT_MAX_CARPETS];
  ft_landing ls[FT_MAX_CARPETS];
  for (int i = 0; i < n; i++) {
    rg_random_landing(rng, g, ids[i], &counts[i]);
    ls[i] = (ft_landing){order[i], ids[i], counts[i]};
  }
  ft_flight_report rep;
  tp_error err;
  if (ft_game_flight(g, ls, n, &rep, &err) != TP_OK) abort();
  RG_WRITE(out, ft_transcript_write_flight(out->line, sizeof out->line, ls, n));
  ft_game_contest c;
  while (ft_game_next_contest(g, &c)) {
    int genies[FT_MAX_PLAYERS] = {0};
    for (int q = 0; q < c.n_players; q++) {
      ft_hand h = ft_game_genies(g, c.players[q]);
      genies[c.players[q]] = h.values[ft_rng_below(rng, h.n)];
    }
    if (ft_game_reveal(g, c.card, genies, NULL, &err) != TP_OK) abort();
    RG_WRITE(out,
             ft_transcript_write_reveal(out->line, sizeof out->line,
                                        ft_game_players(g), c.card, genies));
  }
}

static void rg_round_end(ft_rng *rng, ft_game *g, rg_text *out) {
  int lamps[FT_MAX_PLAYERS] = {0};
  for (int p = 0; p < ft_game_players(g)->n_players; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(g, p, counts);
    if (counts[FT_LAMP] > 0 && ft_rng_below(rng, 3) == 0) lamps[p] = 1;
  }
  tp_error err;
  if (ft_game_round_end(g, lamps, NULL, &err) != TP_OK) abort();
  RG_WRITE(out, ft_transcript_write_lamps(out->line, sizeof out->line,
                                          ft_game_players(g), lamps));
}

/* Plays a whole game; returns it (caller destroys) and its transcript. */
static ft_game *rg_play(uint64_t seed, const ft_players *players,
                        const ft_rules *rules, rg_text *out, rg_check_fn check,
                        void *user) {
  ft_rng rng;
  ft_rng_seed(&rng, seed);
  ft_game *g;
  tp_error err;
  int first = ft_rng_below(&rng, players->n_players);
  if (ft_game_create(rules, players, first, &g, &err) != TP_OK) abort();
  RG_WRITE(out, ft_transcript_write_header(out->line, sizeof out->line, players,
                                           first));
  ft_hand hands[FT_MAX_PLAYERS];
  if (ft_game_deal_genies(g, &rng, hands, &err) != TP_OK) abort();
  RG_WRITE(out, ft_transcript_write_genies(out->line, sizeof out->line, players,
                                           hands));
  int deck[FT_DECK_SIZE], n_deck = 0, next = 0;
  for (int t = 0; t < FT_N_TYPES; t++)
    for (int k = 0; k < ft_deck_count((ft_card_type)t); k++)
      deck[n_deck++] = t;
  for (int i = n_deck - 1; i > 0; i--) {
    int j = ft_rng_below(&rng, i + 1), tmp = deck[i];
    deck[i] = deck[j];
    deck[j] = tmp;
  }
  while (ft_game_phase(g) != FT_PHASE_OVER) {
    int layer = ft_game_layer(g);
    RG_WRITE(out, ft_transcript_write_round(out->line, sizeof out->line,
                                            ft_game_round(g),
                                            players->players[layer].name));
    ft_card cards[FT_MAX_CARDS];
    int n = rules->layout_cards < ft_game_deck_left(g) ? rules->layout_cards
                                                       : ft_game_deck_left(g);
    for (int i = 0; i < n; i++, next++)
      cards[i] = (ft_card){next + 1, (ft_card_type)deck[next], false, 0, 0};
    if (ft_game_layout(g, cards, n, &err) != TP_OK) abort();
    RG_WRITE(out,
             ft_transcript_write_layout(out->line, sizeof out->line, cards, n));
    if (check) check(g, user);
    while (ft_game_phase(g) == FT_PHASE_FLIGHT) {
      rg_flight(&rng, g, out);
      if (check) check(g, user);
    }
    rg_round_end(&rng, g, out);
    if (check) check(g, user);
  }
  return g;
}

#endif
