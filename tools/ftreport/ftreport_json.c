/* ftreport: the JSON report of a replayed transcript (for programs). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ftreport.h"

typedef struct {
  const ft_game *game;
  cJSON *root, *rounds, *round, *flights, *contests;
} json_ctx;

static const char *player(const json_ctx *c, int p) {
  return ft_game_players(c->game)->players[p].name;
}

static cJSON *int_array(const int *v, int n) {
  return cJSON_CreateIntArray(v, n);
}

static cJSON *per_player(const json_ctx *c, const int *v) {
  cJSON *o = cJSON_CreateObject();
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++)
    cJSON_AddNumberToObject(o, player(c, p), v[p]);
  return o;
}

static void on_players(void *ctx) {
  json_ctx *c = ctx;
  const ft_players *ps = ft_game_players(c->game);
  cJSON *arr = cJSON_AddArrayToObject(c->root, "players");
  for (int p = 0; p < ps->n_players; p++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", ps->players[p].name);
    cJSON *carpets = cJSON_AddArrayToObject(o, "carpets");
    for (int k = 0; k < ps->players[p].n_carpets; k++)
      cJSON_AddItemToArray(carpets,
                           cJSON_CreateString(ps->players[p].carpets[k]));
    cJSON_AddItemToArray(arr, o);
  }
  c->rounds = cJSON_AddArrayToObject(c->root, "rounds");
}

static void on_genies(void *ctx) {
  json_ctx *c = ctx;
  cJSON *o = cJSON_AddObjectToObject(c->root, "genies");
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++) {
    ft_hand h = ft_game_genies(c->game, p);
    cJSON_AddItemToObject(o, player(c, p), int_array(h.values, h.n));
  }
}

static void on_layout(void *ctx) {
  json_ctx *c = ctx;
  ft_card cards[FT_MAX_CARDS];
  int n = ft_game_table(c->game, cards);
  c->round = cJSON_CreateObject();
  cJSON_AddItemToArray(c->rounds, c->round);
  cJSON_AddNumberToObject(c->round, "round", ft_game_round(c->game));
  cJSON_AddStringToObject(c->round, "layer", player(c, ft_game_layer(c->game)));
  cJSON *layout = cJSON_AddArrayToObject(c->round, "layout");
  for (int i = 0; i < n; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", cards[i].id);
    cJSON_AddStringToObject(o, "type", ft_card_type_name(cards[i].type));
    if (cards[i].has_pos) {
      double xy[2] = {cards[i].x_mm, cards[i].y_mm};
      cJSON_AddItemToObject(o, "center_mm", cJSON_CreateDoubleArray(xy, 2));
    }
    cJSON_AddItemToArray(layout, o);
  }
  c->flights = cJSON_AddArrayToObject(c->round, "flights");
}

static void on_flight(void *ctx, const ft_flight_report *f) {
  json_ctx *c = ctx;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToArray(c->flights, o);
  cJSON_AddNumberToObject(o, "flight", f->flight);
  cJSON *claims = cJSON_AddArrayToObject(o, "claims");
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++) {
    if (!f->n_claimed[p]) continue;
    cJSON *cl = cJSON_CreateObject();
    cJSON_AddStringToObject(cl, "player", player(c, p));
    cJSON_AddItemToObject(cl, "cards",
                          int_array(f->claimed[p], f->n_claimed[p]));
    cJSON_AddItemToArray(claims, cl);
  }
  c->contests = cJSON_AddArrayToObject(o, "contests");
  for (int i = 0; i < f->n_contests; i++) {
    cJSON *ct = cJSON_CreateObject();
    cJSON_AddNumberToObject(ct, "card", f->contests[i].card);
    cJSON *ps = cJSON_AddArrayToObject(ct, "players");
    for (int q = 0; q < f->contests[i].n_players; q++)
      cJSON_AddItemToArray(
          ps, cJSON_CreateString(player(c, f->contests[i].players[q])));
    cJSON_AddItemToArray(c->contests, ct);
  }
  cJSON *ret = cJSON_AddArrayToObject(o, "returned");
  for (int i = 0; i < f->n_returned; i++)
    cJSON_AddItemToArray(ret, cJSON_CreateString(f->returned[i]));
  if (f->n_unclaimed)
    cJSON_AddItemToObject(o, "unclaimed",
                          int_array(f->unclaimed, f->n_unclaimed));
}

static void on_contest(void *ctx, const ft_contest_result *r) {
  json_ctx *c = ctx;
  cJSON *ct = NULL, *it;
  cJSON_ArrayForEach(it, c->contests) {
    if (cJSON_GetObjectItem(it, "card")->valueint == r->card) ct = it;
  }
  if (!ct) return;
  cJSON *rev = cJSON_AddObjectToObject(ct, "reveals");
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++)
    if (r->revealed[p])
      cJSON_AddNumberToObject(rev, player(c, p), r->revealed[p]);
  cJSON_AddStringToObject(ct, "winner", player(c, r->winner));
  cJSON *sw = cJSON_AddObjectToObject(ct, "swap");
  cJSON_AddStringToObject(sw, "winner", player(c, r->winner));
  cJSON_AddNumberToObject(sw, "winner_gets", r->lowest_genie);
  cJSON_AddStringToObject(sw, "lowest", player(c, r->lowest));
  cJSON_AddNumberToObject(sw, "lowest_gets", r->winner_genie);
  cJSON_AddBoolToObject(sw, "after_flight", r->swap_deferred);
}

static void on_round_end(void *ctx, const ft_round_report *r) {
  json_ctx *c = ctx;
  cJSON_AddItemToObject(c->round, "palaces", per_player(c, r->palaces));
  cJSON_AddItemToObject(c->round, "lamps_spent", per_player(c, r->lamps_spent));
  cJSON_AddItemToObject(c->round, "palace_points", per_player(c, r->points));
  cJSON_AddItemToObject(c->round, "leftovers",
                        int_array(r->leftovers, r->n_leftovers));
}

static cJSON *score_json(const ft_score *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON *pairs = cJSON_AddObjectToObject(o, "bazaar_pairs");
  cJSON_AddNumberToObject(pairs, "spice", s->bazaar_pairs[0]);
  cJSON_AddNumberToObject(pairs, "carpet", s->bazaar_pairs[1]);
  cJSON_AddNumberToObject(pairs, "camel", s->bazaar_pairs[2]);
  cJSON_AddNumberToObject(o, "bazaar_points", s->bazaar_points);
  cJSON_AddItemToObject(o, "adventure_sets",
                        int_array(s->adventure_set_sizes, s->n_adventure_sets));
  cJSON_AddNumberToObject(o, "adventure_points", s->adventure_points);
  cJSON_AddNumberToObject(o, "treasure_points", s->treasure_points);
  cJSON_AddNumberToObject(o, "deserts", s->deserts);
  cJSON_AddNumberToObject(o, "deserts_cancelled", s->deserts_cancelled);
  cJSON_AddNumberToObject(o, "desert_points", s->desert_points);
  cJSON *lamps = cJSON_AddObjectToObject(o, "lamps");
  cJSON_AddNumberToObject(lamps, "held", s->lamps);
  cJSON_AddNumberToObject(lamps, "cancel_desert", s->lamps_for_desert);
  cJSON_AddItemToObject(lamps, "wild_bazaar",
                        int_array(s->lamps_for_bazaar, 3));
  cJSON_AddNumberToObject(lamps, "wild_adventure", s->lamps_for_adventure);
  cJSON_AddNumberToObject(lamps, "unused", s->lamps_unused);
  cJSON_AddNumberToObject(o, "palace_points", s->palace_points);
  cJSON_AddNumberToObject(o, "total", s->total);
  return o;
}

static void on_final(void *ctx, const ft_final *f) {
  json_ctx *c = ctx;
  cJSON *o = cJSON_AddObjectToObject(c->root, "final");
  cJSON *scores = cJSON_AddObjectToObject(o, "scores");
  cJSON *totals = cJSON_AddObjectToObject(o, "totals");
  cJSON *winners = cJSON_AddArrayToObject(o, "winners");
  for (int p = 0; p < f->n_players; p++) {
    cJSON_AddItemToObject(scores, player(c, p), score_json(&f->scores[p]));
    cJSON_AddNumberToObject(totals, player(c, p), f->scores[p].total);
    if (f->winner[p])
      cJSON_AddItemToArray(winners, cJSON_CreateString(player(c, p)));
  }
}

static const ftr__emitter json_emitter = {
    .players = on_players,
    .genies = on_genies,
    .layout = on_layout,
    .flight = on_flight,
    .contest = on_contest,
    .round_end = on_round_end,
    .final = on_final,
};

tp_status ftr__score_json(ft_transcript *t, const char *name, char **out,
                          tp_error *err) {
  json_ctx c;
  memset(&c, 0, sizeof c);
  c.root = cJSON_CreateObject();
  tp_status st =
      c.root ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  if (st == TP_OK) {
    cJSON_AddStringToObject(c.root, "file", name);
    st = ftr__walk(t, &json_emitter, &c, &c.game, err);
  }
  const ft_game *g = ft_transcript_game(t);
  if (st == TP_OK) {
    cJSON_AddBoolToObject(c.root, "finished",
                          g && ft_game_phase(g) == FT_PHASE_OVER);
    char *text = cJSON_Print(c.root);
    size_t n = text ? strlen(text) : 0;
    *out = text ? malloc(n + 2) : NULL;
    if (*out)
      memcpy(*out, text, n), memcpy(*out + n, "\n", 2);
    else
      st = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    cJSON_free(text);
  }
  cJSON_Delete(c.root);
  return st;
}
