/* watch observations as JSON: the `teppich analyze --json` format. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

static tp_status bad(const char *name, const char *what, tp_error *err) {
  return tp_error_set(err, TP_ERR_FORMAT, "%s: %s", name, what);
}

static bool get_xy(const cJSON *o, double *x, double *y) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "center_mm");
  if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2) return false;
  const cJSON *a = cJSON_GetArrayItem(c, 0), *b = cJSON_GetArrayItem(c, 1);
  if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b)) return false;
  *x = a->valuedouble;
  *y = b->valuedouble;
  return isfinite(*x) && isfinite(*y) && fabs(*x) < 1e6 && fabs(*y) < 1e6;
}

static double get_num(const cJSON *o, const char *key, double fallback) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble
                                                       : fallback;
}

static tp_status parse_cards(const cJSON *arr, const char *name, wch_obs *out,
                             tp_error *err) {
  const cJSON *c;
  cJSON_ArrayForEach(c, arr) {
    if (out->n_cards == WCH_MAX_OBS_CARDS)
      return bad(name, "more than 64 cards", err);
    wch_card_obs *o = &out->cards[out->n_cards++];
    memset(o, 0, sizeof *o); /* no id: matched by place */
    if (!cJSON_IsObject(c) || !get_xy(c, &o->x_mm, &o->y_mm))
      return bad(name, "a card without a center_mm [x, y]", err);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "type");
    o->type = cJSON_IsString(t) ? ft_card_type_parse(t->valuestring) : -1;
    o->angle_deg = get_num(c, "angle_deg", 90);
    o->visible_fraction = get_num(c, "visible_fraction", 0);
    /* written by watch for cards named by the layout reference */
    double id = get_num(c, "card_id", -1);
    if (id >= 0 && id < 1 << 20) o->has_id = true, o->id = (int)id;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "guess");
    int guess = cJSON_IsString(g) ? ft_card_type_parse(g->valuestring) : -1;
    if (o->type < 0 && guess >= 0) o->has_guess = true, o->guess = guess;
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(c, "second");
    int second = cJSON_IsString(sc) ? ft_card_type_parse(sc->valuestring) : -1;
    if (second >= 0) o->has_second = true, o->second = second;
    o->second_score = get_num(c, "second_score", second >= 0 ? 1 : 0);
    double laid = get_num(c, "laid_frame", -1), shown = get_num(c, "laid_shown", laid);
    if (laid >= 0 && laid < 1e15 && shown >= 0 && shown < 1e15)
      o->has_laid = true, o->laid_frame = (int64_t)laid, o->laid_shown = (int64_t)shown;
  }
  return TP_OK;
}

static tp_status parse_carpets(const cJSON *arr, const char *name,
                               wch_obs *out, tp_error *err) {
  const cJSON *c;
  cJSON_ArrayForEach(c, arr) {
    if (out->n_carpets == WCH_MAX_OBS_CARPETS)
      return bad(name, "more than 16 carpets", err);
    wch_carpet_obs *o = &out->carpets[out->n_carpets++];
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(c, "colour");
    if (!cJSON_IsObject(c) || !get_xy(c, &o->x_mm, &o->y_mm) ||
        !cJSON_IsString(col) || !col->valuestring[0] ||
        strlen(col->valuestring) >= FT_NAME_MAX)
      return bad(name, "a carpet without colour and center_mm", err);
    strcpy(o->colour, col->valuestring);
    o->angle_deg = get_num(c, "angle_deg", 90);
    o->visible_fraction = get_num(c, "visible_fraction", -1);
    o->has_visible = o->visible_fraction >= 0 && o->visible_fraction <= 1;
    if (!o->has_visible) o->visible_fraction = 0;
    const cJSON *on = cJSON_GetObjectItemCaseSensitive(c, "on_cards"), *v;
    cJSON_ArrayForEach(v, on) {
      if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
          v->valuedouble >= out->n_cards || o->n_on_cards == WCH_MAX_OBS_CARDS)
        return bad(name, "on_cards: not an index of cards", err);
      o->on_cards[o->n_on_cards++] = (int)v->valuedouble;
    }
  }
  return TP_OK;
}

/* Flags the cards of on_cards that `field` names (a list of card indices,
 * each one of on_cards). */
static tp_status mark_on_cards(const cJSON *c, const char *field,
                               const wch_carpet_obs *o, bool *flags,
                               const char *name, tp_error *err) {
  const cJSON *v;
  cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(c, field)) {
    int j = 0;
    while (cJSON_IsNumber(v) && j < o->n_on_cards &&
           o->on_cards[j] != v->valuedouble)
      j++;
    if (!cJSON_IsNumber(v) || j == o->n_on_cards) {
      char why[64];
      snprintf(why, sizeof why, "%s: not a card of on_cards", field);
      return bad(name, why, err);
    }
    flags[j] = true;
  }
  return TP_OK;
}

/* Card indices of the carpet's list `field` (not of on_cards) into
 * ids/n. */
static tp_status card_list(const cJSON *c, const char *field, int n_cards,
                           int *ids, int *n, const char *name, tp_error *err) {
  const cJSON *v;
  cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(c, field)) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= n_cards ||
        *n == WCH_MAX_OBS_CARDS) {
      char why[64];
      snprintf(why, sizeof why, "%s: not an index of cards", field);
      return bad(name, why, err);
    }
    ids[(*n)++] = (int)v->valuedouble;
  }
  return TP_OK;
}

/* Written by watch: carpets[].uncertain_on (cards of on_cards the eyes are
 * not sure the carpet lies above), carpets[].barely_on (those of them it
 * only barely reaches into: uncertain too), carpets[].barely_off (cards it
 * barely misses, taken as not on) and carpets[].under (carpets lying on
 * top of it). Read after all carpets, as they name each other. */
static tp_status parse_stacking(const cJSON *arr, const char *name,
                                wch_obs *out, tp_error *err) {
  const cJSON *c, *v;
  int i = 0;
  cJSON_ArrayForEach(c, arr) {
    wch_carpet_obs *o = &out->carpets[i++];
    tp_status st = mark_on_cards(c, "uncertain_on", o, o->on_uncertain, name, err);
    if (st == TP_OK) st = mark_on_cards(c, "barely_on", o, o->on_barely, name, err);
    if (st == TP_OK)
      st = card_list(c, "barely_off", out->n_cards, o->barely_off,
                     &o->n_barely_off, name, err);
    if (st != TP_OK) return st;
    for (int j = 0; j < o->n_on_cards; j++)
      o->on_uncertain[j] |= o->on_barely[j];
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(c, "under")) {
      if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
          v->valuedouble >= out->n_carpets ||
          o->n_under == WCH_MAX_OBS_CARPETS)
        return bad(name, "under: not an index of carpets", err);
      o->under[o->n_under++] = (int)v->valuedouble;
    }
  }
  return TP_OK;
}

tp_status wch_obs_parse_json(const char *text, size_t len, const char *name,
                             wch_obs *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return bad(name, "not a JSON object", err);
  }
  out->frame = (int64_t)get_num(root, "frame", -1);
  const cJSON *cards = cJSON_GetObjectItemCaseSensitive(root, "cards");
  const cJSON *carpets = cJSON_GetObjectItemCaseSensitive(root, "carpets");
  tp_status st = TP_OK;
  if ((cards && !cJSON_IsArray(cards)) || (carpets && !cJSON_IsArray(carpets)))
    st = bad(name, "cards and carpets must be arrays", err);
  if (st == TP_OK) st = parse_cards(cards, name, out, err);
  if (st == TP_OK) st = parse_carpets(carpets, name, out, err);
  if (st == TP_OK) st = parse_stacking(carpets, name, out, err);
  cJSON_Delete(root);
  if (st != TP_OK) memset(out, 0, sizeof *out);
  return st;
}

/* The cards of c->on_cards whose flag is set, as the array `name` of j
 * (left out when none is). */
static void add_flagged_cards(cJSON *j, const char *name, const wch_carpet_obs *c,
                              const bool *flag) {
  int ids[WCH_MAX_OBS_CARDS], n = 0;
  for (int k = 0; k < c->n_on_cards; k++)
    if (flag[k]) ids[n++] = c->on_cards[k];
  if (n) cJSON_AddItemToObject(j, name, cJSON_CreateIntArray(ids, n));
}

char *wch_obs_to_json(const wch_obs *obs) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "frame", (double)obs->frame);
  cJSON *cards = cJSON_AddArrayToObject(o, "cards");
  for (int i = 0; i < obs->n_cards; i++) {
    const wch_card_obs *c = &obs->cards[i];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "id", i);
    if (c->type >= 0)
      cJSON_AddStringToObject(j, "type", ft_card_type_name((ft_card_type)c->type));
    double xy[2] = {c->x_mm, c->y_mm};
    cJSON_AddItemToObject(j, "center_mm", cJSON_CreateDoubleArray(xy, 2));
    cJSON_AddNumberToObject(j, "angle_deg", c->angle_deg);
    if (c->has_id) cJSON_AddNumberToObject(j, "card_id", c->id);
    if (c->type < 0 && c->has_guess && c->guess >= 0 && c->guess < FT_N_TYPES)
      cJSON_AddStringToObject(j, "guess",
                              ft_card_type_name((ft_card_type)c->guess));
    if (c->has_second && c->second >= 0 && c->second < FT_N_TYPES) {
      cJSON_AddStringToObject(j, "second", ft_card_type_name((ft_card_type)c->second));
      cJSON_AddNumberToObject(j, "second_score", c->second_score);
    }
    if (c->has_laid) {
      cJSON_AddNumberToObject(j, "laid_frame", (double)c->laid_frame);
      cJSON_AddNumberToObject(j, "laid_shown", (double)c->laid_shown);
    }
    cJSON_AddItemToArray(cards, j);
  }
  cJSON *carpets = cJSON_AddArrayToObject(o, "carpets");
  for (int i = 0; i < obs->n_carpets; i++) {
    const wch_carpet_obs *c = &obs->carpets[i];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "colour", c->colour);
    double xy[2] = {c->x_mm, c->y_mm};
    cJSON_AddItemToObject(j, "center_mm", cJSON_CreateDoubleArray(xy, 2));
    cJSON_AddNumberToObject(j, "angle_deg", c->angle_deg);
    if (c->has_visible) cJSON_AddNumberToObject(j, "visible_fraction", c->visible_fraction);
    cJSON_AddItemToObject(j, "on_cards",
                          cJSON_CreateIntArray(c->on_cards, c->n_on_cards));
    add_flagged_cards(j, "uncertain_on", c, c->on_uncertain);
    add_flagged_cards(j, "barely_on", c, c->on_barely);
    if (c->n_barely_off)
      cJSON_AddItemToObject(j, "barely_off",
                            cJSON_CreateIntArray(c->barely_off, c->n_barely_off));
    if (c->n_under)
      cJSON_AddItemToObject(j, "under",
                            cJSON_CreateIntArray(c->under, c->n_under));
    cJSON_AddItemToArray(carpets, j);
  }
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}
