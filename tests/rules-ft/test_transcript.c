/* Tests of the transcript reader and writers: the format, every error
 * with its line, cut-off files, and thousands of mutated transcripts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "random_game.h"

static const char *const head =
    "teppich-transcript 1\n"
    "# comment line\n"
    "players anna=red,ben=blue,cleo=green   # seating order\n"
    "first-layer ben\n"
    "genies anna=7,4 ben=8,3 cleo=6,5\n"
    "\n"
    "round 1 layer=ben\n"
    "layout 1=palace 2=palace@10.5,-3 3=desert 4=lamp 5=treasure "
    "6=spice-bazaar 7=spice-bazaar 8=camel-bazaar 9=adventure-a "
    "10=adventure-b 11=adventure-c 12=carpet-bazaar\n";

/* Replays text to its end; returns the status of the first error. */
static tp_status replay(const char *text, unsigned flags, ft_transcript **out,
                        tp_error *err) {
  ft_transcript *t;
  tp_status st =
      ft_transcript_open(NULL, "game.txt", text, strlen(text), flags, &t, err);
  assert_int_equal(st, TP_OK);
  ft_event ev;
  do
    st = ft_transcript_next(t, &ev, err);
  while (st == TP_OK && ev.kind != FT_EV_END);
  if (out)
    *out = t;
  else
    ft_transcript_close(t);
  return st;
}

static void test_reads_events(void **state) {
  (void)state;
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head,
           "flight green=1,2 red=2,3 blue=-\n"
           "reveal 2 anna=7 cleo=5\n");
  ft_transcript *t;
  assert_int_equal(
      ft_transcript_open(NULL, "g", text, strlen(text), 0, &t, NULL), TP_OK);
  assert_null(ft_transcript_game(t));
  ft_event ev;
  ft_event_kind want[] = {FT_EV_PLAYERS, FT_EV_GENIES, FT_EV_ROUND,
                          FT_EV_LAYOUT,  FT_EV_FLIGHT, FT_EV_CONTEST,
                          FT_EV_END,     FT_EV_END};
  int lines[] = {3, 5, 7, 8, 9, 10, 0, 0};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    assert_int_equal(ft_transcript_next(t, &ev, NULL), TP_OK);
    assert_int_equal(ev.kind, want[i]);
    assert_int_equal(ev.line, lines[i]);
    if (ev.kind == FT_EV_FLIGHT) {
      assert_int_equal(ev.flight.n_claimed[2], 1); /* cleo takes 1 */
      assert_int_equal(ev.flight.n_claimed[0], 1); /* anna takes 3 */
      assert_int_equal(ev.flight.contests[0].card, 2);
      assert_string_equal(ev.flight.returned[0], "blue");
    }
    if (ev.kind == FT_EV_CONTEST) {
      assert_int_equal(ev.contest.winner, 0);
      assert_int_equal(ev.contest.lowest, 2);
    }
  }
  const ft_game *g = ft_transcript_game(t);
  assert_int_equal(ft_game_layer(g), 1);
  assert_int_equal(ft_game_flight_number(g), 2);
  ft_card table[FT_MAX_CARDS];
  assert_int_equal(ft_game_table(g, table), 9);
  assert_int_equal(ft_transcript_good_bytes(t), strlen(text));
  assert_false(ft_transcript_truncated(t));
  ft_transcript_close(t);
  ft_transcript_close(NULL);
}

static void expect_error(const char *tail, int line, const char *what) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head, tail);
  tp_error err = {{0}};
  ft_transcript *t;
  assert_int_not_equal(replay(text, 0, &t, &err), TP_OK);
  char where[64];
  snprintf(where, sizeof where, "game.txt: line %d: ", line);
  if (!strstr(err.text, where) || !strstr(err.text, what))
    fail_msg("'%s' lacks '%s' or '%s'", err.text, where, what);
  assert_null(strchr(err.text, '\n'));
  /* the game is exactly as it was before the bad line */
  char before[4096];
  snprintf(before, sizeof before, "%s%s", head, tail);
  char *last = strrchr(before, '\n');
  *last = '\0';
  last = strrchr(before, '\n');
  last[1] = '\0';
  ft_transcript *b;
  assert_int_equal(replay(before, 0, &b, NULL), TP_OK);
  assert_true(ft_game_equal(ft_transcript_game(t), ft_transcript_game(b)));
  ft_transcript_close(b);
  ft_transcript_close(t);
}

static void test_errors_name_the_line(void **state) {
  (void)state;
  expect_error("flight pink=1\n", 9, "carpet 'pink' does not exist");
  expect_error("flight red=99\n", 9, "card 99, which is not on the table");
  expect_error("flight red=1 red=2\n", 9, "landed twice");
  expect_error("flight red=x\n", 9, "not a list of card ids");
  expect_error("flight red\n", 9, "is not COLOUR=CARD");
  expect_error("flight red=1 blue=1\nflight red=2\n", 10,
               "waits for the genies of the contest for card 1");
  expect_error("flight red=1 blue=1\nreveal 1 anna=6 ben=8\n", 10,
               "anna does not hold genie 6");
  expect_error(
      "flight red=1 blue=1\nreveal 1 anna=7 ben=8\nreveal 1 anna=4 ben=7\n", 11,
      "card 1 was already settled");
  expect_error("flight red=1 blue=1\nreveal 1 anna=7 ben=8 cleo=6\n", 10,
               "cleo is not in the contest");
  expect_error("flight red=1 blue=1\nreveal 1 anna=7 bob=8\n", 10,
               "unknown player 'bob'");
  expect_error("flight red=1 blue=1\nreveal 1 anna=7 anna=4\n", 10,
               "anna is given twice");
  expect_error("flight red=1,2 blue=1,2\nreveal 2 anna=7 ben=8\n", 10,
               "next contest is for card 1");
  expect_error("reveal 1 anna=7\n", 9, "waits for flight 1 of round 1");
  expect_error("lamps anna=1\n", 9, "waits for flight 1 of round 1");
  expect_error("layout 1=palace\n", 9, "waits for flight 1 of round 1");
  expect_error("genies anna=7,4 ben=8,3 cleo=6,5\n", 9, "not possible now");
  expect_error("players x=red,y=blue\n", 9, "a second 'players' line");
  expect_error("first-layer anna\n", 9,
               "'first-layer' must come before the genies");
  expect_error("round 2\n", 9, "'round 2' does not fit");
  expect_error("flight red=1,2,3,4,5,6,7,8,9\nlamps anna=2\n", 10,
               "anna spends 2 lamps as palaces but holds 1");
  expect_error("flight red=1,2,3,4,5,6,7,8,9\nlamps anna=one\n", 10,
               "not a number");
  expect_error("bogus 1 2\n", 9, "unknown line 'bogus'");
}

static void expect_head_error(const char *text, int line, const char *what) {
  tp_error err = {{0}};
  assert_int_not_equal(replay(text, 0, NULL, &err), TP_OK);
  char where[64];
  snprintf(where, sizeof where, "game.txt: line %d: ", line);
  if (!strstr(err.text, where) || !strstr(err.text, what))
    fail_msg("'%s' lacks '%s' or '%s'", err.text, where, what);
}

static void test_errors_at_the_start(void **state) {
  (void)state;
  expect_head_error("players a=red,b=blue\n", 1,
                    "first line must be 'teppich-transcript 1'");
  expect_head_error("teppich-transcript 2\n", 1, "first line must be");
  expect_head_error("teppich-transcript 1\ngenies a=1\n", 2,
                    "'genies' before the 'players' line");
  expect_head_error("teppich-transcript 1\nplayers a=red,b=blue\n", 2,
                    "each player has 2");
  expect_head_error("teppich-transcript 1\nplayers a=red\n", 2,
                    "2 to 4 players");
  expect_head_error("teppich-transcript 1\nplayers a=red,a=blue,c=green\n", 2,
                    "named twice");
  expect_head_error(
      "teppich-transcript 1\nplayers a=red,b=blue,c=green\nfirst-layer d\n", 3,
      "unknown player 'd'");
  expect_head_error("teppich-transcript 1\nplayers "
                    "a=red,b=blue,c=green\ngenies a=8,3 b=7,4\n",
                    3, "genies of c missing");
  expect_head_error("teppich-transcript 1\nplayers "
                    "a=red,b=blue,c=green\ngenies a=8,3 b=7,4 c=6,6\n",
                    3, "genies of c: not one of the 3-player sets");
  expect_head_error("teppich-transcript 1\nplayers a=red,b=blue,c=green\n"
                    "genies a=8,3 b=7,4 c=6,5\nround 1 layer=b\n",
                    4, "a lays out round 1");
  expect_head_error("teppich-transcript 1\nplayers a=red,b=blue,c=green\n"
                    "genies a=8,3 b=7,4 c=6,5\nlayout 1=castle\n",
                    4, "unknown type 'castle'");
  expect_head_error("teppich-transcript 1\nplayers a=red,b=blue,c=green\n"
                    "genies a=8,3 b=7,4 c=6,5\nlayout 1=palace@3\n",
                    4, "position is not @X,Y");
  expect_head_error("teppich-transcript 1\nplayers a=red,b=blue,c=green\n"
                    "genies a=8,3 b=7,4 c=6,5\nlayout 1=palace 2=desert\n",
                    4, "has 2 cards, expected 12");
  char nul[] = "teppich-transcript 1\npla\0yers\n";
  ft_transcript *t;
  tp_error err;
  ft_transcript_open(NULL, "n", nul, sizeof nul - 1, 0, &t, NULL);
  ft_event ev;
  assert_int_equal(ft_transcript_next(t, &ev, &err), TP_ERR_FORMAT);
  assert_non_null(strstr(err.text, "n: line 2: contains a NUL byte"));
  ft_transcript_close(t);
}

/* A file cut off in the middle of a line (power failure while writing):
 * strict reading says where; the tolerant reading for resuming skips it
 * and says how many bytes are good. */
static void test_truncated_last_line(void **state) {
  (void)state;
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head,
           "flight red=1 blue=1\nreveal 1 anna=7 b");
  tp_error err;
  assert_int_not_equal(replay(text, 0, NULL, &err), TP_OK);
  assert_non_null(strstr(err.text, "line 10: 'b' is not NAME=NUMBER"));
  ft_transcript *t;
  assert_int_equal(replay(text, FT_TRANSCRIPT_ALLOW_TRUNCATED, &t, &err),
                   TP_OK);
  assert_true(ft_transcript_truncated(t));
  assert_int_equal(ft_transcript_good_bytes(t),
                   strlen(text) - strlen("reveal 1 anna=7 b"));
  assert_int_equal(ft_game_phase(ft_transcript_game(t)), FT_PHASE_CONTEST);
  ft_transcript_close(t);
  /* a cut-off line may still parse ("flight red=1" of "flight red=12"):
   * the tolerant reading skips it all the same; the strict one reads it */
  snprintf(text, sizeof text, "%s%s", head, "flight red=1");
  assert_int_equal(replay(text, FT_TRANSCRIPT_ALLOW_TRUNCATED, &t, &err),
                   TP_OK);
  assert_true(ft_transcript_truncated(t));
  assert_int_equal(ft_transcript_good_bytes(t), strlen(head));
  assert_int_equal(ft_game_phase(ft_transcript_game(t)), FT_PHASE_FLIGHT);
  ft_transcript_close(t);
  assert_int_equal(replay(text, 0, &t, &err), TP_OK);
  assert_int_equal(ft_transcript_good_bytes(t), strlen(text));
  assert_int_equal(ft_game_flight_number(ft_transcript_game(t)), 2);
  ft_transcript_close(t);
  /* trailing blanks without a newline are nothing to skip */
  snprintf(text, sizeof text, "%s%s", head, "  ");
  assert_int_equal(replay(text, FT_TRANSCRIPT_ALLOW_TRUNCATED, &t, &err),
                   TP_OK);
  assert_false(ft_transcript_truncated(t));
  ft_transcript_close(t);
}

static void test_writers(void **state) {
  (void)state;
  ft_players p;
  ft_players_parse("anna=red+yellow,ben=blue+green", &p, NULL);
  char buf[512];
  assert_int_equal(ft_transcript_write_header(buf, sizeof buf, &p, 1),
                   strlen("teppich-transcript 1\nplayers "
                          "anna=red+yellow,ben=blue+green\nfirst-layer ben\n"));
  assert_string_equal(buf, "teppich-transcript 1\nplayers "
                           "anna=red+yellow,ben=blue+green\nfirst-layer ben\n");
  ft_hand hands[FT_MAX_PLAYERS] = {{4, {8, 5, 4, 1}}, {4, {7, 6, 3, 2}}};
  ft_transcript_write_genies(buf, sizeof buf, &p, hands);
  assert_string_equal(buf, "genies anna=8,5,4,1 ben=7,6,3,2\n");
  ft_transcript_write_round(buf, sizeof buf, 2, "ben");
  assert_string_equal(buf, "round 2 layer=ben\n");
  ft_card cards[] = {{4, FT_PALACE, true, 12.25, -3},
                     {9, FT_LAMP, false, 0, 0}};
  ft_transcript_write_layout(buf, sizeof buf, cards, 2);
  assert_string_equal(buf, "layout 4=palace@12.2,-3.0 9=lamp\n");
  int ids[] = {4, 9};
  ft_landing ls[] = {{"red", ids, 2}, {"blue", NULL, 0}};
  ft_transcript_write_flight(buf, sizeof buf, ls, 2);
  assert_string_equal(buf, "flight red=4,9 blue=-\n");
  int genies[FT_MAX_PLAYERS] = {0, 7};
  ft_transcript_write_reveal(buf, sizeof buf, &p, 9, genies);
  assert_string_equal(buf, "reveal 9 ben=7\n");
  int lamps[FT_MAX_PLAYERS] = {1, 0};
  size_t need = ft_transcript_write_lamps(buf, 8, &p, lamps);
  assert_int_equal(need, strlen("lamps anna=1 ben=0\n"));
  assert_string_equal(buf, "lamps a"); /* cut, but terminated */
  assert_int_equal(ft_transcript_write_lamps(NULL, 0, &p, lamps), need);
}

static void test_answers(void **state) {
  (void)state;
  ft_players p;
  ft_players_parse("anna=red,ben=blue,cleo=green,dirk=white", &p, NULL);
  ft_hand hands[FT_MAX_PLAYERS];
  tp_error err;
  assert_int_equal(
      ft_answer_genies(&p, "genies anna=8,1 ben=7,2 cleo=6,3 dirk=5,4\n", hands,
                       &err),
      TP_OK);
  assert_int_equal(hands[3].n, 2);
  assert_int_equal(hands[3].values[1], 4);
  int v[FT_MAX_PLAYERS];
  assert_int_equal(ft_answer_reveal(&p, "reveal anna=7 ben=3", v, &err), TP_OK);
  assert_int_equal(v[0], 7);
  assert_int_equal(v[1], 3);
  assert_int_equal(v[2], 0);
  assert_int_equal(
      ft_answer_lamps(&p, "lamps anna=1 ben=0 cleo=0 dirk=2  # x", v, &err),
      TP_OK);
  assert_int_equal(v[3], 2);
  assert_int_not_equal(ft_answer_lamps(&p, "reveal anna=1", v, &err), TP_OK);
  assert_non_null(strstr(err.text, "expected a 'lamps' line, got 'reveal'"));
  assert_int_not_equal(ft_answer_reveal(&p, "reveal anna=7 eve=3", v, &err),
                       TP_OK);
  assert_non_null(strstr(err.text, "unknown player 'eve'"));
  assert_int_not_equal(
      ft_answer_genies(&p, "genies anna=8,1 ben=7,2 cleo=6,3", hands, &err),
      TP_OK);
  assert_non_null(strstr(err.text, "genies of dirk missing"));
  assert_int_not_equal(ft_answer_reveal(&p, "reveal anna=x", v, &err), TP_OK);
  assert_int_not_equal(ft_answer_lamps(&p, NULL, v, &err), TP_OK);
  /* the word may be left out (the terminal); a wrong one may not */
  assert_int_equal(ft_answer_reveal(&p, "  ben=4 anna=2", v, &err), TP_OK);
  assert_int_equal(v[0], 2);
  assert_int_equal(v[1], 4);
  assert_int_equal(
      ft_answer_genies(&p, "anna=8,1 ben=7,2 cleo=6,3 dirk=5,4", hands, &err),
      TP_OK);
  assert_int_equal(hands[2].values[0], 6);
  assert_int_not_equal(ft_answer_genies(&p, "reveal anna=8", hands, &err),
                       TP_OK);
  assert_non_null(strstr(err.text, "expected a 'genies' line, got 'reveal'"));
  assert_int_not_equal(ft_answer_genies(&p, "", hands, &err), TP_OK);
  assert_int_not_equal(ft_answer_genies(&p, "anna", hands, &err), TP_OK);
}

static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Thousands of mutated transcripts of real games: each is read to its end
 * or to an error naming the file and a line; never a crash or a leak. */
static void test_fuzz(void **state) {
  (void)state;
  ft_players p;
  ft_players_parse("anna=red,ben=blue,cleo=green", &p, NULL);
  ft_rules r;
  ft_rules_default(&r);
  rg_text base = {.text = NULL};
  ft_game *g = rg_play(5, &p, &r, &base, NULL, NULL);
  ft_game_destroy(g);
  const char alphabet[] = "=,-@.#\n \t0123456789abcdefghijklmnopqrstuvwxyz";
  uint32_t seed = 2024;
  char *buf = malloc(base.len + 64);
  ft_event *ev = malloc(sizeof *ev);
  int errors = 0;
  for (int iter = 0; iter < 3000; iter++) {
    size_t len = base.len;
    memcpy(buf, base.text, len);
    int edits = 1 + (int)(next_rand(&seed) % 4);
    for (int e = 0; e < edits; e++) {
      uint32_t r32 = next_rand(&seed);
      size_t pos = r32 % len;
      switch ((r32 >> 8) % 5) {
      case 0:
        buf[pos] = alphabet[(r32 >> 12) % (sizeof alphabet - 1)];
        break;
      case 1:
        buf[pos] = (char)(r32 >> 16);
        break;
      case 2:
        if (len > 1) {
          memmove(buf + pos, buf + pos + 1, len - pos - 1);
          len--;
        }
        break;
      case 3:
        if (len < base.len + 60) {
          memmove(buf + pos + 1, buf + pos, len - pos);
          buf[pos] = alphabet[(r32 >> 12) % (sizeof alphabet - 1)];
          len++;
        }
        break;
      case 4:
        len = pos + 1;
        break; /* cut off */
      }
    }
    ft_transcript *t;
    tp_error err = {{0}};
    unsigned flags = iter % 2 ? FT_TRANSCRIPT_ALLOW_TRUNCATED : 0;
    assert_int_equal(ft_transcript_open(NULL, "fz", buf, len, flags, &t, &err),
                     TP_OK);
    tp_status st;
    int steps = 0;
    do
      st = ft_transcript_next(t, ev, &err);
    while (st == TP_OK && ev->kind != FT_EV_END && ++steps < 10000);
    assert_true(steps < 10000);
    if (st != TP_OK) {
      errors++;
      if (strncmp(err.text, "fz: line ", 9))
        fail_msg("bad message '%s'", err.text);
      assert_null(strchr(err.text, '\n'));
    }
    assert_true(ft_transcript_good_bytes(t) <= len);
    ft_transcript_close(t);
  }
  assert_true(errors > 100); /* the mutations do find errors */
  free(buf);
  free(ev);
  free(base.text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_events),
      cmocka_unit_test(test_errors_name_the_line),
      cmocka_unit_test(test_errors_at_the_start),
      cmocka_unit_test(test_truncated_last_line),
      cmocka_unit_test(test_writers),
      cmocka_unit_test(test_answers),
      cmocka_unit_test(test_fuzz),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
