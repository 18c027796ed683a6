/* watch sim: a scripted game as a camera would see it, frame by frame,
 * with the players' answers and the true transcript. The game itself is
 * played by the rules core; the table is 4 x 3 cards on a 560 x 400 mm
 * field (the renderer's default), carpets land on one card, between two
 * or beside them, and the players make the mistakes the controller has
 * to warn about when the config asks for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

typedef struct {
  int id, type;
  double x, y, angle;
  bool present;
  bool bumped; /* warned once per card */
} sim_card;

typedef struct {
  char colour[FT_NAME_MAX];
  double x, y, angle;
} sim_carpet;

typedef struct {
  wch_sim *out;
  int cap;
  const wch_sim_config *cfg;
  ft_rng rng;
  int n_cards;
  sim_card cards[FT_MAX_CARDS];
  int n_carpets;
  sim_carpet carpets[FT_MAX_CARPETS];
  char *answers, *log;
  size_t answers_len, log_len;
  tp_status st;
} simulation;

static const double card_mm[2] = {59, 91};

static double uniform(simulation *s, double lo, double hi) {
  return lo + (hi - lo) * (double)(ft_rng_next(&s->rng) >> 11) /
                  (double)(1ull << 53);
}

static bool chance(simulation *s, double p) {
  return p > 0 && uniform(s, 0, 1) < p;
}

static void text_add(simulation *s, char **buf, size_t *len, const char *text) {
  size_t n = strlen(text);
  char *p = realloc(*buf, *len + n + 1);
  if (!p) {
    s->st = TP_ERR_NOMEM;
    return;
  }
  memcpy(p + *len, text, n + 1);
  *buf = p;
  *len += n;
}

/* The scene as it is now, as `count` frames. */
static void frames(simulation *s, int count, bool moving) {
  for (int f = 0; f < count && s->st == TP_OK; f++) {
    if (s->out->n_frames == s->cap) {
      int cap = s->cap ? s->cap * 2 : 256;
      wch_obs *o = realloc(s->out->frames, sizeof *o * (size_t)cap);
      if (o) s->out->frames = o;
      bool *m = realloc(s->out->moving, sizeof *m * (size_t)cap);
      if (m) s->out->moving = m;
      if (!o || !m) {
        s->st = TP_ERR_NOMEM;
        return;
      }
      s->cap = cap;
    }
    int i = s->out->n_frames++;
    wch_obs *obs = &s->out->frames[i];
    memset(obs, 0, sizeof *obs);
    s->out->moving[i] = moving;
    obs->frame = i;
    int index_of[FT_MAX_CARDS];
    for (int k = 0; k < s->n_cards; k++) {
      index_of[k] = -1;
      if (!s->cards[k].present) continue;
      index_of[k] = obs->n_cards;
      obs->cards[obs->n_cards++] =
          (wch_card_obs){.type = s->cards[k].type, .x_mm = s->cards[k].x,
                         .y_mm = s->cards[k].y, .angle_deg = s->cards[k].angle,
                         .visible_fraction = 1.0};
    }
    for (int c = 0; c < s->n_carpets; c++) {
      wch_carpet_obs *cp = &obs->carpets[obs->n_carpets++];
      memset(cp, 0, sizeof *cp);
      strcpy(cp->colour, s->carpets[c].colour);
      cp->x_mm = s->carpets[c].x, cp->y_mm = s->carpets[c].y;
      cp->angle_deg = s->carpets[c].angle;
      for (int k = 0; k < s->n_cards; k++)
        if (index_of[k] >= 0 &&
            wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, card_mm,
                              s->cards[k].x, s->cards[k].y,
                              s->cards[k].angle, card_mm) > 400)
          cp->on_cards[cp->n_on_cards++] = index_of[k];
    }
  }
}

static void scene(simulation *s) {
  frames(s, s->cfg->moving_frames, true);
  frames(s, s->cfg->still_frames, false);
}

static int find_card(const simulation *s, int id) {
  for (int k = 0; k < s->n_cards; k++)
    if (s->cards[k].id == id) return k;
  return -1;
}

/* Lays out the round's cards, a row per scene. */
static tp_status lay_out(simulation *s, ft_game *g, const int *deck, int *next_card,
                         int *next_id, tp_error *err) {
  int left = ft_game_deck_left(g), want = ft_game_rules(g)->layout_cards;
  int n = left < want ? left : want;
  s->n_cards = 0;
  s->n_carpets = 0;
  scene(s); /* the table cleared */
  ft_card cards[FT_MAX_CARDS];
  for (int k = 0; k < n; k++) {
    sim_card *c = &s->cards[s->n_cards++];
    *c = (sim_card){*next_id + k, deck[(*next_card)++], 90 + (k % 4) * 100,
                    90 + (k / 4) * 130, 90, true, false};
    cards[k] = (ft_card){c->id, (ft_card_type)c->type, true, c->x, c->y};
    if (k % 4 == 3 || k == n - 1) scene(s);
  }
  *next_id += n;
  char line[2048];
  ft_transcript_write_round(line, sizeof line, ft_game_round(g),
                            ft_game_players(g)->players[ft_game_layer(g)].name);
  text_add(s, &s->log, &s->log_len, line);
  ft_transcript_write_layout(line, sizeof line, cards, n);
  text_add(s, &s->log, &s->log_len, line);
  return ft_game_layout(g, cards, n, err);
}

/* Where a carpet lands: on a card, between two, or beside them. */
static void throw_carpet(simulation *s, const char *colour) {
  sim_carpet *c = &s->carpets[s->n_carpets++];
  snprintf(c->colour, FT_NAME_MAX, "%s", colour);
  c->angle = uniform(s, 0, 180);
  int on[FT_MAX_CARDS], n_on = 0;
  for (int k = 0; k < s->n_cards; k++)
    if (s->cards[k].present) on[n_on++] = k;
  double r = uniform(s, 0, 1);
  if (n_on == 0 || r < 0.15) {
    c->x = uniform(s, 20, 540), c->y = 420; /* below the cards */
  } else {
    const sim_card *a = &s->cards[on[ft_rng_below(&s->rng, n_on)]];
    c->x = a->x + uniform(s, -12, 12), c->y = a->y + uniform(s, -12, 12);
    if (r > 0.7) c->x += 50; /* between two cards */
  }
  if (chance(s, s->cfg->p_off_table)) c->x = 700, c->y = 200;
  if (chance(s, s->cfg->p_bump)) {
    /* the carpet pushes a card it did not land on aside, 45 mm */
    for (int k = 0; k < s->n_cards; k++) {
      sim_card *b = &s->cards[k];
      if (!b->present || b->bumped) continue;
      double d = wch__dist(b->x, b->y, c->x, c->y);
      if (d > 90 && d < 160) {
        b->x += b->x > c->x ? 45 : -45;
        b->bumped = true;
        s->out->warnings_expected++;
        break;
      }
    }
  }
}

static void landings_of(simulation *s, ft_landing *l, int ids[][FT_MAX_CARDS]) {
  wch_obs *obs = &s->out->frames[s->out->n_frames - 1];
  int present[FT_MAX_CARDS], n = 0;
  for (int k = 0; k < s->n_cards; k++)
    if (s->cards[k].present) present[n++] = s->cards[k].id;
  for (int c = 0; c < obs->n_carpets; c++) {
    l[c].colour = s->carpets[c].colour;
    l[c].cards = ids[c];
    l[c].n_cards = 0;
    if (obs->carpets[c].x_mm > 600) continue; /* off the table */
    for (int j = 0; j < obs->carpets[c].n_on_cards; j++)
      ids[c][l[c].n_cards++] = present[obs->carpets[c].on_cards[j]];
  }
}

static tp_status settle_contests(simulation *s, ft_game *g, tp_error *err) {
  ft_game_contest c;
  while (ft_game_next_contest(g, &c)) {
    int genies[FT_MAX_PLAYERS] = {0};
    char line[512];
    int len = snprintf(line, sizeof line, "reveal");
    for (int q = 0; q < c.n_players; q++) {
      int p = c.players[q];
      ft_hand h = ft_game_genies(g, p);
      genies[p] = h.values[ft_rng_below(&s->rng, h.n)];
      len += snprintf(line + len, sizeof line - (size_t)len, " %s=%d",
                      ft_game_players(g)->players[p].name, genies[p]);
    }
    snprintf(line + len, sizeof line - (size_t)len, "\n");
    text_add(s, &s->answers, &s->answers_len, line);
    ft_contest_result r;
    tp_status st = ft_game_reveal(g, c.card, genies, &r, err);
    if (st != TP_OK) return st;
    ft_transcript_write_reveal(line, sizeof line, ft_game_players(g), c.card,
                               genies);
    text_add(s, &s->log, &s->log_len, line);
  }
  return TP_OK;
}

/* The players take what they won and their carpets. */
static void take_away(simulation *s, const ft_game *g) {
  ft_card table[FT_MAX_CARDS];
  int n = ft_game_table(g, table), left_id = -1, wrong_id = -1;
  /* after the very last flight nobody looks any more */
  bool last = ft_game_phase(g) == FT_PHASE_LAMPS &&
              ft_game_round(g) == ft_game_rounds(g);
  for (int k = 0; k < s->n_cards; k++) {
    sim_card *c = &s->cards[k];
    bool on_table = false;
    for (int t = 0; t < n; t++) on_table |= table[t].id == c->id;
    if (!c->present || on_table) continue;
    if (left_id < 0 && !last && chance(s, s->cfg->p_wrong_take)) {
      /* (at a round end too: the layout is the next check) */
      left_id = c->id; /* a claimed card forgotten on the table */
      continue;
    }
    c->present = false;
  }
  if (n > 0 && ft_game_phase(g) == FT_PHASE_FLIGHT &&
      chance(s, s->cfg->p_wrong_take)) {
    wrong_id = table[ft_rng_below(&s->rng, n)].id; /* taken by mistake */
    s->cards[find_card(s, wrong_id)].present = false;
  }
  s->n_carpets = 0;
  scene(s);
  if (left_id >= 0) s->out->warnings_expected++;
  if (wrong_id >= 0) s->out->warnings_expected++;
  /* both put right before the next throw */
  if (left_id >= 0) s->cards[find_card(s, left_id)].present = false;
  if (wrong_id >= 0) s->cards[find_card(s, wrong_id)].present = true;
  if (left_id >= 0 || wrong_id >= 0) scene(s);
}

static tp_status fly(simulation *s, ft_game *g, tp_error *err) {
  const char *order[FT_MAX_CARPETS];
  int n = ft_game_throw_order(g, order);
  const char *thrown[FT_MAX_CARPETS];
  memcpy(thrown, order, sizeof thrown);
  if (n > 2 && chance(s, s->cfg->p_out_of_turn)) {
    int k = ft_rng_below(&s->rng, n - 1);
    const char *t = thrown[k];
    thrown[k] = thrown[k + 1];
    thrown[k + 1] = t;
    s->out->warnings_expected++;
  }
  for (int k = 0; k < n; k++) {
    throw_carpet(s, thrown[k]);
    if (s->carpets[s->n_carpets - 1].x > 600) s->out->warnings_expected++;
    scene(s);
  }
  /* landings in throw order, as the transcript writes them */
  ft_landing l[FT_MAX_CARPETS], ordered[FT_MAX_CARPETS];
  int ids[FT_MAX_CARPETS][FT_MAX_CARDS];
  landings_of(s, l, ids);
  for (int k = 0; k < n; k++)
    for (int c = 0; c < n; c++)
      if (!strcmp(l[c].colour, order[k])) ordered[k] = l[c];
  char line[2048];
  ft_transcript_write_flight(line, sizeof line, ordered, n);
  text_add(s, &s->log, &s->log_len, line);
  ft_flight_report rep;
  tp_status st = ft_game_flight(g, ordered, n, &rep, err);
  if (st == TP_OK) st = settle_contests(s, g, err);
  if (st == TP_OK) take_away(s, g);
  s->out->n_flights++;
  return st;
}

static tp_status round_end(simulation *s, ft_game *g, tp_error *err) {
  const ft_players *pl = ft_game_players(g);
  int lamps[FT_MAX_PLAYERS] = {0};
  for (int p = 0; p < pl->n_players; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(g, p, counts);
    lamps[p] = counts[FT_LAMP] ? ft_rng_below(&s->rng, counts[FT_LAMP] + 1) : 0;
  }
  char line[512];
  ft_transcript_write_lamps(line, sizeof line, pl, lamps);
  text_add(s, &s->answers, &s->answers_len, line);
  text_add(s, &s->log, &s->log_len, line);
  return ft_game_round_end(g, lamps, NULL, err);
}

static void shuffled_deck(simulation *s, int deck[FT_DECK_SIZE]) {
  int n = 0;
  for (int t = 0; t < FT_N_TYPES; t++)
    for (int k = 0; k < ft_deck_count((ft_card_type)t); k++) deck[n++] = t;
  for (int i = n - 1; i > 0; i--) {
    int j = ft_rng_below(&s->rng, i + 1), t = deck[i];
    deck[i] = deck[j];
    deck[j] = t;
  }
}

static tp_status play(simulation *s, ft_game *g, const ft_players *players,
                      int first_layer, tp_error *err) {
  char line[1024];
  ft_transcript_write_header(line, sizeof line, players, first_layer);
  text_add(s, &s->log, &s->log_len, line);
  ft_hand hands[FT_MAX_PLAYERS];
  tp_status st = ft_game_deal_genies(g, &s->rng, hands, err);
  if (st != TP_OK) return st;
  ft_transcript_write_genies(line, sizeof line, players, hands);
  text_add(s, &s->answers, &s->answers_len, line);
  text_add(s, &s->log, &s->log_len, line);
  int deck[FT_DECK_SIZE], next_card = 0, next_id = 0;
  shuffled_deck(s, deck);
  while (st == TP_OK && s->st == TP_OK) {
    switch (ft_game_phase(g)) {
    case FT_PHASE_LAYOUT:
      st = lay_out(s, g, deck, &next_card, &next_id, err);
      break;
    case FT_PHASE_FLIGHT:
      st = fly(s, g, err);
      break;
    case FT_PHASE_LAMPS:
      st = round_end(s, g, err);
      break;
    default:
      scene(s); /* the end: a last still table */
      return s->st == TP_OK
                 ? TP_OK
                 : tp_error_set(err, s->st, "simulation: out of memory");
    }
  }
  return st != TP_OK ? st
                     : tp_error_set(err, s->st, "simulation: out of memory");
}

tp_status wch_simulate(const wch_sim_config *cfg, const ft_rules *rules,
                       const ft_players *players, int first_layer,
                       wch_sim *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  simulation s = {.out = out, .cfg = cfg, .st = TP_OK};
  ft_rng_seed(&s.rng, cfg->seed);
  ft_game *g;
  tp_status st = ft_game_create(rules, players, first_layer, &g, err);
  if (st != TP_OK) return st;
  st = play(&s, g, players, first_layer, err);
  ft_game_destroy(g);
  out->answers = s.answers;
  out->transcript = s.log;
  if (st != TP_OK) wch_sim_free(out);
  return st;
}

void wch_sim_free(wch_sim *sim) {
  if (!sim) return;
  free(sim->frames);
  free(sim->moving);
  free(sim->answers);
  free(sim->transcript);
  memset(sim, 0, sizeof *sim);
}
