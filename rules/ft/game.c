/* ft game: the state of one game of Fliegende Teppiche and its moves.
 * Every move works on a copy of the state and commits it only when all
 * of it was valid, so a rejected move changes nothing. */
#include "ft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LOC_DECK = -1, LOC_TABLE = -2, LOC_REMOVED = -3 }; /* >= 0: player */

typedef struct {
  int id;
  ft_card_type type;
  int loc;
} game_card;

typedef struct {
  int winner, lowest, winner_genie, lowest_genie;
} deferred_swap;

struct ft_game {
  ft_rules rules;
  ft_players players;
  ft_phase phase;
  int n_rounds, round, flight, layer;
  int n_seen; /* every card laid out so far, wherever it is now */
  game_card seen[FT_DECK_SIZE];
  int n_table; /* indices into seen, layout order */
  int table[FT_MAX_CARDS];
  ft_card table_cards[FT_MAX_CARDS]; /* with positions, layout order */
  ft_hand genies[FT_MAX_PLAYERS];
  int palace_points[FT_MAX_PLAYERS];
  int n_pending, next_pending;
  ft_game_contest pending[FT_MAX_CARDS];
  int n_swaps;
  deferred_swap swaps[FT_MAX_CARDS];
};

const char *ft_phase_name(ft_phase phase) {
  static const char *const names[] = {"genies",  "layout", "flight",
                                      "contest", "lamps",  "over"};
  return (unsigned)phase <= FT_PHASE_OVER ? names[phase] : "unknown";
}

static const char *pname(const ft_game *g, int p) {
  return g->players.players[p].name;
}

/* What the game waits for, in words, for "not possible now" messages. */
static void describe_wait(const ft_game *g, char *buf, size_t cap) {
  switch (g->phase) {
  case FT_PHASE_GENIES:
    snprintf(buf, cap, "the genies to be dealt");
    break;
  case FT_PHASE_LAYOUT:
    snprintf(buf, cap, "the layout of round %d", g->round);
    break;
  case FT_PHASE_FLIGHT:
    snprintf(buf, cap, "flight %d of round %d", g->flight, g->round);
    break;
  case FT_PHASE_CONTEST:
    snprintf(buf, cap, "the genies of the contest for card %d",
             g->pending[g->next_pending].card);
    break;
  case FT_PHASE_LAMPS:
    snprintf(buf, cap, "the lamps at the end of round %d", g->round);
    break;
  case FT_PHASE_OVER:
    snprintf(buf, cap, "nothing: the game is over");
    break;
  }
}

static tp_status wrong_phase(const ft_game *g, const char *what,
                             tp_error *err) {
  char waits[96];
  describe_wait(g, waits, sizeof waits);
  return tp_error_set(err, TP_ERR_UNSUPPORTED,
                      "%s is not possible now: the game waits for %s", what,
                      waits);
}

tp_status ft_game_create(const ft_rules *rules, const ft_players *players,
                         int first_layer, ft_game **out, tp_error *err) {
  *out = NULL;
  ft_game *g = calloc(1, sizeof *g);
  if (!g) return tp_error_set(err, TP_ERR_NOMEM, "game: out of memory");
  if (rules)
    g->rules = *rules;
  else
    ft_rules_default(&g->rules);
  tp_status st = ft_players_check_game(players, &g->rules, err);
  if (st == TP_OK && (first_layer < 0 || first_layer >= players->n_players))
    st = tp_error_set(err, TP_ERR_INVALID, "first layer %d: no such player",
                      first_layer);
  if (st != TP_OK) {
    free(g);
    return st;
  }
  g->players = *players;
  g->phase = FT_PHASE_GENIES;
  g->n_rounds = g->rules.rounds[players->n_players];
  g->round = 1;
  g->layer = first_layer;
  *out = g;
  return TP_OK;
}

void ft_game_destroy(ft_game *game) {
  free(game);
}

ft_game *ft_game_clone(const ft_game *game) {
  ft_game *c = malloc(sizeof *c);
  if (c) memcpy(c, game, sizeof *c);
  return c;
}

bool ft_game_equal(const ft_game *a, const ft_game *b) {
  return !memcmp(a, b, sizeof *a);
}

/* ---- genies ---- */

static int cmp_int_desc(const void *a, const void *b) {
  return *(const int *)b - *(const int *)a;
}

static ft_hand sorted_hand(ft_hand h) {
  qsort(h.values, (size_t)h.n, sizeof h.values[0], cmp_int_desc);
  return h;
}

static ft_hand rules_set(const ft_rules *r, int n_players, int set) {
  ft_hand h;
  h.n = r->genie_set_size[n_players][set];
  memcpy(h.values, r->genie_sets[n_players][set], sizeof h.values);
  return sorted_hand(h);
}

static bool same_hand(ft_hand a, ft_hand b) {
  return a.n == b.n && !memcmp(a.values, b.values, (size_t)a.n * sizeof(int));
}

tp_status ft_game_set_genies(ft_game *g, const ft_hand hands[FT_MAX_PLAYERS],
                             tp_error *err) {
  if (g->phase != FT_PHASE_GENIES) return wrong_phase(g, "dealing genies", err);
  int n = g->players.n_players;
  bool used[4] = {false};
  for (int p = 0; p < n; p++) {
    ft_hand h = hands[p];
    int match = -1;
    if (h.n >= 0 && h.n <= FT_MAX_GENIES) {
      h = sorted_hand(h);
      for (int s = 0; s < n && match < 0; s++)
        if (!used[s] && same_hand(h, rules_set(&g->rules, n, s))) match = s;
    }
    if (match < 0)
      return tp_error_set(err, TP_ERR_INVALID,
                          "genies of %s: not one of the %d-player sets of "
                          "the rules, or a set given twice",
                          pname(g, p), n);
    used[match] = true;
  }
  for (int p = 0; p < n; p++)
    g->genies[p] = sorted_hand(hands[p]);
  g->phase = FT_PHASE_LAYOUT;
  return TP_OK;
}

tp_status ft_game_deal_genies(ft_game *g, ft_rng *rng,
                              ft_hand hands_out[FT_MAX_PLAYERS],
                              tp_error *err) {
  if (g->phase != FT_PHASE_GENIES) return wrong_phase(g, "dealing genies", err);
  int n = g->players.n_players, order[4] = {0, 1, 2, 3};
  for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
    int j = ft_rng_below(rng, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  ft_hand hands[FT_MAX_PLAYERS];
  memset(hands, 0, sizeof hands);
  for (int p = 0; p < n; p++)
    hands[p] = rules_set(&g->rules, n, order[p]);
  if (hands_out) memcpy(hands_out, hands, sizeof hands);
  return ft_game_set_genies(g, hands, err);
}

static bool holds_genie(const ft_game *g, int p, int value) {
  for (int i = 0; i < g->genies[p].n; i++)
    if (g->genies[p].values[i] == value) return true;
  return false;
}

static void replace_genie(ft_game *g, int p, int from, int to) {
  for (int i = 0; i < g->genies[p].n; i++)
    if (g->genies[p].values[i] == from) {
      g->genies[p].values[i] = to;
      break;
    }
  g->genies[p] = sorted_hand(g->genies[p]);
}

/* ---- layout ---- */

static int find_seen(const ft_game *g, int id) {
  for (int i = 0; i < g->n_seen; i++)
    if (g->seen[i].id == id) return i;
  return -1;
}

static int seen_of_type(const ft_game *g, ft_card_type t) {
  int n = 0;
  for (int i = 0; i < g->n_seen; i++)
    n += g->seen[i].type == t;
  return n;
}

int ft_game_deck_left(const ft_game *g) {
  int n = FT_DECK_SIZE - g->n_seen;
  for (int i = 0; i < g->n_seen; i++)
    n += g->seen[i].loc == LOC_DECK;
  return n;
}

/* Puts one card on the table of the work copy w, or says why not. */
static tp_status lay_card(ft_game *w, const ft_card *c, tp_error *err) {
  if ((unsigned)c->type >= FT_N_TYPES || c->id < 0)
    return tp_error_set(err, TP_ERR_INVALID, "card %d: bad id or type", c->id);
  int i = find_seen(w, c->id);
  if (i >= 0 && w->seen[i].loc != LOC_DECK)
    return tp_error_set(err, TP_ERR_INVALID,
                        "card %d is already in the game (laid out before "
                        "or twice now); card ids must be unique",
                        c->id);
  if (i >= 0 && w->seen[i].type != c->type)
    return tp_error_set(err, TP_ERR_INVALID, "card %d was a %s, not a %s",
                        c->id, ft_card_type_name(w->seen[i].type),
                        ft_card_type_name(c->type));
  if (i < 0 && seen_of_type(w, c->type) >= ft_deck_count(c->type))
    return tp_error_set(err, TP_ERR_INVALID,
                        "card %d: the deck has only %d %s cards", c->id,
                        ft_deck_count(c->type), ft_card_type_name(c->type));
  if (i < 0) {
    i = w->n_seen++;
    w->seen[i].id = c->id;
    w->seen[i].type = c->type;
  }
  w->seen[i].loc = LOC_TABLE;
  ft_card *t = &w->table_cards[w->n_table];
  memset(t, 0, sizeof *t); /* no stray padding: games compare with memcmp */
  t->id = c->id;
  t->type = c->type;
  t->has_pos = c->has_pos;
  t->x_mm = c->has_pos ? c->x_mm : 0;
  t->y_mm = c->has_pos ? c->y_mm : 0;
  w->table[w->n_table++] = i;
  return TP_OK;
}

tp_status ft_game_layout(ft_game *g, const ft_card *cards, int n_cards,
                         tp_error *err) {
  if (g->phase != FT_PHASE_LAYOUT) return wrong_phase(g, "a layout", err);
  int left = ft_game_deck_left(g);
  int want = g->rules.layout_cards < left ? g->rules.layout_cards : left;
  if (n_cards != want || n_cards > FT_MAX_CARDS)
    return tp_error_set(
        err, TP_ERR_INVALID, "layout of round %d has %d cards, expected %d%s",
        g->round, n_cards, want,
        want < g->rules.layout_cards ? " (the deck is short)" : "");
  ft_game *w = ft_game_clone(g);
  if (!w) return tp_error_set(err, TP_ERR_NOMEM, "layout: out of memory");
  tp_status st = TP_OK;
  for (int i = 0; i < n_cards && st == TP_OK; i++)
    st = lay_card(w, &cards[i], err);
  if (st == TP_OK) {
    w->phase = FT_PHASE_FLIGHT;
    w->flight = 1;
    *g = *w;
  }
  free(w);
  return st;
}

/* ---- flights ---- */

static int table_pos(const ft_game *g, int id) {
  for (int t = 0; t < g->n_table; t++)
    if (g->seen[g->table[t]].id == id) return t;
  return -1;
}

static tp_status check_landing(const ft_game *g, const ft_landing *l,
                               const ft_landing *all, int index,
                               tp_error *err) {
  if (!l->colour || ft_players_by_colour(&g->players, l->colour) < 0)
    return tp_error_set(err, TP_ERR_INVALID,
                        "carpet '%s' does not exist in this game",
                        l->colour ? l->colour : "(none)");
  for (int j = 0; j < index; j++)
    if (!strcmp(all[j].colour, l->colour))
      return tp_error_set(err, TP_ERR_INVALID,
                          "carpet %s landed twice in one flight", l->colour);
  if (l->n_cards < 0 || l->n_cards > FT_MAX_CARDS)
    return tp_error_set(err, TP_ERR_INVALID, "carpet %s: bad card list",
                        l->colour);
  for (int k = 0; k < l->n_cards; k++)
    if (table_pos(g, l->cards[k]) < 0)
      return tp_error_set(err, TP_ERR_INVALID,
                          "carpet %s lies on card %d, which is not on the "
                          "table",
                          l->colour, l->cards[k]);
  return TP_OK;
}

/* Moves a table card (by table position) to loc; closes the gap. */
static void take_from_table(ft_game *g, int pos, int loc) {
  g->seen[g->table[pos]].loc = loc;
  for (int t = pos; t + 1 < g->n_table; t++) {
    g->table[t] = g->table[t + 1];
    g->table_cards[t] = g->table_cards[t + 1];
  }
  g->n_table--;
}

static void take_card(ft_game *g, int id, int loc) {
  int pos = table_pos(g, id);
  if (pos >= 0) take_from_table(g, pos, loc);
}

/* The end-of-flight test: fly again, or the round is over. */
static void end_flight(ft_game *g) {
  for (int i = 0; i < g->n_swaps; i++) {
    /* In order; a swap whose genie has already moved on is void, so no
     * genie is ever doubled or lost. */
    deferred_swap s = g->swaps[i];
    if (!holds_genie(g, s.winner, s.winner_genie) ||
        !holds_genie(g, s.lowest, s.lowest_genie))
      continue;
    replace_genie(g, s.winner, s.winner_genie, s.lowest_genie);
    replace_genie(g, s.lowest, s.lowest_genie, s.winner_genie);
  }
  g->n_swaps = 0;
  g->n_pending = g->next_pending = 0;
  bool only_deserts = g->n_table > 0;
  for (int t = 0; t < g->n_table; t++)
    only_deserts = only_deserts && g->seen[g->table[t]].type == FT_DESERT;
  bool again = g->n_table >= g->rules.refly_min_cards &&
               !(g->rules.stop_if_only_deserts && only_deserts);
  g->phase = again ? FT_PHASE_FLIGHT : FT_PHASE_LAMPS;
  if (again) g->flight++;
}

static tp_status resolve_landings(const ft_game *g, const ft_landing *ls, int n,
                                  ft_resolution *res, tp_error *err) {
  ft_carpet_on on[FT_MAX_CARPETS];
  int idx[FT_MAX_CARPETS][FT_MAX_CARDS];
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < ls[i].n_cards; k++)
      idx[i][k] = table_pos(g, ls[i].cards[k]);
    on[i].colour = ls[i].colour;
    on[i].player = pname(g, ft_players_by_colour(&g->players, ls[i].colour));
    on[i].on_cards = idx[i];
    on[i].n_on_cards = ls[i].n_cards;
  }
  return ft_resolve(&g->rules, on, n, g->n_table, res, err);
}

static void report_flight(const ft_game *g, const ft_resolution *res,
                          ft_flight_report *out) {
  memset(out, 0, sizeof *out);
  out->round = g->round;
  out->flight = g->flight;
  for (int c = 0; c < res->n_claims; c++) {
    int p = ft_players_by_name(&g->players, res->claims[c].player);
    for (int k = 0; k < res->claims[c].n_cards; k++)
      out->claimed[p][out->n_claimed[p]++] =
          g->seen[g->table[res->claims[c].cards[k]]].id;
  }
  for (int c = 0; c < res->n_contests; c++) {
    ft_game_contest *gc = &out->contests[out->n_contests++];
    gc->card = g->seen[g->table[res->contests[c].card]].id;
    for (int p = 0; p < g->players.n_players; p++)
      for (int q = 0; q < res->contests[c].n_players; q++)
        if (!strcmp(res->contests[c].players[q], pname(g, p)))
          gc->players[gc->n_players++] = p;
  }
  for (int r = 0; r < res->n_returned; r++)
    strcpy(out->returned[out->n_returned++], res->returned[r]);
  for (int u = 0; u < res->n_unclaimed; u++)
    out->unclaimed[out->n_unclaimed++] =
        g->seen[g->table[res->unclaimed[u]]].id;
}

tp_status ft_game_flight(ft_game *g, const ft_landing *landings, int n_landings,
                         ft_flight_report *out, tp_error *err) {
  if (g->phase != FT_PHASE_FLIGHT) return wrong_phase(g, "a flight", err);
  int n_carpets = g->players.n_players * g->rules.carpets[g->players.n_players];
  if (n_landings < 0 || n_landings > n_carpets)
    return tp_error_set(err, TP_ERR_INVALID,
                        "%d carpets landed, but the game has %d", n_landings,
                        n_carpets);
  for (int i = 0; i < n_landings; i++) {
    tp_status st = check_landing(g, &landings[i], landings, i, err);
    if (st != TP_OK) return st;
  }
  ft_resolution *res = malloc(sizeof *res);
  ft_flight_report *rep = malloc(sizeof *rep);
  tp_status st = res && rep
                     ? resolve_landings(g, landings, n_landings, res, err)
                     : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  if (st == TP_OK) {
    report_flight(g, res, rep);
    for (int p = 0; p < g->players.n_players; p++)
      for (int k = 0; k < rep->n_claimed[p]; k++)
        take_card(g, rep->claimed[p][k], p);
    g->n_pending = rep->n_contests;
    g->next_pending = 0;
    memcpy(g->pending, rep->contests, sizeof rep->contests);
    if (g->n_pending)
      g->phase = FT_PHASE_CONTEST;
    else
      end_flight(g);
    if (out) *out = *rep;
  }
  free(res);
  free(rep);
  return st;
}

bool ft_game_next_contest(const ft_game *g, ft_game_contest *out) {
  if (g->phase != FT_PHASE_CONTEST) return false;
  if (out) *out = g->pending[g->next_pending];
  return true;
}

static tp_status check_reveal(const ft_game *g, int card_id,
                              const int genies[FT_MAX_PLAYERS], tp_error *err) {
  const ft_game_contest *c = &g->pending[g->next_pending];
  for (int i = 0; i < g->next_pending; i++)
    if (g->pending[i].card == card_id)
      return tp_error_set(err, TP_ERR_INVALID,
                          "the contest for card %d was already settled",
                          card_id);
  if (c->card != card_id)
    return tp_error_set(err, TP_ERR_INVALID,
                        "the next contest is for card %d, not card %d", c->card,
                        card_id);
  for (int p = 0; p < g->players.n_players; p++) {
    bool involved = false;
    for (int q = 0; q < c->n_players; q++)
      involved |= c->players[q] == p;
    if (involved && !holds_genie(g, p, genies[p]))
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s does not hold genie %d (card %d)", pname(g, p),
                          genies[p], card_id);
    if (!involved && genies[p] != 0)
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s is not in the contest for card %d", pname(g, p),
                          card_id);
  }
  return TP_OK;
}

static void settle(ft_game *g, const ft_game_contest *c,
                   const int genies[FT_MAX_PLAYERS], ft_contest_result *r) {
  memset(r, 0, sizeof *r);
  r->card = c->card;
  r->winner = r->lowest = c->players[0];
  for (int q = 0; q < c->n_players; q++) {
    int p = c->players[q];
    r->revealed[p] = genies[p];
    if (genies[p] > genies[r->winner]) r->winner = p;
    if (genies[p] < genies[r->lowest]) r->lowest = p;
  }
  r->winner_genie = genies[r->winner];
  r->lowest_genie = genies[r->lowest];
  take_card(g, c->card, r->winner);
  if (g->rules.swap_timing == FT_SWAP_AFTER_FLIGHT) {
    r->swap_deferred = true;
    g->swaps[g->n_swaps++] =
        (deferred_swap){r->winner, r->lowest, r->winner_genie, r->lowest_genie};
  } else {
    replace_genie(g, r->winner, r->winner_genie, r->lowest_genie);
    replace_genie(g, r->lowest, r->lowest_genie, r->winner_genie);
  }
}

tp_status ft_game_reveal(ft_game *g, int card_id,
                         const int genies[FT_MAX_PLAYERS],
                         ft_contest_result *out, tp_error *err) {
  if (g->phase != FT_PHASE_CONTEST) {
    if (g->phase == FT_PHASE_FLIGHT || g->phase == FT_PHASE_LAMPS)
      for (int i = 0; i < g->n_seen; i++)
        if (g->seen[i].id == card_id && g->seen[i].loc >= 0)
          return tp_error_set(err, TP_ERR_UNSUPPORTED,
                              "no contest is waiting: card %d was already "
                              "settled (it went to %s)",
                              card_id, pname(g, g->seen[i].loc));
    return wrong_phase(g, "a genie reveal", err);
  }
  tp_status st = check_reveal(g, card_id, genies, err);
  if (st != TP_OK) return st;
  ft_contest_result r;
  settle(g, &g->pending[g->next_pending++], genies, &r);
  if (g->next_pending == g->n_pending) end_flight(g);
  if (out) *out = r;
  return TP_OK;
}

/* ---- round end ---- */

static int count_held(const ft_game *g, int p, ft_card_type t) {
  int n = 0;
  for (int i = 0; i < g->n_seen; i++)
    n += g->seen[i].loc == p && g->seen[i].type == t;
  return n;
}

static void remove_held(ft_game *g, int p, ft_card_type t, int how_many) {
  for (int i = 0; i < g->n_seen && how_many > 0; i++)
    if (g->seen[i].loc == p && g->seen[i].type == t) {
      g->seen[i].loc = LOC_REMOVED;
      how_many--;
    }
}

static tp_status check_lamps(const ft_game *g, const int lamps[],
                             tp_error *err) {
  for (int p = 0; p < g->players.n_players; p++) {
    int held = count_held(g, p, FT_LAMP);
    if (lamps[p] < 0 || lamps[p] > held)
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s spends %d lamps as palaces but holds %d",
                          pname(g, p), lamps[p], held);
    if (lamps[p] > 0 && !g->rules.lamps_as_palaces)
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s spends lamps as palaces, but the rules say "
                          "lamps_as_palaces = no",
                          pname(g, p));
  }
  return TP_OK;
}

/* Most / fewest palaces, ties and the all-equal case as the rules say. */
static void palace_points(const ft_rules *r, int n, const int palaces[],
                          int points[]) {
  int hi = palaces[0], lo = palaces[0], n_hi = 0, n_lo = 0;
  for (int p = 1; p < n; p++) {
    if (palaces[p] > hi) hi = palaces[p];
    if (palaces[p] < lo) lo = palaces[p];
  }
  for (int p = 0; p < n; p++) {
    n_hi += palaces[p] == hi;
    n_lo += palaces[p] == lo;
  }
  bool all_equal = hi == lo;
  for (int p = 0; p < n; p++) {
    points[p] = 0;
    if (all_equal && !r->palace_all_equal_scores) continue;
    if (palaces[p] == hi && (n_hi == 1 || r->palace_ties_all || all_equal))
      points[p] += r->palace_most;
    if (palaces[p] == lo && (n_lo == 1 || r->palace_ties_all || all_equal))
      points[p] += r->palace_fewest;
  }
}

tp_status ft_game_round_end(ft_game *g, const int lamps[FT_MAX_PLAYERS],
                            ft_round_report *out, tp_error *err) {
  if (g->phase != FT_PHASE_LAMPS) return wrong_phase(g, "the round end", err);
  tp_status st = check_lamps(g, lamps, err);
  if (st != TP_OK) return st;
  ft_round_report r;
  memset(&r, 0, sizeof r);
  r.round = g->round;
  int n = g->players.n_players;
  for (int p = 0; p < n; p++) {
    r.lamps_spent[p] = lamps[p];
    r.palaces[p] = count_held(g, p, FT_PALACE) + lamps[p];
  }
  palace_points(&g->rules, n, r.palaces, r.points);
  for (int p = 0; p < n; p++) {
    g->palace_points[p] += r.points[p];
    remove_held(g, p, FT_PALACE, count_held(g, p, FT_PALACE));
    remove_held(g, p, FT_LAMP, lamps[p]);
  }
  while (g->n_table > 0) {
    r.leftovers[r.n_leftovers++] = g->seen[g->table[0]].id;
    take_from_table(g, 0, g->rules.leftovers_removed ? LOC_REMOVED : LOC_DECK);
  }
  g->round++;
  g->layer = (g->layer + 1) % n;
  g->flight = 0;
  g->phase = g->round > g->n_rounds ? FT_PHASE_OVER : FT_PHASE_LAYOUT;
  if (out) *out = r;
  return TP_OK;
}

/* ---- final ---- */

tp_status ft_game_final(const ft_game *g, ft_final *out, tp_error *err) {
  if (g->phase != FT_PHASE_OVER) return wrong_phase(g, "the final score", err);
  memset(out, 0, sizeof *out);
  int n = out->n_players = g->players.n_players, best = 0;
  for (int p = 0; p < n; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(g, p, counts);
    counts[FT_PALACE] = 0;
    ft_score_collection(&g->rules, counts, &out->scores[p]);
    out->scores[p].palace_points = g->palace_points[p];
    out->scores[p].total += g->palace_points[p];
    if (p == 0 || out->scores[p].total > best) best = out->scores[p].total;
  }
  for (int p = 0; p < n; p++)
    if (out->scores[p].total == best) out->winner[p] = true, out->n_winners++;
  if (out->n_winners > 1 && !g->rules.shared_win) {
    memset(out->winner, 0, sizeof out->winner);
    out->n_winners = 0;
  }
  return TP_OK;
}

/* ---- queries ---- */

ft_phase ft_game_phase(const ft_game *g) {
  return g->phase;
}
const ft_rules *ft_game_rules(const ft_game *g) {
  return &g->rules;
}
const ft_players *ft_game_players(const ft_game *g) {
  return &g->players;
}
int ft_game_round(const ft_game *g) {
  return g->round;
}
int ft_game_rounds(const ft_game *g) {
  return g->n_rounds;
}
int ft_game_flight_number(const ft_game *g) {
  return g->flight;
}
int ft_game_layer(const ft_game *g) {
  return g->layer;
}
int ft_game_palace_points(const ft_game *g, int p) {
  return p >= 0 && p < g->players.n_players ? g->palace_points[p] : 0;
}

ft_hand ft_game_genies(const ft_game *g, int p) {
  ft_hand none = {0, {0}};
  return p >= 0 && p < g->players.n_players ? g->genies[p] : none;
}

static int count_loc(const ft_game *g, int loc, int counts[FT_N_TYPES]) {
  int total = 0;
  memset(counts, 0, FT_N_TYPES * sizeof counts[0]);
  for (int i = 0; i < g->n_seen; i++)
    if (g->seen[i].loc == loc) counts[g->seen[i].type]++, total++;
  return total;
}

int ft_game_collection(const ft_game *g, int p, int counts[FT_N_TYPES]) {
  return count_loc(g, p < 0 ? LOC_DECK - 100 : p, counts);
}

int ft_game_removed(const ft_game *g, int counts[FT_N_TYPES]) {
  return count_loc(g, LOC_REMOVED, counts);
}

int ft_game_table(const ft_game *g, ft_card cards[FT_MAX_CARDS]) {
  memcpy(cards, g->table_cards, (size_t)g->n_table * sizeof cards[0]);
  return g->n_table;
}

int ft_game_throw_order(const ft_game *g, const char *colours[FT_MAX_CARPETS]) {
  int n = g->players.n_players, k = g->rules.carpets[n], out = 0;
  bool grouped = g->rules.throw_order == FT_THROW_GROUPED;
  for (int outer = 0; outer < (grouped ? n : k); outer++)
    for (int inner = 0; inner < (grouped ? k : n); inner++) {
      int seat = grouped ? outer : inner, carpet = grouped ? inner : outer;
      int p = (g->layer + 1 + seat) % n; /* left of the layer first */
      colours[out++] = g->players.players[p].carpets[carpet];
    }
  return out;
}
