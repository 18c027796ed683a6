/* Unit and fuzz tests for rules/settings: the rules-file parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

static const rset_key keys[] = {
    {"palace_most", RSET_INT, -20, 20, 0, 0, NULL, "5", "points for most"},
    {"sets", RSET_LIST, 0, 50, 1, 5, NULL, "1, 3, 6", "set table"},
    {"tie", RSET_WORD, 0, 0, 0, 0, "shared|none", "shared", "ties"},
    {"empty_ok", RSET_LIST, 1, 8, 0, 4, NULL, "", "may be empty"},
    {"any.word", RSET_WORD, 0, 0, 0, 0, NULL, "x-1", "any word"},
};
#define N_KEYS (sizeof keys / sizeof keys[0])

static rset_table *make(void) {
  rset_table *t;
  tp_error err;
  assert_int_equal(rset_create(keys, N_KEYS, &t, &err), TP_OK);
  return t;
}

static tp_status load(rset_table *t, const char *text, tp_error *err) {
  return rset_load_text(t, "r.rules", text, strlen(text), err);
}

static void test_defaults(void **state) {
  (void)state;
  rset_table *t = make();
  const long *v;
  assert_int_equal(rset_int(t, "palace_most"), 5);
  assert_int_equal(rset_list(t, "sets", &v), 3);
  assert_int_equal(v[2], 6);
  assert_true(rset_is(t, "tie", "shared"));
  assert_int_equal(rset_list(t, "empty_ok", &v), 0);
  assert_string_equal(rset_word(t, "any.word"), "x-1");
  assert_int_equal(rset_line(t, "tie"), 0);
  assert_string_equal(rset_source(t), "built-in defaults");
  /* wrong kind or unknown key: neutral values, no crash */
  assert_int_equal(rset_int(t, "tie"), 0);
  assert_string_equal(rset_word(t, "nope"), "");
  rset_destroy(t);
  rset_destroy(NULL);
}

static void test_load_values_comments_and_lines(void **state) {
  (void)state;
  rset_table *t = make();
  tp_error err;
  const char *text = "# header\n\n  palace_most = -7   # trailing\r\n"
                     "sets=2,4 ,  8,16\n"
                     "tie = none\n"
                     "empty_ok =\n";
  assert_int_equal(load(t, text, &err), TP_OK);
  const long *v;
  assert_int_equal(rset_int(t, "palace_most"), -7);
  assert_int_equal(rset_list(t, "sets", &v), 4);
  assert_int_equal(v[3], 16);
  assert_true(rset_is(t, "tie", "none"));
  assert_int_equal(rset_line(t, "palace_most"), 3);
  assert_int_equal(rset_line(t, "sets"), 4);
  assert_int_equal(rset_line(t, "any.word"), 0);
  assert_string_equal(rset_source(t), "r.rules");
  char buf[64];
  rset_format_value(t, 1, buf, sizeof buf);
  assert_string_equal(buf, "2, 4, 8, 16");
  rset_destroy(t);
}

/* Each bad text gets an error naming the file, the line and a detail,
 * and leaves the table exactly as it was. */
static void expect_error(const char *text, const char *line, const char *what) {
  rset_table *t = make();
  tp_error err = {{0}};
  assert_int_equal(load(t, "palace_most = 9\n", &err), TP_OK);
  assert_int_not_equal(load(t, text, &err), TP_OK);
  if (!strstr(err.text, "r.rules: ") || !strstr(err.text, line) ||
      !strstr(err.text, what))
    fail_msg("error '%s' lacks '%s' or '%s'", err.text, line, what);
  assert_int_equal(rset_int(t, "palace_most"), 9);
  assert_true(rset_is(t, "tie", "shared"));
  assert_int_equal(rset_line(t, "palace_most"), 1);
  rset_destroy(t);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("tie = none\npalace_most = 3\nbogus = 1\n", "line 3",
               "unknown key 'bogus'");
  expect_error("palace_most = 1\n\npalace_most = 2\n", "line 3",
               "already set on line 1");
  expect_error("palace_most = 21\n", "line 1",
               "'21': expected an integer in -20..20");
  expect_error("palace_most = 5x\n", "line 1", "'5x'");
  expect_error("palace_most = \n", "line 1", "expected an integer");
  expect_error("palace_most = 99999999999999999999999\n", "line 1", "expected");
  expect_error("sets = 1,2,3,4,5,6\n", "line 1", "1 to 5 integers");
  expect_error("sets = 1,,2\n", "line 1", "'1,,2'");
  expect_error("sets = 1,2,\n", "line 1", "'1,2,'");
  expect_error("sets = \n", "line 1", "1 to 5 integers");
  expect_error("sets = 1 2\n", "line 1", "'1 2'");
  expect_error("tie = maybe\n", "line 1", "one of shared|none");
  expect_error("tie = Shared\n", "line 1", "'Shared'");
  expect_error("\n\njust words\n", "line 3", "not 'key = value'");
  expect_error("= 5\n", "line 1", "unknown key ''");
  expect_error("any.word = a b\n", "line 1", "'a b'");
}

static void test_nul_and_long_lines(void **state) {
  (void)state;
  rset_table *t = make();
  tp_error err;
  assert_int_equal(rset_load_text(t, "n", "tie = x\0", 8, &err), TP_ERR_FORMAT);
  assert_non_null(strstr(err.text, "NUL"));
  char *big = malloc(RSET_LINE_MAX + 50);
  memset(big, ' ', RSET_LINE_MAX + 40);
  memcpy(big, "tie = none", 10);
  big[RSET_LINE_MAX + 40] = '\0';
  assert_int_equal(load(t, big, &err), TP_ERR_FORMAT);
  assert_non_null(strstr(err.text, "line 1: longer than"));
  free(big);
  rset_destroy(t);
}

static void test_bad_declarations(void **state) {
  (void)state;
  static const rset_key bad[] = {
      {"x", RSET_INT, 0, 3, 0, 0, NULL, "4", ""},
  };
  static const rset_key dup[] = {
      {"x", RSET_INT, 0, 3, 0, 0, NULL, "1", ""},
      {"x", RSET_INT, 0, 3, 0, 0, NULL, "1", ""},
  };
  rset_table *t;
  tp_error err;
  assert_int_equal(rset_create(bad, 1, &t, &err), TP_ERR_INTERNAL);
  assert_null(t);
  assert_non_null(strstr(err.text, "'x'"));
  assert_int_equal(rset_create(dup, 2, &t, &err), TP_ERR_INTERNAL);
}

static void test_missing_file(void **state) {
  (void)state;
  rset_table *t = make();
  tp_error err;
  assert_int_equal(rset_load_file(t, "/nonexistent/x.rules", &err), TP_ERR_IO);
  assert_non_null(strstr(err.text, "/nonexistent/x.rules"));
  rset_destroy(t);
}

/* A small deterministic generator (no global state). */
static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static const char *const seeds[] = {
    "palace_most = 5\nsets = 1, 3, 6\ntie = none # c\n",
    "# only a comment\n\nany.word = a_b-c\nempty_ok = 1,2,3,4\n",
    "sets=50,0\npalace_most=-20\n",
};

/* Thousands of mutated files: every load either succeeds with values in
 * range or fails with a one-line message naming the file; never crashes. */
static void test_fuzz(void **state) {
  (void)state;
  const char alphabet[] = "=,#\n\r -+0123456789abcdefghijklmnopqrstuvwxyz_.|\t";
  uint32_t seed = 12345;
  rset_table *t = make();
  char buf[256];
  for (int iter = 0; iter < 20000; iter++) {
    const char *base = seeds[iter % 3];
    size_t len = strlen(base);
    memcpy(buf, base, len);
    int edits = 1 + (int)(next_rand(&seed) % 6);
    for (int e = 0; e < edits; e++) {
      uint32_t r = next_rand(&seed);
      size_t pos = len ? r % len : 0;
      switch ((r >> 8) % 4) {
      case 0:
        buf[pos] = alphabet[(r >> 12) % (sizeof alphabet - 1)];
        break;
      case 1:
        if (len < sizeof buf - 1) {
          memmove(buf + pos + 1, buf + pos, len - pos);
          buf[pos] = alphabet[(r >> 12) % (sizeof alphabet - 1)];
          len++;
        }
        break;
      case 2:
        if (len) {
          memmove(buf + pos, buf + pos + 1, len - pos - 1);
          len--;
        }
        break;
      case 3:
        buf[pos] = (char)(r >> 16);
        break; /* any byte, also NUL */
      }
    }
    tp_error err = {{0}};
    tp_status st = rset_load_text(t, "fz", buf, len, &err);
    if (st != TP_OK) {
      assert_non_null(strstr(err.text, "fz: "));
      assert_null(strchr(err.text, '\n'));
    }
    long pm = rset_int(t, "palace_most");
    assert_true(pm >= -20 && pm <= 20);
    const long *v;
    int n = rset_list(t, "sets", &v);
    assert_true(n >= 1 && n <= 5);
    for (int i = 0; i < n; i++)
      assert_true(v[i] >= 0 && v[i] <= 50);
    assert_true(rset_is(t, "tie", "shared") || rset_is(t, "tie", "none"));
  }
  rset_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_load_values_comments_and_lines),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_nul_and_long_lines),
      cmocka_unit_test(test_bad_declarations),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_fuzz),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
