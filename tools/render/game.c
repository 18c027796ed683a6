/* render: a whole game of Fliegende Teppiche as a camera sees it.
 *
 * The rules core (rules/ft) plays the game: genies, layouts, flights,
 * contests, round ends. This file decides what the random players do
 * (where the cards are laid, where the carpets land, which genie and how
 * many lamps they play) and films it at a camera-like frame rate: a hand
 * laying each card, carpets flying in one by one with motion blur, still
 * frames after they land, claimed cards taken away, the next layout. The
 * truth is the game transcript (written with ft's writers) and the answers
 * file of spec section 6 that `teppich watch --answers` replays. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"
#include "render_internal.h"

/* Frames of every still scene: `teppich watch` decides on the third still
 * frame in a row, and the first frame after a motion never counts (it is
 * compared with the moving frame before it), so a scene needs 1 + 3 frames
 * to be decided on; every settle gets exactly that, so each carpet landing,
 * the table after the cards were taken and the cleared table are seen. */
enum { STILL_SCENE_FRAMES = 4 };

typedef struct {
  char *buf;
  size_t len, cap;
  bool failed;
} strbuf;

static char *sb_room(strbuf *sb, size_t need) {
  if (sb->len + need + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 4096;
    while (cap < sb->len + need + 1) cap *= 2;
    char *bigger = realloc(sb->buf, cap);
    if (!bigger) {
      sb->failed = true;
      return NULL;
    }
    sb->buf = bigger, sb->cap = cap;
  }
  return sb->buf + sb->len;
}

static void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *at = n >= 0 ? sb_room(sb, (size_t)n) : NULL;
  if (!at) return;
  va_start(ap, fmt);
  vsnprintf(at, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

/* Appends what one of ft's transcript writers formats (snprintf-like). */
#define SB_WRITE(sb, fn, ...)                                  \
  do {                                                         \
    size_t need_ = fn(NULL, 0, __VA_ARGS__);                   \
    char *at_ = sb_room((sb), need_);                          \
    if (at_) (sb)->len += fn(at_, need_ + 1, __VA_ARGS__);     \
  } while (0)

typedef struct {
  const rnd_game_options *opt;
  const rnd_deck *deck;
  rnd_renderer *r;
  const char *dir;
  rnd_image_write_fn write;
  void *user;
  tp_error *err;
  rnd_scene *scene;
  tp_image img;
  rnd__rng g;
  uint64_t base_noise;
  int frame;
  int ids[RND_MAX_CARDS]; /* game card id of scene card i */
  strbuf transcript, answers, index;
  ft_game *game;
  ft_players players;
} film;

/* ---------------- frames ------------------------------------------- */

/* Renders frame number f->frame and writes it. */
static tp_status film_frame(film *f) {
  f->scene->look.noise_seed = f->base_noise + (uint64_t)f->frame; /* fresh sensor noise */
  tp_status st = rnd_render(f->r, f->scene, &f->img, NULL, f->err);
  if (st != TP_OK) return st;
  char path[4096];
  snprintf(path, sizeof path, "%s/frame-%05d.jpg", f->dir, f->frame);
  return f->write(f->user, path, &f->img, f->scene->look.jpeg_quality, f->err);
}

/* Whether frame number f->frame is rendered (rnd_game_options.frames). */
static bool wanted(const film *f) {
  if (f->opt->truth_only) return false;
  if (f->opt->n_frames <= 0) return true;
  for (int i = 0; i < f->opt->n_frames; i++)
    if (f->opt->frames[i] == f->frame) return true;
  return false;
}

static tp_status shoot(film *f, int count, const char *what) {
  for (int k = 0; k < count; k++) {
    f->frame++;
    tp_status st = wanted(f) ? film_frame(f) : TP_OK;
    if (st != TP_OK) return st;
    sb_printf(&f->index, "frame-%05d.jpg\t%s\n", f->frame, what);
    /* moving things move on between frames */
    for (int h = 0; h < f->scene->n_hands; h++) {
      rnd_hand *hd = &f->scene->hands[h];
      hd->center_mm[0] += 2 * hd->velocity_mm[0], hd->center_mm[1] += 2 * hd->velocity_mm[1];
    }
  }
  return TP_OK;
}

/* The seat of player p around the field: the direction (table angle) from
 * the field's centre toward them. */
static double seat_deg(const film *f, int p) {
  return 90.0 + 360.0 * p / f->players.n_players;
}

static void field_centre(const rnd_scene *s, double c[2]) {
  c[0] = 0.5 * s->markers[1].center_mm[0];
  c[1] = 0.5 * s->markers[2].center_mm[1];
}

/* A hand of player p at `at`, moving back toward its seat. */
static void hand_at(film *f, int p, const double at[2], double speed_mm) {
  rnd_scene *s = f->scene;
  double a = seat_deg(f, p) * RND__DEG;
  s->n_hands = 1;
  s->hands[0] = (rnd_hand){.center_mm = {at[0], at[1]}, .radius_mm = 44, .arm_deg = seat_deg(f, p),
                           .height_mm = 90,
                           .velocity_mm = {cos(a) * speed_mm, sin(a) * speed_mm}};
}

/* ---------------- the game's steps ---------------------------------- */

static tp_status lay_out(film *f, const ft_card_type *pile, int *next_pile, int *next_id) {
  rnd_scene *s = f->scene;
  const ft_rules *rules = ft_game_rules(f->game);
  int layer = ft_game_layer(f->game);
  int n = ft_game_deck_left(f->game);
  if (n > rules->layout_cards) n = rules->layout_cards;
  if (n > RND_MAX_CARDS) n = RND_MAX_CARDS;
  SB_WRITE(&f->transcript, ft_transcript_write_round, ft_game_round(f->game),
           f->players.players[layer].name);
  for (int i = 0; i < n; i++) {
    snprintf(s->cards[i].type, RND_NAME_LEN, "%s", ft_card_type_name(pile[*next_pile + i]));
    s->cards[i].face_down = false;
    f->ids[i] = *next_id + i;
  }
  if (!rnd__random_layout(rnd__next(&f->g), f->opt->difficulty, s, n))
    return tp_error_set(f->err, TP_ERR_INTERNAL, "game: no layout fits %d cards", n);
  ft_card cards[FT_MAX_CARDS];
  for (int i = 0; i < n; i++)
    cards[i] = (ft_card){.id = f->ids[i], .type = pile[*next_pile + i], .has_pos = true,
                         .x_mm = round(s->cards[i].pose.center_mm[0] * 10) / 10,
                         .y_mm = round(s->cards[i].pose.center_mm[1] * 10) / 10};
  *next_pile += n;
  *next_id += n;
  tp_status st = ft_game_layout(f->game, cards, n, f->err);
  if (st != TP_OK) return st;
  SB_WRITE(&f->transcript, ft_transcript_write_layout, cards, n);
  /* film it: each card appears with the layer's hand leaving it */
  char what[80];
  for (int i = 0; i < n && st == TP_OK; i++) {
    s->n_cards = i + 1;
    hand_at(f, layer, s->cards[i].pose.center_mm, 25);
    snprintf(what, sizeof what, "round %d layout card %d", ft_game_round(f->game), f->ids[i]);
    st = shoot(f, 1, what);
  }
  s->n_hands = 0;
  snprintf(what, sizeof what, "round %d layout done", ft_game_round(f->game));
  return st == TP_OK ? shoot(f, STILL_SCENE_FRAMES, what) : st;
}

/* Flies carpet k in from its owner's seat to the landing pose chosen. */
static tp_status fly(film *f, int k, int owner) {
  rnd_scene *s = f->scene;
  rnd_carpet *c = &s->carpets[k];
  rnd_pose land = c->pose;
  double a = seat_deg(f, owner) * RND__DEG, centre[2];
  field_centre(s, centre);
  double from[2] = {centre[0] + cos(a) * 420, centre[1] + sin(a) * 330};
  char what[96];
  tp_status st = TP_OK;
  for (int step = 1; step <= 2 && st == TP_OK; step++) {
    double t = step / 3.0; /* frames at a third and two thirds of the way */
    double dx = land.center_mm[0] - from[0], dy = land.center_mm[1] - from[1];
    c->pose = land;
    c->pose.center_mm[0] = from[0] + t * dx, c->pose.center_mm[1] = from[1] + t * dy;
    c->pose.angle_deg = land.angle_deg - (1 - t) * 200;
    c->pose.z = 1e5;        /* in the air: above everything */
    c->pose.lift_mm = 40 * (1 - t) + 5;
    c->pose.velocity_mm[0] = dx / 3 * 0.5, c->pose.velocity_mm[1] = dy / 3 * 0.5; /* half-frame exposure */
    c->pose.spin_deg = 200.0 / 3 * 0.5;
    snprintf(what, sizeof what, "round %d flight %d carpet %s flying", ft_game_round(f->game),
             ft_game_flight_number(f->game), c->colour);
    st = shoot(f, 1, what);
  }
  c->pose = land;
  snprintf(what, sizeof what, "round %d flight %d carpet %s landed", ft_game_round(f->game),
           ft_game_flight_number(f->game), c->colour);
  return st == TP_OK ? shoot(f, STILL_SCENE_FRAMES, what) : st;
}

/* A reveal line names the contest's card in a comment (`# card
 * camel-bazaar@85.7,272.9`): a replay asks the contests in the watch's
 * order, which may not be this one (its card ids are its own), and finds
 * each contest's line by its card (docs/watch.md). */
static void answer_names_card(film *f, int id) {
  ft_card cards[FT_MAX_CARDS];
  int n = ft_game_table(f->game, cards);
  for (int k = 0; k < n; k++)
    if (cards[k].id == id && cards[k].has_pos)
      sb_printf(&f->answers, " # card %s@%.1f,%.1f", ft_card_type_name(cards[k].type),
                cards[k].x_mm, cards[k].y_mm);
}

static tp_status contests(film *f) {
  ft_game_contest c;
  while (ft_game_next_contest(f->game, &c)) {
    int genies[FT_MAX_PLAYERS] = {0};
    sb_printf(&f->answers, "reveal");
    for (int i = 0; i < c.n_players; i++) {
      int p = c.players[i];
      ft_hand h = ft_game_genies(f->game, p);
      genies[p] = h.values[rnd__int(&f->g, 0, h.n - 1)];
      sb_printf(&f->answers, " %s=%d", f->players.players[p].name, genies[p]);
    }
    answer_names_card(f, c.card);
    sb_printf(&f->answers, "\n");
    ft_contest_result res;
    tp_status st = ft_game_reveal(f->game, c.card, genies, &res, f->err);
    if (st != TP_OK) return st;
    SB_WRITE(&f->transcript, ft_transcript_write_reveal, &f->players, c.card, genies);
  }
  return TP_OK;
}

/* Keeps the scene's cards that are still on the game's table. */
static void sync_table(film *f) {
  ft_card on[FT_MAX_CARDS];
  int n = ft_game_table(f->game, on), kept = 0;
  rnd_scene *s = f->scene;
  for (int i = 0; i < s->n_cards; i++) {
    bool stays = false;
    for (int j = 0; j < n; j++) stays |= on[j].id == f->ids[i];
    if (stays) {
      s->cards[kept] = s->cards[i];
      f->ids[kept++] = f->ids[i];
    }
  }
  s->n_cards = kept;
}

static tp_status flight(film *f) {
  rnd_scene *s = f->scene;
  const char *order[FT_MAX_CARPETS];
  int n = ft_game_throw_order(f->game, order);
  s->n_carpets = 0;
  tp_status st = TP_OK;
  for (int k = 0; k < n && k < RND_MAX_CARPETS && st == TP_OK; k++) {
    int owner = ft_players_by_colour(&f->players, order[k]);
    rnd_carpet *c = &s->carpets[k];
    memset(c, 0, sizeof *c);
    snprintf(c->colour, RND_NAME_LEN, "%s", order[k]);
    snprintf(c->player, RND_NAME_LEN, "%s", f->players.players[owner].name);
    s->n_carpets = k + 1;
    if (!rnd__random_landing(rnd__next(&f->g), f->opt->difficulty, s, k))
      return tp_error_set(f->err, TP_ERR_INTERNAL, "game: no landing for carpet %s", order[k]);
    st = fly(f, k, owner);
  }
  if (st != TP_OK) return st;
  char what[80];
  snprintf(what, sizeof what, "round %d flight %d all landed", ft_game_round(f->game),
           ft_game_flight_number(f->game));
  if ((st = shoot(f, 1, what)) != TP_OK) return st;
  /* the truth decides what lies on what; the rules core the rest */
  rnd_truth *t = malloc(sizeof *t);
  if (!t) return tp_error_set(f->err, TP_ERR_NOMEM, "game: out of memory");
  rnd_truth_compute_contact(s, ft_rules_contact_mm(ft_game_rules(f->game)), t);
  int on[RND_MAX_CARPETS][RND_MAX_CARDS];
  ft_landing landings[RND_MAX_CARPETS];
  for (int k = 0; k < s->n_carpets; k++) {
    for (int i = 0; i < t->carpets[k].n_on; i++) on[k][i] = f->ids[t->carpets[k].on_cards[i]];
    landings[k] = (ft_landing){.colour = s->carpets[k].colour, .cards = on[k],
                               .n_cards = t->carpets[k].n_on};
  }
  free(t);
  ft_flight_report report;
  st = ft_game_flight(f->game, landings, s->n_carpets, &report, f->err);
  if (st != TP_OK) return st;
  SB_WRITE(&f->transcript, ft_transcript_write_flight, landings, s->n_carpets);
  if ((st = contests(f)) != TP_OK) return st;
  /* claimed cards leave with a hand, carpets go back to their owners */
  int taker = 0;
  for (int p = 0; p < f->players.n_players; p++)
    if (report.n_claimed[p] > 0) taker = p;
  double at[2];
  field_centre(s, at);
  if (s->n_carpets > 0) at[0] = s->carpets[0].pose.center_mm[0], at[1] = s->carpets[0].pose.center_mm[1];
  hand_at(f, taker, at, 30);
  snprintf(what, sizeof what, "round %d flight %d taking cards", ft_game_round(f->game),
           ft_game_flight_number(f->game) - 1);
  if ((st = shoot(f, 2, what)) != TP_OK) return st;
  s->n_hands = 0;
  s->n_carpets = 0;
  sync_table(f);
  snprintf(what, sizeof what, "round %d after flight", ft_game_round(f->game));
  return shoot(f, STILL_SCENE_FRAMES, what);
}

static tp_status round_end(film *f) {
  int lamps[FT_MAX_PLAYERS] = {0};
  for (int p = 0; p < f->players.n_players; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(f->game, p, counts);
    lamps[p] = counts[FT_LAMP] > 0 ? rnd__int(&f->g, 0, counts[FT_LAMP]) : 0;
  }
  ft_round_report rr;
  int round = ft_game_round(f->game);
  tp_status st = ft_game_round_end(f->game, lamps, &rr, f->err);
  if (st != TP_OK) return st;
  SB_WRITE(&f->transcript, ft_transcript_write_lamps, &f->players, lamps);
  SB_WRITE(&f->answers, ft_transcript_write_lamps, &f->players, lamps);
  char what[64];
  if (f->scene->n_cards > 0) {
    double at[2] = {f->scene->cards[0].pose.center_mm[0], f->scene->cards[0].pose.center_mm[1]};
    hand_at(f, 0, at, 30);
    snprintf(what, sizeof what, "round %d end: clearing the table", round);
    if ((st = shoot(f, 2, what)) != TP_OK) return st;
  }
  f->scene->n_hands = 0;
  f->scene->n_cards = 0;
  snprintf(what, sizeof what, "round %d over", round);
  return shoot(f, STILL_SCENE_FRAMES, what);
}

/* ---------------- entry -------------------------------------------- */

static tp_status setup_game(film *f) {
  static const char *const specs[5] = {NULL, NULL, "anna=red+yellow,ben=blue+green",
                                       "anna=red,ben=blue,cleo=green",
                                       "anna=red,ben=blue,cleo=green,dirk=yellow"};
  tp_status st = ft_players_parse(specs[f->opt->n_players], &f->players, f->err);
  if (st != TP_OK) return st;
  st = ft_game_create(f->opt->rules, &f->players, 0, &f->game, f->err);
  if (st != TP_OK) return st;
  ft_rng rng;
  ft_rng_seed(&rng, rnd__next(&f->g));
  ft_hand hands[FT_MAX_PLAYERS];
  st = ft_game_deal_genies(f->game, &rng, hands, f->err);
  if (st != TP_OK) return st;
  SB_WRITE(&f->transcript, ft_transcript_write_header, &f->players, 0);
  SB_WRITE(&f->transcript, ft_transcript_write_genies, &f->players, hands);
  SB_WRITE(&f->answers, ft_transcript_write_genies, &f->players, hands);
  return TP_OK;
}

static tp_status write_outputs(film *f) {
  if (f->transcript.failed || f->answers.failed || f->index.failed)
    return tp_error_set(f->err, TP_ERR_NOMEM, "game: out of memory");
  char path[4096];
  const struct { const char *name; const strbuf *sb; } files[3] = {
      {"transcript.txt", &f->transcript}, {"answers.txt", &f->answers}, {"frames.txt", &f->index}};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", f->dir, files[i].name);
    tp_status st = tp_write_file_atomic(path, files[i].sb->buf ? files[i].sb->buf : "",
                                        files[i].sb->len, f->err);
    if (st != TP_OK) return st;
  }
  return TP_OK;
}

static tp_status play(film *f, rnd_game_stats *stats) {
  tp_status st = setup_game(f);
  if (st != TP_OK) return st;
  ft_card_type pile[FT_DECK_SIZE];
  int n = 0;
  for (int t = 0; t < FT_N_TYPES; t++)
    for (int k = 0; k < ft_deck_count((ft_card_type)t); k++) pile[n++] = (ft_card_type)t;
  for (int i = n - 1; i > 0; i--) {
    int j = rnd__int(&f->g, 0, i);
    ft_card_type tmp = pile[i];
    pile[i] = pile[j], pile[j] = tmp;
  }
  int next_pile = 0, next_id = 1;
  if ((st = shoot(f, 3, "empty table")) != TP_OK) return st;
  while (st == TP_OK && ft_game_phase(f->game) != FT_PHASE_OVER) {
    switch (ft_game_phase(f->game)) {
    case FT_PHASE_LAYOUT: st = lay_out(f, pile, &next_pile, &next_id); break;
    case FT_PHASE_FLIGHT: st = flight(f); if (stats) stats->flights++; break;
    case FT_PHASE_LAMPS: st = round_end(f); if (stats) stats->rounds++; break;
    default: st = tp_error_set(f->err, TP_ERR_INTERNAL, "game: stuck in phase %s",
                               ft_phase_name(ft_game_phase(f->game)));
    }
  }
  if (st == TP_OK) st = write_outputs(f);
  return st;
}

tp_status rnd_game_render(const rnd_game_options *opt, const rnd_deck *deck, rnd_renderer *r,
                          const char *out_dir, rnd_image_write_fn write, void *user,
                          rnd_game_stats *stats, tp_error *err) {
  if (opt->n_players < 2 || opt->n_players > 4)
    return tp_error_set(err, TP_ERR_INVALID, "game: players must be 2, 3 or 4 (not %d)", opt->n_players);
  static const char *const colours[4] = {"red", "blue", "green", "yellow"};
  for (int i = 0; i < 4; i++) {
    char stem[48];
    snprintf(stem, sizeof stem, "carpet-%s", colours[i]);
    if (!rnd_deck_face(deck, stem))
      return tp_error_set(err, TP_ERR_INVALID, "game: the deck has no %s (games use red, blue, green, yellow)", stem);
  }
  film f = {.opt = opt, .deck = deck, .r = r, .dir = out_dir, .write = write ? write : rnd_write_png,
            .user = user, .err = err, .g = {opt->seed * 0x2545F4914F6CDD1Dull + 99}};
  f.scene = malloc(sizeof *f.scene);
  if (!f.scene) return tp_error_set(err, TP_ERR_NOMEM, "game: out of memory");
  rnd__random_stage(opt->seed, opt->difficulty, deck, f.scene);
  if (opt->width > 0) {
    f.scene->camera.width = opt->width, f.scene->camera.height = opt->height;
    rnd_camera_set_hfov(&f.scene->camera, 66);
  }
  f.base_noise = f.scene->look.noise_seed;
  if (stats) memset(stats, 0, sizeof *stats);
  double t0 = rnd__now_ms();
  tp_status st = tp_image_alloc(&f.img, f.scene->camera.width, f.scene->camera.height, 3) == TP_OK
                     ? play(&f, stats)
                     : tp_error_set(err, TP_ERR_NOMEM, "game: out of memory");
  if (stats) stats->frames = f.frame, stats->ms = rnd__now_ms() - t0;
  ft_game_destroy(f.game);
  tp_image_free(&f.img);
  free(f.transcript.buf), free(f.answers.buf), free(f.index.buf);
  free(f.scene);
  return st;
}
