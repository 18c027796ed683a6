/* watch controller: follows a game of Fliegende Teppiche from still-frame
 * observations. Stages: genies -> (layout -> (throws -> answers ->
 * taking)* -> lamps)* -> over. The rules core decides everything about
 * the game; this file decides what the table shows. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

void wch_config_default(wch_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->match_mm = 30;
  cfg->bump_mm = 120;
  cfg->min_overlap_mm2 = 150;
  cfg->card_mm[0] = cfg->carpet_mm[0] = 59;
  cfg->card_mm[1] = cfg->carpet_mm[1] = 91;
}

const char *wch_stage_name(wch_stage stage) {
  static const char *const names[] = {"genies", "layout", "throws",
                                      "answer", "taking", "over"};
  return (unsigned)stage <= WCH_GAME_OVER ? names[stage] : "unknown";
}

/* One table for both forms, so that a new card type cannot get a singular
 * without a plural ("two palaces" in the commentary). */
typedef struct {
  const char *one, *many;
} card_name;

static const card_name *card_names(int type) {
  static const card_name names[] = {
      {"the palace", "palaces"},
      {"adventure A", "adventure A cards"},
      {"adventure B", "adventure B cards"},
      {"adventure C", "adventure C cards"},
      {"adventure D", "adventure D cards"},
      {"adventure E", "adventure E cards"},
      {"the spice bazaar", "spice bazaars"},
      {"the carpet bazaar", "carpet bazaars"},
      {"the camel bazaar", "camel bazaars"},
      {"the treasure", "treasures"},
      {"the magic lamp", "magic lamps"},
      {"the desert", "deserts"}};
  static const card_name unknown = {"an unknown card", "unknown cards"};
  return type >= 0 && type < FT_N_TYPES ? &names[type] : &unknown;
}

const char *wch__card_label(int type) { return card_names(type)->one; }

const char *wch__card_plural(int type) { return card_names(type)->many; }

/* "The palace (card 17)": a warning names a card as the players see it,
 * by its type, and gives the id that undo and give take. */
static const char *card_called(int type, int id, char buf[64]) {
  snprintf(buf, 64, "%s (card %d)", wch__card_label(type), id);
  if (buf[0] >= 'a' && buf[0] <= 'z') buf[0] = (char)(buf[0] - 'a' + 'A');
  return buf;
}

/* ---- output helpers ---- */

void wch__say(wch *w, wch_tone tone, const char *fmt, ...) {
  if (w->replaying || !w->out.say) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (tone != WCH_SAY_FINAL) { /* the table is in the state already */
    int k = w->n_said++ % WCH__SAID;
    w->said_tone[k] = tone;
    size_t n = strlen(text);
    if (n >= sizeof w->said[k]) n = sizeof w->said[k] - 1; /* cut, kept */
    memcpy(w->said[k], text, n);
    w->said[k][n] = '\0';
  }
  w->out.say(w->out.user, tone, text);
}

void wch__event(wch *w, const char *json) {
  if (!w->replaying && w->out.event && json) w->out.event(w->out.user, json);
}

void wch__warn(wch *w, const char *kind, const char *fmt, ...) {
  if (w->replaying) return;
  char text[600], json[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  w->warnings++;
  wch__say(w, WCH_SAY_WARN, "%s", text);
  /* the text holds no quotes or backslashes: it is ours */
  snprintf(json, sizeof json,
           "{\"event\": \"warning\", \"kind\": \"%s\", \"round\": %d, "
           "\"frame\": %lld, \"text\": \"%s\"}",
           kind, ft_game_round(w->game), (long long)w->frame, text);
  wch__event(w, json);
}

static tp_status grow_log(wch *w, size_t need, tp_error *err) {
  if (w->log_len + need + 1 <= w->log_cap) return TP_OK;
  size_t cap = w->log_cap ? w->log_cap : 4096;
  while (cap < w->log_len + need + 1) cap *= 2;
  char *p = realloc(w->log, cap);
  if (!p) return tp_error_set(err, TP_ERR_NOMEM, "transcript: out of memory");
  w->log = p;
  w->log_cap = cap;
  return TP_OK;
}

/* Appends to the transcript; while a cut is pending (wch__cut) only in
 * memory: wch__commit writes the cut and what followed it at once. */
tp_status wch__append(wch *w, const char *text, tp_error *err) {
  size_t n = strlen(text);
  tp_status st = grow_log(w, n, err);
  if (st != TP_OK) return st;
  memcpy(w->log + w->log_len, text, n + 1);
  w->log_len += n;
  if (w->replaying || !w->out.record || w->cut_pending) return TP_OK;
  return w->out.record(w->out.user, text, false, err);
}

static void cut_log(wch *w, size_t keep) {
  if (keep > w->log_len) keep = w->log_len;
  w->log_len = keep;
  if (w->log) w->log[keep] = '\0';
}

/* Cuts the transcript back to `keep` bytes and writes it whole. */
tp_status wch__rewrite(wch *w, size_t keep, tp_error *err) {
  wch__cut(w, keep);
  return wch__commit(w, TP_OK, err);
}

/* Cuts the transcript back to `keep` bytes in memory only: the lines that
 * replace what was cut (a flight resolved again, the mark of an undo) are
 * appended, then wch__commit writes the whole in one rewrite. Written
 * separately, a kill between the cut and the new lines left a transcript
 * whose last mark is older than the flight taken back, and a resume
 * decided that flight again from the recording. */
void wch__cut(wch *w, size_t keep) {
  cut_log(w, keep);
  w->cut_pending = true;
}

/* Writes a pending cut with what was appended since, whatever `so_far`
 * (the file must hold what memory holds); so_far's failure comes first. */
tp_status wch__commit(wch *w, tp_status so_far, tp_error *err) {
  if (!w->cut_pending) return so_far;
  w->cut_pending = false;
  if (w->replaying || !w->out.record) return so_far;
  tp_error ignored;
  tp_status st = w->out.record(w->out.user, w->log ? w->log : "", true,
                               so_far == TP_OK ? err : &ignored);
  return so_far == TP_OK ? st : so_far;
}

/* What resume needs besides the game: the frame and the answers used. */
static void mark_line(const wch *w, char *line, size_t cap) {
  snprintf(line, cap, "# watch frame=%lld answers=%d\n", (long long)w->frame,
           w->answers_used);
}

tp_status wch__mark(wch *w, tp_error *err) {
  char line[96];
  mark_line(w, line, sizeof line);
  return wch__append(w, line, err);
}

/* A line with its mark in ONE write: a kill between the two would leave a
 * decision without the frame it was made on, and a resume would make it
 * again. */
tp_status wch__append_marked(wch *w, const char *text, tp_error *err) {
  char mark[96];
  mark_line(w, mark, sizeof mark);
  size_t n = strlen(text), m = strlen(mark);
  char *both = malloc(n + m + 1);
  if (!both) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  memcpy(both, text, n);
  memcpy(both + n, mark, m + 1);
  tp_status st = wch__append(w, both, err);
  free(both);
  return st;
}

/* ---- create / destroy ---- */

tp_status wch_create(const wch_config *cfg, const wch_output *out, wch **wp,
                     tp_error *err) {
  *wp = NULL;
  if (!cfg || !cfg->players)
    return tp_error_set(err, TP_ERR_INVALID, "watch: no players given");
  wch *w = calloc(1, sizeof *w);
  if (!w) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  w->cfg = *cfg;
  w->players = *cfg->players;
  w->cfg.players = &w->players;
  if (cfg->rules)
    w->rules = *cfg->rules;
  else
    ft_rules_default(&w->rules);
  w->cfg.rules = &w->rules;
  if (out) w->out = *out;
  w->resume_frame = -1;
  w->frame = -1;
  tp_status st = ft_players_check_game(&w->players, &w->rules, err);
  if (st == TP_OK)
    st = ft_game_create(&w->rules, &w->players, cfg->first_layer, &w->game,
                        err);
  if (st != TP_OK) {
    wch_destroy(w);
    return st;
  }
  w->stage = WCH_WAIT_GENIES;
  *wp = w;
  return TP_OK;
}

void wch_destroy(wch *w) {
  if (!w) return;
  ft_game_destroy(w->game);
  ft_game_destroy(w->before_flight);
  free(w->log);
  free(w);
}

tp_status wch_start(wch *w, tp_error *err) {
  size_t n = ft_transcript_write_header(NULL, 0, &w->players,
                                        w->cfg.first_layer);
  char *buf = malloc(n + 1);
  if (!buf) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  ft_transcript_write_header(buf, n + 1, &w->players, w->cfg.first_layer);
  w->log_len = 0;
  tp_status st = wch__rewrite(w, 0, err);
  if (st == TP_OK) st = wch__append(w, buf, err);
  free(buf);
  if (st != TP_OK) return st;
  wch__say(w, WCH_SAY_INFO, "New game: %d players, %d rounds, %s lays out "
           "first.", w->players.n_players, ft_game_rounds(w->game),
           w->players.players[ft_game_layer(w->game)].name);
  return TP_OK;
}

/* ---- matching what is seen to what is known ---- */

typedef struct {
  int obs_of_ref[FT_MAX_CARDS];   /* -1: not seen */
  bool bumped[FT_MAX_CARDS];
  int ref_of_obs[WCH_MAX_OBS_CARDS]; /* -1: not a table card */
  int ghost_of_obs[WCH_MAX_OBS_CARDS];
} matching;

static bool type_fits(int seen, int known) {
  return seen < 0 || seen == known;
}

/* Greedy nearest pairs: the closest fitting pair first. */
static void pair_cards(const wch_obs *obs, const wch__card *known, int n_known,
                       double radius, bool need_type, int *obs_of_known,
                       int *known_of_obs, bool any_type) {
  for (;;) {
    double best = radius;
    int bi = -1, bk = -1;
    for (int k = 0; k < n_known; k++) {
      if (obs_of_known[k] >= 0) continue;
      for (int i = 0; i < obs->n_cards; i++) {
        if (known_of_obs[i] != -1) continue; /* paired, or not a card */
        const wch_card_obs *c = &obs->cards[i];
        if (!any_type && (need_type ? c->type != known[k].type
                                    : !type_fits(c->type, known[k].type)))
          continue;
        double d = wch__dist(c->x_mm, c->y_mm, known[k].x, known[k].y);
        if (d <= best) best = d, bi = i, bk = k;
      }
    }
    if (bi < 0) return;
    obs_of_known[bk] = bi;
    known_of_obs[bi] = bk;
  }
}

/* Cards the observer names (analysed against the layout reference) are
 * the ones it says, wherever they lie now; one that moved further than a
 * match was bumped. Named cards that are not known any more (taken) are
 * kept out of the pairing by place. */
static void pair_by_id(const wch_config *cfg, const wch__known *kn,
                       const wch_obs *obs, matching *m) {
  for (int i = 0; i < obs->n_cards; i++) {
    const wch_card_obs *c = &obs->cards[i];
    if (!c->has_id) continue;
    m->ref_of_obs[i] = m->ghost_of_obs[i] = -2; /* not a card by place */
    for (int k = 0; k < kn->n_ref; k++)
      if (kn->ref[k].id == c->id && m->obs_of_ref[k] < 0) {
        m->obs_of_ref[k] = i;
        m->ref_of_obs[i] = k;
        m->bumped[k] = !kn->ref[k].unseen &&
                       wch__dist(c->x_mm, c->y_mm, kn->ref[k].x,
                                 kn->ref[k].y) > cfg->match_mm;
      }
    for (int k = 0; k < kn->n_ghost; k++)
      if (kn->ghost[k].id == c->id && m->ref_of_obs[i] == -2)
        m->ghost_of_obs[i] = k;
  }
}

static wch__known known_now(const wch *w) {
  return (wch__known){w->game, w->ref, w->n_ref, w->ghost, w->n_ghost};
}

static void match_known(const wch_config *cfg, const wch__known *kn,
                        const wch_obs *obs, matching *m) {
  for (int k = 0; k < FT_MAX_CARDS; k++) m->obs_of_ref[k] = -1;
  memset(m->bumped, 0, sizeof m->bumped);
  for (int i = 0; i < WCH_MAX_OBS_CARDS; i++)
    m->ref_of_obs[i] = m->ghost_of_obs[i] = -1;
  pair_by_id(cfg, kn, obs, m);
  bool by_id[FT_MAX_CARDS];
  for (int k = 0; k < kn->n_ref; k++) by_id[k] = m->obs_of_ref[k] >= 0;
  pair_cards(obs, kn->ref, kn->n_ref, cfg->match_mm, false, m->obs_of_ref,
             m->ref_of_obs, false);
  /* ghosts, converted to the card struct for the same pairing */
  wch__card g[FT_DECK_SIZE] = {0}; /* gcc 14 -O3 (Debian 13, Release): maybe-uninitialized */
  int obs_of_ghost[FT_DECK_SIZE];
  for (int k = 0; k < kn->n_ghost; k++) {
    g[k] = (wch__card){.id = kn->ghost[k].id, .type = kn->ghost[k].type,
                       .x = kn->ghost[k].x, .y = kn->ghost[k].y};
    obs_of_ghost[k] = -1;
  }
  pair_cards(obs, g, kn->n_ghost, cfg->match_mm, false, obs_of_ghost,
             m->ghost_of_obs, false);
  /* a table card that moved further (a carpet bumped it): same type only */
  int before[FT_MAX_CARDS];
  memcpy(before, m->obs_of_ref, sizeof before);
  pair_cards(obs, kn->ref, kn->n_ref, cfg->bump_mm, true, m->obs_of_ref,
             m->ref_of_obs, false);
  for (int k = 0; k < kn->n_ref; k++)
    if (!by_id[k]) m->bumped[k] = before[k] < 0 && m->obs_of_ref[k] >= 0;
}

static void match_cards(const wch *w, const wch_obs *obs, matching *m) {
  wch__known kn = known_now(w);
  match_known(&w->cfg, &kn, obs, m);
}

static bool carpet_covers(const wch *w, const wch_obs *obs, double x, double y,
                          double angle) {
  for (int c = 0; c < obs->n_carpets; c++) {
    const wch_carpet_obs *cp = &obs->carpets[c];
    if (wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, w->cfg.carpet_mm,
                          x, y, angle, w->cfg.card_mm) > w->cfg.min_overlap_mm2)
      return true;
  }
  return false;
}

/* Ghosts not seen and not hidden under a carpet were taken away. */
static void forget_taken_ghosts(wch *w, const wch_obs *obs,
                                const matching *m) {
  int kept = 0;
  for (int k = 0; k < w->n_ghost; k++) {
    bool seen = false;
    for (int i = 0; i < obs->n_cards; i++) seen |= m->ghost_of_obs[i] == k;
    const wch__ghost *gh = &w->ghost[k];
    if (seen || carpet_covers(w, obs, gh->x, gh->y, gh->angle))
      w->ghost[kept++] = *gh;
  }
  w->n_ghost = kept;
}

/* Claimed cards that are still on the table after the taking-away. */
static void warn_claimed_left(wch *w) {
  for (int k = 0; k < w->n_ghost; k++) {
    wch__ghost *g = &w->ghost[k];
    if (g->owner < 0 || g->left_warned) continue;
    g->left_warned = true;
    char called[64];
    wch__warn(w, "claimed_card_left",
              "%s went to %s but is still on the table: please take it.",
              card_called(g->type, g->id, called), w->players.players[g->owner].name);
  }
}

/* Table cards bumped (moved) or gone although nobody won them. */
static void check_table_cards(wch *w, const wch_obs *obs, const matching *m) {
  for (int k = 0; k < w->n_ref; k++) {
    wch__card *c = &w->ref[k];
    int i = m->obs_of_ref[k];
    char called[64];
    if (i >= 0 && m->bumped[k]) {
      if (!c->bump_warned)
        wch__warn(w, "card_bumped",
                  "%s was bumped by a carpet; it is still the same card.",
                  card_called(c->type, c->id, called));
      c->bump_warned = true;
      c->x = obs->cards[i].x_mm;
      c->y = obs->cards[i].y_mm;
      c->angle = obs->cards[i].angle_deg;
    }
    if (i >= 0) c->missing_warned = false;
    if (i < 0 && !c->missing_warned && !c->unseen &&
        !carpet_covers(w, obs, c->x, c->y, c->angle)) {
      c->missing_warned = true;
      wch__warn(w, "wrong_card_taken",
                "%s was taken away, but nobody won it: please put it back.",
                card_called(c->type, c->id, called));
    }
  }
}

/* ---- layout ---- */

void wch__enter_layout(wch *w) {
  w->stage = WCH_WAIT_LAYOUT;
  w->n_track = 0;
  w->layout_frames = 0;
  w->layout_excess_warned = false;
  w->layout_doubt_looks = 0;
  int layer = ft_game_layer(w->game);
  wch__say(w, WCH_SAY_INFO, "Round %d: %s, lay out the cards.",
           ft_game_round(w->game), w->players.players[layer].name);
}

static int expected_layout(const wch *w) {
  int left = ft_game_deck_left(w->game);
  return left < w->rules.layout_cards ? left : w->rules.layout_cards;
}

/* The type a layout card was seen as most often (-1: never certain). */
static int voted_type(const wch__card *c) {
  int best = -1;
  for (int t = 0; t < FT_N_TYPES; t++)
    if (c->votes[t] > 0 && (best < 0 || c->votes[t] > c->votes[best]))
      best = t;
  return best;
}

/* A layout card counts when some frame was sure of its type. */
static bool layout_card_counts(const wch__card *c) {
  return voted_type(c) >= 0;
}

static int counted_layout(const wch *w) {
  int n = 0;
  for (int k = 0; k < w->n_track; k++) n += layout_card_counts(&w->track[k]);
  return n;
}

/* Whether card c was put down before p: by when each came to lie as it
 * does (the motion between still frames: when its place stopped showing
 * the table, then when it first showed whole), else in reading order
 * (top to bottom, left to right). */
static bool laid_before(const wch_card_obs *c, const wch_card_obs *p) {
  if (c->has_laid && p->has_laid && c->laid_frame != p->laid_frame)
    return c->laid_frame < p->laid_frame;
  if (c->has_laid && p->has_laid && c->laid_shown != p->laid_shown)
    return c->laid_shown < p->laid_shown;
  return c->y_mm < p->y_mm - 20 || (c->y_mm < p->y_mm + 20 && c->x_mm < p->x_mm);
}

/* The next new card in the order they were laid in, for ids in that
 * order when several appeared at once: the rules settle a flight's
 * contests in it (hard game 4:843 round 3 was laid out in another order
 * than reading order, and its two contests swapped other genies). */
static int next_laid(const wch_obs *obs, const int *taken) {
  int pick = -1;
  for (int i = 0; i < obs->n_cards; i++)
    if (taken[i] == -1 && (pick < 0 || laid_before(&obs->cards[i], &obs->cards[pick])))
      pick = i;
  return pick;
}

/* The type a frame reads a card as: sure, else its guess (-1: none). */
static int read_type(const wch_card_obs *o) {
  if (o->type >= 0 && o->type < FT_N_TYPES) return o->type;
  if (o->has_guess && o->guess >= 0 && o->guess < FT_N_TYPES) return o->guess;
  return -1;
}

/* A guess whose runner-up matched nearly as well (LOOKALIKE_SECOND of
 * it or more): the frame could not tell the two apart. Hard game 3:882
 * (960x540) round 2's layout: an adventure A read "unsure, adventure D"
 * in three frames, adventure A second at 0.98-0.99 each time, and "sure,
 * adventure A" in one; three guesses outvoted the sure reading, and the
 * final score was wrong. */
#define LOOKALIKE_SECOND 0.95
static bool lookalike_second(const wch_card_obs *o) {
  return o->has_second && o->second >= 0 && o->second < FT_N_TYPES &&
         o->second != o->guess && o->second_score >= LOOKALIKE_SECOND;
}

/* Counts a frame's sighting of a followed card. Only a frame that reads
 * it as the type it has been voted so far (or any, before a vote) gives
 * its place: another reading near it is a vote, not where it lies (hard
 * game 4:697: when the first carpet landed on the layout's desert, the
 * frame read a camel bazaar (unsure) 23 mm off, and the layout took the
 * desert there). A card pushed a little is still read as its own type. */
static void seen_as(wch__card *c, const wch_card_obs *o) {
  if (c->type < 0 || read_type(o) == c->type) {
    c->x = o->x_mm;
    c->y = o->y_mm;
    c->angle = o->angle_deg;
  }
  c->seen++;
  /* a sure type counts twice a guess */
  if (o->type >= 0 && o->type < FT_N_TYPES) {
    c->votes[o->type] += 2;
    c->sure_types |= 1u << o->type;
  } else if (o->has_guess && o->guess >= 0 && o->guess < FT_N_TYPES) {
    if (lookalike_second(o)) { /* a coin toss between the two */
      c->votes[o->guess] += 0.5;
      c->votes[o->second] += 0.5;
    } else
      c->votes[o->guess]++;
  }
  int read = read_type(o);
  if (read >= 0 && o->has_second && o->second >= 0 && o->second < FT_N_TYPES)
    c->seconds[read][o->second] += o->second_score;
  c->type = voted_type(c);
}

/* Follows the cards as they are put down, over the still frames of the
 * layout: each frame votes for the cards it shows and their types (one
 * frame may miss a card or take it for a look-alike). A card under a
 * carpet keeps its votes; one missed more often than seen is dropped. */
static void track_layout(wch *w, const wch_obs *obs, const matching *m) {
  int obs_of_track[WCH_MAX_OBS_CARDS], track_of_obs[WCH_MAX_OBS_CARDS];
  for (int i = 0; i < WCH_MAX_OBS_CARDS; i++)
    obs_of_track[i] = -1, track_of_obs[i] = m->ghost_of_obs[i] >= 0 ? 99 : -1;
  /* the same place first, whatever its type in this frame (an untyped
   * card or a look-alike is the card already there: hard game 3:696 made
   * a second lamp of an untyped one), then a card of the same type pushed
   * a little */
  pair_cards(obs, w->track, w->n_track, w->cfg.match_mm, false, obs_of_track,
             track_of_obs, true);
  pair_cards(obs, w->track, w->n_track, w->cfg.bump_mm, true, obs_of_track,
             track_of_obs, false);
  wch__card next[WCH_MAX_OBS_CARDS];
  int n = 0;
  for (int k = 0; k < w->n_track; k++) {
    wch__card c = w->track[k];
    int i = obs_of_track[k];
    bool missed = i < 0 && !carpet_covers(w, obs, c.x, c.y, c.angle);
    if (i >= 0) seen_as(&c, &obs->cards[i]);
    c.missed += missed;
    c.missed_in_row = missed ? c.missed_in_row + 1 : 0;
    /* picked up again (gone twice in a row, or the table is bare), or a
     * phantom (gone as often as seen) */
    if (missed && (c.missed >= c.seen || c.missed_in_row >= 2 ||
                   obs->n_cards == 0))
      continue;
    next[n++] = c;
  }
  for (int pick; n < WCH_MAX_OBS_CARDS &&
                 (pick = next_laid(obs, track_of_obs)) >= 0;) {
    track_of_obs[pick] = n;
    next[n] = (wch__card){.id = -1, .type = -1};
    seen_as(&next[n++], &obs->cards[pick]);
  }
  memcpy(w->track, next, (size_t)n * sizeof next[0]);
  w->n_track = n;
}

/* The most likely type of a card that was never seen: the type with the
 * most cards not yet seen in this game (counts: seen so far, updated). */
static int likely_unseen_type(int counts[FT_N_TYPES]) {
  int best = 0;
  for (int t = 1; t < FT_N_TYPES; t++)
    if (ft_deck_count(t) - counts[t] > ft_deck_count(best) - counts[best])
      best = t;
  counts[best]++;
  return best;
}

static void cards_seen_in_game(const wch *w, int counts[FT_N_TYPES]) {
  int c[FT_N_TYPES];
  ft_game_removed(w->game, counts);
  for (int p = 0; p < w->players.n_players; p++) {
    ft_game_collection(w->game, p, c);
    for (int t = 0; t < FT_N_TYPES; t++) counts[t] += c[t];
  }
  for (int k = 0; k < w->n_ref; k++)
    if (!w->ref[k].unseen) counts[w->ref[k].type]++;
}

/* The layout card of type t whose votes for it are fewest (-1: none). */
static int weakest_of_type(const wch *w, int t) {
  int pick = -1;
  for (int k = 0; k < w->n_ref; k++)
    if (!w->ref[k].unseen && w->ref[k].type == t &&
        (pick < 0 || w->ref[k].votes[t] < w->ref[pick].votes[t]))
      pick = k;
  return pick;
}

/* The type card c (voted c->type, which the deck has no card left of)
 * is counted as instead: each frame's reading of it is then its type if
 * the deck has one left, else the type that frame found next most like
 * it (a reading of c->type votes for its runner-up, by how well that
 * matched: a runner-up is less than a guess); the type so voted most that
 * the deck still has a card of (counts: the game's so far), else the most
 * likely type. Hard game 3:696 round 3: a faded lamp read "unsure,
 * adventure E" in the layout's frames, lamp second (0.94 matched) in two,
 * adventure A (0.93) in one; the most likely type made it a palace, and
 * anna lost the lamp's wild carpet bazaar and got a palace she never had. */
static int next_type_with_room(const wch__card *c, int counts[FT_N_TYPES]) {
  int best = -1;
  double score[FT_N_TYPES];
  for (int u = 0; u < FT_N_TYPES; u++) {
    score[u] = c->votes[u] + c->seconds[c->type][u];
    if (u != c->type && score[u] > 0 && counts[u] < ft_deck_count(u) &&
        (best < 0 || score[u] > score[best]))
      best = u;
  }
  if (best < 0) return likely_unseen_type(counts);
  counts[best]++;
  return best;
}

/* More cards of a type than the deck has (with the game's earlier cards)
 * cannot be: the rules would refuse the whole layout, and following it
 * again from the next frames (carpets flying by then) loses most of it.
 * The card whose votes for that type are fewest takes its next voted
 * type with a card left, else the most likely type (warned). Hard game
 * 3:696 round 3: a lamp read "unsure, adventure E" in every layout frame
 * (all three adventure E were laid out in round 2). */
static void fit_deck_counts(wch *w) {
  int counts[FT_N_TYPES];
  cards_seen_in_game(w, counts);
  for (int t = 0; t < FT_N_TYPES; t++)
    for (int k; counts[t] > ft_deck_count(t) && (k = weakest_of_type(w, t)) >= 0;) {
      wch__card *c = &w->ref[k];
      counts[t]--;
      c->type = next_type_with_room(c, counts);
      c->type_guessed = true; /* not what the frames said */
      wch__warn(w, "layout_type_used_up", "Card %d looks like %s, but the game "
                "has had all %d of them: counted as %s.", c->id,
                wch__card_label(t), ft_deck_count(t), wch__card_label(c->type));
    }
}

/* Layout cards that no frame showed (a carpet flew before they were
 * seen): the rules need every card, so they join with the most likely
 * type and no place; a later frame that shows one puts it in place. */
static void add_unseen_cards(wch *w, int want) {
  int missing = want - w->n_ref;
  if (missing <= 0) return;
  int counts[FT_N_TYPES];
  cards_seen_in_game(w, counts);
  for (int k = 0; k < missing && w->n_ref < FT_MAX_CARDS; k++)
    w->ref[w->n_ref++] = (wch__card){.id = w->next_id++,
                                     .type = likely_unseen_type(counts),
                                     .x = -1e4, .y = -1e4, .unseen = true};
  wch__warn(w, "layout_unseen", "%d of the %d layout cards could not be seen; "
            "counted as the most likely type until they are.", missing, want);
}

/* Gives the rules the layout (the table cards, in id order) and writes
 * it. False (warned) when the rules refuse it: the layout is looked for
 * again. */
static tp_status commit_layout(wch *w, bool *ok, tp_error *err) {
  *ok = false;
  fit_deck_counts(w);
  add_unseen_cards(w, expected_layout(w));
  ft_card cards[FT_MAX_CARDS];
  int n = w->n_ref;
  for (int k = 0; k < n; k++)
    cards[k] = (ft_card){.id = w->ref[k].id, .type = w->ref[k].type,
                         .has_pos = !w->ref[k].unseen, .x_mm = w->ref[k].x,
                         .y_mm = w->ref[k].y};
  tp_error why;
  if (ft_game_layout(w->game, cards, n, &why) != TP_OK) {
    wch__warn(w, "layout_rejected", "This layout does not fit the game (%s); "
              "waiting for a clearer view.", why.text);
    w->next_id -= n; /* the ids are given again */
    w->n_ref = 0;
    w->layout_pending = false;
    wch__enter_layout(w);
    return TP_OK;
  }
  *ok = true;
  w->layout_pending = false;
  char *buf = malloc(256 + (size_t)n * 64);
  if (!buf) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  int layer = ft_game_layer(w->game);
  size_t len = ft_transcript_write_round(buf, 256, ft_game_round(w->game),
                                         w->players.players[layer].name);
  len += ft_transcript_write_layout(buf + len, 128 + (size_t)n * 32, cards, n);
  len += (size_t)sprintf(buf + len, "# watch poses");
  for (int k = 0; k < n; k++)
    len += (size_t)sprintf(buf + len, " %d@%.1f", w->ref[k].id,
                           w->ref[k].angle);
  sprintf(buf + len, "\n");
  tp_status st = wch__append_marked(w, buf, err);
  free(buf);
  if (st == TP_OK) wch__emit_layout(w);
  return st;
}

static tp_status observe_throws(wch *w, const wch_obs *obs, const matching *m,
                                tp_error *err);

static void announce_layout(wch *w, int seen, int want) {
  const char *order[FT_MAX_CARPETS];
  ft_game_throw_order(w->game, order);
  int first = ft_players_by_colour(&w->players, order[0]);
  const char *layer = w->players.players[ft_game_layer(w->game)].name;
  if (seen >= want)
    wch__say(w, WCH_SAY_INFO, "Round %d: %s laid out %d cards. %s throws "
             "first (%s).", ft_game_round(w->game), layer, want,
             w->players.players[first].name, order[0]);
  else
    wch__say(w, WCH_SAY_INFO, "Round %d: %s laid out the cards (%d of %d "
             "seen so far). %s throws first (%s).", ft_game_round(w->game),
             layer, seen, want, w->players.players[first].name, order[0]);
}

/* Takes the layout as followed so far: the counted cards get their ids
 * (in the order they appeared). With every card seen it goes to the rules
 * at once; with fewer (a carpet flew first), cards seen later clear of the
 * carpets join it until the first flight is resolved. */
static tp_status take_layout(wch *w, tp_error *err) {
  warn_claimed_left(w);
  w->n_ghost = 0; /* what is still there from before is noted */
  int n = 0;
  for (int k = 0; k < w->n_track && n < FT_MAX_CARDS; k++) {
    wch__card c = w->track[k];
    if (!layout_card_counts(&c)) continue;
    c.type = voted_type(&c);
    c.type_guessed = !(c.sure_types >> c.type & 1);
    c.id = w->next_id++;
    c.missing_warned = c.bump_warned = false;
    w->ref[n++] = c;
  }
  w->n_ref = n;
  int want = expected_layout(w);
  announce_layout(w, n, want);
  w->stage = WCH_WAIT_THROWS;
  w->n_landed = 0;
  w->layout_pending = n < want;
  if (w->layout_pending) return TP_OK;
  bool ok;
  return commit_layout(w, &ok, err);
}

static bool is_stale(const wch *w, const char *colour) {
  for (int k = 0; k < w->n_stale; k++)
    if (!strcmp(w->stale[k], colour)) return true;
  return false;
}

/* The carpets of the first layout frame were there before (the last
 * flight's); one that is gone later is no longer stale. */
static void update_stale(wch *w, const wch_obs *obs) {
  if (w->layout_frames++ == 0) w->n_stale = 0;
  int kept = 0;
  for (int k = 0; k < w->n_stale; k++)
    for (int c = 0; c < obs->n_carpets; c++)
      if (!strcmp(obs->carpets[c].colour, w->stale[k])) {
        memmove(w->stale[kept++], w->stale[k], FT_NAME_MAX);
        break;
      }
  w->n_stale = kept;
  if (w->layout_frames > 1) return;
  for (int c = 0; c < obs->n_carpets && w->n_stale < FT_MAX_CARPETS; c++)
    snprintf(w->stale[w->n_stale++], FT_NAME_MAX, "%s", obs->carpets[c].colour);
}

/* A player's carpet that was not there when the layout began. */
static bool carpet_landed(const wch *w, const wch_obs *obs) {
  for (int c = 0; c < obs->n_carpets; c++)
    if (ft_players_by_colour(&w->players, obs->carpets[c].colour) >= 0 &&
        !is_stale(w, obs->carpets[c].colour))
      return true;
  return false;
}

/* A counted layout card that no frame was sure of yet. */
static bool layout_in_doubt(const wch *w) {
  for (int k = 0; k < w->n_track; k++)
    if (layout_card_counts(&w->track[k]) && !w->track[k].sure_types) return true;
  return false;
}

/* Whole, the layout is taken at once unless a card's type is only a guess:
 * then the layout's next still frames (the camera loop looks at two more
 * while the layout is followed) vote too, LAYOUT_DOUBT_LOOKS of them at
 * most; a landing carpet takes it at once. Hard game 3:892 (960x540)
 * round 1: a lamp in a glare read "unsure, adventure E, lamp second at
 * 0.99" in the first still frame of the whole layout, which was taken
 * so; the second still frame read the same, the third "sure, lamp". */
enum { LAYOUT_DOUBT_LOOKS = 2 };
static tp_status observe_layout(wch *w, const wch_obs *obs, const matching *m,
                                tp_error *err) {
  if (obs->n_carpets == 0) warn_claimed_left(w); /* the last flight's */
  track_layout(w, obs, m);
  int want = expected_layout(w), counted = counted_layout(w);
  if (counted > want && !w->layout_excess_warned) {
    w->layout_excess_warned = true;
    wch__warn(w, "layout_too_many", "%d cards are on the table, but a layout "
              "has %d.", counted, want);
  }
  update_stale(w, obs);
  /* a carpet new in a further still frame of the layout's scene (nothing
   * moved since the last one) is a phantom of this frame, since a carpet
   * lands in a scene of its own: hard game 2:911 (960x540), a green
   * sliver 0.11 in view in the layout's second still frame took the
   * layout and counted as a throw; hard game 4:913 round 2, the first
   * still frame saw 11 cards, the second 12 and a yellow sliver 0.11 in
   * view under the adventure E: a throw out of turn, and the flight
   * resolved without the other three carpets */
  bool landing = carpet_landed(w, obs) && !obs->same_scene;
  if (want <= 0 || counted > want || !(counted == want || (landing && counted)))
    return TP_OK;
  if (!landing && layout_in_doubt(w) && w->layout_doubt_looks++ < LAYOUT_DOUBT_LOOKS)
    return TP_OK; /* the next still frame of the layout may be sure */
  tp_status st = take_layout(w, err);
  if (st != TP_OK || !landing || w->stage != WCH_WAIT_THROWS) return st;
  /* the first carpet is already down: this frame is a throw too */
  matching now;
  match_cards(w, obs, &now);
  w->in_layout_frame = true;
  st = observe_throws(w, obs, &now, err);
  w->in_layout_frame = false;
  return st;
}

/* A card no frame of the layout showed, seen now clear of the carpets:
 * while the first flight is not resolved it joins the layout; later it
 * takes the place of a layout card that was never seen. */
/* Returns the index of the layout card unseen until now that it put in
 * place (-1: none). */
static int adopt_card(wch *w, const wch_card_obs *o, bool guessed) {
  wch__card c = {.id = -1, .type = o->type, .x = o->x_mm, .y = o->y_mm,
                 .angle = o->angle_deg, .seen = 1, .type_guessed = guessed};
  if (w->layout_pending) {
    if (w->n_ref >= expected_layout(w)) return -1;
    c.id = w->next_id++;
    w->ref[w->n_ref++] = c;
    wch__say(w, WCH_SAY_INFO, "Card %d (%s) is seen now: it belongs to the "
             "layout.", c.id, wch__card_label(c.type));
    return -1;
  }
  int k = -1;
  for (int j = 0; j < w->n_ref; j++)
    if (w->ref[j].unseen && (k < 0 || w->ref[j].type == o->type)) k = j;
  if (k < 0) return -1;
  if (w->ref[k].type != o->type)
    wch__warn(w, "layout_unseen_type", "Card %d is %s, but was counted as %s "
              "when it could not be seen.", w->ref[k].id,
              wch__card_label(o->type), wch__card_label(w->ref[k].type));
  c.id = w->ref[k].id;
  c.type = w->ref[k].type; /* the rules know it as that */
  /* counted as the most likely type: a frame sure of another type at its
   * place retypes it (this one at once: once every card is seen, frames
   * are analysed against the layout reference, which knows it as
   * counted) */
  c.type_guessed = true;
  w->ref[k] = c;
  return k;
}

/* A known card (on the table, or out of the game but still there) lies
 * within a match of (x, y): a card seen there is that one, even when this
 * frame takes it for a look-alike its type does not fit (hard game 3:696:
 * the layout's lamp read as a palace would join the layout again). */
static bool known_place(const wch *w, double x, double y) {
  for (int k = 0; k < w->n_ref; k++)
    if (!w->ref[k].unseen &&
        wch__dist(x, y, w->ref[k].x, w->ref[k].y) <= w->cfg.match_mm)
      return true;
  for (int k = 0; k < w->n_ghost; k++)
    if (wch__dist(x, y, w->ghost[k].x, w->ghost[k].y) <= w->cfg.match_mm)
      return true;
  return false;
}

/* Cards that are not on the game's table or out of it, clear of the
 * carpets and of the known cards' places, with a type: layout cards first
 * seen now (*adopted). One counted unseen gets its place in the layout
 * line, and is retyped when seen surely as another type than it was
 * counted as (retype.c). */
static tp_status adopt_new_cards(wch *w, const wch_obs *obs, const matching *m,
                                 bool *adopted, tp_error *err) {
  bool any_unseen = w->layout_pending;
  for (int k = 0; k < w->n_ref; k++) any_unseen |= w->ref[k].unseen;
  *adopted = false;
  if (!any_unseen) return TP_OK;
  for (int i = 0; i < obs->n_cards; i++) {
    wch_card_obs o = obs->cards[i];
    bool guessed = o.type < 0 && o.has_guess;
    if (guessed) o.type = o.guess;
    if (m->ref_of_obs[i] != -1 || m->ghost_of_obs[i] != -1 || o.type < 0 ||
        o.type >= FT_N_TYPES || known_place(w, o.x_mm, o.y_mm) ||
        carpet_covers(w, obs, o.x_mm, o.y_mm, o.angle_deg))
      continue;
    int before = w->n_ref;
    int k = adopt_card(w, &o, guessed);
    *adopted |= w->n_ref != before || !w->layout_pending;
    tp_status st = TP_OK;
    if (w->layout_pending && w->n_ref != before &&
        w->n_ref >= expected_layout(w)) {
      /* the layout is whole now: to the rules at once, so that the
       * flight's next frames are analysed against the layout reference
       * (while it is pending they are analysed from scratch: hard game
       * 4:697 round 4, red seen landing with 11 of 12 cards counted, lost
       * green's camel bazaar in the frame deciding the flight) */
      bool ok;
      st = commit_layout(w, &ok, err);
      if (st != TP_OK || !ok) return st;
      continue;
    }
    if (k >= 0 && !guessed && w->ref[k].type != o.type)
      st = wch__retype_card(w, k, o.type, err);
    else if (k >= 0)
      st = wch__place_card(w, k, err);
    if (st != TP_OK) return st;
  }
  return TP_OK;
}

/* ---- throws ---- */

static int landed_index(const wch *w, const char *colour) {
  for (int k = 0; k < w->n_landed; k++)
    if (!strcmp(w->landed[k], colour)) return k;
  return -1;
}

static const char *owner_name(const wch *w, const char *colour) {
  int p = ft_players_by_colour(&w->players, colour);
  return p >= 0 ? w->players.players[p].name : colour;
}

static bool off_table(const wch *w, const wch_carpet_obs *c) {
  const double *t = w->cfg.table_mm;
  if (t[0] == 0 && t[1] == 0 && t[2] == 0 && t[3] == 0) return false;
  return c->x_mm < t[0] || c->y_mm < t[1] || c->x_mm > t[2] || c->y_mm > t[3];
}

static void note_landing(wch *w, const wch_carpet_obs *c, const char **order,
                         int n_order) {
  const char *expected = NULL;
  for (int k = 0; k < n_order && !expected; k++)
    if (landed_index(w, order[k]) < 0) expected = order[k];
  int k = w->n_landed++;
  snprintf(w->landed[k], FT_NAME_MAX, "%s", c->colour);
  w->landed_off[k] = off_table(w, c);
  w->landed_seen[k] = 0; /* counted by count_sightings */
  w->landed_doubtful[k] = w->in_layout_frame;
  w->landed_last[k].seen = false; /* noted by note_last_seen */
  w->landed_out_of_turn[k] = expected && strcmp(expected, c->colour);
  if (w->landed_out_of_turn[k])
    wch__warn(w, "out_of_turn",
              "%s threw out of turn (the %s carpet); it was %s's turn (%s).",
              owner_name(w, c->colour), c->colour, owner_name(w, expected),
              expected);
  if (w->landed_off[k])
    wch__warn(w, "carpet_off_table",
              "The %s carpet landed off the table: it goes back to %s.",
              c->colour, owner_name(w, c->colour));
}

/* Two poses within mm and deg of each other (a carpet's angle is
 * symmetric under a half turn). */
static bool near_pose(double x1, double y1, double a1, double x2, double y2, double a2,
                      double mm, double deg) {
  double turn = fmod(fabs(a1 - a2), 180);
  return wch__dist(x1, y1, x2, y2) <= mm && fmin(turn, 180 - turn) <= deg;
}

/* How near (mm, degrees) a carpet seen under a landed one lies to that
 * one's pose when it is the eyes' twin of it (DEV game 4:699: 6-8 mm and
 * 0.2 degrees from red, visible 11 %). */
static const double TWIN_MM = 15, TWIN_DEG = 5;

/* Carpet c, not landed yet, lies under a carpet that has landed or lands
 * in this same frame, at nearly that one's place and angle: a carpet
 * thrown later lands on top, and one sliding under another does not come
 * to rest exactly beneath it, so this is a second outline the eyes saw of
 * the carpet on top (its border, a shadow), in whatever colour they
 * guessed (DEV game 4:699 round 4 flight 2: "green", then "yellow", under
 * red, 6-8 mm from it; taken as yellow's landing, the flight was resolved
 * before yellow came and lost its card). The carpet on top may be new in
 * this frame too: two carpets first seen together do not lie one exactly
 * beneath the other either (hard game 2:731 round 1 flight 3: in green's
 * first still frame a "yellow" 6 mm and 1 degree from it, under it, 6 %
 * visible, before yellow was thrown; with green it made four carpets
 * down, the flight was resolved with yellow on no card and yellow's
 * treasure was lost). Every player's carpet in the frame has landed or
 * lands now. */
static bool twin_of_landed(const wch *w, const wch_obs *obs, int c) {
  const wch_carpet_obs *cp = &obs->carpets[c];
  if (landed_index(w, cp->colour) >= 0) return false;
  for (int k = 0; k < cp->n_under; k++) {
    int b = cp->under[k];
    if (b < 0 || b >= obs->n_carpets || b == c) continue;
    const wch_carpet_obs *top = &obs->carpets[b];
    if (strcmp(top->colour, cp->colour) &&
        ft_players_by_colour(&w->players, top->colour) >= 0 &&
        near_pose(top->x_mm, top->y_mm, top->angle_deg, cp->x_mm, cp->y_mm, cp->angle_deg,
                  TWIN_MM, TWIN_DEG))
      return true;
  }
  return false;
}

/* How near (mm, degrees) a carpet seen under another lies to a table
 * card's place when it is that card's outline (game 4:803: 0.9 mm and 0.2
 * degrees; the layout's poses agree within about 0.5 mm). */
static const double CARD_OUTLINE_MM = 3, CARD_OUTLINE_DEG = 3;

/* Carpet c, not landed yet, lies under a carpet that has landed or lands
 * in this same frame, at a table card's place and angle: the eyes took the
 * outline of the card, covered by the carpets on it, for a carpet. A
 * carpet thrown later lands on top, and one that slides under does not
 * come to rest exactly on a card's place (game 4:803 round 4 flight 2:
 * once green landed on red on the adventure E, a "yellow" under both,
 * 0.9 mm and 0.2 degrees from that card, before yellow was thrown; with
 * it four carpets were down, the flight was resolved with yellow on no
 * card, and the palace yellow then landed on stayed on the table). The
 * carpet on top may be new in this frame, as for a twin (rendered hard
 * game 3:832 at 1920x1080, round 3, flight 3: in blue's first still frame
 * a "green" 2 % visible under blue at the carpet bazaar's place and angle;
 * taken as green's landing, the flight was resolved before green came,
 * on the palace it lost). */
static bool outline_of_card(const wch *w, const wch_obs *obs, int c) {
  const wch_carpet_obs *cp = &obs->carpets[c];
  bool under_carpet = false;
  for (int k = 0; k < cp->n_under; k++) {
    int b = cp->under[k];
    under_carpet |= b >= 0 && b < obs->n_carpets && b != c &&
                    strcmp(obs->carpets[b].colour, cp->colour) &&
                    ft_players_by_colour(&w->players, obs->carpets[b].colour) >= 0;
  }
  if (!under_carpet || landed_index(w, cp->colour) >= 0) return false;
  for (int r = 0; r < w->n_ref; r++)
    if (!w->ref[r].unseen &&
        near_pose(w->ref[r].x, w->ref[r].y, w->ref[r].angle, cp->x_mm, cp->y_mm,
                  cp->angle_deg, CARD_OUTLINE_MM, CARD_OUTLINE_DEG))
      return true;
  return false;
}

/* Lands the carpets seen for the first time, in the expected order when
 * several came down between two still frames. */
static void note_new_carpets(wch *w, const wch_obs *obs) {
  const char *order[FT_MAX_CARPETS];
  int n_order = ft_game_throw_order(w->game, order);
  bool is_new[WCH_MAX_OBS_CARPETS] = {false};
  for (int c = 0; c < obs->n_carpets; c++) {
    const char *col = obs->carpets[c].colour;
    if (ft_players_by_colour(&w->players, col) < 0) {
      if (!w->unknown_warned)
        wch__warn(w, "unknown_carpet", "A %s carpet is on the table, but no "
                  "player has it (--players).", col);
      w->unknown_warned = true;
      continue;
    }
    is_new[c] = landed_index(w, col) < 0 && !twin_of_landed(w, obs, c) &&
               !outline_of_card(w, obs, c);
  }
  for (int k = 0; k < n_order; k++)
    for (int c = 0; c < obs->n_carpets; c++)
      if (is_new[c] && !strcmp(obs->carpets[c].colour, order[k])) {
        is_new[c] = false;
        note_landing(w, &obs->carpets[c], order, n_order);
      }
}

/* Carpet c lies under a carpet that was thrown before it: it slid in
 * under that one when it landed. */
static bool under_earlier_carpet(const wch *w, const wch_obs *obs, int c) {
  const wch_carpet_obs *cp = &obs->carpets[c];
  int mine = landed_index(w, cp->colour);
  if (mine < 0) return false;
  for (int k = 0; k < cp->n_under; k++) {
    int b = cp->under[k];
    if (b < 0 || b >= obs->n_carpets || b == c) continue;
    int theirs = landed_index(w, obs->carpets[b].colour);
    if (theirs >= 0 && theirs < mine) return true;
  }
  return false;
}

/* How far (mm^2) the carpet reaches into the card at its reference place. */
static double reach_mm2(const wch *w, const wch_carpet_obs *cp,
                        const wch__card *r) {
  return wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, w->cfg.carpet_mm,
                           r->x, r->y, r->angle, w->cfg.card_mm);
}

/* The carpet lies under a card this frame shows: it overlaps the card's
 * place by more than a covered card counts, and the eyes saw the card on
 * top there (it is not one of on_cards). */
static bool under_a_card(const wch *w, const wch__known *kn,
                         const wch_obs *obs, const matching *m,
                         const wch_carpet_obs *cp) {
  for (int i = 0; i < obs->n_cards; i++) {
    if (m->ref_of_obs[i] < 0) continue;
    bool on = false;
    for (int j = 0; j < cp->n_on_cards; j++) on |= cp->on_cards[j] == i;
    if (!on && reach_mm2(w, cp, &kn->ref[m->ref_of_obs[i]]) >
                   w->cfg.min_overlap_mm2)
      return true;
  }
  return false;
}

/* The game's cards each carpet of the observation lies on. Where the eyes
 * cannot tell whether it lies above a card (another carpet hides where
 * they meet), the throw order can: a carpet that slid under one thrown
 * before it slid under that card as well (the earlier carpet, above both,
 * is what hides the place), so it is not on it. Where it only barely
 * reaches into the card (on_barely: the place is seen, its depth is within
 * the pose error), the throw order tells nothing: it stays on, unsure
 * (DEV game 3:671 round 1 flight 3: red 0.2 mm into the camel bazaar, seen
 * under green by a 45 mm^2 sliver, lost the card; truth: on). `barely`
 * gets the cards whose contact the frame measured within the pose error
 * (on_barely and barely_off). */
static void carpet_cards(const wch *w, const wch__known *kn,
                         const wch_obs *obs, const matching *m, int c,
                         int *ids, int *n_ids, uint64_t *unsure,
                         uint64_t *barely) {
  const wch_carpet_obs *cp = &obs->carpets[c];
  *n_ids = 0;
  *unsure = *barely = 0;
  if (off_table(w, cp)) return;
  for (int j = 0; j < cp->n_barely_off; j++) {
    int i = cp->barely_off[j];
    int id = i >= 0 && i < obs->n_cards && m->ref_of_obs[i] >= 0
                 ? kn->ref[m->ref_of_obs[i]].id : -1;
    if (id >= 0 && id < 64) *barely |= (uint64_t)1 << id;
  }
  bool slid_under = under_earlier_carpet(w, obs, c);
  bool below_cards = under_a_card(w, kn, obs, m, cp);
  for (int j = 0; j < cp->n_on_cards; j++) {
    int i = cp->on_cards[j];
    if (i < 0 || i >= obs->n_cards || m->ref_of_obs[i] < 0) continue;
    if (slid_under && cp->on_uncertain[j] && !cp->on_barely[j]) continue;
    const wch__card *r = &kn->ref[m->ref_of_obs[i]];
    /* a carpet that slid under cards of the layout reaching into another
     * by a sliver: as unsure as a contact the eyes doubt */
    bool sliver = below_cards && reach_mm2(w, cp, r) < w->cfg.min_overlap_mm2;
    int id = r->id;
    if ((cp->on_uncertain[j] || sliver) && id >= 0 && id < 64)
      *unsure |= (uint64_t)1 << id;
    if (cp->on_barely[j] && id >= 0 && id < 64) *barely |= (uint64_t)1 << id;
    ids[(*n_ids)++] = id;
  }
  /* a card this frame does not show at all lies under something: the
   * reference says where it is */
  for (int k = 0; k < kn->n_ref; k++) {
    if (m->obs_of_ref[k] >= 0) continue;
    const wch__card *r = &kn->ref[k];
    if (wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, w->cfg.carpet_mm,
                          r->x, r->y, r->angle, w->cfg.card_mm) >
        w->cfg.min_overlap_mm2)
      ids[(*n_ids)++] = r->id;
  }
}

static void landings_matched(const wch *w, const wch__known *kn,
                             const wch_obs *obs, const matching *m,
                             wch__landings *out) {
  const char *order[FT_MAX_CARPETS];
  int n_order = ft_game_throw_order(kn->game, order);
  out->n = n_order;
  for (int k = 0; k < n_order; k++) {
    snprintf(out->colour[k], FT_NAME_MAX, "%s", order[k]);
    out->n_cards[k] = 0;
    out->unsure[k] = out->barely[k] = 0;
    for (int c = 0; c < obs->n_carpets; c++)
      if (!strcmp(obs->carpets[c].colour, order[k]))
        carpet_cards(w, kn, obs, m, c, out->cards[k], &out->n_cards[k],
                     &out->unsure[k], &out->barely[k]);
  }
}

/* How far (mm, degrees) a carpet may seem to move between two still
 * frames when nothing touched it (the eyes' poses of a resting carpet
 * agree within about 1 mm and 0.5 degrees in the tuning games). */
static const double STAYED_MM = 2, STAYED_DEG = 2;

/* The carpet lies where it was last seen (not bumped since). */
static bool stayed(const wch__last_seen *ls, const wch_carpet_obs *cp) {
  return ls->seen && near_pose(ls->x, ls->y, ls->angle, cp->x_mm, cp->y_mm, cp->angle_deg,
                               STAYED_MM, STAYED_DEG);
}

/* A carpet thrown after landed carpet k lies over the known card `id`
 * in this frame. */
static bool card_under_later(const wch *w, const wch__known *kn,
                             const wch_obs *obs, int k, int id) {
  const wch__card *card = NULL;
  for (int r = 0; r < kn->n_ref && !card; r++)
    if (kn->ref[r].id == id) card = &kn->ref[r];
  if (!card || card->unseen) return false;
  for (int c = 0; c < obs->n_carpets; c++) {
    const wch_carpet_obs *cp = &obs->carpets[c];
    if (landed_index(w, cp->colour) > k &&
        wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, w->cfg.carpet_mm,
                          card->x, card->y, card->angle, w->cfg.card_mm) >
            w->cfg.min_overlap_mm2)
      return true;
  }
  return false;
}

/* Where each carpet of the flight that this frame shows lies, on which
 * cards, and which of them it has surely lain on since it lies there. A
 * card that a carpet thrown later already covers is not surely lain on:
 * the later carpet hides where they meet, and keep_sure_landings would
 * hold this frame's reading of that place against every later frame
 * (game 2:801 round 4 flight 4: in the frame green landed in, the camel
 * bazaar under yellow was seen 1.8 mm and 3 degrees off its place, blue
 * reached into it there; the two frames of the second look saw blue off
 * it, as the truth has it, but the camel bazaar, under yellow thrown after
 * blue, was kept as surely blue's, and its contest was asked). */
static void note_last_seen(wch *w, const wch_obs *obs, const matching *m) {
  wch__known kn = known_now(w);
  for (int c = 0; c < obs->n_carpets; c++) {
    int k = landed_index(w, obs->carpets[c].colour);
    if (k < 0) continue;
    wch__last_seen *ls = &w->landed_last[k];
    const wch_carpet_obs *cp = &obs->carpets[c];
    if (!stayed(ls, cp)) ls->n_sure = 0;
    ls->seen = true;
    ls->x = cp->x_mm, ls->y = cp->y_mm, ls->angle = cp->angle_deg;
    uint64_t unsure, barely;
    carpet_cards(w, &kn, obs, m, c, ls->cards, &ls->n_cards, &unsure, &barely);
    for (int j = 0; j < ls->n_cards; j++) {
      int id = ls->cards[j];
      bool doubted = (id >= 0 && id < 64 && (unsure >> id & 1)) ||
                     card_under_later(w, &kn, obs, k, id);
      if (!doubted && ls->n_sure < FT_MAX_CARDS &&
          !wch__has_id(ls->sure, ls->n_sure, id))
        ls->sure[ls->n_sure++] = id;
    }
  }
}

/* A carpet thrown after landed carpet k (or, with `landing_now`, a
 * player's carpet this frame shows for the first time) lies over most of
 * where k was last seen. */
static bool covered_by_later(const wch *w, const wch_obs *obs, int k,
                             bool landing_now) {
  const wch__last_seen *ls = &w->landed_last[k];
  const double *size = w->cfg.carpet_mm, most = 0.5 * size[0] * size[1];
  for (int c = 0; c < obs->n_carpets; c++) {
    const wch_carpet_obs *cp = &obs->carpets[c];
    int later = landed_index(w, cp->colour);
    bool new_one = landing_now && later < 0 &&
                   ft_players_by_colour(&w->players, cp->colour) >= 0;
    if ((later > k || new_one) &&
        wch__rect_overlap(ls->x, ls->y, ls->angle, size, cp->x_mm, cp->y_mm,
                          cp->angle_deg, size) > most)
      return true;
  }
  return false;
}

/* Below this share of itself, a carpet's pose is a guess: the eyes fit
 * its colour onto the sliver that shows, or onto the carpet over it. */
static const double SLIVER_SHOWN = 0.15;

/* Carpet c of obs is a landed carpet seen only as a sliver, away from
 * where it was last seen, with a carpet thrown after it over most of that
 * place: hidden there, not moved (carpets only come while a flight is
 * thrown). Rendered hard game 3:832 at 1920x1080, round 1, flight 3: blue
 * lay on the palace (43 % of it shown), green and red landed over it, and
 * the frames after showed 4-5 % of blue, fitted 9 mm and 38 degrees off
 * onto red's outline and on no card; blue's palace and its contest were
 * lost. */
static bool stray_sliver(const wch *w, const wch_obs *obs, int c) {
  const wch_carpet_obs *cp = &obs->carpets[c];
  int k = landed_index(w, cp->colour);
  if (k < 0 || !cp->has_visible || cp->visible_fraction >= SLIVER_SHOWN) return false;
  const wch__last_seen *ls = &w->landed_last[k];
  return ls->seen && !stayed(ls, cp) && covered_by_later(w, obs, k, true);
}

/* Carpet c out of obs; the others' `under` lists follow their indices. */
static void drop_carpet(wch_obs *obs, int c) {
  for (int i = 0; i < obs->n_carpets; i++) {
    wch_carpet_obs *o = &obs->carpets[i];
    int kept = 0;
    for (int j = 0; j < o->n_under; j++)
      if (o->under[j] != c) o->under[kept++] = o->under[j] - (o->under[j] > c);
    o->n_under = kept;
  }
  memmove(&obs->carpets[c], &obs->carpets[c + 1],
          (size_t)(obs->n_carpets - c - 1) * sizeof obs->carpets[0]);
  obs->n_carpets--;
}

void wch__hide_stray_slivers(const wch *w, wch_obs *obs) {
  for (int c = obs->n_carpets - 1; c >= 0; c--)
    if (stray_sliver(w, obs, c)) drop_carpet(obs, c);
}

/* A carpet seen to land in this flight that the frame does not show,
 * with one thrown after it over most of its place, is hidden under that
 * one: it lies on the cards it lay on when last seen (carpets only come
 * while a flight is thrown; tuning game 4:603 round 2 flight 2: red
 * thrown 6 mm from yellow hid all of yellow but a sliver of its white
 * border, and the flight went without yellow's card). */
static void keep_hidden_landings(const wch *w, const wch_obs *obs,
                                 wch__landings *l) {
  for (int i = 0; i < l->n; i++) {
    int k = landed_index(w, l->colour[i]);
    if (k < 0 || w->landed_off[k] || !w->landed_last[k].seen ||
        wch__carpet_in(obs, l->colour[i]) || !covered_by_later(w, obs, k, false))
      continue;
    const wch__last_seen *ls = &w->landed_last[k];
    memcpy(l->cards[i], ls->cards, (size_t)ls->n_cards * sizeof ls->cards[0]);
    l->n_cards[i] = ls->n_cards;
    l->barely[i] = 0; /* not this frame's measurement */
  }
}

/* A carpet that earlier frames of the flight surely saw on a card, and
 * that still lies where it lay, is still on it where the frame says not
 * and a carpet thrown later now lies over that card: while a flight is
 * thrown carpets only come, and a card does not slide onto a carpet; the
 * later carpet covers where they meet and the eyes misjudge that place
 * (tuning game 4:653 round 3 flight 3: yellow surely on the palace's
 * corner in three frames, "under the card" once green landed over it;
 * the contest went without dirk). */
static void keep_sure_landings(const wch *w, const wch__known *kn,
                               const wch_obs *obs, wch__landings *l) {
  for (int i = 0; i < l->n; i++) {
    int k = landed_index(w, l->colour[i]);
    if (k < 0 || w->landed_off[k]) continue;
    const wch__last_seen *ls = &w->landed_last[k];
    bool still_there = false;
    for (int c = 0; c < obs->n_carpets; c++)
      if (!strcmp(obs->carpets[c].colour, l->colour[i]))
        still_there = stayed(ls, &obs->carpets[c]);
    for (int j = 0; still_there && j < ls->n_sure; j++) {
      int id = ls->sure[j];
      if (wch__has_id(l->cards[i], l->n_cards[i], id) ||
          !card_under_later(w, kn, obs, k, id) || l->n_cards[i] >= FT_MAX_CARDS)
        continue;
      l->cards[i][l->n_cards[i]++] = id;
      if (id >= 0 && id < 64) l->barely[i] &= ~((uint64_t)1 << id); /* kept as sure */
    }
  }
}

static void set_landings_from(wch *w, const wch_obs *obs, const matching *m) {
  wch__known kn = known_now(w);
  landings_matched(w, &kn, obs, m, &w->landings);
  keep_hidden_landings(w, obs, &w->landings);
  keep_sure_landings(w, &kn, obs, &w->landings);
}

void wch__save_before_flight(wch *w) {
  ft_game_destroy(w->before_flight);
  w->before_flight = ft_game_clone(w->game);
  w->n_ref_before = w->n_ref;
  memcpy(w->ref_before, w->ref, sizeof w->ref);
  w->n_ghost_before = w->n_ghost;
  memcpy(w->ghost_before, w->ghost, sizeof w->ghost);
  w->log_before = w->log_len;
}

void wch__ref_to_ghost(wch *w, int card_id, int owner) {
  for (int k = 0; k < w->n_ref; k++) {
    if (w->ref[k].id != card_id) continue;
    if (w->n_ghost < FT_DECK_SIZE)
      w->ghost[w->n_ghost++] =
          (wch__ghost){.id = card_id, .type = w->ref[k].type,
                       .x = w->ref[k].x, .y = w->ref[k].y,
                       .angle = w->ref[k].angle, .owner = owner,
                       .since_flight = w->flights_total};
    memmove(&w->ref[k], &w->ref[k + 1],
            (size_t)(w->n_ref - k - 1) * sizeof w->ref[0]);
    w->n_ref--;
    return;
  }
}

/* Answers that an earlier `give` re-applies without asking again. */
static tp_status auto_reveals(wch *w, tp_error *err) {
  ft_game_contest next;
  while (ft_game_next_contest(w->game, &next)) {
    int found = -1;
    for (int k = 0; k < w->n_old_reveals && found < 0; k++)
      if (w->old_reveals[k].card == next.card) found = k;
    if (found < 0) return TP_OK;
    char line[256];
    int len = 0;
    for (int q = 0; q < next.n_players; q++) {
      int p = next.players[q];
      len += snprintf(line + len, sizeof line - (size_t)len, "%s=%d ",
                      w->players.players[p].name,
                      w->old_reveals[found].genies[p]);
    }
    tp_error why;
    if (wch__answer_reveal(w, line, &why) != TP_OK) return TP_OK;
  }
  return wch__after_answer(w, err);
}

/* Resolves the flight from the carpets' places (landings already set). */
static tp_status resolve_landings(wch *w, tp_error *err) {
  ft_landing landings[FT_MAX_CARPETS];
  for (int k = 0; k < w->landings.n; k++)
    landings[k] = (ft_landing){w->landings.colour[k], w->landings.cards[k],
                               w->landings.n_cards[k]};
  wch__save_before_flight(w);
  tp_error why;
  if (ft_game_flight(w->game, landings, w->landings.n, &w->report, &why) !=
      TP_OK) {
    wch__warn(w, "flight_rejected", "Could not resolve the flight: %s",
              why.text);
    w->n_landed = 0;
    return TP_OK;
  }
  w->flights_total++;
  w->have_flight = true;
  w->n_results = w->n_reveals = w->n_emitted = 0;
  char line[2048];
  ft_transcript_write_flight(line, sizeof line, landings, w->landings.n);
  tp_status st = wch__append_marked(w, line, err);
  if (st != TP_OK) return st;
  for (int p = 0; p < w->players.n_players; p++)
    for (int k = 0; k < w->report.n_claimed[p]; k++)
      wch__ref_to_ghost(w, w->report.claimed[p][k], p);
  wch__say_flight(w);
  w->stage = WCH_WAIT_ANSWER;
  if (w->report.n_contests == 0 || w->n_old_reveals > 0)
    return auto_reveals(w, err);
  return TP_OK;
}

void wch__remember_flight_carpets(wch *w, const wch_obs *obs) {
  w->taking_seen = false; /* a flight just decided */
  w->taking_looked = 0;
  w->taking_gone = 0;
  w->n_flight_carpets = obs->n_carpets;
  memcpy(w->flight_carpets, obs->carpets,
         (size_t)obs->n_carpets * sizeof obs->carpets[0]);
}

/* Each carpet's cards as this observation shows them (the landings). */
void wch__landings_from(wch *w, const wch_obs *obs) {
  matching m;
  match_cards(w, obs, &m);
  set_landings_from(w, obs, &m);
}

/* The same against other known cards (those before the last flight),
 * into `out`; the controller is not changed. */
void wch__landings_seen(const wch *w, const wch__known *known,
                        const wch_obs *obs, wch__landings *out) {
  matching m;
  match_known(&w->cfg, known, obs, &m);
  landings_matched(w, known, obs, &m, out);
  keep_sure_landings(w, known, obs, out);
}

tp_status wch__resolve(wch *w, const wch_obs *obs, bool reuse_landings,
                       tp_error *err) {
  if (w->layout_pending) {
    bool ok;
    tp_status st = commit_layout(w, &ok, err);
    if (st != TP_OK || !ok) return st;
  }
  if (!reuse_landings) {
    wch__landings_from(w, obs);
    wch__remember_flight_carpets(w, obs);
    w->n_old_reveals = 0;
    w->have_throw_obs = false;
  }
  return resolve_landings(w, err);
}

bool wch__carpet_in(const wch_obs *obs, const char *colour) {
  for (int c = 0; c < obs->n_carpets; c++)
    if (!strcmp(obs->carpets[c].colour, colour)) return true;
  return false;
}

static void count_sightings(wch *w, const wch_obs *obs) {
  for (int k = 0; k < w->n_landed; k++)
    w->landed_seen[k] += wch__carpet_in(obs, w->landed[k]);
}

/* A carpet seen only in the frame that took the layout, or only in a
 * frame before a later carpet landed and gone from that one
 * (doubt_vanished), which the frame where all have landed does not show,
 * was never there (the eyes took a card for a carpet): it has not landed.
 * (A carpet landed later and missed now is still there: the second to
 * last is seen in one frame only.) */
static void forget_vanished_carpets(wch *w, const wch_obs *obs) {
  int kept = 0;
  for (int k = 0; k < w->n_landed; k++) {
    if (w->landed_doubtful[k] && w->landed_seen[k] <= 1 &&
        !w->landed_off[k] && !wch__carpet_in(obs, w->landed[k]))
      continue;
    memmove(w->landed[kept], w->landed[k], FT_NAME_MAX);
    w->landed_seen[kept] = w->landed_seen[k];
    w->landed_doubtful[kept] = w->landed_doubtful[k];
    w->landed_out_of_turn[kept] = w->landed_out_of_turn[k];
    w->landed_last[kept] = w->landed_last[k];
    w->landed_off[kept++] = w->landed_off[k];
  }
  w->n_landed = kept;
}

/* The frame shows landed carpet k where it was last seen lying (within a
 * match: a later carpet may push it a little), or does not show it and a
 * carpet thrown after it, or one landing in this frame, lies over most of
 * its place: it was hidden, not carried off (hard game 3:696 round 3
 * flight 2: blue landed on red, both on the lamp, and the frame showed
 * blue alone; the flight went with red alone, and green made a flight of
 * its own). */
static bool still_lies(const wch *w, const wch_obs *obs, int k) {
  const wch__last_seen *ls = &w->landed_last[k];
  bool shown = false;
  for (int c = 0; c < obs->n_carpets; c++) {
    const wch_carpet_obs *cp = &obs->carpets[c];
    if (strcmp(cp->colour, w->landed[k])) continue;
    shown = true;
    if (!ls->seen ||
        wch__dist(cp->x_mm, cp->y_mm, ls->x, ls->y) < w->cfg.match_mm)
      return true;
  }
  return !shown && ls->seen && covered_by_later(w, obs, k, true);
}

/* A player's carpet in obs that has not landed in this flight yet (nor
 * lay there before it): the next throw. Players do not take the carpets
 * away and throw the next in one scene, so the carpets seen before that
 * are gone from this frame were not taken: a phantom of one frame (hard
 * game 4:883 round 3: a green band along the adventure B in the first
 * frame after the taking, out of turn; the next frame showed yellow
 * landed, green gone, and the flight was resolved with no carpet). */
static bool new_landing(const wch *w, const wch_obs *obs) {
  for (int c = 0; c < obs->n_carpets; c++)
    if (ft_players_by_colour(&w->players, obs->carpets[c].colour) >= 0 &&
        !is_stale(w, obs->carpets[c].colour) &&
        landed_index(w, obs->carpets[c].colour) < 0)
      return true;
  return false;
}

/* Every carpet seen to land is gone from where it lay (taken, or carried
 * off: hard game 4:697 round 1 flight 4 was resolved from a frame that
 * showed only blue, 400 mm from its place in a player's hand), but not
 * all were seen to land (one flew off unseen, or the eyes missed it): the
 * players took them, so the flight is resolved from the last frame that
 * showed carpets lying, as the `resolve` command would. Then this frame
 * starts the taking-away. */
static bool carpets_gone_unresolved(const wch *w, const wch_obs *obs) {
  if (w->n_landed == 0 || !w->have_throw_obs || w->layout_pending ||
      new_landing(w, obs))
    return false;
  for (int k = 0; k < w->n_landed; k++)
    if (still_lies(w, obs, k)) return false;
  return true;
}

static tp_status observe_taking(wch *w, const wch_obs *obs, const matching *m,
                                tp_error *err);

/* A carpet that landed out of turn, seen in one still frame only, that
 * the frame of a new landing shows neither where it lay nor hidden
 * (still_lies) may be a phantom of that one frame: doubtful, forgotten
 * unless a later frame shows it (forget_vanished_carpets). One thrown in
 * turn is not: each landing is seen in one still scene, and the next
 * carpet may hide it. */
static void doubt_vanished(wch *w, const wch_obs *obs) {
  for (int k = 0; k < w->n_landed; k++)
    if (w->landed_out_of_turn[k] && w->landed_seen[k] <= 1 && !still_lies(w, obs, k))
      w->landed_doubtful[k] = true;
}

static tp_status resolve_unseen(wch *w, const wch_obs *obs, tp_error *err) {
  const char *order[FT_MAX_CARPETS];
  int n_order = ft_game_throw_order(w->game, order);
  for (int k = 0; k < n_order; k++)
    if (landed_index(w, order[k]) < 0)
      wch__warn(w, "carpet_unseen", "The %s carpet was not seen to land; the "
                "flight is resolved without it (undo, or give, to correct).",
                order[k]);
  tp_status st = wch__resolve(w, &w->throw_obs, false, err);
  if (st != TP_OK || w->stage != WCH_WAIT_TAKING) return st;
  matching m;
  match_cards(w, obs, &m);
  return observe_taking(w, obs, &m, err);
}

static tp_status observe_throws(wch *w, const wch_obs *seen, const matching *m,
                                tp_error *err) {
  wch_obs shown = *seen;
  wch__hide_stray_slivers(w, &shown);
  const wch_obs *obs = &shown;
  if (carpets_gone_unresolved(w, obs)) return resolve_unseen(w, obs, err);
  if (new_landing(w, obs)) doubt_vanished(w, obs);
  if (obs->n_carpets > 0) {
    w->throw_obs = *obs;
    w->have_throw_obs = true;
  }
  matching again;
  bool adopted;
  tp_status adopt_st = adopt_new_cards(w, obs, m, &adopted, err);
  if (adopt_st != TP_OK || w->stage != WCH_WAIT_THROWS)
    return adopt_st; /* the layout, whole now, was refused */
  if (adopted) {
    match_cards(w, obs, &again);
    m = &again;
  }
  check_table_cards(w, obs, m);
  if (w->n_landed == 0 && obs->n_carpets > 0) warn_claimed_left(w);
  note_new_carpets(w, obs);
  count_sightings(w, obs);
  note_last_seen(w, obs, m);
  const char *order[FT_MAX_CARPETS];
  int n_order = ft_game_throw_order(w->game, order);
  if (w->n_landed < n_order) return TP_OK;
  forget_vanished_carpets(w, obs);
  if (w->n_landed < n_order) return TP_OK;
  /* every carpet is down and the table is still: decide now */
  if (w->layout_pending) {
    bool ok;
    tp_status st = commit_layout(w, &ok, err);
    if (st != TP_OK || !ok) return st;
  }
  set_landings_from(w, obs, m);
  wch__remember_flight_carpets(w, obs);
  w->n_old_reveals = 0;
  w->have_throw_obs = false;
  tp_status st = resolve_landings(w, err);
  /* announced at once; the next still frames of this scene confirm it */
  if (st == TP_OK && w->have_flight && w->stage != WCH_WAIT_THROWS)
    wch__confirm_begin(w, obs);
  return st;
}

/* ---- after the flight ---- */

/* Called after each answer: next contest, the flight event, the lamps,
 * the round end, the end of the game. */
tp_status wch__after_answer(wch *w, tp_error *err) {
  (void)err;
  ft_phase ph = ft_game_phase(w->game);
  if (ph == FT_PHASE_CONTEST) return TP_OK; /* the next reveal */
  if (w->stage == WCH_WAIT_ANSWER && w->have_flight &&
      w->n_results == w->report.n_contests) {
    wch__emit_flight(w);
    w->n_emitted = w->n_results; /* kept for the state's last_flight */
    memcpy(w->emitted, w->results, sizeof w->results[0] * (size_t)w->n_results);
    w->n_results = -1; /* emitted */
  }
  if (ph == FT_PHASE_LAMPS) {
    /* the round's last flight: the players take what it gave them first,
     * and what they leave tells what the eyes were not sure of */
    bool can_amend = w->have_flight && w->before_flight;
    w->stage = can_amend && !w->taking_seen ? WCH_WAIT_TAKING : WCH_WAIT_ANSWER;
    return TP_OK;
  }
  if (ph == FT_PHASE_OVER) {
    w->stage = WCH_GAME_OVER;
    return TP_OK;
  }
  if (ph == FT_PHASE_LAYOUT) {
    wch__enter_layout(w);
    return TP_OK;
  }
  w->stage = WCH_WAIT_TAKING;
  return TP_OK;
}

/* The carpets of the last flight are gone from where they lay: a carpet
 * seen now elsewhere is the next flight's (or one the eyes made up). */
static bool carpets_moved(const wch *w, const wch_obs *obs) {
  if (w->n_flight_carpets == 0) return false; /* not known: wait for none */
  for (int c = 0; c < obs->n_carpets; c++)
    for (int k = 0; k < w->n_flight_carpets; k++) {
      const wch_carpet_obs *a = &obs->carpets[c], *b = &w->flight_carpets[k];
      if (!strcmp(a->colour, b->colour) &&
          wch__dist(a->x_mm, a->y_mm, b->x_mm, b->y_mm) < w->cfg.match_mm)
        return false;
    }
  return true;
}

/* How far (mm) a card's edge may lie from the edge of a carpet that the
 * players say lay on it (a carpet's corner over a card's edge is a sliver
 * the eyes cannot see; their pose is good to a few mm). */
enum { TAKEN_REACH_MM = 10 };

/* The landing of the last flight's carpet that lies nearest the card
 * (within TAKEN_REACH_MM), or -1. */
static int carpet_near(const wch *w, const wch__card *c) {
  double size[2] = {w->cfg.carpet_mm[0] + 2 * TAKEN_REACH_MM,
                    w->cfg.carpet_mm[1] + 2 * TAKEN_REACH_MM};
  double best = 0;
  int best_k = -1;
  for (int i = 0; i < w->n_flight_carpets; i++) {
    const wch_carpet_obs *cp = &w->flight_carpets[i];
    if (off_table(w, cp)) continue;
    double a = wch__rect_overlap(cp->x_mm, cp->y_mm, cp->angle_deg, size,
                                 c->x, c->y, c->angle, w->cfg.card_mm);
    for (int k = 0; k < w->landings.n; k++)
      if (a > best && !strcmp(w->landings.colour[k], cp->colour))
        best = a, best_k = k;
  }
  return best_k;
}

/* The outcome of resolving a flight again from what the players took: a
 * correction the rules cannot make now (TP_ERR_INVALID) stays a warning and
 * the game goes on; any other failure is passed to the caller. */
static tp_status keep_amendment(wch *w, tp_status st, const tp_error *why,
                                tp_error *err) {
  if (st == TP_ERR_INVALID) {
    wch__warn(w, "flight_rejected", "Could not resolve the flight again: %s",
              why->text);
    return TP_OK;
  }
  if (st != TP_OK) *err = *why;
  return st;
}

/* Cards nobody won that the players took away right after the flight,
 * lying at the edge of one of its carpets: the players saw that carpet
 * lie on them where the eyes did not. Their table indices go to refs[],
 * that carpet's landing to landing[]; returns how many. Cards farther
 * from every carpet stay a wrong_card_taken warning. */
static int taken_beside_carpet(const wch *w, const wch_obs *obs,
                               const matching *m, int *refs, int *landing) {
  if (!w->have_flight || !w->before_flight) return 0;
  int n = 0;
  for (int k = 0; k < w->n_ref; k++) {
    const wch__card *c = &w->ref[k];
    if (m->obs_of_ref[k] >= 0 || c->unseen || c->missing_warned ||
        carpet_covers(w, obs, c->x, c->y, c->angle))
      continue;
    int l = carpet_near(w, c);
    if (l < 0) continue;
    refs[n] = k;
    landing[n++] = l;
  }
  return n;
}

static uint64_t id_bit(int id) {
  return id >= 0 && id < 64 ? UINT64_C(1) << id : 0;
}

/* A look can miss a card that lies there: in the watch game 3:882 at
 * 960x540 the one still frame that decided the taking missed a palace
 * that the frames before and after it show, and the flight was counted
 * again with blue on the palace. So cards are given to a carpet only
 * when cfg.taking_looks looks in a row show them gone. False while
 * another look is wanted (nothing is decided); then the refs[] kept are
 * those gone in every look. */
static bool taking_sure(wch *w, int *refs, int *landing, int *n) {
  uint64_t gone = 0;
  for (int j = 0; j < *n; j++) gone |= id_bit(w->ref[refs[j]].id);
  w->taking_gone = w->taking_looked > 0 ? w->taking_gone & gone : gone;
  w->taking_looked++;
  if (w->taking_gone && w->taking_looked < w->cfg.taking_looks) return false;
  int kept = 0;
  for (int j = 0; j < *n; j++) {
    uint64_t bit = id_bit(w->ref[refs[j]].id);
    if (bit && !(w->taking_gone & bit)) continue; /* seen again since */
    refs[kept] = refs[j];
    landing[kept++] = landing[j];
  }
  *n = kept;
  w->taking_looked = 0;
  w->taking_gone = 0;
  return true;
}

bool wch_taking_pending(const wch *w) {
  return w->stage == WCH_WAIT_TAKING && w->taking_looked > 0;
}

/* The cards of taken_beside_carpet, taken by the players: their taking
 * is the better evidence, so the flight is resolved again with those
 * cards under that carpet (as `give` would; warned, `undo`/`give`
 * correct it). */
static tp_status amend_from_taking(wch *w, const int *refs, const int *landing,
                                   int n, bool *amended, tp_error *err) {
  *amended = false;
  if (n == 0) return TP_OK;
  int cards[FT_MAX_CARDS];
  for (int j = 0; j < n; j++) {
    const wch__card *c = &w->ref[refs[j]];
    char called[64];
    wch__warn(w, "card_taken_under_carpet",
              "%s was taken away, so the %s carpet lay on it after all: "
              "flight %d is counted again with it.",
              card_called(c->type, c->id, called),
              w->landings.colour[landing[j]], w->report.flight);
    cards[j] = c->id;
  }
  *amended = true;
  tp_error why;
  tp_status st = wch__amend_flight(w, cards, landing, n, &why);
  return keep_amendment(w, st, &why, err);
}

/* Cards the last flight gave away on a contact the eyes were not sure of
 * (a carpet that barely reaches into the card, or meets it where another
 * carpet hides the place) that the players left on the table when they
 * took the carpets: they saw that carpet not lie on it. As with a card
 * taken under a carpet, their taking is the better evidence: the flight
 * is resolved again without that carpet on it (warned; `undo`/`give`
 * correct it). A card some carpet surely lies on stays claimed
 * (claimed_card_left). */
static tp_status drop_left_unsure(wch *w, bool *amended, tp_error *err) {
  *amended = false;
  if (!w->have_flight || !w->before_flight) return TP_OK;
  int cards[FT_MAX_CARDS], landing[FT_MAX_CARDS], n = 0;
  for (int g = 0; g < w->n_ghost; g++) {
    const wch__ghost *gh = &w->ghost[g];
    if (gh->owner < 0 || gh->left_warned || gh->id < 0 || gh->id >= 64) continue;
    for (int k = 0; k < w->landings.n && n < FT_MAX_CARDS; k++) {
      if (!(w->landings.unsure[k] >> gh->id & 1)) continue;
      char called[64];
      wch__warn(w, "card_left_by_players",
                "%s was left on the table, and the eyes were not sure the %s "
                "carpet lay on it: flight %d is counted again without that.",
                card_called(gh->type, gh->id, called), w->landings.colour[k],
                w->report.flight);
      cards[n] = gh->id;
      landing[n++] = k;
    }
  }
  if (n == 0) return TP_OK;
  *amended = true;
  tp_error why;
  tp_status st = wch__unclaim_flight(w, cards, landing, n, &why);
  return keep_amendment(w, st, &why, err);
}

/* After a round's last flight: the lamps are asked (the round is over
 * unless what the players took changed the flight). */
static bool round_over(wch *w) {
  if (ft_game_phase(w->game) != FT_PHASE_LAMPS) return false;
  w->stage = WCH_WAIT_ANSWER;
  return true;
}

static tp_status observe_taking(wch *w, const wch_obs *obs, const matching *m,
                                tp_error *err) {
  if (obs->n_carpets > 0 && !carpets_moved(w, obs)) return TP_OK;
  w->taking_seen = true;
  /* a table cleared at once (the round's last flight) tells nothing */
  if (obs->n_cards == 0 && round_over(w)) return TP_OK;
  int refs[FT_MAX_CARDS], landing[FT_MAX_CARDS];
  int n_taken = taken_beside_carpet(w, obs, m, refs, landing);
  if (!taking_sure(w, refs, landing, &n_taken)) return TP_OK; /* look again */
  bool amended;
  tp_status st = amend_from_taking(w, refs, landing, n_taken, &amended, err);
  if (st != TP_OK || (amended && w->stage != WCH_WAIT_TAKING)) return st;
  bool dropped = false;
  if (!amended) st = drop_left_unsure(w, &dropped, err);
  if (st != TP_OK || (dropped && w->stage != WCH_WAIT_TAKING)) return st;
  amended |= dropped;
  if (round_over(w)) { /* the leftovers are not checked: cleared next */
    warn_claimed_left(w);
    return TP_OK;
  }
  matching again;
  if (amended) { /* the cards it claimed now are out of the game */
    match_cards(w, obs, &again);
    forget_taken_ghosts(w, obs, &again);
    match_cards(w, obs, &again); /* ghost indices changed */
    m = &again;
  }
  /* all carpets are back with their players: the next flight */
  warn_claimed_left(w);
  check_table_cards(w, obs, m);
  w->stage = WCH_WAIT_THROWS;
  w->n_landed = 0;
  int f = ft_game_flight_number(w->game);
  const char *order[FT_MAX_CARPETS];
  ft_game_throw_order(w->game, order);
  wch__say(w, WCH_SAY_INFO, "Flight %d: %s throws first (%s).", f,
           owner_name(w, order[0]), order[0]);
  if (!obs->n_carpets) return TP_OK;
  w->in_layout_frame = true; /* its carpets are doubtful like the layout's */
  st = observe_throws(w, obs, m, err);
  w->in_layout_frame = false;
  return st;
}

void wch_source_ended(wch *w) {
  if (w->stage == WCH_WAIT_TAKING) round_over(w); /* no taking to wait for */
}

/* The card this frame surely reads as another type than table card k's
 * guessed one, at k's place and clear of the carpets (an index into
 * obs->cards, -1: none). Such a reading pairs with no table card, or
 * with another of its type as if bumped there. */
static int sure_other_type(const wch *w, const wch_obs *obs, const matching *m,
                           int k) {
  const wch__card *c = &w->ref[k];
  int pick = -1;
  double best = w->cfg.match_mm;
  for (int i = 0; i < obs->n_cards; i++) {
    const wch_card_obs *o = &obs->cards[i];
    int r = m->ref_of_obs[i];
    if (o->has_id || o->type < 0 || o->type >= FT_N_TYPES ||
        o->type == c->type || (c->retype_refused >> o->type & 1) ||
        m->ghost_of_obs[i] != -1 || (r != -1 && !(r >= 0 && m->bumped[r])))
      continue;
    double d = wch__dist(o->x_mm, o->y_mm, c->x, c->y);
    if (d <= best && !carpet_covers(w, obs, o->x_mm, o->y_mm, o->angle_deg))
      best = d, pick = i;
  }
  return pick;
}

/* Table cards whose layout type was only a guess that this frame shows
 * surely as another type are retyped (retype.c). */
static tp_status retype_guessed(wch *w, const wch_obs *obs, matching *m,
                                tp_error *err) {
  bool any = false;
  for (int k = 0; k < w->n_ref; k++) {
    if (!w->ref[k].type_guessed || w->ref[k].unseen || m->obs_of_ref[k] >= 0)
      continue;
    int i = sure_other_type(w, obs, m, k);
    if (i < 0) continue;
    int before = w->ref[k].type;
    tp_status st = wch__retype_card(w, k, obs->cards[i].type, err);
    if (st != TP_OK) return st;
    any |= w->ref[k].type != before;
  }
  if (any) match_cards(w, obs, m);
  return TP_OK;
}

tp_status wch_observe(wch *w, const wch_obs *obs, tp_error *err) {
  w->confirming = false; /* a new still scene */
  w->frame = obs->frame;
  w->last_obs = *obs;
  w->have_last_obs = true;
  if (w->stage == WCH_GAME_OVER || w->stage == WCH_WAIT_GENIES ||
      w->stage == WCH_WAIT_ANSWER)
    return TP_OK; /* nothing to look at until the answer */
  matching m;
  match_cards(w, obs, &m);
  forget_taken_ghosts(w, obs, &m);
  match_cards(w, obs, &m); /* ghost indices changed */
  if (w->stage == WCH_WAIT_THROWS || w->stage == WCH_WAIT_TAKING) {
    tp_status st = retype_guessed(w, obs, &m, err);
    if (st != TP_OK) return st;
  }
  switch (w->stage) {
  case WCH_WAIT_LAYOUT:
    return observe_layout(w, obs, &m, err);
  case WCH_WAIT_THROWS:
    return observe_throws(w, obs, &m, err);
  case WCH_WAIT_TAKING:
    return observe_taking(w, obs, &m, err);
  default:
    return TP_OK;
  }
}

/* ---- queries ---- */

wch_stage wch_get_stage(const wch *w) {
  return w->stage;
}
const ft_game *wch_game(const wch *w) {
  return w->game;
}
int wch_warnings(const wch *w) {
  return w->warnings;
}
int64_t wch_resume_frame(const wch *w) {
  return w->resume_frame;
}
int wch_answers_used(const wch *w) {
  return w->answers_used;
}

int wch_table_cards(const wch *w, wch_table_card *out, int max) {
  int n = 0;
  for (int k = 0; k < w->n_ref && n < max; k++, n++)
    out[n] = (wch_table_card){.id = w->ref[k].id, .type = w->ref[k].type,
                              .x_mm = w->ref[k].x, .y_mm = w->ref[k].y,
                              .angle_deg = w->ref[k].angle,
                              .unseen = w->ref[k].unseen};
  for (int k = 0; k < w->n_ghost && n < max; k++, n++)
    out[n] = (wch_table_card){.id = w->ghost[k].id, .type = w->ghost[k].type,
                              .x_mm = w->ghost[k].x, .y_mm = w->ghost[k].y,
                              .angle_deg = w->ghost[k].angle, .claimed = true};
  return n;
}
