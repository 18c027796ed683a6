/* watch report: the events of spec section 6 (JSON lines), the readable
 * commentary, the state as JSON for a web page and the final table. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

static const char *pname(const wch *w, int p) {
  return w->players.players[p].name;
}

static cJSON *event_start(const wch *w, const char *kind, int round) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "event", kind);
  cJSON_AddNumberToObject(o, "round", round);
  cJSON_AddNumberToObject(o, "frame", (double)w->frame);
  return o;
}

static void emit(wch *w, cJSON *o) {
  char *s = cJSON_PrintUnformatted(o);
  wch__event(w, s);
  free(s);
  cJSON_Delete(o);
}

static cJSON *xy(double x, double y) {
  double v[2] = {(double)(long long)(x * 10 + (x < 0 ? -0.5 : 0.5)) / 10,
                 (double)(long long)(y * 10 + (y < 0 ? -0.5 : 0.5)) / 10};
  return cJSON_CreateDoubleArray(v, 2);
}

static cJSON *card_json(const wch__card *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", c->id);
  cJSON_AddStringToObject(o, "type", ft_card_type_name((ft_card_type)c->type));
  cJSON_AddItemToObject(o, "center_mm", xy(c->x, c->y));
  cJSON_AddNumberToObject(o, "angle_deg",
                          (double)(long long)(c->angle * 10 + 0.5) / 10);
  return o;
}

void wch__emit_layout(wch *w) {
  if (w->replaying) return;
  cJSON *o = event_start(w, "layout", ft_game_round(w->game));
  cJSON_AddStringToObject(o, "layer", pname(w, ft_game_layer(w->game)));
  cJSON *cards = cJSON_AddArrayToObject(o, "cards");
  for (int k = 0; k < w->n_ref; k++)
    cJSON_AddItemToArray(cards, card_json(&w->ref[k]));
  emit(w, o);
}

static cJSON *ids_json(const int *ids, int n) {
  return cJSON_CreateIntArray(ids, n);
}

/* The type of card `id` as far as the controller knows it (-1: not). */
static int card_type_of(const wch *w, int id) {
  for (int g = 0; g < w->n_ref; g++)
    if (w->ref[g].id == id) return w->ref[g].type;
  for (int g = 0; g < w->n_ghost; g++)
    if (w->ghost[g].id == id) return w->ghost[g].type;
  return -1;
}

static void add_type(cJSON *o, const char *key, int type) {
  if (type >= 0 && type < FT_N_TYPES)
    cJSON_AddStringToObject(o, key, ft_card_type_name((ft_card_type)type));
}

/* The last flight's claims, contests (with winners once revealed) and
 * returned carpets: the spec's `flight` event, and the web page's
 * `last_flight` (which also reads the card types). */
static void add_flight(const wch *w, cJSON *o, bool types) {
  const ft_flight_report *r = &w->report;
  cJSON_AddNumberToObject(o, "flight", r->flight);
  cJSON *claims = cJSON_AddArrayToObject(o, "claims");
  for (int p = 0; p < w->players.n_players; p++) {
    if (!r->n_claimed[p]) continue;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "player", pname(w, p));
    cJSON_AddItemToObject(c, "cards", ids_json(r->claimed[p], r->n_claimed[p]));
    if (types) {
      cJSON *t = cJSON_AddArrayToObject(c, "types");
      for (int k = 0; k < r->n_claimed[p]; k++) {
        int type = card_type_of(w, r->claimed[p][k]);
        cJSON_AddItemToArray(t, type < 0 ? cJSON_CreateNull() : cJSON_CreateString(
                                    ft_card_type_name((ft_card_type)type)));
      }
    }
    cJSON_AddItemToArray(claims, c);
  }
  cJSON *contests = cJSON_AddArrayToObject(o, "contests");
  for (int k = 0; k < r->n_contests; k++) {
    const ft_game_contest *gc = &r->contests[k];
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "card", gc->card);
    if (types) add_type(c, "type", card_type_of(w, gc->card));
    cJSON *pl = cJSON_AddArrayToObject(c, "players");
    for (int q = 0; q < gc->n_players; q++)
      cJSON_AddItemToArray(pl, cJSON_CreateString(pname(w, gc->players[q])));
    bool emitted = w->n_results < 0;
    const ft_contest_result *res = emitted ? w->emitted : w->results;
    int n_res = emitted ? w->n_emitted : w->n_results;
    for (int i = 0; i < n_res; i++)
      if (res[i].card == gc->card) {
        cJSON_AddStringToObject(c, "winner", pname(w, res[i].winner));
        cJSON *g = cJSON_AddObjectToObject(c, "genies");
        for (int q = 0; q < gc->n_players; q++)
          cJSON_AddNumberToObject(g, pname(w, gc->players[q]),
                                  res[i].revealed[gc->players[q]]);
      }
    cJSON_AddItemToArray(contests, c);
  }
  cJSON *ret = cJSON_AddArrayToObject(o, "returned");
  for (int k = 0; k < r->n_returned; k++)
    cJSON_AddItemToArray(ret, cJSON_CreateString(r->returned[k]));
}

void wch__emit_flight(wch *w) {
  if (w->replaying) return;
  cJSON *o = event_start(w, "flight", w->report.round);
  add_flight(w, o, false);
  emit(w, o);
}

void wch__emit_round_end(wch *w, const ft_round_report *r) {
  cJSON *o = event_start(w, "round_end", r->round);
  cJSON *pts = cJSON_AddObjectToObject(o, "palace_points");
  cJSON *pal = cJSON_AddObjectToObject(o, "palaces");
  cJSON *lamps = cJSON_AddObjectToObject(o, "lamps_spent");
  for (int p = 0; p < w->players.n_players; p++) {
    cJSON_AddNumberToObject(pts, pname(w, p), r->points[p]);
    cJSON_AddNumberToObject(pal, pname(w, p), r->palaces[p]);
    cJSON_AddNumberToObject(lamps, pname(w, p), r->lamps_spent[p]);
  }
  cJSON_AddItemToObject(o, "leftovers",
                        ids_json(r->leftovers, r->n_leftovers));
  if (!w->replaying) {
    emit(w, o);
  } else {
    cJSON_Delete(o);
    return;
  }
  char text[512];
  int len = snprintf(text, sizeof text, "End of round %d. Palaces:", r->round);
  for (int p = 0; p < w->players.n_players && len < (int)sizeof text; p++)
    len += snprintf(text + len, sizeof text - (size_t)len, " %s %d (%+d)%s",
                    pname(w, p), r->palaces[p], r->points[p],
                    p + 1 < w->players.n_players ? "," : ".");
  wch__say(w, WCH_SAY_RESULT, "%s", text);
}

void wch__emit_final(wch *w) {
  ft_final f;
  tp_error err;
  if (w->replaying || ft_game_final(w->game, &f, &err) != TP_OK) return;
  cJSON *o = event_start(w, "final", ft_game_rounds(w->game));
  cJSON *tot = cJSON_AddObjectToObject(o, "totals");
  cJSON *win = cJSON_AddArrayToObject(o, "winners");
  for (int p = 0; p < f.n_players; p++) {
    cJSON_AddNumberToObject(tot, pname(w, p), f.scores[p].total);
    if (f.winner[p]) cJSON_AddItemToArray(win, cJSON_CreateString(pname(w, p)));
  }
  emit(w, o);
  char *table = wch_final_table(w, false);
  if (table) wch__say(w, WCH_SAY_FINAL, "%s", table);
  free(table);
}

static int count_label(int type, int count, char *buf, size_t cap) {
  static const char *const words[] = {"two",  "three", "four", "five",
                                      "six",  "seven", "eight", "nine",
                                      "ten", "eleven", "twelve"};
  if (count == 1) return snprintf(buf, cap, "%s", wch__card_label(type));
  if (count <= 12)
    return snprintf(buf, cap, "%s %s", words[count - 2], wch__card_plural(type));
  return snprintf(buf, cap, "%d %s", count, wch__card_plural(type));
}

/* "anna takes the palace and the treasure"; cards of one type are said
 * once with their number ("two palaces"), in the order they first come:
 * read aloud, "the palace and the palace" sounds like a mistake. */
static int list_cards(const wch *w, const int *ids, int n, char *buf,
                      size_t cap) {
  int types[FT_N_TYPES + 1], counts[FT_N_TYPES + 1], n_types = 0, len = 0;
  for (int k = 0; k < n; k++) {
    int type = card_type_of(w, ids[k]), t = 0;
    if (type < 0 || type >= FT_N_TYPES) type = FT_N_TYPES; /* unknown */
    while (t < n_types && types[t] != type) t++;
    if (t == n_types) {
      types[n_types] = type;
      counts[n_types++] = 0;
    }
    counts[t]++;
  }
  for (int t = 0; t < n_types && len < (int)cap; t++) {
    len += snprintf(buf + len, cap - (size_t)len, "%s",
                    t == 0 ? "" : t + 1 == n_types ? " and " : ", ");
    if (len < (int)cap)
      len += count_label(types[t], counts[t], buf + len, cap - (size_t)len);
  }
  return len;
}

void wch__say_flight(wch *w) {
  const ft_flight_report *r = &w->report;
  char text[1024];
  int len = snprintf(text, sizeof text, "Round %d, flight %d:", r->round,
                     r->flight);
  bool any = false;
  for (int p = 0; p < w->players.n_players; p++) {
    if (!r->n_claimed[p] || len >= (int)sizeof text - 2) continue;
    len += snprintf(text + len, sizeof text - (size_t)len, "%s %s takes ",
                    any ? ";" : "", pname(w, p));
    len += list_cards(w, r->claimed[p], r->n_claimed[p], text + len,
                      sizeof text - (size_t)len);
    any = true;
  }
  if (!any && len < (int)sizeof text)
    len += snprintf(text + len, sizeof text - (size_t)len, " nobody takes a "
                    "card");
  if (len < (int)sizeof text) snprintf(text + len, sizeof text - (size_t)len, ".");
  wch__say(w, WCH_SAY_RESULT, "%s", text);
  if (r->n_returned) {
    /* "The blue and red carpets lie on no card and go back." */
    len = snprintf(text, sizeof text, "The");
    for (int k = 0; k < r->n_returned && len < (int)sizeof text; k++)
      len += snprintf(text + len, sizeof text - (size_t)len, "%s%s",
                      k == 0 ? " " : k + 1 == r->n_returned ? " and " : ", ",
                      r->returned[k]);
    if (len < (int)sizeof text)
      snprintf(text + len, sizeof text - (size_t)len, "%s",
               r->n_returned > 1 ? " carpets lie on no card and go back."
                                 : " carpet lies on no card and goes back.");
    wch__say(w, WCH_SAY_INFO, "%s", text);
  }
  for (int k = 0; k < r->n_contests; k++) {
    const ft_game_contest *c = &r->contests[k];
    int one[1] = {c->card};
    len = snprintf(text, sizeof text, "Genie contest on ");
    len += list_cards(w, one, 1, text + len, sizeof text - (size_t)len);
    for (int q = 0; q < c->n_players && len < (int)sizeof text; q++)
      len += snprintf(text + len, sizeof text - (size_t)len, "%s%s",
                      q == 0 ? ": " : " vs ", pname(w, c->players[q]));
    if (len < (int)sizeof text)
      snprintf(text + len, sizeof text - (size_t)len, ". Reveal your genies!");
    wch__say(w, WCH_SAY_CONTEST, "%s", text);
  }
}

/* ---- the whole state, for a web page ---- */

/* Whose carpet is to land next, while the carpets are thrown. */
static void add_turn(const wch *w, cJSON *o) {
  if (w->stage != WCH_WAIT_THROWS) return;
  const char *order[FT_MAX_CARPETS];
  int n = ft_game_throw_order(w->game, order);
  if (w->n_landed >= n) return;
  int p = ft_players_by_colour(&w->players, order[w->n_landed]);
  if (p >= 0) cJSON_AddStringToObject(o, "turn", pname(w, p));
}

/* The waiting question as a prompt and as `ask` (what the page needs to
 * draw buttons: the kind, the card, the players asked). */
static void add_question(const wch *w, cJSON *o) {
  wch_question q;
  if (!wch_question_pending(w, &q)) return;
  cJSON_AddStringToObject(o, "question", q.prompt);
  static const char *const kinds[] = {"", "genies", "reveal", "lamps"};
  cJSON *ask = cJSON_AddObjectToObject(o, "ask");
  cJSON_AddStringToObject(ask, "kind", kinds[q.kind]);
  cJSON *names = cJSON_CreateArray();
  if (q.kind == WCH_Q_REVEAL) {
    cJSON_AddNumberToObject(ask, "card", q.card);
    add_type(ask, "card_type", card_type_of(w, q.card));
    for (int k = 0; k < q.n_players; k++)
      cJSON_AddItemToArray(names, cJSON_CreateString(pname(w, q.players[k])));
  } else {
    for (int p = 0; p < w->players.n_players; p++)
      cJSON_AddItemToArray(names, cJSON_CreateString(pname(w, p)));
  }
  cJSON_AddItemToObject(ask, "players", names);
  cJSON_AddStringToObject(ask, "prompt", q.prompt);
}

static void add_final(const wch *w, cJSON *o) {
  ft_final f;
  tp_error err;
  if (w->stage != WCH_GAME_OVER || ft_game_final(w->game, &f, &err) != TP_OK)
    return;
  cJSON *fin = cJSON_AddObjectToObject(o, "final");
  cJSON *tot = cJSON_AddObjectToObject(fin, "totals");
  cJSON *win = cJSON_AddArrayToObject(fin, "winners");
  for (int p = 0; p < f.n_players; p++) {
    cJSON_AddNumberToObject(tot, pname(w, p), f.scores[p].total);
    if (f.winner[p]) cJSON_AddItemToArray(win, cJSON_CreateString(pname(w, p)));
  }
}

/* The last commentary lines, oldest first. */
static void add_said(const wch *w, cJSON *o) {
  static const char *const tones[] = {"info",     "result", "contest",
                                      "question", "warn",   "final"};
  cJSON *say = cJSON_AddArrayToObject(o, "say");
  int n = w->n_said < WCH__SAID ? w->n_said : WCH__SAID;
  for (int k = w->n_said - n; k < w->n_said; k++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "tone", tones[w->said_tone[k % WCH__SAID]]);
    cJSON_AddStringToObject(l, "text", w->said[k % WCH__SAID]);
    cJSON_AddItemToArray(say, l);
  }
}

char *wch_state_json(const wch *w) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stage", wch_stage_name(w->stage));
  cJSON_AddStringToObject(o, "phase", ft_phase_name(ft_game_phase(w->game)));
  cJSON_AddNumberToObject(o, "round", ft_game_round(w->game));
  cJSON_AddNumberToObject(o, "rounds", ft_game_rounds(w->game));
  cJSON_AddNumberToObject(o, "flight", ft_game_flight_number(w->game));
  cJSON_AddStringToObject(o, "layer", pname(w, ft_game_layer(w->game)));
  cJSON_AddNumberToObject(o, "frame", (double)w->frame);
  cJSON *cards = cJSON_AddArrayToObject(o, "table");
  for (int k = 0; k < w->n_ref; k++)
    cJSON_AddItemToArray(cards, card_json(&w->ref[k]));
  cJSON *landed = cJSON_AddArrayToObject(o, "carpets_landed");
  for (int k = 0; k < w->n_landed; k++)
    cJSON_AddItemToArray(landed, cJSON_CreateString(w->landed[k]));
  add_turn(w, o);
  add_question(w, o);
  if (w->have_flight) {
    cJSON *f = cJSON_AddObjectToObject(o, "last_flight");
    cJSON_AddNumberToObject(f, "round", w->report.round);
    add_flight(w, f, true);
  }
  cJSON *players = cJSON_AddArrayToObject(o, "players");
  for (int p = 0; p < w->players.n_players; p++) {
    cJSON *pl = cJSON_CreateObject();
    cJSON_AddStringToObject(pl, "name", pname(w, p));
    const ft_player *fp = &w->players.players[p];
    cJSON *colours = cJSON_AddArrayToObject(pl, "colours");
    for (int c = 0; c < fp->n_carpets; c++)
      cJSON_AddItemToArray(colours, cJSON_CreateString(fp->carpets[c]));
    int counts[FT_N_TYPES];
    cJSON_AddNumberToObject(pl, "cards",
                            ft_game_collection(w->game, p, counts));
    cJSON *held = cJSON_AddObjectToObject(pl, "holds");
    for (int t = 0; t < FT_N_TYPES; t++)
      if (counts[t])
        cJSON_AddNumberToObject(held, ft_card_type_name((ft_card_type)t),
                                counts[t]);
    ft_hand h = ft_game_genies(w->game, p);
    cJSON_AddItemToObject(pl, "genies", cJSON_CreateIntArray(h.values, h.n));
    cJSON_AddNumberToObject(pl, "palace_points",
                            ft_game_palace_points(w->game, p));
    cJSON_AddItemToArray(players, pl);
  }
  cJSON_AddNumberToObject(o, "warnings", w->warnings);
  /* the last flight is announced, its second look still to come */
  cJSON_AddBoolToObject(o, "confirming", w->confirming);
  cJSON_AddNumberToObject(o, "corrections", w->corrections);
  add_final(w, o);
  add_said(w, o);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

/* ---- the final table ---- */

char *wch_final_table(const wch *w, bool colour) {
  ft_final f;
  tp_error err;
  if (ft_game_final(w->game, &f, &err) != TP_OK) return NULL;
  size_t cap = 4096;
  char *s = malloc(cap);
  if (!s) return NULL;
  int len = snprintf(s, cap, "Final scores\n%-12s %7s %7s %10s %9s %7s %6s\n",
                     "player", "palaces", "bazaars", "adventures",
                     "treasures", "deserts", "total");
  for (int p = 0; p < f.n_players; p++) {
    const ft_score *sc = &f.scores[p];
    len += snprintf(s + len, cap - (size_t)len,
                    "%s%-12s %7d %7d %10d %9d %7d %6d%s%s\n",
                    colour && f.winner[p] ? "\033[1m" : "", pname(w, p),
                    sc->palace_points, sc->bazaar_points, sc->adventure_points,
                    sc->treasure_points, sc->desert_points, sc->total,
                    f.winner[p] ? "  winner" : "",
                    colour && f.winner[p] ? "\033[0m" : "");
  }
  if (f.n_winners == 0) {
    snprintf(s + len, cap - (size_t)len, "Nobody wins: a tie.\n");
  } else {
    len += snprintf(s + len, cap - (size_t)len, "%s: ",
                    f.n_winners > 1 ? "Winners" : "Winner");
    int points = 0;
    for (int p = 0, k = 0; p < f.n_players; p++)
      if (f.winner[p]) {
        len += snprintf(s + len, cap - (size_t)len, "%s%s", k++ ? " and " : "",
                        pname(w, p));
        points = f.scores[p].total;
      }
    snprintf(s + len, cap - (size_t)len, " with %d point%s%s!\n", points,
             points == 1 || points == -1 ? "" : "s", f.n_winners > 1 ? " each" : "");
  }
  return s;
}
