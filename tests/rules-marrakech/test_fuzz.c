/* Fuzz-style tests of the two parsers: the query protocol and the
 * transcript reader get thousands of random and mutated inputs. Each must
 * answer cleanly (one error line, state unchanged or consistent) and never
 * crash or leak (run under ASan). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrakech.h"

static const char *vocabulary[] = {
    "board",      "assam",
    "player",     "players",
    "turn",       "next",
    "move",       "rotate",
    "payment",    "price",
    "legal",      "legal-all",
    "place",      "score",
    "over",       "reset",
    "red",        "blue",
    "green",      "yellow",
    "red+yellow", "blue+green",
    "anna",       "ben",
    "in",         "out",
    "left",       "right",
    "none",       "N",
    "E",          "S",
    "W",          "0",
    "1",          "2",
    "3",          "4",
    "5",          "6",
    "7",          "-1",
    "30",         "12",
    "12+12",      "99999999999999999999",
    ".",          "red:1",
    "blue:2",     "red:-1",
    "red:",       ":3",
    "Red",        "+",
    "#",          "\t",
    "\xff",       "1e3",
    "0x10",       "",
};
enum { VOCAB = sizeof vocabulary / sizeof vocabulary[0] };

static void random_line(tp_rng *r, char *line, size_t cap) {
  size_t len = 0;
  int words = (int)tp_rng_below(r, 60);
  line[0] = '\0';
  for (int i = 0; i < words; i++) {
    const char *w = vocabulary[tp_rng_below(r, VOCAB)];
    int n = snprintf(line + len, cap - len, "%s%s", i ? " " : "", w);
    if (n < 0 || (size_t)n >= cap - len) break;
    len += (size_t)n;
  }
}

static void mutate(tp_rng *r, char *line, size_t cap) {
  size_t len = strlen(line);
  int edits = 1 + (int)tp_rng_below(r, 4);
  for (int e = 0; e < edits; e++) {
    switch (tp_rng_below(r, 4)) {
    case 0: /* replace a byte by any non-NUL byte */
      if (len)
        line[tp_rng_below(r, (uint32_t)len)] = (char)(1 + tp_rng_below(r, 255));
      break;
    case 1: /* truncate */
      if (len) line[len = tp_rng_below(r, (uint32_t)len)] = '\0';
      break;
    case 2: /* insert a byte */
      if (len + 2 < cap) {
        size_t at = tp_rng_below(r, (uint32_t)len + 1);
        memmove(line + at + 1, line + at, len - at + 1);
        line[at] = (char)(1 + tp_rng_below(r, 255));
        len++;
      }
      break;
    default: /* duplicate the tail */
      if (len && len * 2 < cap) {
        memcpy(line + len, line, len);
        len *= 2;
        line[len] = '\0';
      }
    }
  }
}

static void check_answer(const char *line, const char *answer, size_t len) {
  if (len == 0 || len >= MK_QUERY_ANSWER_MAX || answer[len - 1] != '\n' ||
      strlen(answer) != len)
    fail_msg("bad answer to '%s': '%s'", line, answer);
  if (!strncmp(answer, "error: ", 7) &&
      strchr(answer, '\n') != answer + len - 1)
    fail_msg("error answer of several lines to '%s'", line);
}

static const char *valid_lines[] = {
    "player anna red 30 12 in",
    "player ben blue+green 5 12+11 in",
    "player cleo yellow 0 3 out",
    "turn anna",
    "rotate left",
    "rotate S",
    "move 3",
    "payment",
    "price",
    "legal 3 2 3 1",
    "legal-all",
    "place red 3 2 3 1",
    "score",
    "assam 0 0 N",
    "next",
    "players",
    "board . . . . . . . . . . . . . . . . . . . . . . . . red:1 red:1 . . . "
    ". . . . . . . . . . . . . . . . . . . . . .",
    "over",
    "reset",
    "board",
    "assam",
};
enum { VALID = sizeof valid_lines / sizeof valid_lines[0] };

static void test_query_protocol_fuzz(void **state) {
  (void)state;
  mk_query *q = mk_query_create(NULL, 1);
  assert_non_null(q);
  tp_rng r;
  tp_rng_seed(&r, 2024);
  char line[8192], answer[MK_QUERY_ANSWER_MAX];
  int errors = 0;
  for (int i = 0; i < 40000; i++) {
    switch (tp_rng_below(&r, 3)) {
    case 0:
      random_line(&r, line, sizeof line);
      break;
    case 1: /* a valid line, mutated */
      snprintf(line, sizeof line, "%s", valid_lines[tp_rng_below(&r, VALID)]);
      mutate(&r, line, sizeof line);
      break;
    default: /* a valid line as is: keeps the game going */
      snprintf(line, sizeof line, "%s", valid_lines[tp_rng_below(&r, VALID)]);
    }
    size_t len = mk_query_line(q, line, answer);
    check_answer(line, answer, len);
    errors += !strncmp(answer, "error: ", 7);
    assert_int_equal(mk_game_check_board(mk_query_game(q), NULL), TP_OK);
  }
  assert_true(errors > 1000); /* the fuzzer did reach the error paths */
  /* a line far too long is one error, not a crash */
  char *huge = malloc(100000);
  memset(huge, 'a', 99999);
  huge[99999] = '\0';
  size_t len = mk_query_line(q, huge, answer);
  check_answer("huge", answer, len);
  assert_non_null(strstr(answer, "error: line longer"));
  free(huge);
  mk_query_destroy(q);
  mk_query_destroy(NULL);
}

static void test_query_errors_change_nothing(void **state) {
  (void)state;
  mk_query *q = mk_query_create(NULL, 1);
  char a[MK_QUERY_ANSWER_MAX];
  mk_query_line(q, "player anna red 30 12 in", a);
  mk_query_line(q, "assam 2 2 E", a);
  char before[MK_QUERY_ANSWER_MAX], after[MK_QUERY_ANSWER_MAX];
  mk_query_line(q, "board", before);
  const char *bad[] = {
      "board red:1 red:1 red:1 . . . . . . . . . . . . . . . . . . . . . . . "
      ". . . . . . . . . . . . . . . . . . . . . . . .", /* 3 squares */
      "board . .",                                       /* too short */
      "player ben red 30 12 in",                         /* red taken */
      "player anna red 30 -1 in",                        /* negative */
      "assam 7 0 N",
      "assam 1 1 X",
      "move -1",
      "move x",
      "rotate up",
      "turn nobody",
      "legal 1 2 3",
      "place red a b c d",
      "frobnicate",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mk_query_line(q, bad[i], a);
    if (strncmp(a, "error: ", 7)) fail_msg("'%s' answered '%s'", bad[i], a);
  }
  mk_query_line(q, "board", after);
  assert_string_equal(before, after);
  mk_query_line(q, "assam", a);
  assert_string_equal(a, "2 2 E\n");
  mk_query_line(q, "players", a);
  assert_string_equal(a, "anna red 30 12 in\nend\n");
  mk_query_destroy(q);
}

/* ---- transcripts ------------------------------------------------------- */

static void ignore(void *ctx, const char *line) {
  (void)line;
  (*(int *)ctx)++;
}

static char *random_transcript(uint64_t seed, int players) {
  static const char *spec[2][4] = {{"red+yellow", "blue+green"},
                                   {"red", "blue", "green", "yellow"}};
  static const char *names[4] = {"anna", "ben", "cleo", "dirk"};
  mk_game *g = mk_game_create(NULL, seed);
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  const int none[2] = {0, 0};
  for (int i = 0; i < players; i++) {
    mk_game_set_player(g, names[i], spec[players > 2][i], 0, none, true, NULL);
    len += (size_t)snprintf(text + len, cap - len, "player %s %s # seat %d\n",
                            names[i], spec[players > 2][i], i + 1);
  }
  assert_int_equal(mk_game_deal(g, NULL), TP_OK);
  mk_game_next_turn(g);
  tp_rng r;
  tp_rng_seed(&r, seed);
  mk_turn_record t;
  char line[256];
  while (mk_game_play_random_turn(g, &r, &t)) {
    size_t n = mk_transcript_format_turn(g, &t, line, sizeof line);
    len += (size_t)snprintf(text + len, cap - len, "%s\n", line);
    if (n % 7 == 0) len += (size_t)snprintf(text + len, cap - len, "board\n");
  }
  mk_game_destroy(g);
  return text;
}

static void test_transcript_fuzz(void **state) {
  (void)state;
  tp_rng r;
  tp_rng_seed(&r, 77);
  int ok = 0, bad = 0;
  for (int round = 0; round < 3000; round++) {
    char *text = random_transcript(1 + round % 40, 2 + round % 3);
    size_t len = strlen(text);
    int edits = 1 + (int)tp_rng_below(&r, 3);
    for (int e = 0; e < edits && len; e++) {
      size_t at = tp_rng_below(&r, (uint32_t)len);
      switch (tp_rng_below(&r, 3)) {
      case 0:
        text[at] = (char)(1 + tp_rng_below(&r, 255));
        break;
      case 1:
        text[len = at] = '\0';
        break;
      default: /* swap a digit for another: often a legal-looking move */
        if (text[at] >= '0' && text[at] <= '9')
          text[at] = (char)('0' + tp_rng_below(&r, 10));
      }
    }
    int lines = 0;
    tp_error err;
    mk_replay_options o = {round % 2 == 0};
    tp_status st = mk_transcript_replay(text, NULL, &o, ignore, &lines, &err);
    if (st == TP_OK) {
      ok++;
      assert_true(lines > 0);
    } else {
      bad++;
      if (strncmp(err.text, "line ", 5) || strchr(err.text, '\n'))
        fail_msg("bad error '%s'", err.text);
    }
    free(text);
  }
  assert_true(ok > 100 && bad > 100); /* both outcomes were exercised */
}

static void test_transcript_errors_name_the_line(void **state) {
  (void)state;
  const struct {
    const char *text, *want;
  } cases[] = {
      {"", "line 1: no players"},
      {"player anna red\n", "line 2: 1 players"},
      {"player anna red\nplayer ben blue\nplayer cleo green\nturn ben rotate N "
       "roll 1 place "
       "blue 3 2 3 1\n",
       "line 4: it is anna's turn"},
      {"player anna red\nplayer ben blue\nplayer cleo green\n# c\nturn anna "
       "rotate N roll 5 "
       "place red 3 2 3 1\n",
       "line 5: roll '5'"},
      {"player anna red\nplayer ben blue\nplayer cleo green\nturn anna rotate "
       "N roll 1 place "
       "red 3 2 3 1\n",
       "line 4: rug red 3 2 3 1: on-assam"},
      {"player anna red\nplayer ben blue\nplayer cleo green\nturn anna rotate "
       "N roll 1 place "
       "blue 3 1 3 0\n",
       "wrong-player"},
      {"player anna red\nplayer ben blue\nplayer cleo green\nturn anna rotate "
       "N roll 1\n",
       "line 4: anna must place a rug"},
      {"player anna red\nplayer ben blue\nplayer cleo green\nturn anna rotate "
       "N roll 1 place "
       "red 3 1 3 0\nturn ben rotate S roll 1 place blue 3 1 3 0\n",
       "line 5: Assam faces N and may not turn 180"},
      {"player anna red\nplayer ben blue\nplayer anna green\n",
       "line 3: player anna is declared twice"},
      {"player anna red\nplayer ben red\n",
       "line 2: colour red belongs to anna"},
      {"player anna red\nplayer ben blue+green\nturn anna rotate N roll 1\n",
       "with 2 players each has 2"},
      {"player anna red+yellow\nplayer ben blue+green\nbogus\n",
       "line 3: 'bogus' is not a transcript line"},
      {"player anna red+yellow\nplayer ben blue+green\nturn anna rotate N "
       "roll 1 place red 3 1 3 0\nplayer cleo pink\n",
       "line 4: players come before"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int lines = 0;
    tp_error err;
    tp_status st =
        mk_transcript_replay(cases[i].text, NULL, NULL, ignore, &lines, &err);
    if (st == TP_OK || !strstr(err.text, cases[i].want))
      fail_msg("case %zu: got '%s', want '%s'", i,
               st == TP_OK ? "ok" : err.text, cases[i].want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_query_protocol_fuzz),
      cmocka_unit_test(test_query_errors_change_nothing),
      cmocka_unit_test(test_transcript_fuzz),
      cmocka_unit_test(test_transcript_errors_name_the_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
