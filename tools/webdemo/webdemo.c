/* webdemo: the made-up game's state, and its answers checked the way the
 * live controller checks them. */
#define _POSIX_C_SOURCE 200809L
#include <cairo.h>
#include <cjson/cJSON.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webdemo_internal.h"

static const wdemo__player start_players[WDEMO_PLAYERS] = {
    {"anna", "red", {8, 2}, 5, 0, 3},
    {"ben", "blue", {7, 1}, 4, 1, 2},
    {"cleo", "green", {6, 3}, 4, 0, 2},
    {"dirk", "yellow", {5, 4}, 3, 1, 1}};

/* Round 2's layout (ids go on from round 1's 12 cards), in mm. */
static const wdemo__card start_cards[WDEMO_CARDS] = {
    {12, "palace", 150, 120, 0, -1},       {13, "desert", 250, 120, 3, -1},
    {14, "adventure-c", 350, 120, -2, -1}, {15, "palace", 450, 120, 0, -1},
    {16, "spice-bazaar", 150, 260, 2, 2},  {17, "palace", 250, 260, 0, 0},
    {18, "lamp", 350, 260, 0, -1},         {19, "palace", 450, 260, -3, -1},
    {20, "adventure-a", 150, 400, 0, -1},  {21, "camel-bazaar", 250, 400, 1, -1},
    {22, "treasure", 350, 400, 0, 0},      {23, "desert", 450, 400, 2, -1}};

/* Where the carpets of flight 3 landed: red on 17, 21 and 22, blue on 21,
 * green on 16, yellow on nothing. */
static const wdemo__carpet start_carpets[WDEMO_PLAYERS] = {
    {"red", 292, 345, -38},
    {"blue", 232, 445, -12},
    {"green", 118, 300, 10},
    {"yellow", 525, 195, 20}};

static void say(wdemo *d, int tone, const char *text) {
  if (d->n_say == WDEMO_SAY) {
    memmove(d->say[0], d->say[1], sizeof d->say[0] * (WDEMO_SAY - 1));
    memmove(d->say_tone, d->say_tone + 1, sizeof d->say_tone[0] * (WDEMO_SAY - 1));
    d->n_say--;
  }
  snprintf(d->say[d->n_say], sizeof d->say[0], "%s", text);
  d->say_tone[d->n_say++] = tone;
}

tp_status wdemo_create(wdemo **out, tp_error *err) {
  wdemo *d = calloc(1, sizeof *d);
  if (!d) return tp_error_set(err, TP_ERR_NOMEM, "demo: out of memory");
  memcpy(d->players, start_players, sizeof d->players);
  memcpy(d->cards, start_cards, sizeof d->cards);
  memcpy(d->carpets, start_carpets, sizeof d->carpets);
  d->contest_card = 9; /* card 21, the camel bazaar */
  d->contest_players[0] = 0;
  d->contest_players[1] = 1;
  d->winner = -1;
  say(d, 0, "Round 2: ben lays out the cards.");
  say(d, 1, "Flight 3: anna takes the palace and the treasure.");
  say(d, 1, "cleo takes the spice bazaar.");
  say(d, 2, "Genie contest on the camel bazaar: anna vs ben. Reveal your "
            "genies!");
  *out = d;
  return TP_OK;
}

void wdemo_destroy(wdemo *d) {
  if (!d) return;
  free(d);
  /* cairo's toy text (the frame's labels) keeps fontconfig's caches for
   * the life of the process: drop them so leak checkers see a clean exit
   * (as tools/render does). Both set themselves up again when used. */
  cairo_debug_reset_static_data();
  FcFini();
}

/* ---- the state ---- */

static cJSON *card_json(const wdemo__card *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", c->id);
  cJSON_AddStringToObject(o, "type", c->type);
  double xy[2] = {c->x_mm, c->y_mm};
  cJSON_AddItemToObject(o, "center_mm", cJSON_CreateDoubleArray(xy, 2));
  return o;
}

static void add_last_flight(const wdemo *d, cJSON *o) {
  cJSON *f = cJSON_AddObjectToObject(o, "last_flight");
  cJSON_AddNumberToObject(f, "round", 2);
  cJSON_AddNumberToObject(f, "flight", 3);
  cJSON *claims = cJSON_AddArrayToObject(f, "claims");
  for (int p = 0; p < WDEMO_PLAYERS; p++) {
    cJSON *ids = cJSON_CreateArray(), *types = cJSON_CreateArray();
    for (int k = 0; k < WDEMO_CARDS; k++)
      if (d->cards[k].owner == p && k != d->contest_card) {
        cJSON_AddItemToArray(ids, cJSON_CreateNumber(d->cards[k].id));
        cJSON_AddItemToArray(types, cJSON_CreateString(d->cards[k].type));
      }
    if (cJSON_GetArraySize(ids) == 0) {
      cJSON_Delete(ids);
      cJSON_Delete(types);
      continue;
    }
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "player", d->players[p].name);
    cJSON_AddItemToObject(c, "cards", ids);
    cJSON_AddItemToObject(c, "types", types);
    cJSON_AddItemToArray(claims, c);
  }
  cJSON *contests = cJSON_AddArrayToObject(f, "contests");
  cJSON *c = cJSON_CreateObject();
  const wdemo__card *card = &d->cards[d->contest_card];
  cJSON_AddNumberToObject(c, "card", card->id);
  cJSON_AddStringToObject(c, "type", card->type);
  cJSON *who = cJSON_AddArrayToObject(c, "players");
  for (int k = 0; k < 2; k++)
    cJSON_AddItemToArray(
        who, cJSON_CreateString(d->players[d->contest_players[k]].name));
  if (d->winner >= 0)
    cJSON_AddStringToObject(c, "winner", d->players[d->winner].name);
  cJSON_AddItemToArray(contests, c);
  const char *returned[] = {"yellow"};
  cJSON_AddItemToObject(f, "returned", cJSON_CreateStringArray(returned, 1));
}

static void add_question(const wdemo *d, cJSON *o) {
  if (d->winner >= 0) return;
  const wdemo__card *card = &d->cards[d->contest_card];
  char prompt[160];
  snprintf(prompt, sizeof prompt, "Genie contest for card %d: reveal %s=? %s=?",
           card->id, d->players[d->contest_players[0]].name,
           d->players[d->contest_players[1]].name);
  cJSON_AddStringToObject(o, "question", prompt);
  cJSON *a = cJSON_AddObjectToObject(o, "ask");
  cJSON_AddStringToObject(a, "kind", "reveal");
  cJSON_AddNumberToObject(a, "card", card->id);
  cJSON_AddStringToObject(a, "card_type", card->type);
  cJSON *who = cJSON_AddArrayToObject(a, "players");
  for (int k = 0; k < 2; k++)
    cJSON_AddItemToArray(
        who, cJSON_CreateString(d->players[d->contest_players[k]].name));
  cJSON_AddStringToObject(a, "prompt", prompt);
}

static void add_players(const wdemo *d, cJSON *o) {
  cJSON *players = cJSON_AddArrayToObject(o, "players");
  for (int p = 0; p < WDEMO_PLAYERS; p++) {
    const wdemo__player *pl = &d->players[p];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", pl->name);
    cJSON_AddItemToObject(j, "colours", cJSON_CreateStringArray(&pl->colour, 1));
    int cards = pl->cards, palaces = pl->palaces, lamps = pl->lamps;
    for (int k = 0; k < WDEMO_CARDS; k++)
      if (d->cards[k].owner == p && (k != d->contest_card || d->winner == p)) {
        cards++;
        palaces += !strcmp(d->cards[k].type, "palace");
        lamps += !strcmp(d->cards[k].type, "lamp");
      }
    cJSON_AddNumberToObject(j, "cards", cards);
    cJSON *holds = cJSON_AddObjectToObject(j, "holds");
    cJSON_AddNumberToObject(holds, "palace", palaces);
    if (lamps) cJSON_AddNumberToObject(holds, "lamp", lamps);
    cJSON_AddItemToObject(j, "genies", cJSON_CreateIntArray(pl->genies, 2));
    /* palace points of round 1 (5 for the most palaces, 3 for second) */
    static const int round1[WDEMO_PLAYERS] = {5, 3, 3, 0};
    cJSON_AddNumberToObject(j, "palace_points", round1[p]);
    cJSON_AddItemToArray(players, j);
  }
}

char *wdemo_state_json(const wdemo *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stage", d->winner < 0 ? "answer" : "taking");
  cJSON_AddNumberToObject(o, "round", 2);
  cJSON_AddNumberToObject(o, "rounds", 4);
  cJSON_AddNumberToObject(o, "flight", 3);
  cJSON_AddStringToObject(o, "layer", "ben");
  cJSON *table = cJSON_AddArrayToObject(o, "table");
  for (int k = 0; k < WDEMO_CARDS; k++)
    cJSON_AddItemToArray(table, card_json(&d->cards[k]));
  const char *landed[] = {"green", "yellow", "red", "blue"};
  cJSON_AddItemToObject(o, "carpets_landed",
                        cJSON_CreateStringArray(landed, 4));
  add_last_flight(d, o);
  add_question(d, o);
  add_players(d, o);
  cJSON *lines = cJSON_AddArrayToObject(o, "say");
  static const char *const tones[] = {"info", "result", "contest"};
  for (int k = 0; k < d->n_say; k++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "tone", tones[d->say_tone[k]]);
    cJSON_AddStringToObject(l, "text", d->say[k]);
    cJSON_AddItemToArray(lines, l);
  }
  cJSON_AddBoolToObject(o, "demo", 1);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

/* ---- answers ---- */

static int find_player(const wdemo *d, const char *name, size_t len) {
  for (int p = 0; p < WDEMO_PLAYERS; p++)
    if (strlen(d->players[p].name) == len &&
        !strncmp(d->players[p].name, name, len))
      return p;
  return -1;
}

/* Reads `NAME=V` pairs of a reveal into genie[] (0 = not given). */
static tp_status read_reveal(const wdemo *d, const char *line,
                             const char *pairs, int genie[WDEMO_PLAYERS],
                             tp_error *err) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", pairs);
  char *save = NULL;
  for (char *tok = strtok_r(copy, " \t", &save); tok;
       tok = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(tok, '=');
    int p = eq ? find_player(d, tok, (size_t)(eq - tok)) : -1;
    char *end = NULL;
    long v = eq ? strtol(eq + 1, &end, 10) : 0;
    if (!eq || eq[1] == '\0' || *end || v < 1 || v > 8)
      return tp_error_set(err, TP_ERR_INVALID,
                          "answer '%s': '%s' is not NAME=GENIE (1..8)", line,
                          tok);
    if (p < 0 || (p != d->contest_players[0] && p != d->contest_players[1]))
      return tp_error_set(err, TP_ERR_INVALID,
                          "answer '%s': %.*s is not in this contest (anna "
                          "and ben are)", line, (int)(eq - tok), tok);
    if (genie[p])
      return tp_error_set(err, TP_ERR_INVALID,
                          "answer '%s': %s reveals twice", line,
                          d->players[p].name);
    if (v != d->players[p].genies[0] && v != d->players[p].genies[1])
      return tp_error_set(err, TP_ERR_INVALID,
                          "answer '%s': %s holds genies %d and %d, not %ld",
                          line, d->players[p].name, d->players[p].genies[0],
                          d->players[p].genies[1], v);
    genie[p] = (int)v;
  }
  return TP_OK;
}

/* The highest genie wins the card and swaps with the lowest one. */
static void resolve(wdemo *d, const int genie[WDEMO_PLAYERS]) {
  int a = d->contest_players[0], b = d->contest_players[1];
  int win = genie[a] > genie[b] ? a : b, lose = win == a ? b : a;
  for (int k = 0; k < 2; k++) {
    if (d->players[win].genies[k] == genie[win])
      d->players[win].genies[k] = genie[lose];
    if (d->players[lose].genies[k] == genie[lose])
      d->players[lose].genies[k] = genie[win];
  }
  d->winner = win;
  d->cards[d->contest_card].owner = win;
  char text[160];
  snprintf(text, sizeof text, "%s wins the camel bazaar with genie %d and "
           "takes %s's genie %d.", d->players[win].name, genie[win],
           d->players[lose].name, genie[lose]);
  say(d, 1, text);
}

tp_status wdemo_answer(wdemo *d, const char *line, tp_error *err) {
  const char *rest = line;
  while (*rest == ' ') rest++;
  size_t word = strcspn(rest, " =");
  bool has_word = rest[word] != '=';
  if (has_word && (word != 6 || strncmp(rest, "reveal", 6)))
    return tp_error_set(err, TP_ERR_INVALID,
                        "answer '%s': the question is a reveal (reveal "
                        "anna=N ben=N), not '%.*s'", line, (int)word, rest);
  if (d->winner >= 0)
    return tp_error_set(err, TP_ERR_INVALID,
                        "answer '%s': no question is waiting", line);
  int genie[WDEMO_PLAYERS] = {0};
  tp_status st = read_reveal(d, line, has_word ? rest + word : rest, genie, err);
  if (st != TP_OK) return st;
  for (int k = 0; k < 2; k++)
    if (!genie[d->contest_players[k]])
      return tp_error_set(err, TP_ERR_INVALID,
                          "answer '%s': %s must reveal a genie too", line,
                          d->players[d->contest_players[k]].name);
  resolve(d, genie);
  return TP_OK;
}
