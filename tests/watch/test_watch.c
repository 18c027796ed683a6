/* Tests of the watch controller on scripted observation sequences: whole
 * simulated games (2-4 players, with and without mischief) must end with
 * the true transcript's scores; every warning, the corrections, answer
 * errors and resuming from a cut transcript. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "watch.h"

typedef struct {
  char *log;
  size_t len;
  int warn[32];
  char kinds[64][40];
  int n_kinds;
  int n_events, n_flight_events, n_final;
  char last_say[2048];
  char said[8192]; /* every line said, each ended by a newline (cut when full) */
  /* with keep_states: the transcript file after each write (a kill -9
   * can stop watch after any of them) */
  bool keep_states;
  int n_states;
  char *states[16];
} sink;

static void on_say(void *u, wch_tone tone, const char *text) {
  sink *s = u;
  (void)tone;
  snprintf(s->last_say, sizeof s->last_say, "%s", text);
  size_t used = strlen(s->said);
  snprintf(s->said + used, sizeof s->said - used, "%s\n", text);
}

static void on_event(void *u, const char *json) {
  sink *s = u;
  s->n_events++;
  if (strstr(json, "\"event\":\"flight\"")) s->n_flight_events++;
  if (strstr(json, "\"event\":\"final\"")) s->n_final++;
  const char *k = strstr(json, "\"kind\": \"");
  if (k && s->n_kinds < 64)
    sscanf(k + 9, "%39[^\"]", s->kinds[s->n_kinds++]);
}

static tp_status on_record(void *u, const char *text, bool all,
                           tp_error *err) {
  sink *s = u;
  (void)err;
  size_t n = strlen(text);
  if (all) s->len = 0;
  s->log = realloc(s->log, s->len + n + 1);
  memcpy(s->log + s->len, text, n + 1);
  s->len += n;
  if (s->keep_states && s->n_states < 16) {
    s->states[s->n_states] = malloc(s->len + 1);
    memcpy(s->states[s->n_states++], s->log, s->len + 1);
  }
  return TP_OK;
}

static void free_states(sink *s) {
  for (int i = 0; i < s->n_states; i++) free(s->states[i]);
  s->n_states = 0;
}

static int count_kind(const sink *s, const char *kind) {
  int n = 0;
  for (int i = 0; i < s->n_kinds; i++) n += !strcmp(s->kinds[i], kind);
  return n;
}

static void setup_game(const char *spec, ft_players *pl, wch_config *cfg) {
  tp_error err;
  assert_int_equal(ft_players_parse(spec, pl, &err), TP_OK);
  wch_config_default(cfg);
  cfg->players = pl;
  cfg->table_mm[0] = cfg->table_mm[1] = -50;
  cfg->table_mm[2] = 610;
  cfg->table_mm[3] = 450;
}

/* A controller of the game of `spec` that tells sink s what it says,
 * records and events (s NULL: nobody); *pl gets the players (the
 * controller keeps its own copy). */
static wch *new_game_looking(const char *spec, ft_players *pl, sink *s,
                              int taking_looks) {
  wch_config cfg;
  setup_game(spec, pl, &cfg);
  cfg.taking_looks = taking_looks;
  wch_output out = {s, on_say, on_event, on_record};
  wch *w;
  tp_error err;
  assert_int_equal(wch_create(&cfg, s ? &out : NULL, &w, &err), TP_OK);
  return w;
}

static wch *new_game(const char *spec, ft_players *pl, sink *s) {
  return new_game_looking(spec, pl, s, 0);
}

/* ... started: it asks for the genie deal. */
static wch *started_game(const char *spec, ft_players *pl, sink *s) {
  wch *w = new_game(spec, pl, s);
  tp_error err;
  assert_int_equal(wch_start(w, &err), TP_OK);
  return w;
}

/* anna (red), ben (blue) and cleo (green), their genies dealt: the game
 * waits for anna's layout. */
static wch *game_at_layout(sink *s) {
  ft_players pl;
  wch *w = started_game("anna=red,ben=blue,cleo=green", &pl, s);
  tp_error err;
  assert_int_equal(wch_answer(w, "genies anna=8,3 ben=7,4 cleo=6,5", &err), TP_OK);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  return w;
}

/* Answers the pending questions from the answers text (line by line). */
static void answer_all(wch *w, char **cursor) {
  wch_question q;
  tp_error err;
  while (wch_question_pending(w, &q) && **cursor) {
    char line[512];
    size_t n = strcspn(*cursor, "\n");
    memcpy(line, *cursor, n);
    line[n] = '\0';
    *cursor += n + ((*cursor)[n] ? 1 : 0);
    if (wch_answer(w, line, &err) != TP_OK) fail_msg("answer '%s': %s", line, err.text);
  }
}

/* Feeds frames [from, to) of a simulated game, deciding on still runs. */
static void drive(wch *w, const wch_sim *sim, int from, int to, char **cursor) {
  int run = 0;
  tp_error err;
  for (int f = from; f < to; f++) {
    answer_all(w, cursor);
    run = sim->moving[f] ? 0 : run + 1;
    if (run == 2) assert_int_equal(wch_observe(w, &sim->frames[f], &err), TP_OK);
  }
  answer_all(w, cursor);
}

static ft_final score_of(const char *text) {
  ft_transcript *t;
  tp_error err;
  ft_event ev;
  ft_final f;
  memset(&f, 0, sizeof f);
  assert_int_equal(ft_transcript_open(NULL, "t", text, strlen(text), 0, &t, &err), TP_OK);
  for (;;) {
    if (ft_transcript_next(t, &ev, &err) != TP_OK) fail_msg("%s", err.text);
    if (ev.kind == FT_EV_FINAL) f = ev.final;
    if (ev.kind == FT_EV_END) break;
  }
  ft_transcript_close(t);
  return f;
}

static void same_final(const char *a, const char *b) {
  ft_final fa = score_of(a), fb = score_of(b);
  assert_int_equal(fa.n_players, fb.n_players);
  assert_true(fa.n_players >= 2);
  for (int p = 0; p < fa.n_players; p++) {
    assert_int_equal(fa.scores[p].total, fb.scores[p].total);
    assert_int_equal(fa.winner[p], fb.winner[p]);
  }
}

/* Flight lines, reveals and lamps of two transcripts (comments and
 * optional lines aside) are the same. */
static void same_moves(const char *a, const char *b) {
  char la[4096], lb[4096];
  const char *pa = a, *pb = b;
  for (;;) {
    while (*pa == '#' || !strncmp(pa, "round ", 6)) pa = strchr(pa, '\n') + 1;
    while (*pb == '#' || !strncmp(pb, "round ", 6)) pb = strchr(pb, '\n') + 1;
    if (!*pa || !*pb) break;
    size_t na = strcspn(pa, "\n"), nb = strcspn(pb, "\n");
    memcpy(la, pa, na), la[na] = 0;
    memcpy(lb, pb, nb), lb[nb] = 0;
    if (!strncmp(la, "layout", 6)) { /* positions may be rounded */
      char *x = la, *y = lb;
      for (; *x; x++) if (*x == '@') { while (*x && *x != ' ') *x++ = ' '; if (!*x) break; }
      for (; *y; y++) if (*y == '@') { while (*y && *y != ' ') *y++ = ' '; if (!*y) break; }
    }
    assert_string_equal(la, lb);
    pa += na + (pa[na] ? 1 : 0);
    pb += nb + (pb[nb] ? 1 : 0);
  }
  assert_int_equal(*pa, *pb);
}

static void play_sim(const char *spec, uint64_t seed, double mischief,
                     sink *s, wch_sim *sim, wch **wout) {
  ft_players pl;
  wch *w = started_game(spec, &pl, s);
  wch_sim_config sc = {seed, 3, 4, mischief, mischief, mischief, mischief};
  tp_error err;
  assert_int_equal(wch_simulate(&sc, NULL, &pl, 0, sim, &err), TP_OK);
  char *cursor = sim->answers;
  drive(w, sim, 0, sim->n_frames, &cursor);
  *wout = w;
}

static void test_clean_games(void **state) {
  (void)state;
  const char *specs[] = {"anna=red+yellow,ben=blue+green",
                         "anna=red,ben=blue,cleo=green",
                         "anna=red,ben=blue,cleo=green,dirk=yellow"};
  for (int i = 0; i < 3; i++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      sink s = {0};
      wch_sim sim;
      wch *w;
      play_sim(specs[i], seed * 7 + (uint64_t)i, 0, &s, &sim, &w);
      assert_int_equal(wch_get_stage(w), WCH_GAME_OVER);
      same_moves(s.log, sim.transcript);
      same_final(s.log, sim.transcript);
      assert_int_equal(wch_warnings(w), 0);
      assert_int_equal(s.n_flight_events, sim.n_flights);
      assert_int_equal(s.n_final, 1);
      char *table = wch_final_table(w, false);
      assert_non_null(strstr(table, "Winner"));
      ft_final f = score_of(sim.transcript);
      for (int p = 0; p < f.n_players; p++) /* "... with 13 points!" */
        if (f.winner[p]) {
          char points[64];
          snprintf(points, sizeof points, " with %d point", f.scores[p].total);
          assert_non_null(strstr(table, points));
        }
      free(table);
      char *json = wch_state_json(w);
      assert_non_null(strstr(json, "\"stage\":\"over\""));
      free(json);
      wch_destroy(w);
      wch_sim_free(&sim);
      free(s.log);
    }
}

static void test_mischief_warned(void **state) {
  (void)state;
  for (uint64_t seed = 11; seed <= 14; seed++) {
    sink s = {0};
    wch_sim sim;
    wch *w;
    play_sim("anna=red,ben=blue,cleo=green,dirk=yellow", seed, 0.25, &s, &sim,
             &w);
    assert_int_equal(wch_get_stage(w), WCH_GAME_OVER);
    same_final(s.log, sim.transcript);
    same_moves(s.log, sim.transcript);
    assert_true(sim.warnings_expected > 0);
    assert_int_equal(wch_warnings(w), sim.warnings_expected);
    wch_destroy(w);
    wch_sim_free(&sim);
    free(s.log);
  }
}

/* Every kind of warning, on hand-made frames. */
static wch_obs layout_obs(int n) {
  wch_obs o;
  memset(&o, 0, sizeof o);
  for (int k = 0; k < n; k++)
    o.cards[o.n_cards++] = (wch_card_obs){
        .type = k % FT_N_TYPES, .x_mm = 90 + (k % 4) * 100,
        .y_mm = 90 + (k / 4) * 130, .angle_deg = 90, .visible_fraction = 1};
  return o;
}

static void add_carpet(wch_obs *o, const char *colour, double x, double y,
                       int on) {
  wch_carpet_obs *c = &o->carpets[o->n_carpets++];
  memset(c, 0, sizeof *c);
  strcpy(c->colour, colour);
  c->x_mm = x, c->y_mm = y, c->angle_deg = 90;
  if (on >= 0) c->on_cards[c->n_on_cards++] = on;
}

/* The first flight of three_player_game's tests as its first still frame
 * sees it: blue on card 0, green on card 4, red at (red_x, red_y) on
 * `red_card` (the cards of layout_obs(12)). */
static wch_obs first_flight(double red_x, double red_y, int red_card) {
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", red_x, red_y, red_card);
  return o;
}

/* The layout's table after the cards in `taken` (ended by -1) left it. */
static wch_obs layout_except(const int *taken) {
  wch_obs full = layout_obs(12), rest = full;
  rest.n_cards = 0;
  for (int k = 0; k < 12; k++) {
    bool gone = false;
    for (const int *t = taken; *t >= 0; t++) gone = gone || *t == k;
    if (!gone) rest.cards[rest.n_cards++] = full.cards[k];
  }
  return rest;
}

static wch *three_player_game(sink *s) {
  wch *w = game_at_layout(s);
  tp_error err;
  wch_obs o = layout_obs(12);
  assert_int_equal(wch_observe(w, &o, &err), TP_OK);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  return w;
}

static void test_warnings(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  /* layer anna: order ben (blue), cleo (green), anna (red). cleo first: */
  wch_obs o = layout_obs(12);
  add_carpet(&o, "green", 90, 90, 0);
  wch_observe(w, &o, &err);
  assert_int_equal(count_kind(&s, "out_of_turn"), 1);
  /* blue lands and bumps card 5 by 50 mm */
  o.cards[5].x_mm += 50;
  add_carpet(&o, "blue", 190, 220, 4);
  wch_observe(w, &o, &err);
  assert_int_equal(count_kind(&s, "card_bumped"), 1);
  /* red off the table: the flight resolves */
  add_carpet(&o, "red", 900, 90, -1);
  wch_observe(w, &o, &err);
  assert_int_equal(count_kind(&s, "carpet_off_table"), 1);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_non_null(strstr(s.log, "flight blue=4 green=0 red=-"));
  /* taking away: cleo leaves card 0, card 7 is taken by mistake */
  wch_obs u = layout_except((const int[]){4, 7, -1});
  u.cards[4].x_mm += 50; /* card 5, still bumped */
  wch_observe(w, &u, &err);
  assert_int_equal(count_kind(&s, "claimed_card_left"), 1);
  assert_int_equal(count_kind(&s, "wrong_card_taken"), 1);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  /* an unknown colour */
  add_carpet(&u, "purple", 300, 300, -1);
  wch_observe(w, &u, &err);
  assert_int_equal(count_kind(&s, "unknown_carpet"), 1);
  wch_destroy(w);
  free(s.log);
}

static void observe(wch *w, const wch_obs *o) {
  tp_error err;
  assert_int_equal(wch_observe(w, o, &err), TP_OK);
}

/* The whole layout's first still frame and the two more the camera loop
 * looks at: a layout with a card only guessed waits for them. */
static void observe_layout_still(wch *w, const wch_obs *o) {
  for (int k = 0; k < 3; k++) observe(w, o);
}

/* A carpet lands before every layout card was seen: the layout is taken
 * with the cards seen so far, and a card first seen clear of the carpets
 * before the flight is resolved joins it (with the next id); the layout,
 * whole then, goes to the rules at once. */
static void test_layout_late_card(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(11); /* card 11 (bottom right) is not seen */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_null(strstr(s.log, "layout ")); /* not given to the rules yet */
  wch_obs all = layout_obs(12);
  add_carpet(&all, "blue", 90, 90, 0);
  add_carpet(&all, "green", 90, 220, 4);
  observe(w, &all);
  /* whole now: given to the rules at once (so that the flight's next
   * frames can be analysed against the layout reference), not when the
   * flight is resolved */
  assert_non_null(strstr(s.log, "11=desert@390.0,350.0"));
  assert_null(strstr(s.log, "flight "));
  add_carpet(&all, "red", 390, 350, 11);
  observe(w, &all);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_non_null(strstr(s.log, "11=desert@390.0,350.0"));
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=11"));
  assert_int_equal(count_kind(&s, "layout_unseen"), 0);
  wch_destroy(w);
  free(s.log);
}

/* A layout card no frame shows before the flight is resolved is counted
 * with the most likely type (warned), and takes its place when it is seen
 * later, with the type it is seen as; the flight goes on. */
static void test_layout_unseen_card(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(11);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 190, 220, 5);
  observe(w, &o);
  assert_int_equal(count_kind(&s, "layout_unseen"), 1);
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5"));
  char *layout = strstr(s.log, "layout ");
  assert_non_null(layout);
  char *line_end = strchr(layout, '\n');
  char *last = strstr(layout, " 11=");
  assert_true(last && last < line_end && !memchr(last, '@', (size_t)(line_end - last)));
  /* taken away; the next flight sees card 11 and lands on it */
  wch_obs rest = layout_except((const int[]){0, 4, 5, -1});
  observe(w, &rest);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  /* rest.cards: 1 2 3 6 7 8 9 10 11 */
  add_carpet(&rest, "blue", 390, 90, 2);
  observe(w, &rest);
  add_carpet(&rest, "green", 290, 220, 3);
  add_carpet(&rest, "red", 390, 350, 8);
  observe(w, &rest);
  assert_non_null(strstr(s.log, "flight blue=3 green=6 red=11"));
  /* counted as the most likely type (a palace), seen surely as the
   * desert: retyped, as a guessed layout type is, and the layout line
   * says where it lies */
  assert_non_null(strstr(s.log, " 11=desert@390.0,350.0\n"));
  assert_non_null(strstr(s.log, "# watch retyped card=11 palace->desert "));
  wch_destroy(w);
  free(s.log);
}

/* A layout card unseen at the layout, seen later as the type it was
 * counted as, gets its place in the layout line (hard game 3:696 round 2:
 * the flight on such a card could not be told from the game's). */
static void test_layout_unseen_placed(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(11);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 190, 220, 5);
  observe(w, &o);
  assert_non_null(strstr(s.log, " 11=palace\n"));
  wch_obs rest = layout_except((const int[]){0, 4, 5, -1});
  rest.cards[rest.n_cards - 1].type = 0; /* card 11: a palace, as counted */
  observe(w, &rest);
  add_carpet(&rest, "blue", 390, 90, 2);
  observe(w, &rest);
  assert_non_null(strstr(s.log, " 11=palace@390.0,350.0\n"));
  assert_non_null(strstr(s.log, "# watch placed card=11 "));
  assert_null(strstr(s.log, "retyped"));
  wch_destroy(w);
  free(s.log);
}

/* A card the eyes are not sure of counts as their guess when no frame is
 * sure of it; a sure type outvotes a guess. */
static void test_layout_guess(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  o.cards[9].type = -1; /* 9 = the treasure, "could also be a palace" */
  o.cards[9].has_guess = true;
  o.cards[9].guess = 0;
  o.cards[3].type = -1;
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT); /* 3 has no type */
  o.cards[3].type = 3;
  o.cards[9].type = 9;
  o.cards[9].has_guess = false;
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_non_null(strstr(s.log, "=treasure@190.0,350.0"));
  wch_destroy(w);
  free(s.log);
  /* seen only as a guess: the guess */
  sink t = {0};
  w = game_at_layout(&t);
  o = layout_obs(12);
  o.cards[9].type = -1;
  o.cards[9].has_guess = true;
  o.cards[9].guess = 9;
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT); /* a look or two more */
  observe(w, &o);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_non_null(strstr(t.log, "=treasure@190.0,350.0"));
  wch_destroy(w);
  free(t.log);
}

/* Card 9 of layout_obs(12) (the treasure) read "unsure, palace" with the
 * treasure second at `second` of the palace's match. */
static void unsure_palace(wch_obs *o, double second) {
  o->cards[9].type = -1;
  o->cards[9].has_guess = true;
  o->cards[9].guess = 0;
  o->cards[9].has_second = true;
  o->cards[9].second = 9;
  o->cards[9].second_score = second;
}

/* The whole layout with a card only guessed waits for the layout's next
 * still frames, two at most, which may be sure of it (hard game 3:892
 * round 1: a lamp in a glare read "unsure, adventure E, lamp second at
 * 0.99" in the first still frame, and the layout was taken so). */
static void test_layout_doubt_waits(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  unsure_palace(&o, 0.99);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  o.cards[9] = layout_obs(12).cards[9]; /* sure: the treasure */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_non_null(strstr(s.log, "=treasure@190.0,350.0"));
  wch_destroy(w);
  free(s.log);
}

/* A carpet new in a further still frame of the scene the layout waits in
 * (nothing moved since) is a phantom of that frame, not a landing: hard
 * game 2:911, a green sliver 0.11 in view in the second still frame took
 * the layout and counted as a throw out of turn. */
static void test_layout_doubt_phantom(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  unsure_palace(&o, 0.99);
  observe(w, &o);
  wch_obs again = o;
  again.same_scene = true;
  add_carpet(&again, "green", 190, 300, -1);
  observe(w, &again);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  again.n_carpets = 0;
  observe(w, &again);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(count_kind(&s, "out_of_turn"), 0);
  assert_null(strstr(s.log, "flight "));
  wch_destroy(w);
  free(s.log);
}

/* The same when the layout waited because a card was missing: hard game
 * 4:913 round 2, 11 cards in the first still frame, 12 and a yellow
 * sliver under a card in the second. The layout is taken, and the carpet
 * is no throw. */
static void test_layout_whole_phantom(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  o.cards[11] = o.cards[--o.n_cards]; /* 11 cards: not whole yet */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  wch_obs again = layout_obs(12);
  again.same_scene = true;
  add_carpet(&again, "green", 190, 300, -1);
  observe(w, &again);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(count_kind(&s, "out_of_turn"), 0);
  assert_int_equal(count_kind(&s, "carpet_unseen"), 0);
  assert_null(strstr(s.log, "flight "));
  wch_destroy(w);
  free(s.log);
}

/* A guess whose runner-up matched nearly as well is half a vote for
 * each: hard game 3:882 round 2, an adventure A read "unsure, adventure
 * D" three times with adventure A second at 0.98-0.99, and "sure,
 * adventure A" once, was counted as adventure D. A runner-up further
 * behind leaves the guess its whole vote. */
static void test_layout_lookalike_votes(void **state) {
  (void)state;
  for (int far = 0; far < 2; far++) {
    sink s = {0};
    wch *w = game_at_layout(&s);
    wch_obs o = layout_obs(12);
    unsure_palace(&o, far ? 0.90 : 0.98);
    o.cards[11] = o.cards[--o.n_cards]; /* 11 cards: not whole yet */
    for (int k = 0; k < 3; k++) observe(w, &o);
    assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
    o = layout_obs(12); /* whole, and sure of the treasure once */
    observe(w, &o);
    assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
    assert_non_null(strstr(s.log, far ? "=palace@190.0,350.0" : "=treasure@190.0,350.0"));
    wch_destroy(w);
    free(s.log);
  }
}

/* The layout line of the transcript (up to its end). */
static int layout_count(const char *log, const char *what) {
  const char *layout = strstr(log, "layout ");
  assert_non_null(layout);
  const char *end = strchr(layout, '\n');
  int n = 0;
  for (const char *p = strstr(layout, what); p && p < end; p = strstr(p + 1, what))
    n++;
  return n;
}

/* Lamp (card 10) seen sure in three layout frames, then, as the first
 * carpet lands, `type` (-1: unsure, its guess the lamp); card 11 is
 * never seen. Returns the controller after the first flight. */
static wch *lamp_seen_as(sink *s, int type) {
  wch *w = game_at_layout(s);
  wch_obs o = layout_obs(11);
  for (int k = 0; k < 3; k++) observe(w, &o);
  o.cards[10].type = type;
  o.cards[10].has_guess = type < 0;
  o.cards[10].guess = 10;
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 190, 220, 5);
  observe(w, &o);
  return w;
}

/* A card seen at a layout card's place is that card, whatever this frame
 * takes it for: hard game 3:696 counted an unsure lamp as a second lamp
 * at the first carpet, so the layout had two at one place and missed its
 * unseen twelfth card (the lamp's flight took it twice). */
static void test_layout_same_place(void **state) {
  (void)state;
  sink s = {0};
  wch *w = lamp_seen_as(&s, -1);
  assert_int_equal(layout_count(s.log, "=lamp@"), 1);
  assert_int_equal(count_kind(&s, "layout_unseen"), 1);
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5"));
  wch_destroy(w);
  free(s.log);
  /* a look-alike (the lamp read as a palace) is outvoted */
  sink t = {0};
  w = lamp_seen_as(&t, 0);
  assert_int_equal(layout_count(t.log, "=lamp@290.0,350.0"), 1);
  assert_int_equal(layout_count(t.log, "@290.0,350.0"), 1);
  assert_int_equal(count_kind(&t, "layout_unseen"), 1);
  wch_destroy(w);
  free(t.log);
}

/* A frame that reads a followed card as another type near its place
 * votes for that type but does not move it: hard game 4:697's desert,
 * sure in the layout's still frames, was read as a camel bazaar (unsure)
 * 23 mm off when the first carpet landed on it, and the layout was taken
 * with the desert there. A card read as its own type 25 mm off
 * was pushed: it moves. */
static void test_layout_place_agrees(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  /* card 3 is never seen; 11 (now [10]): the desert at (390, 350) */
  wch_obs o = layout_except((const int[]){3, -1});
  for (int k = 0; k < 3; k++) observe(w, &o);
  o.cards[10] = (wch_card_obs){.type = -1, .has_guess = true, .guess = 8,
                               .x_mm = 406.7, .y_mm = 333.2,
                               .angle_deg = 77.5, .visible_fraction = 1};
  o.cards[4].x_mm += 25; /* 5, the adventure-e, pushed */
  add_carpet(&o, "blue", 392, 354, 10);
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 3);
  add_carpet(&o, "red", 190, 350, 8);
  observe(w, &o);
  assert_int_equal(layout_count(s.log, "=desert@390.0,350.0"), 1);
  assert_int_equal(layout_count(s.log, "@406.7,333.2"), 0);
  assert_int_equal(layout_count(s.log, "=adventure-e@215.0,220.0"), 1);
  wch_destroy(w);
  free(s.log);
}

/* A layout with more cards of a type than the deck has cannot be: the
 * card whose votes for that type are fewest takes its next voted type
 * with a card left, else the most likely type, and the layout stands
 * (hard game 3:696 round 3: a lamp read "unsure, adventure E" in every
 * layout frame after round 2 laid out all three; the rules refused the
 * layout and it was followed again from the flight's frames). */
static void test_layout_type_used_up(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(11); /* 5: adventure E, sure; 11 comes last */
  for (int k = 0; k < 3; k++) { /* 0, 1, 2: unsure, adventure E */
    o.cards[k].type = -1;
    o.cards[k].has_guess = true;
    o.cards[k].guess = 5;
  }
  observe(w, &o);
  o.cards[1].type = 5; /* card 1 is read sure once */
  o.cards[0].guess = 1; /* card 0 is read adventure A once */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  o.cards[0].guess = 5;
  o.cards[o.n_cards++] = layout_obs(12).cards[11];
  observe_layout_still(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(count_kind(&s, "layout_rejected"), 0);
  assert_int_equal(count_kind(&s, "layout_type_used_up"), 1);
  assert_int_equal(layout_count(s.log, "=adventure-e@"), 3);
  assert_int_equal(layout_count(s.log, "=adventure-e@190.0,220.0"), 1);
  assert_int_equal(layout_count(s.log, "=adventure-e@190.0,90.0"), 1);
  assert_int_equal(layout_count(s.log, "=adventure-a@90.0,90.0"), 1);
  wch_destroy(w);
  free(s.log);
}

/* A card voted a type the game has used up is counted as the type its
 * frames would have read had that type been out of the question: each
 * reading of the used-up type votes for its runner-up, by how well that
 * matched (hard game 3:696 round 3: a faded lamp read "unsure, adventure
 * E" in the layout frames its track kept, adventure A second (0.930) in
 * one, lamp (0.940) in the other; the most likely type made it a palace,
 * and anna's final row was wrong). An unsure reading of another type
 * with a card left outweighs a runner-up. */
static void test_layout_type_used_up_second(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(11); /* 5: adventure E, sure; 11 comes last */
  o.cards[1].type = o.cards[3].type = FT_ADVENTURE_E; /* all three */
  wch_obs o2 = o;
  o.cards[2] = (wch_card_obs){.type = -1, .has_guess = true, .guess = FT_ADVENTURE_E,
                              .has_second = true, .second = FT_ADVENTURE_A,
                              .second_score = 0.930, .x_mm = 290, .y_mm = 90,
                              .angle_deg = 90, .visible_fraction = 1};
  observe(w, &o);
  o.cards[2].second = FT_LAMP, o.cards[2].second_score = 0.940;
  o.cards[o.n_cards++] = layout_obs(12).cards[11];
  observe_layout_still(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(count_kind(&s, "layout_type_used_up"), 1);
  assert_int_equal(layout_count(s.log, "=adventure-e@"), 3);
  assert_int_equal(layout_count(s.log, "=lamp@290.0,90.0"), 1);
  wch_destroy(w);
  free(s.log);
  /* the same with one more frame reading it an unsure adventure A */
  s = (sink){0};
  w = game_at_layout(&s);
  o2.cards[2] = o.cards[2];
  o2.cards[2].second = FT_ADVENTURE_A, o2.cards[2].second_score = 0.930;
  observe(w, &o2);
  o2.cards[2].guess = FT_ADVENTURE_A, o2.cards[2].has_second = false;
  observe(w, &o2);
  o2.cards[2] = o.cards[2];
  o2.cards[o2.n_cards++] = layout_obs(12).cards[11];
  add_carpet(&o2, "green", 390, 350, 11); /* landing: taken at once */
  observe(w, &o2);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(layout_count(s.log, "=adventure-a@290.0,90.0"), 1);
  wch_destroy(w);
  free(s.log);
}

/* A carpet that one frame shows and the frame where all have landed does
 * not was a phantom: the flight waits for the real one. */
static void test_phantom_carpet(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "green", 190, 90, 1); /* a card taken for a carpet */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_non_null(strstr(s.log, "layout "));
  o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "red", 190, 220, 5);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 190, 220, 5);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5"));
  wch_destroy(w);
  free(s.log);
}

/* A carpet the eyes never saw land: when the carpets seen are gone, the
 * flight is resolved from the last frame that showed them (warned), and
 * the next flight follows. */
static void test_carpet_unseen(void **state) {
  (void)state;
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "red", 190, 220, 5); /* green was thrown, never seen */
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  wch_obs bare = layout_except((const int[]){0, 5, -1});
  observe(w, &bare);
  assert_int_equal(count_kind(&s, "carpet_unseen"), 1);
  assert_non_null(strstr(s.log, "flight blue=0 green=- red=5"));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS); /* flight 2 */
  wch_destroy(w);
  free(s.log);
}

/* ... and when the first frame without the flight's carpets where they
 * lay still shows one of them elsewhere (a player carries it off), that
 * frame is the taking-away, not a throw: hard game 4:697 round 1 flight
 * 4 (red lost against the reference) was resolved from the frame where
 * blue lay 400 mm from its place, on no card, and nobody took anything. */
static void test_carpet_unseen_carried(void **state) {
  (void)state;
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "red", 190, 220, 5); /* green was thrown, never seen */
  observe(w, &o);
  wch_obs carried = layout_except((const int[]){0, 5, -1});
  add_carpet(&carried, "blue", 560, 400, -1);
  observe(w, &carried);
  assert_int_equal(count_kind(&s, "carpet_unseen"), 1);
  assert_non_null(strstr(s.log, "flight blue=0 green=- red=5"));
  wch_obs bare = layout_except((const int[]){0, 5, -1});
  observe(w, &bare);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS); /* flight 2 */
  assert_int_equal(count_kind(&s, "wrong_card_taken"), 0);
  wch_destroy(w);
  free(s.log);
}

/* The first "flight ..." line of the game's log, for the caller to free;
 * ends the game (the tests that replay one flight compare just this). */
static char *first_flight_line(wch *w, sink *s) {
  char *flight = strstr(s->log, "\nflight ");
  assert_non_null(flight);
  size_t n = strcspn(flight + 1, "\n");
  char *line = calloc(1, n + 1);
  memcpy(line, flight + 1, n);
  wch_destroy(w);
  free(s->log);
  return line;
}

/* The flight's line when green, seen to land on card 4, is not shown by
 * the frame in which red (on card 4 or 5, at red_x, red_y) lands last. */
static char *flight_green_unseen(double red_x, double red_y, int red_card) {
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 4);
  observe(w, &o);
  o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "red", red_x, red_y, red_card);
  observe(w, &o);
  return first_flight_line(w, &s);
}

/* A carpet seen to land that the last frame does not show, where a
 * carpet thrown after it lies almost on its place, is hidden under that
 * one and keeps the cards it was seen on (tuning game 4:603 round 2
 * flight 2: red 6 mm from yellow); with nothing over its place the frame
 * stands (the carpet lies on no card). */
static void test_hidden_under_later(void **state) {
  (void)state;
  char *line = flight_green_unseen(96, 224, 4);
  assert_string_equal(line, "flight blue=0 green=4 red=4");
  free(line);
  line = flight_green_unseen(190, 220, 5);
  assert_string_equal(line, "flight blue=0 green=- red=5");
  free(line);
}

/* The flight's line when blue, seen to land on card 0, is not shown by
 * the frame in which green lands at (green_x, green_y) on green_card, nor by
 * the one in which red lands last on card 6. */
static char *flight_blue_hidden_by_landing(double green_x, double green_y,
                                           int green_card) {
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  o = layout_obs(12);
  add_carpet(&o, "green", green_x, green_y, green_card);
  observe(w, &o);
  add_carpet(&o, "red", 290, 220, 6);
  observe(w, &o);
  return first_flight_line(w, &s);
}

/* A landed carpet that a frame does not show, with a carpet landing in
 * that very frame over most of its place, was hidden, not carried off:
 * the flight goes on and the hidden one keeps its cards (hard game 3:696
 * round 3 flight 2). With the new carpet clear of its place, the landed
 * one lies nowhere (carried off, or a phantom of one frame: hard game
 * 4:883 round 3), but the flight goes on too, since players do not take
 * the carpets and throw the next in one scene: green and red get their
 * cards (the flight was resolved at once, without them). */
static void test_hidden_by_landing(void **state) {
  (void)state;
  char *line = flight_blue_hidden_by_landing(95, 95, 0);
  assert_string_equal(line, "flight blue=0 green=0 red=6");
  free(line);
  line = flight_blue_hidden_by_landing(190, 220, 5);
  assert_string_equal(line, "flight blue=- green=5 red=6");
  free(line);
}

/* A phantom of the flight's last carpet in one frame, gone in the next,
 * where the first carpet lands: the flight goes on (hard game 4:883
 * round 3 flight 2: a green band in the frame after the taking, out of
 * turn; yellow landed next, and the flight was resolved with no carpet). */
static void test_phantom_then_landing(void **state) {
  (void)state;
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "red", 400, 60, -1);
  observe(w, &o);
  assert_int_equal(count_kind(&s, "out_of_turn"), 1);
  o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  assert_null(strstr(s.log, "flight "));
  add_carpet(&o, "green", 90, 220, 4);
  observe(w, &o);
  add_carpet(&o, "red", 290, 220, 6);
  observe(w, &o);
  char *line = first_flight_line(w, &s);
  assert_string_equal(line, "flight blue=0 green=4 red=6");
  free(line);
}

/* The flight's line when blue, seen to land on card 0, is seen once red
 * lands at (red_x, red_y) on card `red_card` only as a sliver 12 mm and
 * 40 degrees off, on no card, showing `shown` of itself (< 0: the eyes did
 * not say); green lies on card 4 all along. The two frames of the second
 * look are the last one again. */
static char *flight_blue_sliver(double red_x, double red_y, int red_card, double shown) {
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  o.carpets[0].has_visible = true, o.carpets[0].visible_fraction = 1;
  observe(w, &o);
  add_carpet(&o, "green", 90, 220, 4);
  observe(w, &o);
  o.carpets[0].x_mm += 12, o.carpets[0].angle_deg += 40;
  o.carpets[0].n_on_cards = 0;
  o.carpets[0].has_visible = shown >= 0, o.carpets[0].visible_fraction = shown;
  add_carpet(&o, "red", red_x, red_y, red_card);
  observe(w, &o);
  for (int k = 0; k < 2; k++)
    assert_int_equal(wch_confirm(w, &o, NULL, &err), TP_OK);
  return first_flight_line(w, &s);
}

/* A landed carpet seen only as a sliver away from its place, with a carpet
 * thrown after it over that place, is hidden there and keeps its cards
 * (rendered hard game 3:832 round 1 flight 3: blue under green and red,
 * 4-5 % of it fitted 38 degrees off, on no card). A carpet that shows
 * enough of itself, or whose eyes did not say how much, or with nothing
 * over its old place, lies where it is seen. */
static void test_sliver_under_later(void **state) {
  (void)state;
  const struct {
    double red_x, red_y, shown;
    int red_card;
    const char *line;
  } cases[] = {
      {92, 92, 0.05, 0, "flight blue=0 green=4 red=0"},
      {92, 92, 0.5, 0, "flight blue=- green=4 red=0"},
      {92, 92, -1, 0, "flight blue=- green=4 red=0"},
      {290, 220, 0.05, 6, "flight blue=- green=4 red=6"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *line = flight_blue_sliver(cases[k].red_x, cases[k].red_y, cases[k].red_card,
                                    cases[k].shown);
    assert_string_equal(line, cases[k].line);
    free(line);
  }
}

/* The flight's line when green, surely seen on cards 4 and 0 in the
 * frame it landed in, is seen on card 4 alone once red lands at (red_x,
 * red_y) on `red_card`; green lies `green_dx` mm further right then. The
 * two frames of the second look are the last one again. */
static char *flight_green_lost_card(double red_x, double red_y, int red_card,
                                    double green_dx) {
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 90, 175, 4);
  o.carpets[1].on_cards[o.carpets[1].n_on_cards++] = 0;
  observe(w, &o);
  o.carpets[1].n_on_cards = 1; /* card 0 no more */
  o.carpets[1].x_mm += green_dx;
  add_carpet(&o, "red", red_x, red_y, red_card);
  observe(w, &o);
  for (int k = 0; k < 2; k++)
    assert_int_equal(wch_confirm(w, &o, NULL, &err), TP_OK);
  assert_int_equal(wch_corrections(w), 0);
  return first_flight_line(w, &s);
}

/* A carpet surely seen on a card keeps it while it lies where it lay and
 * a carpet thrown later lies over that card (the later one covers where
 * they meet; tuning game 4:653 round 3 flight 3). Moved since, or with
 * no later carpet over the card, the last frame stands. */
static void test_sure_under_later(void **state) {
  (void)state;
  char *line = flight_green_lost_card(100, 100, 0, 0);
  assert_string_equal(line, "flight blue=0 green=4,0 red=0");
  free(line);
  line = flight_green_lost_card(100, 100, 0, 5);
  assert_string_equal(line, "flight blue=0 green=4 red=0");
  free(line);
  line = flight_green_lost_card(290, 220, 6, 0);
  assert_string_equal(line, "flight blue=0 green=4 red=6");
  free(line);
}

/* layout_obs(12) with card 5 (adventure E) seen only as a guess, and
 * with `adventure_a` cards of type adventure A (cards 1, then 6, 7). */
static wch_obs guessed_layout(int adventure_a) {
  wch_obs o = layout_obs(12);
  o.cards[5].type = -1;
  o.cards[5].has_guess = true;
  o.cards[5].guess = 5;
  for (int k = 6; k < 5 + adventure_a; k++) o.cards[k].type = 1;
  return o;
}

/* The game where card 5's type was a guess at the layout and the frame of
 * the first landing reads it surely as `seen`; the transcript goes to
 * *log (the caller frees it), and the type the game gives card 5. */
static int retyped_card_5(int adventure_a, int seen, char **log) {
  sink s = {0};
  ft_players pl;
  tp_error err;
  wch *w = started_game("anna=red,ben=blue,cleo=green", &pl, &s);
  assert_int_equal(wch_answer(w, "genies anna=8,3 ben=7,4 cleo=6,5", &err), TP_OK);
  wch_obs o = guessed_layout(adventure_a);
  observe_layout_still(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  o.cards[5].type = seen;
  o.cards[5].has_guess = false;
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  ft_card t[FT_MAX_CARDS];
  int n = ft_game_table(wch_game(w), t), type = -1;
  for (int k = 0; k < n; k++)
    if (t[k].id == 5) type = t[k].type;
  wch_destroy(w);
  *log = s.log;
  return type;
}

/* A layout card whose type was only guessed, read surely as another type
 * later, is retyped: the layout line is rewritten (with a comment that
 * says so) and the game rebuilt from it, and a resume reads it so too.
 * When the rules cannot take the new type (a fourth adventure A) the old
 * one stays. */
static void test_retype_guessed(void **state) {
  (void)state;
  char *log;
  assert_int_equal(retyped_card_5(1, 6, &log), 6);
  assert_non_null(strstr(log, " 5=spice-bazaar@"));
  assert_non_null(strstr(log, "# watch retyped card=5 adventure-e->spice-bazaar "));
  tp_error err;
  ft_players pl;
  wch *w = new_game("anna=red,ben=blue,cleo=green", &pl, NULL);
  assert_int_equal(wch_resume(w, "t", log, strlen(log), NULL, &err), TP_OK);
  ft_card t[FT_MAX_CARDS];
  assert_int_equal(ft_game_table(wch_game(w), t), 12);
  assert_int_equal(t[5].type, 6);
  wch_destroy(w);
  free(log);
  assert_int_equal(retyped_card_5(3, 1, &log), 5); /* refused */
  assert_non_null(strstr(log, " 5=adventure-e@"));
  assert_null(strstr(log, "retyped"));
  free(log);
  assert_int_equal(retyped_card_5(1, 5, &log), 5); /* the same type */
  free(log);
}

/* A replay's recorded reveals come in the true game's order, and its
 * card ids are not the watch's: the line for the contest asked is the
 * one by its players that names its card (hard game 3:696 round 1 flight
 * 3: ben and cleo contest the desert and the camel bazaar; the watch's
 * ids put them in the other order, and each got the other's genies). */
static void test_pick_reveal(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 140, 155, 0);
  o.carpets[0].on_cards[o.carpets[0].n_on_cards++] = 5;
  observe(w, &o);
  add_carpet(&o, "green", 140, 150, 0);
  o.carpets[1].on_cards[o.carpets[1].n_on_cards++] = 5;
  observe(w, &o);
  add_carpet(&o, "red", 390, 350, 11);
  observe(w, &o);
  wch_question q;
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.card, 0);
  const char *named[] = {"reveal ben=7 cleo=6 # card adventure-e@190.0,220.0",
                         "reveal ben=4 cleo=5 # card palace@90.0,90.0"};
  const char *by_type[] = {"reveal ben=7 cleo=6 # card adventure-e",
                           "reveal ben=4 cleo=5 # card palace"};
  const char *unnamed[] = {"reveal ben=7 cleo=6", "reveal ben=4 cleo=5"};
  const char *others[] = {"reveal anna=8 ben=4", "reveal ben=7 cleo=6"};
  assert_int_equal(wch_pick_reveal(w, named, 2), 1);
  assert_int_equal(wch_pick_reveal(w, by_type, 2), 1);
  assert_int_equal(wch_pick_reveal(w, unnamed, 2), 0);
  assert_int_equal(wch_pick_reveal(w, others, 2), 1);
  assert_int_equal(wch_pick_reveal(w, others, 1), -1);
  assert_int_equal(wch_reveals_given(w), 0);
  assert_int_equal(wch_answer(w, named[1], &err), TP_OK);
  assert_int_equal(wch_reveals_given(w), 1);
  assert_int_equal(wch_pick_given(w, 0, named, 2), 1);
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.card, 5);
  assert_int_equal(wch_pick_reveal(w, named, 2), 0);
  assert_int_equal(wch_pick_reveal(w, named, 1), 0);
  wch_destroy(w);
  free(s.log);
}

/* Cards the observer names by id (analysed against the layout reference)
 * are those cards wherever they lie; one moved far was bumped. */
static void test_cards_by_id(void **state) {
  (void)state;
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_table_card t[64];
  assert_int_equal(wch_table_cards(w, t, 64), 12);
  assert_int_equal(t[5].id, 5);
  assert_false(t[5].claimed || t[5].unseen);
  wch_obs o = layout_obs(12);
  for (int k = 0; k < 12; k++) o.cards[k].has_id = true, o.cards[k].id = k;
  /* card 2 and card 3 swapped places by place, named by id */
  double x2 = o.cards[2].x_mm;
  o.cards[2].x_mm = o.cards[3].x_mm;
  o.cards[3].x_mm = x2;
  o.cards[2].type = o.cards[3].type = -1; /* types do not matter by id */
  add_carpet(&o, "blue", 390, 90, 2);
  observe(w, &o);
  assert_int_equal(count_kind(&s, "card_bumped"), 2);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 290, 90, 3);
  observe(w, &o);
  assert_non_null(strstr(s.log, "flight blue=2 green=4 red=3"));
  assert_int_equal(wch_table_cards(w, t, 64), 12); /* 9 + 3 claimed */
  assert_true(t[9].claimed && t[10].claimed && t[11].claimed);
  wch_destroy(w);
  free(s.log);
}

/* Cards that appear together get their ids in the order they were laid
 * (laid_frame, from the motion between still frames; the rules settle a
 * flight's contests in it), in reading order where the frames do not
 * tell: here the bottom row went down first, right to left, then the
 * rest, of which cards 0 and 5 at once. */
static void test_layout_laid_order(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  for (int k = 0; k < 12; k++) {
    o.cards[k].has_laid = k != 1; /* card 1: not known */
    o.cards[k].laid_frame = k >= 8 ? 20 - k : k == 5 ? 30 : 30 + k;
  }
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  wch_table_card t[64];
  assert_int_equal(wch_table_cards(w, t, 64), 12);
  const int laid[12] = {11, 10, 9, 8, 0, 1, 5, 2, 3, 4, 6, 7};
  for (int id = 0; id < 12; id++) {
    assert_int_equal(t[id].id, id);
    assert_true(t[id].x_mm == o.cards[laid[id]].x_mm && t[id].y_mm == o.cards[laid[id]].y_mm);
  }
  wch_destroy(w);
  free(s.log);
}

/* Three players after their first flight, the taking asked to show a
 * card gone in `taking_looks` looks before it goes to a carpet (watch
 * sets 2; 0: the first look decides): blue on card 0, green on card 4,
 * red on card 5 with its edge 5 mm short of card 6. */
static wch *flight_to_take(sink *s, int taking_looks) {
  ft_players pl;
  wch *w = new_game_looking("anna=red,ben=blue,cleo=green", &pl, s,
                            taking_looks);
  tp_error err;
  assert_int_equal(wch_start(w, &err), TP_OK);
  assert_int_equal(wch_answer(w, "genies anna=8,3 ben=7,4 cleo=6,5", &err),
                   TP_OK);
  wch_obs o = layout_obs(12);
  observe(w, &o);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 226, 220, 5);
  observe(w, &o);
  assert_non_null(strstr(s->log, "flight blue=0 green=4 red=5\n"));
  return w;
}

/* A card nobody won that the players take away right after the flight,
 * at the edge of one of its carpets (a corner over the card's edge that
 * the eyes missed): the carpet lay on it, and the flight is resolved again
 * with it. A card taken far from every carpet stays a wrong_card_taken. */
static void test_taken_under_carpet(void **state) {
  (void)state;
  sink s = {0};
  wch *w = flight_to_take(&s, 0);
  wch_obs rest = layout_except((const int[]){0, 4, 5, 6, 11, -1});
  observe(w, &rest);
  assert_false(wch_taking_pending(w)); /* the first look decides */
  assert_int_equal(count_kind(&s, "card_taken_under_carpet"), 1);
  assert_int_equal(count_kind(&s, "wrong_card_taken"), 1); /* card 11 */
  assert_int_equal(count_kind(&s, "claimed_card_left"), 0);
  assert_null(strstr(s.log, "red=5\n"));
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5,6\n"));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  wch_table_card t[64];
  int n = wch_table_cards(w, t, 64), on_table = 0;
  for (int k = 0; k < n; k++) on_table += !t[k].claimed;
  assert_int_equal(on_table, 8); /* 12 - 4 won; 11 is still counted */
  /* the amended flight stands: the next flight goes on as usual */
  add_carpet(&rest, "blue", 390, 90, 2);
  add_carpet(&rest, "green", 290, 90, 1);
  add_carpet(&rest, "red", 390, 220, 3);
  observe(w, &rest);
  assert_non_null(strstr(s.log, "flight blue=3 green=2 red=7\n"));
  wch_destroy(w);
  free(s.log);
}

/* A look can miss a card that lies there (watch game 3:882 at 960x540):
 * with two looks asked, a taking that shows card 6 gone beside red waits
 * for the next look; shown there again, card 6 stays on the table and
 * the next flight begins; gone in both looks, it goes to red as with one
 * look. */
static void test_taken_under_carpet_twice(void **state) {
  (void)state;
  sink s = {0};
  wch *w = flight_to_take(&s, 2);
  wch_obs missed = layout_except((const int[]){0, 4, 5, 6, -1});
  observe(w, &missed);
  assert_true(wch_taking_pending(w));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_int_equal(count_kind(&s, "card_taken_under_carpet"), 0);
  wch_obs seen = layout_except((const int[]){0, 4, 5, -1});
  observe(w, &seen);
  assert_false(wch_taking_pending(w));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(count_kind(&s, "card_taken_under_carpet"), 0);
  assert_null(strstr(s.log, "red=5,6\n"));
  wch_destroy(w);
  free(s.log);

  sink t = {0};
  w = flight_to_take(&t, 2);
  observe(w, &missed);
  assert_true(wch_taking_pending(w));
  observe(w, &missed);
  assert_false(wch_taking_pending(w));
  assert_int_equal(count_kind(&t, "card_taken_under_carpet"), 1);
  assert_non_null(strstr(t.log, "flight blue=0 green=4 red=5,6\n"));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  wch_destroy(w);
  free(t.log);
}

/* Red lies on card 5 and, by the eyes, on card 6, but the players leave
 * card 6 on the table when they take the carpets. When the eyes were not
 * sure of red on card 6 (it barely reaches into it: the analysis marks
 * it uncertain), the players' leaving it is the better evidence and the
 * flight is resolved again without it; when they were sure, the claim
 * stands and the players are told to take the card. */
static void test_left_where_unsure(void **state) {
  (void)state;
  for (int unsure = 0; unsure < 2; unsure++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = layout_obs(12);
    add_carpet(&o, "blue", 90, 90, 0);
    add_carpet(&o, "green", 90, 220, 4);
    add_carpet(&o, "red", 240, 220, 5);
    wch_carpet_obs *red = &o.carpets[2];
    red->on_uncertain[red->n_on_cards] = unsure;
    red->on_cards[red->n_on_cards++] = 6;
    observe(w, &o);
    assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5,6\n"));
    wch_obs rest = layout_except((const int[]){0, 4, 5, -1});
    observe(w, &rest);
    assert_int_equal(count_kind(&s, "card_left_by_players"), unsure);
    assert_int_equal(count_kind(&s, "claimed_card_left"), !unsure);
    assert_true(!unsure == (strstr(s.log, "flight blue=0 green=4 red=5\n") == NULL));
    assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
    wch_table_card t[64];
    int n = wch_table_cards(w, t, 64), on_table = 0;
    for (int k = 0; k < n; k++) on_table += !t[k].claimed;
    assert_int_equal(on_table, unsure ? 9 : 8); /* card 6 back in play */
    wch_destroy(w);
    free(s.log);
  }
}

/* A round's last flight: blue on cards 0-2, green on 4-6, red on 8-10,
 * with red on card 9 `unsure`; 3 cards stay, so the round is over. The
 * lamps wait until the carpets are taken. */
static wch *last_flight_thrown(sink *s, bool unsure) {
  wch *w = three_player_game(s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 190, 90, 0);
  add_carpet(&o, "green", 190, 220, 4);
  add_carpet(&o, "red", 190, 350, 8);
  for (int c = 0; c < 2; c++)
    for (int k = 1; k < 3; k++)
      o.carpets[c].on_cards[o.carpets[c].n_on_cards++] = 4 * c + k;
  wch_carpet_obs *red = &o.carpets[2];
  red->on_uncertain[red->n_on_cards] = unsure;
  red->on_cards[red->n_on_cards++] = 9;
  red->on_cards[red->n_on_cards++] = 10;
  observe(w, &o);
  assert_non_null(strstr(s->log, "flight blue=0,1,2 green=4,5,6 red=8,9,10\n"));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_false(wch_question_pending(w, NULL)); /* no lamps yet */
  return w;
}

/* The players take the carpets of last_flight_thrown and leave card 9 (or
 * clear the whole table at once, `cleared`). */
static wch *last_flight_taken(sink *s, bool unsure, bool cleared) {
  wch *w = last_flight_thrown(s, unsure);
  wch_obs rest = layout_except((const int[]){0, 1, 2, 4, 5, 6, 8, 10, -1});
  if (cleared) memset(&rest, 0, sizeof rest);
  observe(w, &rest);
  return w;
}

/* What the players leave after a round's last flight decides an unsure
 * contact as after any flight: red did not lie on card 9, so 4 cards
 * stay and the round goes on. Sure of it, or a table cleared at once,
 * the flight stands and the lamps are asked. */
static void test_last_flight_taking(void **state) {
  (void)state;
  for (int run = 0; run < 3; run++) {
    bool unsure = run != 1, cleared = run == 2;
    sink s = {0};
    wch *w = last_flight_taken(&s, unsure, cleared);
    bool dropped = unsure && !cleared;
    assert_int_equal(count_kind(&s, "card_left_by_players"), dropped);
    assert_true(!dropped == (strstr(s.log, "red=8,10\n") == NULL));
    assert_int_equal(wch_get_stage(w), dropped ? WCH_WAIT_THROWS : WCH_WAIT_ANSWER);
    wch_question q;
    assert_int_equal(wch_question_pending(w, &q), !dropped);
    if (!dropped) assert_int_equal(q.kind, WCH_Q_LAMPS);
    wch_destroy(w);
    free(s.log);
  }
}

/* A recording that ends right after a round's last flight, its carpets
 * still down: no frame will show the taking, so the flight stands (red
 * keeps the unsure card 9) and the lamps are asked; answered, the next
 * round begins. After a flight that is not the round's last, the watch
 * still waits for the taking (a resumed recording shows it). */
static void test_source_ended(void **state) {
  (void)state;
  sink s = {0};
  wch *w = last_flight_thrown(&s, true);
  wch_source_ended(w);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_ANSWER);
  wch_question q;
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.kind, WCH_Q_LAMPS);
  assert_int_equal(count_kind(&s, "card_left_by_players"), 0);
  assert_non_null(strstr(s.log, "flight blue=0,1,2 green=4,5,6 red=8,9,10\n"));
  tp_error err;
  assert_int_equal(wch_answer(w, "lamps anna=0 ben=0 cleo=0", &err), TP_OK);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  wch_destroy(w);
  free(s.log);

  sink s2 = {0};
  w = three_player_game(&s2);
  wch_obs o = first_flight(90, 350, 8);
  observe(w, &o);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  wch_source_ended(w);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_false(wch_question_pending(w, NULL));
  wch_destroy(w);
  free(s2.log);
}

/* A carpet that slid under the layout and reaches into another card by a
 * sliver (DEV games 4:682 round 1 flight 1 and 2:661 round 3 flight 1: a
 * carpet under three cards seen surely on a fourth by 8 and 18 mm^2;
 * truth: on none): red lies over card 1's place, under card 1 (the eyes
 * saw the card on top; `below`) or on it, and the eyes say it lies on
 * card 2, which it does not reach at its reference place. Below, that is
 * as unsure as a doubted contact: the players leave card 2, so red did
 * not lie on it. On card 1, red's claim of card 2 stands (the players are
 * told to take it). */
static void test_sliver_under_layout(void **state) {
  (void)state;
  for (int below = 0; below < 2; below++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = first_flight(190, 90, below ? 2 : 1);
    wch_carpet_obs *red = &o.carpets[2];
    if (!below) red->on_cards[red->n_on_cards++] = 2;
    observe(w, &o);
    assert_non_null(strstr(s.log, below ? "red=2\n" : "red=1,2\n"));
    wch_obs rest = layout_except((const int[]){0, 4, below ? -1 : 1, -1});
    observe(w, &rest);
    assert_int_equal(count_kind(&s, "card_left_by_players"), below);
    assert_int_equal(count_kind(&s, "claimed_card_left"), !below);
    if (below) assert_non_null(strstr(s.log, "flight blue=0 green=4 red=-\n"));
    wch_destroy(w);
    free(s.log);
  }
}

/* Adds a carpet `colour` seen under the carpet at index `top` of o, `dx`
 * mm to the right of it and turned by `turn` degrees. */
static void add_under(wch_obs *o, const char *colour, int top, double dx,
                      double turn) {
  const wch_carpet_obs *t = &o->carpets[top];
  add_carpet(o, colour, t->x_mm + dx, t->y_mm + 4, -1);
  wch_carpet_obs *c = &o->carpets[o->n_carpets - 1];
  c->angle_deg = t->angle_deg + turn;
  c->under[c->n_under++] = top;
}

/* Red lands on card 5 in o with only o's first two carpets, and the
 * flight's line must be `flight` (the twin and outline tests' last frame;
 * ends the game). */
static void red_lands_last(wch *w, sink *s, wch_obs *o, const char *flight) {
  o->n_carpets = 2;
  add_carpet(o, "red", 190, 220, 5);
  observe(w, o);
  char *line = first_flight_line(w, s);
  assert_string_equal(line, flight);
  free(line);
}

/* A carpet the eyes see under a landed one at nearly its place and angle
 * is a twin of it, not a landing (DEV game 4:699 round 4 flight 2: a
 * "green", then a "yellow" under red, 6-8 mm from it; taken as yellow's
 * landing, the flight was resolved before yellow came and lost its card):
 * blue lands on card 0, a "green" twin under it; green lands on card 4
 * with a "red" twin under blue; then red lands on card 5. Further from
 * blue (30 mm) or turned (20 degrees), the carpet under blue slid under
 * it: it has landed, and the flight is resolved with it. */
static void test_twin_under_landed(void **state) {
  (void)state;
  const struct {
    double dx, turn;
    const char *flight;
  } cases[] = {
      {6, 0.2, "flight blue=0 green=4 red=5"},
      {30, 0.2, "flight blue=0 green=4 red=-"},
      {6, 20, "flight blue=0 green=4 red=-"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = layout_obs(12);
    add_carpet(&o, "blue", 90, 90, 0);
    add_under(&o, "green", 0, cases[i].dx, cases[i].turn);
    observe(w, &o);
    o.n_carpets = 1;
    add_carpet(&o, "green", 90, 220, 4);
    add_under(&o, "red", 0, cases[i].dx, cases[i].turn);
    observe(w, &o);
    bool twin = cases[i].dx < 15 && cases[i].turn < 5;
    assert_int_equal(wch_get_stage(w), twin ? WCH_WAIT_THROWS : WCH_WAIT_TAKING);
    red_lands_last(w, &s, &o, cases[i].flight);
  }
}

/* The carpet on top may land in the frame that shows its twin (hard game
 * 2:731 round 1 flight 3: in green's first still frame a "yellow" 6 mm and
 * 1 degree from it, under it, before yellow was thrown; taken as yellow's
 * landing, the flight was resolved with yellow on no card and yellow's
 * treasure was lost): blue lands on card 0; green lands on card 4 and a
 * "red" under it at nearly its pose; red lands on card 5 later. Further
 * from green or turned, the carpet under it is red's landing. */
static void test_twin_under_landing(void **state) {
  (void)state;
  const struct {
    double dx, turn;
    const char *flight;
  } cases[] = {
      {6, 1.1, "flight blue=0 green=4 red=5"},
      {30, 1.1, "flight blue=0 green=4 red=-"},
      {6, 20, "flight blue=0 green=4 red=-"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = layout_obs(12);
    add_carpet(&o, "blue", 90, 90, 0);
    observe(w, &o);
    add_carpet(&o, "green", 90, 220, 4);
    add_under(&o, "red", 1, cases[i].dx, cases[i].turn);
    observe(w, &o);
    bool twin = cases[i].dx < 15 && cases[i].turn < 5;
    assert_int_equal(wch_get_stage(w), twin ? WCH_WAIT_THROWS : WCH_WAIT_TAKING);
    red_lands_last(w, &s, &o, cases[i].flight);
  }
}

/* A carpet the eyes see under a landed carpet at a table card's place and
 * angle is that card's outline, not a landing (game 4:803 round 4 flight
 * 2: a "yellow" under green and red, 0.9 mm and 0.2 degrees from the
 * adventure E they lie on; taken as yellow's landing, the flight was
 * resolved before yellow came, and the palace yellow landed on stayed on
 * the table): blue lands on card 4, turned; green lands on card 1 and a
 * "red" is seen under blue at card 4's place; red lands on card 5 later.
 * 10 mm or 10 degrees from card 4's place, the carpet under blue slid
 * under it: red's landing. */
static void test_card_outline_under(void **state) {
  (void)state;
  const struct {
    double dx, turn;
    const char *flight;
  } cases[] = {
      {0, 0, "flight blue=4 green=1 red=5"},
      {10, 0, "flight blue=4 green=1 red=4"},
      {0, 10, "flight blue=4 green=1 red=4"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = layout_obs(12);
    add_carpet(&o, "blue", 90, 220, 4);
    o.carpets[0].angle_deg = 45; /* not red's twin */
    observe(w, &o);
    add_carpet(&o, "green", 190, 90, 1);
    add_carpet(&o, "red", 90 + cases[i].dx, 220, 4);
    o.carpets[2].angle_deg = 90 + cases[i].turn;
    o.carpets[2].under[o.carpets[2].n_under++] = 0;
    observe(w, &o);
    bool outline = cases[i].dx < 3 && cases[i].turn < 3;
    /* a landing: the flight is resolved (blue and red contest card 4) */
    assert_int_equal(wch_get_stage(w) == WCH_WAIT_THROWS, outline);
    red_lands_last(w, &s, &o, cases[i].flight);
  }
}

/* The carpet over a card's outline may land in the same frame (rendered
 * hard game 3:832 round 3 flight 3: a "green" under blue, in blue's first
 * still frame, at the carpet bazaar's place; taken as green's landing,
 * the flight was resolved before green came): blue lands on card 1; green
 * lands on card 4, turned, and a "red" is seen under it at card 4's place;
 * red lands on card 5 later. 10 mm from card 4's place the carpet under
 * green slid under it: red's landing. */
static void test_card_outline_under_landing(void **state) {
  (void)state;
  const struct {
    double dx;
    const char *flight;
  } cases[] = {
      {0, "flight blue=1 green=4 red=5"},
      {10, "flight blue=1 green=4 red=4"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sink s = {0};
    wch *w = three_player_game(&s);
    wch_obs o = layout_obs(12);
    add_carpet(&o, "blue", 190, 90, 1);
    observe(w, &o);
    add_carpet(&o, "green", 90, 220, 4);
    o.carpets[1].angle_deg = 45; /* not red's twin */
    add_carpet(&o, "red", 90 + cases[i].dx, 220, 4);
    o.carpets[2].under[o.carpets[2].n_under++] = 1;
    observe(w, &o);
    assert_int_equal(wch_get_stage(w) == WCH_WAIT_THROWS, cases[i].dx < 3);
    red_lands_last(w, &s, &o, cases[i].flight);
  }
}

/* A card that a carpet thrown later covers is not taken as surely lain on
 * from one frame: the second look can outvote that frame (game 2:801
 * round 4 flight 4: blue "on" the camel bazaar under yellow in the
 * announced frame only, where the card was seen 1.8 mm and 3 degrees off
 * its place; kept as surely blue's, it was asked as a contest). Blue lands
 * on card 0, green on card 1; the frame red lands in sees blue on card 1
 * too, the next two on card 0 alone. */
static void test_sure_not_under_later(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  observe(w, &o);
  add_carpet(&o, "green", 190, 90, 1);
  observe(w, &o);
  add_carpet(&o, "red", 90, 220, 4);
  wch_obs misread = o;
  misread.carpets[0].on_cards[misread.carpets[0].n_on_cards++] = 1;
  observe(w, &misread);
  assert_non_null(strstr(s.log, "flight blue=0,1 green=1 red=4\n"));
  for (int k = 0; k < 2; k++) assert_int_equal(wch_confirm(w, &o, NULL, &err), TP_OK);
  assert_int_equal(wch_corrections(w), 1);
  char *line = first_flight_line(w, &s);
  assert_string_equal(line, "flight blue=0 green=1 red=4");
  free(line);
}

/* Blue (thrown first) on card 0, red (thrown last) on card 1 and maybe on
 * card 0: the eyes cannot tell there, blue hides where red meets card 0.
 * unsure: whether red's overlap with card 0 is uncertain (barely: only
 * because red barely reaches into card 0, the place seen); red_low: blue
 * lies on red (red slid under it) rather than red on blue. */
static char *stacked_flight(bool unsure, bool barely, bool red_low) {
  sink s = {0};
  wch *w = three_player_game(&s);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 96, 94, 0); /* not at card 0's place: no outline of it */
  add_carpet(&o, "green", 90, 220, 4);
  add_carpet(&o, "red", 150, 90, 1);
  wch_carpet_obs *red = &o.carpets[2];
  red->on_cards[red->n_on_cards] = 0;
  red->on_barely[red->n_on_cards] = barely;
  red->on_uncertain[red->n_on_cards++] = unsure;
  if (red_low)
    red->under[red->n_under++] = 0;
  else
    o.carpets[0].under[o.carpets[0].n_under++] = 2;
  char *back = wch_obs_to_json(&o); /* the JSON keeps what the eyes said */
  tp_error err;
  assert_int_equal(wch_obs_parse_json(back, strlen(back), "o", &o, &err), TP_OK);
  free(back);
  observe(w, &o);
  return first_flight_line(w, &s);
}

/* A carpet that slid under one thrown before it is not on a card where
 * the eyes cannot tell (the earlier carpet hides the place); where they
 * can, or when it lies above the earlier one, the eyes stand. Where it
 * only barely reaches into the card (the place seen), the throw order
 * says nothing about how far: it stays on (DEV game 3:671 round 1 flight
 * 3). */
static void test_throw_order_under(void **state) {
  (void)state;
  const struct {
    bool unsure, barely, red_low;
    const char *flight;
  } cases[] = {
      {true, false, true, "flight blue=0 green=4 red=1"},
      {false, false, true, "flight blue=0 green=4 red=1,0"},
      {true, false, false, "flight blue=0 green=4 red=1,0"},
      {true, true, true, "flight blue=0 green=4 red=1,0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *line = stacked_flight(cases[i].unsure, cases[i].barely, cases[i].red_low);
    assert_string_equal(line, cases[i].flight);
    free(line);
  }
}

/* Announce at once, confirm after: the first still frame misses card 6
 * under red; the next two frames of the scene show it: the first of them
 * alone does not outvote the announcement (a tie), the second does, and
 * the flight is resolved again, said, written and evented as a
 * correction. A frame that does not show a carpet does not vote on it. */
static void test_confirm_corrects(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs first = first_flight(240, 220, 5);
  observe(w, &first);
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5\n"));
  assert_true(wch_confirm_pending(w));
  wch_obs right = first;
  right.carpets[2].on_cards[right.carpets[2].n_on_cards++] = 6;
  wch_obs no_red = right;
  no_red.n_carpets = 2;
  bool corrected = true;
  assert_int_equal(wch_confirm(w, &no_red, &corrected, &err), TP_OK);
  assert_false(corrected); /* red not seen: no vote on it */
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_false(corrected);
  assert_false(wch_confirm_pending(w)); /* two frames looked at */
  assert_int_equal(wch_corrections(w), 0);
  wch_destroy(w);
  free(s.log);

  memset(&s, 0, sizeof s);
  w = three_player_game(&s);
  observe(w, &first);
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_false(corrected); /* one against one: the announcement stands */
  assert_null(strstr(s.log, "red=5,6"));
  assert_true(wch_confirm_pending(w));
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_true(corrected);
  assert_false(wch_confirm_pending(w));
  assert_int_equal(wch_corrections(w), 1);
  assert_null(strstr(s.log, "red=5\n"));
  assert_non_null(strstr(s.log, "# watch corrected round=1 flight=1 frame="));
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5,6\n"));
  assert_string_equal(s.last_say, "Round 1, flight 1: anna takes adventure E "
                      "and the spice bazaar; ben takes the palace; cleo "
                      "takes adventure D.");
  char *st = wch_state_json(w);
  assert_non_null(strstr(st, "\"corrections\":1"));
  free(st);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  wch_table_card t[64];
  int n = wch_table_cards(w, t, 64), on_table = 0;
  for (int k = 0; k < n; k++) on_table += !t[k].claimed;
  assert_int_equal(on_table, 8); /* 0, 4, 5, 6 won */
  /* the taking-away and the next flight go on from the corrected one */
  wch_obs rest = layout_except((const int[]){0, 4, 5, 6, -1});
  observe(w, &rest);
  assert_int_equal(count_kind(&s, "wrong_card_taken"), 0);
  assert_int_equal(count_kind(&s, "claimed_card_left"), 0);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  wch_destroy(w);
  free(s.log);
}

/* Red on card 5 and, as each frame measures it, on card 6 or not: 's'
 * surely on it, 'o' surely not (beyond the pose error), 'b' barely
 * missing it (barely_off), 'B' barely reaching into it (barely_on) and
 * 'h' on it, unsure: another carpet hides where they meet (uncertain_on). */
static wch_obs red_by_card6(char how) {
  wch_obs o = first_flight(240, 220, 5);
  wch_carpet_obs *red = &o.carpets[2];
  if (how == 'b') red->barely_off[red->n_barely_off++] = 6;
  if (how == 's' || how == 'B' || how == 'h') {
    red->on_barely[red->n_on_cards] = how == 'B';
    red->on_uncertain[red->n_on_cards] = how == 'B' || how == 'h';
    red->on_cards[red->n_on_cards++] = 6;
  }
  return o;
}

/* The announced frame and the two of the second look as `frames` (of
 * red_by_card6): whether red ends on card 6 and the flight was corrected. */
static void second_look_red_card6(const char *frames, bool on, bool corrected) {
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs o = red_by_card6(frames[0]);
  observe(w, &o);
  for (int f = 1; f < 3; f++) {
    o = red_by_card6(frames[f]);
    assert_int_equal(wch_confirm(w, &o, NULL, &err), TP_OK);
  }
  /* a correction rewrites the flight line */
  assert_true((strstr(s.log, "flight blue=0 green=4 red=5,6\n") != NULL) == on);
  assert_true((strstr(s.log, "flight blue=0 green=4 red=5\n") != NULL) == !on);
  assert_int_equal(wch_corrections(w), corrected);
  wch_destroy(w);
  free(s.log);
}

/* The second look: where frames measured red's depth into card 6 within
 * the pose error (barely on or off) and others beyond it, the sure ones
 * decide, however many the doubting ones (DEV game 4:697 round 4 flight
 * 2: yellow 0.0 mm into the palace in the announced and the last frame,
 * 0.64 mm in the middle one; truth: on). When all doubt, or all are sure,
 * the majority decides as before. `frames`: the announced frame and the
 * two after it. */
static void test_confirm_barely(void **state) {
  (void)state;
  const struct {
    const char *frames;
    bool on, corrected;
  } cases[] = {
      {"bsb", true, true},   {"sbb", true, false}, {"obB", false, false},
      {"bbb", false, false}, {"BBb", true, false}, {"oss", true, true},
      {"bBB", true, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    second_look_red_card6(cases[i].frames, cases[i].on, cases[i].corrected);
}

/* The same where frames could not see the contact (another carpet hides
 * it, 'h'): they do not outvote frames that saw it (the demo game, round
 * 1 flight 3: blue seen under the adventure A when announced, "on,
 * unsure" in the next two, corrected onto it). All unsure: the majority. */
static void test_confirm_unsure(void **state) {
  (void)state;
  const struct {
    const char *frames;
    bool on, corrected;
  } cases[] = {
      {"ohh", false, false}, {"hoo", false, true}, {"hhh", true, false},
      {"shh", true, false},  {"ohs", false, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    second_look_red_card6(cases[i].frames, cases[i].on, cases[i].corrected);
}

/* A contest announced from a frame that saw red on blue's card too; the
 * two frames after see red only on its own card: the contest goes, and
 * so does its question. An answer ends the second look. */
static void test_confirm_contest(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs first = first_flight(150, 90, 1);
  wch_obs right = first;
  first.carpets[2].on_cards[first.carpets[2].n_on_cards++] = 0;
  observe(w, &first);
  wch_question q;
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.kind, WCH_Q_REVEAL);
  bool corrected;
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_true(corrected);
  assert_false(wch_question_pending(w, &q));
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=1\n"));
  assert_int_equal(s.n_flight_events, 1); /* only the corrected one */
  wch_destroy(w);
  free(s.log);

  memset(&s, 0, sizeof s);
  w = three_player_game(&s);
  observe(w, &first);
  assert_true(wch_confirm_pending(w));
  assert_int_equal(wch_answer(w, "reveal anna=8 ben=7", &err), TP_OK);
  assert_false(wch_confirm_pending(w)); /* people have taken over */
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_false(corrected);
  wch_destroy(w);
  free(s.log);
}

/* Resumed from a transcript that ends with a flight (stopped between the
 * announcement and its second look): the flight line is the announced
 * vote, and two frames after the resume correct it as without the stop. */
static void test_confirm_resumed(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs first = first_flight(240, 220, 5);
  observe(w, &first);
  char *cut = malloc(s.len + 1);
  memcpy(cut, s.log, s.len + 1);
  wch_destroy(w);
  free(s.log);

  memset(&s, 0, sizeof s);
  static ft_players pl;
  w = new_game("anna=red,ben=blue,cleo=green", &pl, &s);
  assert_int_equal(wch_resume(w, "t", cut, strlen(cut), NULL, &err), TP_OK);
  assert_true(wch_confirm_pending(w));
  wch_obs right = first;
  right.carpets[2].on_cards[right.carpets[2].n_on_cards++] = 6;
  bool corrected;
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_false(corrected);
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_true(corrected);
  assert_non_null(strstr(s.log, "flight blue=0 green=4 red=5,6\n"));
  assert_null(strstr(s.log, "red=5\n"));
  wch_destroy(w);
  free(s.log);
  free(cut);
}

/* Mutated and cut transcripts (flight lines above all, which the second
 * look after a resume reads): resumed or refused with a message, never a
 * crash; a resumed one can go on (a second look, a command). */
static void test_fuzz_resume(void **state) {
  (void)state;
  const char *spec = "anna=red,ben=blue,cleo=green";
  sink full = {0};
  wch_sim sim;
  wch *w;
  play_sim(spec, 6, 0, &full, &sim, &w);
  wch_destroy(w);
  ft_rng rng;
  ft_rng_seed(&rng, 7);
  char *buf = malloc(full.len + 1);
  const char *alphabet = "flight=,- 0123456789redbluegn#\n";
  int resumed = 0;
  for (int i = 0; i < 1500; i++) {
    memcpy(buf, full.log, full.len + 1);
    /* edits near a flight line, else anywhere */
    const char *f = strstr(buf + ft_rng_below(&rng, (int)full.len), "flight ");
    size_t at = f ? (size_t)(f - buf) : (size_t)ft_rng_below(&rng, (int)full.len);
    for (int e = 1 + ft_rng_below(&rng, 3); e > 0; e--) {
      size_t k = at + (size_t)ft_rng_below(&rng, 40);
      if (k < full.len)
        buf[k] = alphabet[ft_rng_below(&rng, (int)strlen(alphabet))];
    }
    size_t len = at + (size_t)ft_rng_below(&rng, 200);
    if (len > full.len) len = full.len;
    ft_players pl;
    w = new_game(spec, &pl, NULL);
    tp_error err;
    if (wch_resume(w, "m", buf, len, NULL, &err) == TP_OK) {
      resumed++;
      wch_confirm(w, &sim.frames[ft_rng_below(&rng, sim.n_frames)], NULL, &err);
      wch_command(w, "undo", &err);
    } else {
      assert_non_null(strstr(err.text, "m"));
    }
    wch_destroy(w);
  }
  assert_true(resumed > 100); /* the mutations are not all refused */
  free(buf);
  wch_sim_free(&sim);
  free(full.log);
}

/* Frames of a simulated game up to the first flight resolved; returns
 * the frame it was resolved on. */
static int drive_to_first_flight(wch *w, const wch_sim *sim, sink *s,
                                 char **cursor) {
  int run = 0;
  tp_error err;
  for (int f = 0; f < sim->n_frames; f++) {
    answer_all(w, cursor);
    run = sim->moving[f] ? 0 : run + 1;
    if (run != 2) continue;
    assert_int_equal(wch_observe(w, &sim->frames[f], &err), TP_OK);
    if (strstr(s->log, "\nflight ")) return f;
  }
  fail_msg("no flight in the simulated game");
  return -1;
}

/* Resumes from a transcript file as a kill left it and replays the frames
 * the killed run had seen (up to `last`): the moves must be those of the
 * run that was not killed (`want`). */
static void resume_killed(const char *spec, const char *file,
                          const wch_sim *sim, int last, const char *want) {
  sink r = {0};
  ft_players pl;
  wch *w = new_game(spec, &pl, &r);
  tp_error err;
  size_t good;
  assert_int_equal(wch_resume(w, "killed", file, strlen(file), &good, &err),
                   TP_OK);
  on_record(&r, file, true, &err);
  char none[] = "", *cursor = none; /* no answer given after the flight */
  drive(w, sim, (int)wch_resume_frame(w) + 1, last + 1, &cursor);
  same_moves(r.log, want);
  wch_destroy(w);
  free(r.log);
}

/* A kill -9 at any write of `undo` or `give`: the resumed game takes the
 * flight back (or gives the card) as the run that was not killed; it never
 * decides the flight again from the frames seen before the correction. */
static void test_killed_correcting(void **state) {
  (void)state;
  const char *spec = "anna=red,ben=blue,cleo=green";
  for (int c = 0; c < 2; c++) { /* undo, give CARD - */
    ft_players pl;
    sink s = {0};
    wch *w = started_game(spec, &pl, &s);
    wch_sim sim;
    wch_sim_config sc = {5, 3, 4, 0, 0, 0, 0};
    tp_error err;
    assert_int_equal(wch_simulate(&sc, NULL, &pl, 0, &sim, &err), TP_OK);
    char *cursor = sim.answers;
    int last = drive_to_first_flight(w, &sim, &s, &cursor);
    int card = -1;
    sscanf(strchr(strstr(s.log, "\nflight "), '=') + 1, "%d", &card);
    assert_true(card >= 0);
    char command[64] = "undo";
    if (c == 1) snprintf(command, sizeof command, "give %d -", card);
    s.keep_states = true;
    assert_int_equal(wch_command(w, command, &err), TP_OK);
    assert_true(s.n_states >= 1);
    if (c == 0) assert_null(strstr(s.log, "\nflight "));
    for (int i = 0; i < s.n_states; i++)
      resume_killed(spec, s.states[i], &sim, last, s.log);
    free_states(&s);
    wch_destroy(w);
    wch_sim_free(&sim);
    free(s.log);
  }
}

/* A kill at any write of a correction on the second look leaves the
 * announced flight or the corrected one, never a transcript without it. */
static void test_killed_confirming(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  wch_obs first = first_flight(240, 220, 5);
  observe(w, &first);
  wch_obs right = first;
  right.carpets[2].on_cards[right.carpets[2].n_on_cards++] = 6;
  s.keep_states = true;
  bool corrected;
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_int_equal(wch_confirm(w, &right, &corrected, &err), TP_OK);
  assert_true(corrected);
  assert_true(s.n_states >= 1);
  for (int i = 0; i < s.n_states; i++)
    assert_non_null(strstr(s.states[i], "\nflight blue=0 green=4 red=5"));
  free_states(&s);
  wch_destroy(w);
  free(s.log);
}

/* Two cards of one type in a claim are said once with their number. */
static void test_said_counts(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  wch_obs o = layout_obs(12);
  o.cards[1].type = FT_PALACE; /* cards 0 and 1: two palaces */
  observe(w, &o);
  add_carpet(&o, "blue", 140, 90, 0);
  o.carpets[0].on_cards[o.carpets[0].n_on_cards++] = 1;
  o.carpets[0].on_cards[o.carpets[0].n_on_cards++] = 2;
  observe(w, &o);
  add_carpet(&o, "green", 390, 90, 3);
  add_carpet(&o, "red", 90, 220, 4);
  observe(w, &o);
  assert_string_equal(s.last_say, "Round 1, flight 1: anna takes adventure D; "
                                  "ben takes two palaces and adventure B; "
                                  "cleo takes adventure C.");
  wch_destroy(w);
  free(s.log);
}

/* The genie deal is said as people say it, and a carpet on no card in
 * the words of analyze's summary. */
static void test_said_genies_and_returned(void **state) {
  (void)state;
  sink s = {0};
  wch *w = game_at_layout(&s);
  assert_non_null(strstr(s.said, "\nGenies dealt: anna 8 and 3, ben 7 and 4, cleo 6 and 5.\n"));
  wch_obs o = layout_obs(12);
  observe(w, &o);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 390, 90, 3);
  add_carpet(&o, "red", 560, 420, -1); /* on the table, on no card */
  observe(w, &o);
  assert_string_equal(s.last_say, "The red carpet lies on no card and goes back.");
  wch_destroy(w);
  free(s.log);
}

/* When the recorded answers no longer fit, the game goes on with an
 * assumed answer: each player in the contest reveals the highest genie,
 * or the recorded one where held, or held ones that keep the recorded
 * winner and lowest. */
static void test_assumed_answer(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  char line[256];
  wch *w = three_player_game(&s);
  assert_false(wch_assumed_answer(w, NULL, line, sizeof line)); /* none */
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 95, 95, 0);
  add_carpet(&o, "red", 390, 350, 11);
  observe(w, &o);
  wch_question q;
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.kind, WCH_Q_REVEAL);
  assert_true(wch_assumed_answer(w, NULL, line, sizeof line));
  assert_string_equal(line, "reveal ben=7 cleo=6");
  assert_false(wch_assumed_answer(w, NULL, line, 8)); /* too small */
  /* the recorded line's genies where they are held (ben holds 4, cleo
   * does not hold 8; anna is not in this contest) */
  assert_true(wch_assumed_answer(w, "reveal anna=8 ben=4 cleo=8", line,
                                 sizeof line));
  assert_string_equal(line, "reveal ben=4 cleo=6");
  /* neither is held (the swaps of contests asked in another order than
   * recorded moved them): held genies that keep the recorded winner and
   * lowest (the highest of each, ben 7 and cleo 6, made ben win) */
  assert_true(wch_assumed_answer(w, "reveal ben=3 cleo=8", line, sizeof line));
  assert_string_equal(line, "reveal ben=4 cleo=6");
  assert_int_equal(wch_answer(w, "reveal ben=7 cleo=6", &err), TP_OK);
  assert_non_null(strstr(s.log, "reveal 0 ben=7 cleo=6"));
  wch_destroy(w);
  free(s.log);
}

static void test_answer_errors(void **state) {
  (void)state;
  sink s = {0};
  ft_players pl;
  wch *w = started_game("anna=red,ben=blue,cleo=green", &pl, &s);
  tp_error err;
  const char *bad[] = {"reveal anna=8", "genies anna=8,3 ben=7,4",
                       "genies anna=8,3 ben=7,4 zoe=6,5",
                       "genies anna=8,3 ben=7,4 cleo=6,6",
                       "genies anna=8,3 anna=7,4 cleo=6,5", "genies anna=x",
                       "genies anna", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_not_equal(wch_answer(w, bad[i], &err), TP_OK);
    assert_true(strlen(err.text) > 5);
    assert_int_equal(wch_get_stage(w), WCH_WAIT_GENIES);
  }
  assert_int_equal(wch_answer(w, "anna=8,3 ben=7,4 cleo=6,5", &err), TP_OK);
  assert_int_equal(wch_get_stage(w), WCH_WAIT_LAYOUT);
  /* a contest: blue and red on card 0 */
  wch_obs o = layout_obs(12);
  wch_observe(w, &o, &err);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 190, 90, 1);
  add_carpet(&o, "red", 95, 95, 0);
  wch_observe(w, &o, &err);
  wch_question q;
  assert_true(wch_question_pending(w, &q));
  assert_int_equal(q.kind, WCH_Q_REVEAL);
  assert_int_equal(q.card, 0);
  assert_int_not_equal(wch_answer(w, "reveal anna=8", &err), TP_OK);
  assert_int_not_equal(wch_answer(w, "reveal anna=8 ben=3", &err), TP_OK);
  assert_non_null(strstr(err.text, "does not hold"));
  assert_int_not_equal(wch_answer(w, "reveal anna=8 ben=7 cleo=6", &err), TP_OK);
  assert_int_not_equal(wch_answer(w, "lamps anna=0", &err), TP_OK);
  assert_int_equal(wch_answer(w, "reveal anna=3 ben=7", &err), TP_OK);
  /* ben won with 7 and swapped with anna: ben now holds 3 and 4 */
  ft_hand h = ft_game_genies(wch_game(w), 1);
  assert_int_equal(h.n, 2);
  assert_true((h.values[0] == 3 && h.values[1] == 4) ||
              (h.values[0] == 4 && h.values[1] == 3));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_TAKING);
  assert_int_equal(s.n_flight_events, 1);
  wch_destroy(w);
  free(s.log);
}

static void test_corrections(void **state) {
  (void)state;
  sink s = {0};
  tp_error err;
  wch *w = three_player_game(&s);
  assert_int_not_equal(wch_command(w, "undo", &err), TP_OK);
  assert_int_not_equal(wch_command(w, "resolve", &err), TP_OK);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "blue", 90, 90, 0);
  add_carpet(&o, "green", 190, 90, 1);
  wch_observe(w, &o, &err);
  /* red flew off unseen: resolve by hand */
  assert_int_equal(wch_command(w, "resolve", &err), TP_OK);
  assert_non_null(strstr(s.log, "flight blue=0 green=1 red=-"));
  assert_int_equal(wch_command(w, "give 1 anna", &err), TP_OK);
  assert_null(strstr(s.log, "green=1"));
  assert_non_null(strstr(s.log, "flight blue=0 green=- red=1"));
  int counts[FT_N_TYPES];
  assert_int_equal(ft_game_collection(wch_game(w), 0, counts), 1);
  assert_int_equal(ft_game_collection(wch_game(w), 2, counts), 0);
  assert_int_not_equal(wch_command(w, "give 40 anna", &err), TP_OK);
  assert_int_not_equal(wch_command(w, "give 1 zoe", &err), TP_OK);
  assert_int_not_equal(wch_command(w, "dance", &err), TP_OK);
  assert_int_equal(wch_command(w, "undo", &err), TP_OK);
  assert_null(strstr(s.log, "flight "));
  assert_int_equal(wch_get_stage(w), WCH_WAIT_THROWS);
  assert_int_equal(ft_game_collection(wch_game(w), 0, counts), 0);
  wch_destroy(w);
  free(s.log);
}

/* Cut the transcript anywhere, resume, play on: the same end. */
static void test_resume(void **state) {
  (void)state;
  const char *spec = "anna=red,ben=blue,cleo=green";
  sink full = {0};
  wch_sim sim;
  wch *w;
  play_sim(spec, 5, 0, &full, &sim, &w);
  wch_destroy(w);
  for (int cut = 1; cut < 8; cut++) {
    size_t at = full.len * (size_t)cut / 8;
    sink s = {0};
    ft_players pl;
    w = new_game(spec, &pl, &s);
    tp_error err;
    size_t good;
    assert_int_equal(wch_resume(w, "cut", full.log, at, &good, &err), TP_OK);
    assert_true(good <= at);
    on_record(&s, full.log, true, &err);
    s.len = good;
    s.log[good] = '\0';
    int64_t frame = wch_resume_frame(w);
    char *cursor = sim.answers;
    for (int k = 0; k < wch_answers_used(w); k++) cursor = strchr(cursor, '\n') + 1;
    drive(w, &sim, (int)(frame + 1), sim.n_frames, &cursor);
    assert_int_equal(wch_get_stage(w), WCH_GAME_OVER);
    same_moves(s.log, sim.transcript);
    same_final(s.log, full.log);
    wch_destroy(w);
    free(s.log);
  }
  /* a transcript of other players is refused */
  ft_players pl;
  w = new_game("anna=red,ben=blue,zoe=green", &pl, NULL);
  tp_error err;
  assert_int_not_equal(wch_resume(w, "x", full.log, full.len, NULL, &err), TP_OK);
  wch_destroy(w);
  wch_sim_free(&sim);
  free(full.log);
}

/* Random and mutated observation JSON and answers: clean errors only. */
static void test_fuzz(void **state) {
  (void)state;
  ft_rng rng;
  ft_rng_seed(&rng, 99);
  wch_obs o = layout_obs(12);
  add_carpet(&o, "red", 90, 90, 0);
  add_carpet(&o, "blue", 150, 90, 1); /* under red, maybe on card 0 */
  o.carpets[1].on_cards[1] = 0;
  o.carpets[1].on_uncertain[1] = true;
  o.carpets[1].on_barely[1] = true;
  o.carpets[1].n_on_cards = 2;
  o.carpets[1].under[o.carpets[1].n_under++] = 0;
  o.carpets[0].barely_off[o.carpets[0].n_barely_off++] = 1; /* red misses card 1 */
  o.carpets[1].has_visible = true, o.carpets[1].visible_fraction = 0.25;
  o.cards[3].has_laid = true, o.cards[3].laid_frame = 123456789012;
  o.cards[3].laid_shown = 123456789015;
  char *good = wch_obs_to_json(&o);
  size_t n = strlen(good);
  char *buf = malloc(n + 1);
  tp_error err;
  wch_obs back;
  assert_int_equal(wch_obs_parse_json(good, n, "g", &back, &err), TP_OK);
  assert_int_equal(back.n_cards, 12);
  assert_int_equal(back.carpets[0].on_cards[0], 0);
  assert_true(back.carpets[1].on_uncertain[1] && !back.carpets[1].on_uncertain[0]);
  assert_true(back.carpets[1].on_barely[1] && !back.carpets[1].on_barely[0]);
  assert_int_equal(back.carpets[1].n_under, 1);
  assert_int_equal(back.carpets[1].under[0], 0);
  assert_int_equal(back.carpets[0].n_barely_off, 1);
  assert_int_equal(back.carpets[0].barely_off[0], 1);
  assert_int_equal(back.carpets[1].n_barely_off, 0);
  assert_false(back.carpets[0].has_visible); /* not said: not made up */
  assert_true(back.carpets[1].has_visible);
  assert_true(back.carpets[1].visible_fraction == 0.25);
  assert_true(back.cards[3].has_laid && back.cards[3].laid_frame == 123456789012);
  assert_true(back.cards[3].laid_shown == 123456789015);
  assert_false(back.cards[2].has_laid);
  const char *bad_stacking[] = {
      "{\"cards\":[{\"center_mm\":[1,2]}],\"carpets\":[{\"colour\":\"red\","
      "\"center_mm\":[1,2],\"on_cards\":[],\"barely_off\":[1]}]}",
      "{\"cards\":[{\"center_mm\":[1,2]}],\"carpets\":[{\"colour\":\"red\","
      "\"center_mm\":[1,2],\"on_cards\":[],\"barely_off\":[\"0\"]}]}",
      "{\"cards\":[{\"center_mm\":[1,2]}],\"carpets\":[{\"colour\":\"red\","
      "\"center_mm\":[1,2],\"on_cards\":[0],\"uncertain_on\":[1]}]}",
      "{\"cards\":[{\"center_mm\":[1,2]}],\"carpets\":[{\"colour\":\"red\","
      "\"center_mm\":[1,2],\"on_cards\":[0],\"barely_on\":[1]}]}",
      "{\"cards\":[],\"carpets\":[{\"colour\":\"red\",\"center_mm\":[1,2],"
      "\"under\":[1]}]}",
      "{\"cards\":[],\"carpets\":[{\"colour\":\"red\",\"center_mm\":[1,2],"
      "\"under\":[\"0\"]}]}"};
  for (size_t i = 0; i < sizeof bad_stacking / sizeof bad_stacking[0]; i++) {
    assert_int_equal(wch_obs_parse_json(bad_stacking[i], strlen(bad_stacking[i]),
                                        "b", &back, &err), TP_ERR_FORMAT);
    assert_non_null(strstr(err.text, "b: "));
  }
  sink s = {0};
  wch *w = three_player_game(&s);
  for (int i = 0; i < 3000; i++) {
    memcpy(buf, good, n + 1);
    int edits = 1 + ft_rng_below(&rng, 4);
    for (int e = 0; e < edits; e++)
      buf[ft_rng_below(&rng, (int)n)] = (char)ft_rng_below(&rng, 128);
    size_t len = (size_t)ft_rng_below(&rng, (int)n + 1);
    if (wch_obs_parse_json(buf, len, "m", &back, &err) == TP_OK) {
      wch_observe(w, &back, &err);
      wch_confirm(w, &back, NULL, &err); /* a second look at anything */
    } else
      assert_non_null(strstr(err.text, "m:"));
    buf[ft_rng_below(&rng, (int)n)] = '\0';
    if (wch_question_pending(w, NULL)) wch_answer(w, buf + ft_rng_below(&rng, 8), &err);
    wch_command(w, buf, &err);
  }
  wch_destroy(w);
  free(s.log);
  free(buf);
  free(good);
}

static void test_motion(void **state) {
  (void)state;
  wch_motion *m;
  tp_error err;
  assert_int_equal(wch_motion_create(NULL, &m, &err), TP_OK);
  tp_image img;
  tp_image_alloc(&img, 320, 240, 1);
  ft_rng rng;
  ft_rng_seed(&rng, 3);
  wch_motion_result r;
  int settled = 0, still = 0;
  for (int f = 0; f < 40; f++) {
    double gain = f < 20 ? 1.0 : 1.4; /* a lamp at frame 20 */
    for (int y = 0; y < 240; y++)
      for (int x = 0; x < 320; x++) {
        int v = (int)((60 + (x / 40) * 10 + ft_rng_below(&rng, 5) - 2) * gain);
        /* a hand passes at frames 8..11 */
        if (f >= 8 && f < 12 && x > 40 * (f - 8) && x < 40 * (f - 8) + 80 && y > 80)
          v = 200;
        tp_image_row(&img, y)[x] = (uint8_t)(v > 255 ? 255 : v);
      }
    assert_int_equal(wch_motion_feed(m, &img, &r, &err), TP_OK);
    settled += r.settled;
    still += r.still;
    if (f >= 8 && f < 13) assert_false(r.still);
  }
  /* still at 3, after the hand at 15; the lamp does not count as motion */
  assert_int_equal(settled, 2);
  assert_true(still > 25);
  tp_image_free(&img);
  wch_motion_destroy(m);
}

/* The laying test's places (x0, y0, x1, y1 in a 320x240 frame). */
static const int place_a[4] = {200, 40, 260, 120}, place_b[4] = {40, 40, 100, 120},
                 place_c[4] = {120, 150, 170, 220}, place_d[4] = {200, 150, 250, 220};

static bool in_place(const int p[4], int x, int y) {
  return x >= p[0] && x < p[2] && y >= p[1] && y < p[3];
}

static int table_at(int x, int y) { return 60 + (x / 16 % 4) * 20 + (y / 16 % 3) * 15; }

/* What frame f of the laying test shows at (x, y): a textured table, the
 * cards laid so far (each its own face), and a hand or an arm (150). */
static int laying_pixel(int f, bool slow, int x, int y) {
  int a_at = slow ? 300 : 5, b_at = slow ? 700 : 6, end = slow ? 996 : 11;
  int hx = -1, hy = 0; /* a hand at (hx, hy), its arm down to the bottom */
  if (f == a_at) hx = 230, hy = 80;          /* lays A: its lower half hidden */
  else if (f == b_at) hx = 70, hy = 80;      /* lays B */
  else if (f == b_at + 1) hx = 230, hy = 30; /* crosses A */
  else if (slow && f > 2 && f < end) hx = 40 + f % 200, hy = 170; /* about */
  else if (!slow && (f == 8 || f == 10)) hx = 140 + f, hy = 0;    /* aside */
  if (hx >= 0 && abs(x - hx) < 30 && y >= hy && (y < hy + 40 || abs(x - hx) < 12)) return 150;
  if (!slow && f == 3 && x >= 110 && x < 260 && y >= 140 && y < 230) return 150; /* over C, D */
  if (!slow && f == 4 && in_place(place_d, x, y)) return 150; /* still over D */
  if (!slow && f == 9 && in_place(place_a, x, y)) return table_at(x, y); /* a sleeve */
  if (f >= a_at && in_place(place_a, x, y)) return 230 - (x - 200);
  if (f >= b_at && in_place(place_b, x, y)) return 230 - (y - 40);
  if (!slow && f >= 4 && in_place(place_c, x, y)) return 40 + (x - 120) * 3;
  if (!slow && f >= 5 && in_place(place_d, x, y)) return 220 - (y - 150) * 2;
  return table_at(x, y);
}

static int64_t came_at(wch_motion *m, const int p[4], int64_t *shown) {
  const double q[4][2] = {{p[0], p[1]}, {p[2], p[1]}, {p[2], p[3]}, {p[0], p[3]}};
  wch_motion_arrival a;
  bool known = wch_motion_came(m, q, &a);
  if (shown) *shown = a.shown;
  return known ? a.covered : -1;
}

/* When places came to look as they do now, over the motion since the
 * last still scene (frames counted from 1: frame f is f + 1). A goes down
 * under the hand (its lower half hidden), then B, while the arm crosses
 * A, and later a sleeve that looks like the table lies on A for a frame:
 * each came when its place stopped showing the table. C and D stopped
 * showing it in the same frame (an arm over both); C showed whole first.
 * A lamp switched on half way (10 % brighter) changes nothing. With a long
 * motion (the history halved twice) the order stays. */
static void test_motion_laid(void **state) {
  (void)state;
  tp_error err;
  tp_image img;
  tp_image_alloc(&img, 320, 240, 1);
  wch_motion_result r;
  const int never[4] = {280, 20, 310, 100};
  for (int slow = 0; slow < 2; slow++) {
    wch_motion *m;
    assert_int_equal(wch_motion_create(NULL, &m, &err), TP_OK);
    for (int f = 0; f < (slow ? 1000 : 15); f++) {
      /* a lamp switched on in the middle of the motion */
      double light = f >= (slow ? 500 : 8) ? 1.1 : 1.0;
      for (int y = 0; y < 240; y++)
        for (int x = 0; x < 320; x++) {
          double v = laying_pixel(f, slow, x, y) * light;
          tp_image_row(&img, y)[x] = (uint8_t)(v < 255 ? v : 255);
        }
      assert_int_equal(wch_motion_feed(m, &img, &r, &err), TP_OK);
    }
    assert_true(r.still);
    int64_t a = came_at(m, place_a, NULL), b = came_at(m, place_b, NULL);
    if (!slow) {
      int64_t c_shown, d_shown;
      assert_int_equal(a, 6);
      assert_int_equal(b, 7);
      assert_int_equal(came_at(m, place_c, &c_shown), 4);
      assert_int_equal(came_at(m, place_d, &d_shown), 4);
      assert_int_equal(c_shown, 5);
      assert_int_equal(d_shown, 7); /* the arm laying A crosses it in frame 5 */
    } else { /* kept one frame in four */
      assert_true(a > 300 - 4 && a <= 300 + 5);
      assert_true(b > 700 - 4 && b <= 700 + 5);
    }
    assert_int_equal(came_at(m, never, NULL), -1); /* never changed */
    /* a place mapped far off the frame, or to no number */
    wch_motion_arrival far;
    const double off[4][2] = {{1e300, 1e300}, {2e300, 1e300}, {2e300, 2e300}, {1e300, 2e300}},
                 none[4][2] = {{NAN, 0}, {NAN, 0}, {0, NAN}, {0, NAN}};
    assert_false(wch_motion_came(m, off, &far));
    assert_false(wch_motion_came(m, none, &far));
    wch_motion_destroy(m);
  }
  tp_image_free(&img);
}

/* When a flight frame analysed against the last decided frame is
 * analysed again against the layout alone: nothing new was found (a
 * carpet hidden on a decided one), or a decided carpet vanished (one
 * thrown almost onto it: tuning game 2:621, where the controller then
 * resolved the flight without the rest). */
static void test_increment_doubtful(void **state) {
  (void)state;
  const char *blue[] = {"blue"}, *red[] = {"red"},
             *blue_red[] = {"blue", "red"}, *red_blue[] = {"red", "blue"},
             *blue_green_red[] = {"blue", "green", "red"};
  /* a new carpet beside the decided ones: trusted */
  assert_false(wch_increment_doubtful(blue, 1, blue_red, 2));
  assert_false(wch_increment_doubtful(blue_red, 2, blue_green_red, 3));
  assert_false(wch_increment_doubtful(NULL, 0, red, 1));
  /* nothing new */
  assert_true(wch_increment_doubtful(blue_red, 2, red_blue, 2));
  assert_true(wch_increment_doubtful(blue, 1, NULL, 0));
  assert_true(wch_increment_doubtful(NULL, 0, NULL, 0));
  /* the new red found, the decided blue lost */
  assert_true(wch_increment_doubtful(blue, 1, red, 1));
  assert_true(wch_increment_doubtful(blue_red, 2, (const char *[]){"red",
                                                   "green"}, 2));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clean_games),   cmocka_unit_test(test_mischief_warned),
      cmocka_unit_test(test_warnings),      cmocka_unit_test(test_answer_errors),
      cmocka_unit_test(test_corrections),   cmocka_unit_test(test_resume),
      cmocka_unit_test(test_fuzz),          cmocka_unit_test(test_motion),
      cmocka_unit_test(test_motion_laid),
      cmocka_unit_test(test_layout_late_card),
      cmocka_unit_test(test_layout_doubt_waits),
      cmocka_unit_test(test_layout_lookalike_votes),
      cmocka_unit_test(test_layout_doubt_phantom),
      cmocka_unit_test(test_layout_whole_phantom),
      cmocka_unit_test(test_layout_unseen_card),
      cmocka_unit_test(test_layout_unseen_placed),
      cmocka_unit_test(test_phantom_carpet),
      cmocka_unit_test(test_layout_guess),
      cmocka_unit_test(test_layout_same_place),
      cmocka_unit_test(test_layout_place_agrees),
      cmocka_unit_test(test_layout_type_used_up),
      cmocka_unit_test(test_layout_type_used_up_second),
      cmocka_unit_test(test_carpet_unseen),
      cmocka_unit_test(test_carpet_unseen_carried),
      cmocka_unit_test(test_hidden_under_later),
      cmocka_unit_test(test_hidden_by_landing),
      cmocka_unit_test(test_phantom_then_landing),
      cmocka_unit_test(test_retype_guessed),
      cmocka_unit_test(test_pick_reveal),
      cmocka_unit_test(test_sure_under_later),
      cmocka_unit_test(test_sliver_under_later),
      cmocka_unit_test(test_cards_by_id),
      cmocka_unit_test(test_layout_laid_order),
      cmocka_unit_test(test_taken_under_carpet),
      cmocka_unit_test(test_taken_under_carpet_twice),
      cmocka_unit_test(test_left_where_unsure),
      cmocka_unit_test(test_last_flight_taking),
      cmocka_unit_test(test_source_ended),
      cmocka_unit_test(test_sliver_under_layout),
      cmocka_unit_test(test_assumed_answer),
      cmocka_unit_test(test_throw_order_under),
      cmocka_unit_test(test_twin_under_landed),
      cmocka_unit_test(test_twin_under_landing),
      cmocka_unit_test(test_card_outline_under),
      cmocka_unit_test(test_card_outline_under_landing),
      cmocka_unit_test(test_sure_not_under_later),
      cmocka_unit_test(test_said_counts),
      cmocka_unit_test(test_said_genies_and_returned),
      cmocka_unit_test(test_confirm_corrects),
      cmocka_unit_test(test_confirm_barely),
      cmocka_unit_test(test_confirm_unsure),
      cmocka_unit_test(test_confirm_contest),
      cmocka_unit_test(test_confirm_resumed),
      cmocka_unit_test(test_fuzz_resume),
      cmocka_unit_test(test_killed_correcting),
      cmocka_unit_test(test_killed_confirming),
      cmocka_unit_test(test_increment_doubtful),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
