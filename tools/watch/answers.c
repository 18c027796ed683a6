/* watch answers: the questions only people can answer (genies, reveals,
 * lamps; spec section 6) and the corrections (undo, give, resolve). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

enum { MAX_WORDS = 16, ANSWER_MAX = 400 };

static int split_words(char *s, char **words) {
  int n = 0;
  for (char *p = s; *p && n < MAX_WORDS;) {
    while (*p && isspace((unsigned char)*p)) *p++ = '\0';
    if (!*p) break;
    words[n++] = p;
    while (*p && !isspace((unsigned char)*p)) p++;
  }
  return n;
}

/* A line typed or read, copied to be cut into words (buf holds
 * ANSWER_MAX + 1 bytes); a longer line is refused, not cut. */
static tp_status copy_line(char *buf, const char *line, tp_error *err) {
  size_t n = strlen(line);
  if (n > ANSWER_MAX)
    return tp_error_set(err, TP_ERR_INVALID, "longer than %d characters",
                        ANSWER_MAX);
  memcpy(buf, line, n + 1);
  return TP_OK;
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  if (!isdigit((unsigned char)*s)) return false;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

/* The answer lines are the transcript's (spec section 6): rules/ft
 * parses them, with or without their first word. */

/* "Genies dealt: anna 6 and 5, ben 8 and 3, cleo 7 and 4." */
static void say_genies(wch *w, const ft_hand *hands) {
  char text[512];
  int len = snprintf(text, sizeof text, "Genies dealt:");
  for (int p = 0; p < w->players.n_players && len < (int)sizeof text; p++) {
    len += snprintf(text + len, sizeof text - (size_t)len, "%s %s", p ? "," : "",
                    w->players.players[p].name);
    for (int g = 0; g < hands[p].n && len < (int)sizeof text; g++)
      len += snprintf(text + len, sizeof text - (size_t)len, "%s%d",
                      g == 0 ? " " : g + 1 == hands[p].n ? " and " : ", ", hands[p].values[g]);
  }
  wch__say(w, WCH_SAY_INFO, "%s.", text);
}

tp_status wch__answer_genies(wch *w, char *answer, tp_error *err) {
  ft_hand hands[FT_MAX_PLAYERS];
  tp_status st = ft_answer_genies(&w->players, answer, hands, err);
  if (st != TP_OK) return st;
  st = ft_game_set_genies(w->game, hands, err);
  if (st != TP_OK) return st;
  char line[512];
  ft_transcript_write_genies(line, sizeof line, &w->players, hands);
  st = wch__append_marked(w, line, err);
  if (st != TP_OK) return st;
  say_genies(w, hands);
  wch__enter_layout(w);
  return TP_OK;
}

tp_status wch__answer_reveal(wch *w, char *answer, tp_error *err) {
  ft_game_contest c;
  if (!ft_game_next_contest(w->game, &c))
    return tp_error_set(err, TP_ERR_INVALID, "no genie contest is waiting");
  int genies[FT_MAX_PLAYERS];
  tp_status st = ft_answer_reveal(&w->players, answer, genies, err);
  if (st != TP_OK) return st;
  for (int q = 0; q < c.n_players; q++)
    if (!genies[c.players[q]])
      return tp_error_set(err, TP_ERR_INVALID, "no genie for %s, who is in "
                          "the contest for card %d",
                          w->players.players[c.players[q]].name, c.card);
  ft_contest_result r;
  st = ft_game_reveal(w->game, c.card, genies, &r, err);
  if (st != TP_OK) return st;
  if (w->n_results >= 0 && w->n_results < FT_MAX_CARDS)
    w->results[w->n_results++] = r;
  if (w->n_reveals < FT_MAX_CARDS) {
    w->reveals[w->n_reveals].card = c.card;
    memcpy(w->reveals[w->n_reveals++].genies, genies, sizeof genies);
  }
  /* the card leaves the game; it may still lie on the table */
  wch__ref_to_ghost(w, c.card, r.winner);
  char line[512];
  ft_transcript_write_reveal(line, sizeof line, &w->players, c.card, genies);
  st = wch__append_marked(w, line, err);
  if (st != TP_OK) return st;
  int type = -1;
  for (int k = 0; k < w->n_ghost; k++)
    if (w->ghost[k].id == c.card) type = w->ghost[k].type;
  wch__say(w, WCH_SAY_RESULT, "%s wins %s with genie %d and swaps it for %s's "
           "genie %d.", w->players.players[r.winner].name,
           wch__card_label(type), r.winner_genie,
           w->players.players[r.lowest].name, r.lowest_genie);
  return TP_OK;
}

tp_status wch__answer_lamps(wch *w, char *answer, tp_error *err) {
  int lamps[FT_MAX_PLAYERS];
  tp_status st = ft_answer_lamps(&w->players, answer, lamps, err);
  if (st != TP_OK) return st;
  ft_round_report r;
  st = ft_game_round_end(w->game, lamps, &r, err);
  if (st != TP_OK) return st;
  w->have_flight = false; /* too late to correct the last flight */
  for (int k = 0; k < r.n_leftovers; k++) wch__ref_to_ghost(w, r.leftovers[k], -1);
  char line[512];
  ft_transcript_write_lamps(line, sizeof line, &w->players, lamps);
  st = wch__append_marked(w, line, err);
  if (st != TP_OK) return st;
  wch__emit_round_end(w, &r);
  if (ft_game_phase(w->game) == FT_PHASE_OVER) wch__emit_final(w);
  return TP_OK;
}

/* ---- questions ---- */

bool wch_question_pending(const wch *w, wch_question *q) {
  wch_question none;
  if (!q) q = &none;
  memset(q, 0, sizeof *q);
  if (w->stage == WCH_WAIT_GENIES) {
    q->kind = WCH_Q_GENIES;
    snprintf(q->prompt, sizeof q->prompt, "Deal the genies and tell me who "
             "holds which: genies NAME=V,V ...");
    return true;
  }
  if (w->stage != WCH_WAIT_ANSWER) return false;
  ft_game_contest c;
  if (ft_game_next_contest(w->game, &c)) {
    q->kind = WCH_Q_REVEAL;
    q->card = c.card;
    q->n_players = c.n_players;
    memcpy(q->players, c.players, sizeof c.players);
    int len = snprintf(q->prompt, sizeof q->prompt, "Genie contest for card "
                       "%d: reveal", c.card);
    for (int k = 0; k < c.n_players && len < (int)sizeof q->prompt; k++)
      len += snprintf(q->prompt + len, sizeof q->prompt - (size_t)len,
                      " %s=?", w->players.players[c.players[k]].name);
    return true;
  }
  if (ft_game_phase(w->game) == FT_PHASE_LAMPS) {
    q->kind = WCH_Q_LAMPS;
    snprintf(q->prompt, sizeof q->prompt, "End of round %d: lamps spent as "
             "palaces? lamps NAME=N ...", ft_game_round(w->game));
    return true;
  }
  return false;
}

tp_status wch_answer(wch *w, const char *line, tp_error *err) {
  wch_question q;
  w->confirming = false; /* people have taken over the flight */
  if (!wch_question_pending(w, &q))
    return tp_error_set(err, TP_ERR_INVALID, "no question is waiting for "
                        "an answer");
  char buf[ANSWER_MAX + 1];
  tp_status st = copy_line(buf, line, err);
  if (st != TP_OK) return st;
  w->answers_used++; /* written with the answer's transcript line */
  if (q.kind == WCH_Q_GENIES)
    st = wch__answer_genies(w, buf, err);
  else if (q.kind == WCH_Q_REVEAL)
    st = wch__answer_reveal(w, buf, err);
  else
    st = wch__answer_lamps(w, buf, err);
  if (st != TP_OK) {
    w->answers_used--;
    return st;
  }
  return q.kind == WCH_Q_GENIES ? TP_OK : wch__after_answer(w, err);
}

static bool holds(const ft_hand *h, int value) {
  for (int i = 0; i < h->n; i++)
    if (h->values[i] == value) return true;
  return false;
}

/* The contestant (index into q->players) with the highest / lowest of
 * the genies g[k]. */
static void winner_lowest(const wch_question *q, const int *g, int *hi,
                          int *lo) {
  *hi = *lo = 0;
  for (int k = 1; k < q->n_players; k++) {
    if (g[k] > g[*hi]) *hi = k;
    if (g[k] < g[*lo]) *lo = k;
  }
}

/* Genies the contestants hold that give the recorded reveal's winner and
 * lowest (so the card and the swap go as recorded), as many of them the
 * recorded ones as can be, the rest as near them as can be. A replay's
 * contests asked in another order than the recorded game settled them
 * (docs/watch.md) swap genies in another order, so a recorded genie may
 * be with another player by then (hard game 3:696 round 1: cleo revealed
 * 8 for the desert after winning it from ben for the camel bazaar, which
 * the watch asks second). False when none do or the line does not name
 * every contestant; g[k] is for q->players[k]. */
static bool keep_winner(const wch *w, const wch_question *q, const int *said,
                        int *g) {
  ft_hand h[FT_MAX_PLAYERS];
  int want[FT_MAX_PLAYERS], at[FT_MAX_PLAYERS] = {0}, n = q->n_players;
  for (int k = 0; k < n; k++) {
    h[k] = ft_game_genies(w->game, q->players[k]);
    want[k] = said[q->players[k]];
    if (want[k] <= 0 || h[k].n <= 0) return false;
  }
  int hi, lo, best_exact = -1, best_off = 0, try[FT_MAX_PLAYERS];
  winner_lowest(q, want, &hi, &lo);
  for (;;) { /* every choice, one genie per contestant */
    int exact = 0, off = 0, t_hi, t_lo;
    for (int k = 0; k < n; k++) {
      try[k] = h[k].values[at[k]];
      exact += try[k] == want[k];
      off += abs(try[k] - want[k]);
    }
    winner_lowest(q, try, &t_hi, &t_lo);
    if (t_hi == hi && t_lo == lo &&
        (exact > best_exact || (exact == best_exact && off < best_off))) {
      best_exact = exact, best_off = off;
      memcpy(g, try, sizeof try);
    }
    int k = 0;
    while (k < n && ++at[k] == h[k].n) at[k++] = 0;
    if (k == n) break;
  }
  return best_exact >= 0;
}

bool wch_assumed_answer(const wch *w, const char *recorded, char *line,
                        size_t cap) {
  wch_question q;
  if (!line || cap < 2 || !wch_question_pending(w, &q) ||
      q.kind == WCH_Q_GENIES)
    return false;
  bool reveal = q.kind == WCH_Q_REVEAL;
  int said[FT_MAX_PLAYERS] = {0};
  tp_error why;
  if (!reveal || !recorded ||
      ft_answer_reveal(&w->players, recorded, said, &why) != TP_OK)
    memset(said, 0, sizeof said);
  int n = reveal ? q.n_players : w->players.n_players, kept[FT_MAX_PLAYERS];
  bool winner_kept = reveal && keep_winner(w, &q, said, kept);
  size_t len = (size_t)snprintf(line, cap, reveal ? "reveal" : "lamps");
  for (int k = 0; k < n && len < cap; k++) {
    int p = reveal ? q.players[k] : k, value = 0;
    ft_hand h = ft_game_genies(w->game, p);
    for (int i = 0; reveal && i < h.n; i++)
      if (h.values[i] > value) value = h.values[i];
    if (reveal && said[p] > 0 && holds(&h, said[p])) value = said[p];
    if (winner_kept) value = kept[k];
    len += (size_t)snprintf(line + len, cap - len, " %s=%d",
                            w->players.players[p].name, value);
  }
  return len < cap;
}

/* ---- recorded reveals in another order ---- */

/* Bit p: player p reveals a genie in the line (0: not a reveal line). */
static unsigned reveal_players(const wch *w, const char *line,
                               int genies[FT_MAX_PLAYERS]) {
  tp_error why;
  if (ft_answer_reveal(&w->players, line, genies, &why) != TP_OK) return 0;
  unsigned mask = 0;
  for (int p = 0; p < w->players.n_players; p++)
    if (genies[p] > 0) mask |= 1u << p;
  return mask;
}

/* The card a recorded reveal names in its comment (`reveal anna=7 ben=3
 * # card camel-bazaar@85.7,272.9`, as `teppich render` writes it): its
 * type (-1: none named) and place (has_place false: none). */
typedef struct {
  int type;
  bool has_place;
  double x, y;
} named_card;

static named_card card_named(const char *line) {
  named_card c = {.type = -1};
  const char *p = strstr(line, "# card ");
  char name[32];
  if (!p || sscanf(p + 7, "%31[a-z-]", name) != 1) return c;
  c.type = ft_card_type_parse(name);
  const char *at = strchr(p, '@');
  c.has_place = at && sscanf(at + 1, "%lf,%lf", &c.x, &c.y) == 2;
  return c;
}

/* How far the card a line names lies from table card `id` (0 when
 * neither place is known and the types are the same; HUGE_VAL when
 * nothing ties them). */
static double named_distance(const wch *w, const named_card *c, int id) {
  for (int k = 0; k < w->n_ref; k++) {
    const wch__card *r = &w->ref[k];
    if (r->id != id) continue;
    if (c->has_place && !r->unseen) return wch__dist(c->x, c->y, r->x, r->y);
    return c->type >= 0 && c->type == r->type ? 0 : HUGE_VAL;
  }
  return HUGE_VAL;
}

/* Of the lines revealed by exactly the contest's players, the one that
 * names the contest's card (nearest its place, else of its type), else
 * the first. */
int wch_pick_reveal(const wch *w, const char *const *lines, int n) {
  wch_question q;
  if (!wch_question_pending(w, &q) || q.kind != WCH_Q_REVEAL ||
      w->n_results < 0)
    return -1;
  int left = w->report.n_contests - w->n_results;
  if (n > left) n = left;
  unsigned want = 0;
  for (int k = 0; k < q.n_players; k++) want |= 1u << q.players[k];
  int genies[FT_MAX_PLAYERS], first = -1, named = -1;
  double best = HUGE_VAL;
  for (int i = 0; i < n; i++) {
    if (reveal_players(w, lines[i], genies) != want) continue;
    if (first < 0) first = i;
    named_card c = card_named(lines[i]);
    double d = named_distance(w, &c, q.card);
    if (d < best) best = d, named = i;
  }
  return named >= 0 ? named : first;
}

int wch_reveals_given(const wch *w) {
  wch_question q;
  if (!wch_question_pending(w, &q) || q.kind != WCH_Q_REVEAL) return 0;
  return w->n_results > 0 ? w->n_results : 0;
}

int wch_pick_given(const wch *w, int k, const char *const *lines, int n) {
  if (k < 0 || k >= wch_reveals_given(w)) return -1;
  const int *given = w->results[k].revealed;
  int genies[FT_MAX_PLAYERS];
  for (int i = 0; i < n; i++) {
    bool same = reveal_players(w, lines[i], genies) != 0;
    for (int p = 0; same && p < w->players.n_players; p++)
      same = genies[p] == given[p];
    if (same) return i;
  }
  return -1;
}

/* ---- corrections ---- */

/* Puts the game back to just before the last flight. The transcript is
 * cut in memory only: the caller appends what replaces the flight (its
 * mark, or the flight resolved again) and commits, so that the flight
 * is taken back in one rewrite (wch__cut). */
tp_status wch__take_back(wch *w, tp_error *err) {
  ft_game *g = ft_game_clone(w->before_flight);
  if (!g) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  ft_game_destroy(w->game);
  w->game = g;
  w->n_ref = w->n_ref_before;
  memcpy(w->ref, w->ref_before, sizeof w->ref);
  w->n_ghost = w->n_ghost_before;
  memcpy(w->ghost, w->ghost_before, sizeof w->ghost);
  w->flights_total--;
  w->have_flight = false;
  wch__cut(w, w->log_before);
  return TP_OK;
}

/* The last flight taken back and resolved again with the landings as set
 * now, keeping the reveals given (contests that stay the same are not
 * asked again); `note` (NULL: none) goes before the new flight line. One
 * rewrite of the transcript: a kill leaves the old flight or the new. */
tp_status wch__resolve_again(wch *w, const char *note, tp_error *err) {
  w->n_old_reveals = w->n_reveals;
  memcpy(w->old_reveals, w->reveals, sizeof w->reveals);
  tp_status st = wch__take_back(w, err);
  if (st == TP_OK && note) st = wch__append(w, note, err);
  if (st == TP_OK) st = wch__resolve(w, NULL, true, err);
  return wch__commit(w, st, err);
}

static tp_status can_correct(const wch *w, tp_error *err) {
  if (!w->have_flight || !w->before_flight)
    return tp_error_set(err, TP_ERR_INVALID, "there is no flight to correct "
                        "(only the last flight of a round that is not over)");
  if (w->stage == WCH_WAIT_THROWS && w->n_landed > 0)
    return tp_error_set(err, TP_ERR_INVALID, "the next flight has begun");
  return TP_OK;
}

void wch__correction_event(wch *w, const char *action, int card,
                           const char *player) {
  char json[256];
  snprintf(json, sizeof json,
           "{\"event\": \"correction\", \"action\": \"%s\", \"round\": %d, "
           "\"flight\": %d, \"card\": %d, \"player\": \"%s\"}",
           action, w->report.round, w->report.flight, card, player);
  wch__event(w, json);
}

/* The flight's lines go and the mark of this frame comes in one rewrite:
 * the transcript never lacks the flight without a mark newer than it (a
 * resume would decide the flight again from the recorded frames). */
static tp_status cmd_undo(wch *w, tp_error *err) {
  tp_status st = can_correct(w, err);
  if (st == TP_OK) st = wch__take_back(w, err);
  if (st == TP_OK) st = wch__mark(w, err);
  st = wch__commit(w, st, err);
  if (st != TP_OK) return st;
  wch__correction_event(w, "undo", -1, "");
  w->stage = WCH_WAIT_THROWS;
  w->n_landed = 0;
  wch__say(w, WCH_SAY_INFO, "Flight %d of round %d taken back: pick up the "
           "carpets and throw again.", w->report.flight, w->report.round);
  return TP_OK;
}

static bool in_flight(const wch *w, int card) {
  for (int k = 0; k < w->n_ref_before; k++)
    if (w->ref_before[k].id == card) return true;
  return false;
}

static tp_status cmd_give(wch *w, const char *card_s, const char *who,
                          tp_error *err) {
  tp_status st = can_correct(w, err);
  if (st != TP_OK) return st;
  int card, p = -1;
  if (!parse_int(card_s, 0, 1 << 20, &card) || !in_flight(w, card))
    return tp_error_set(err, TP_ERR_INVALID, "'%.20s' is not a card of the "
                        "last flight", card_s);
  if (strcmp(who, "-") && (p = ft_players_by_name(&w->players, who)) < 0)
    return tp_error_set(err, TP_ERR_INVALID, "'%.40s' is not a player "
                        "(or - to leave the card on the table)", who);
  /* the card under exactly the chosen player's first carpet */
  for (int k = 0; k < w->landings.n; k++) {
    int n = 0;
    for (int j = 0; j < w->landings.n_cards[k]; j++)
      if (w->landings.cards[k][j] != card)
        w->landings.cards[k][n++] = w->landings.cards[k][j];
    w->landings.n_cards[k] = n;
  }
  if (p >= 0)
    for (int k = 0; k < w->landings.n; k++)
      if (!strcmp(w->landings.colour[k], w->players.players[p].carpets[0]))
        w->landings.cards[k][w->landings.n_cards[k]++] = card;
  wch__correction_event(w, "give", card, p >= 0 ? w->players.players[p].name : "-");
  wch__say(w, WCH_SAY_INFO, "Correction: card %d goes to %s.", card,
           p >= 0 ? w->players.players[p].name : "nobody (it stays)");
  return wch__resolve_again(w, NULL, err);
}

/* The last flight resolved again with cards added to carpets' landings
 * (the taking-away showed those carpets lay on them), keeping the reveals
 * given, as `give` does. */
tp_status wch__amend_flight(wch *w, const int *cards, const int *landing,
                            int n, tp_error *err) {
  tp_status st = can_correct(w, err);
  if (st != TP_OK) return st;
  for (int i = 0; i < n; i++) {
    int k = landing[i];
    if (k >= 0 && k < w->landings.n && w->landings.n_cards[k] < FT_MAX_CARDS)
      w->landings.cards[k][w->landings.n_cards[k]++] = cards[i];
  }
  for (int i = 0; i < n; i++) {
    int p = ft_players_by_colour(&w->players, w->landings.colour[landing[i]]);
    wch__correction_event(w, "taken", cards[i],
                     p >= 0 ? w->players.players[p].name : "-");
  }
  return wch__resolve_again(w, NULL, err);
}

/* The last flight resolved again with cards taken off carpets' landings
 * (the players left them on the table), keeping the reveals given. */
tp_status wch__unclaim_flight(wch *w, const int *cards, const int *landing,
                              int n, tp_error *err) {
  tp_status st = can_correct(w, err);
  if (st != TP_OK) return st;
  for (int i = 0; i < n; i++) {
    int k = landing[i], kept = 0;
    if (k < 0 || k >= w->landings.n) continue;
    for (int j = 0; j < w->landings.n_cards[k]; j++)
      if (w->landings.cards[k][j] != cards[i])
        w->landings.cards[k][kept++] = w->landings.cards[k][j];
    w->landings.n_cards[k] = kept;
    if (cards[i] >= 0 && cards[i] < 64) w->landings.unsure[k] &= ~((uint64_t)1 << cards[i]);
    wch__correction_event(w, "left", cards[i], "-");
  }
  return wch__resolve_again(w, NULL, err);
}

static tp_status cmd_resolve(wch *w, tp_error *err) {
  if (w->stage != WCH_WAIT_THROWS || w->n_landed == 0 || !w->have_last_obs)
    return tp_error_set(err, TP_ERR_INVALID, "no carpets have landed yet");
  return wch__resolve(w, &w->last_obs, false, err);
}

tp_status wch_command(wch *w, const char *line, tp_error *err) {
  char buf[ANSWER_MAX + 1];
  w->confirming = false; /* people have taken over the flight */
  tp_status st = copy_line(buf, line, err);
  if (st != TP_OK) return st;
  char *words[MAX_WORDS];
  int nw = split_words(buf, words);
  if (nw == 1 && !strcmp(words[0], "undo")) return cmd_undo(w, err);
  if (nw == 1 && !strcmp(words[0], "resolve")) return cmd_resolve(w, err);
  if (nw == 3 && !strcmp(words[0], "give"))
    return cmd_give(w, words[1], words[2], err);
  return tp_error_set(err, TP_ERR_INVALID, "unknown command '%.40s' (undo, "
                      "give CARD PLAYER, give CARD -, resolve)", line);
}
