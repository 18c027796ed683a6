/* settings: parse `key = value` rules files over a table of known keys. */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RSET__FILE_MAX (1u << 20)
#define RSET__NAME_MAX 256

typedef struct {
  long i;
  long list[RSET_LIST_MAX];
  int count;
  char word[RSET_WORD_MAX];
  int line; /* 0: default */
} rset__value;

struct rset_table {
  const rset_key *keys;
  size_t n_keys;
  rset__value *values;  /* current */
  rset__value *scratch; /* a load works here, then commits */
  char source[RSET__NAME_MAX];
};

static int find_key(const rset_table *t, const char *key, size_t len) {
  for (size_t i = 0; i < t->n_keys; i++)
    if (strlen(t->keys[i].key) == len && !memcmp(t->keys[i].key, key, len))
      return (int)i;
  return -1;
}

static int find_key_z(const rset_table *t, const char *key) {
  return key ? find_key(t, key, strlen(key)) : -1;
}

/* Parses one decimal integer at *p (optional sign); advances *p. */
static bool parse_long_at(const char **p, long *out) {
  const char *s = *p;
  if (*s == '+' || *s == '-') s++;
  if (!isdigit((unsigned char)*s)) return false;
  char *end;
  errno = 0;
  long v = strtol(*p, &end, 10);
  if (errno == ERANGE) return false;
  *out = v;
  *p = end;
  return true;
}

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

static bool word_allowed(const char *words, const char *w) {
  if (!words) return true;
  size_t wl = strlen(w);
  for (const char *p = words; *p;) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n == wl && !memcmp(p, w, n)) return true;
    if (!bar) break;
    p = bar + 1;
  }
  return false;
}

/* The expectation of a key, for messages: "an integer in 0..10". */
static void describe(const rset_key *k, char *buf, size_t cap) {
  switch (k->kind) {
  case RSET_INT:
    snprintf(buf, cap, "an integer in %ld..%ld", k->min, k->max);
    break;
  case RSET_LIST:
    snprintf(buf, cap, "%d to %d integers in %ld..%ld, separated by commas",
             k->min_count, k->max_count, k->min, k->max);
    break;
  case RSET_WORD:
    snprintf(buf, cap, "%s%s", k->words ? "one of " : "a word of a-z 0-9 _ -",
             k->words ? k->words : "");
    break;
  }
}

static bool parse_int_value(const rset_key *k, const char *text,
                            rset__value *v) {
  const char *p = text;
  long x;
  if (!parse_long_at(&p, &x) || *p || x < k->min || x > k->max) return false;
  v->i = x;
  return true;
}

static void skip_blanks(const char **p) {
  while (**p == ' ' || **p == '\t')
    (*p)++;
}

static bool parse_list_value(const rset_key *k, const char *text,
                             rset__value *v) {
  const char *p = text;
  int n = 0;
  while (*p) { /* an empty text is the empty list */
    long x;
    skip_blanks(&p);
    if (n == k->max_count || n == RSET_LIST_MAX) return false;
    if (!parse_long_at(&p, &x) || x < k->min || x > k->max) return false;
    v->list[n++] = x;
    skip_blanks(&p);
    if (*p && *p++ != ',') return false;
    if (p[-1] == ',' && !*p) return false; /* trailing comma */
  }
  if (n < k->min_count) return false;
  v->count = n;
  return true;
}

static bool parse_word_value(const rset_key *k, const char *text,
                             rset__value *v) {
  size_t n = strlen(text);
  if (n == 0 || n >= RSET_WORD_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!is_word_char(text[i])) return false;
  if (!word_allowed(k->words, text)) return false;
  memcpy(v->word, text, n + 1);
  return true;
}

static bool parse_value(const rset_key *k, const char *text, rset__value *v) {
  switch (k->kind) {
  case RSET_INT:
    return parse_int_value(k, text, v);
  case RSET_LIST:
    return parse_list_value(k, text, v);
  case RSET_WORD:
    return parse_word_value(k, text, v);
  }
  return false;
}

tp_status rset_create(const rset_key *keys, size_t n_keys, rset_table **out,
                      tp_error *err) {
  *out = NULL;
  rset_table *t = calloc(1, sizeof *t);
  if (t) {
    t->values = calloc(n_keys ? n_keys : 1, sizeof *t->values);
    t->scratch = calloc(n_keys ? n_keys : 1, sizeof *t->scratch);
  }
  if (!t || !t->values || !t->scratch) {
    rset_destroy(t);
    return tp_error_set(err, TP_ERR_NOMEM, "rules settings: out of memory");
  }
  t->keys = keys;
  t->n_keys = n_keys;
  snprintf(t->source, sizeof t->source, "built-in defaults");
  for (size_t i = 0; i < n_keys; i++) {
    const rset_key *k = &keys[i];
    bool dup = find_key_z(t, k->key) != (int)i;
    if (dup || k->max_count > RSET_LIST_MAX ||
        !parse_value(k, k->def ? k->def : "", &t->values[i])) {
      rset_destroy(t);
      return tp_error_set(err, TP_ERR_INTERNAL,
                          "rules settings: key '%s' is declared wrongly "
                          "(duplicate, or default '%s' does not fit)",
                          k->key ? k->key : "(null)", k->def ? k->def : "");
    }
  }
  *out = t;
  return TP_OK;
}

void rset_destroy(rset_table *table) {
  if (!table) return;
  free(table->values);
  free(table->scratch);
  free(table);
}

static void trim(char **start, char **end) {
  while (*start < *end && isspace((unsigned char)**start))
    (*start)++;
  while (*end > *start && isspace((unsigned char)(*end)[-1]))
    (*end)--;
}

static bool valid_key_text(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (!is_word_char(s[i]) && s[i] != '.') return false;
  return true;
}

/* Parses one line (no newline, NUL-terminated, may be modified). */
static tp_status load_line(rset_table *t, const char *name, int lineno,
                           char *line, tp_error *err) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  char *s = line, *e = line + strlen(line);
  trim(&s, &e);
  if (s == e) return TP_OK;
  *e = '\0';
  char *eq = strchr(s, '=');
  if (!eq)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: line %d: '%.60s' is not 'key = value'", name,
                        lineno, s);
  char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
  trim(&ks, &ke);
  trim(&vs, &ve);
  *ve = '\0';
  int idx = valid_key_text(ks, (size_t)(ke - ks))
                ? find_key(t, ks, (size_t)(ke - ks))
                : -1;
  if (idx < 0)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: line %d: unknown key '%.*s' (see docs/rules.md "
                        "for the keys)",
                        name, lineno, (int)(ke - ks > 60 ? 60 : ke - ks), ks);
  rset__value *v = &t->scratch[idx];
  if (v->line > 0)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: line %d: key '%s' is already set on line %d", name,
                        lineno, t->keys[idx].key, v->line);
  rset__value nv = *v;
  if (!parse_value(&t->keys[idx], vs, &nv)) {
    char want[160];
    describe(&t->keys[idx], want, sizeof want);
    return tp_error_set(err, TP_ERR_INVALID,
                        "%s: line %d: %s = '%.60s': expected %s", name, lineno,
                        t->keys[idx].key, vs, want);
  }
  nv.line = lineno;
  *v = nv;
  return TP_OK;
}

static tp_status check_text(const char *name, const char *text, size_t len,
                            tp_error *err) {
  if (memchr(text, '\0', len))
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: contains a NUL byte: not a text rules file", name);
  return TP_OK;
}

tp_status rset_load_text(rset_table *t, const char *name, const char *text,
                         size_t len, tp_error *err) {
  tp_status st = check_text(name, text, len, err);
  if (st != TP_OK) return st;
  for (size_t i = 0; i < t->n_keys; i++) {
    t->scratch[i] = t->values[i];
    t->scratch[i].line = 0;
  }
  char line[RSET_LINE_MAX + 1];
  int lineno = 0;
  for (size_t pos = 0; pos < len && st == TP_OK;) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
    lineno++;
    if (n > RSET_LINE_MAX)
      return tp_error_set(err, TP_ERR_FORMAT,
                          "%s: line %d: longer than %d characters", name,
                          lineno, RSET_LINE_MAX);
    memcpy(line, text + pos, n);
    line[n] = '\0';
    st = load_line(t, name, lineno, line, err);
    pos += n + 1;
  }
  if (st != TP_OK) return st;
  memcpy(t->values, t->scratch, t->n_keys * sizeof *t->values);
  snprintf(t->source, sizeof t->source, "%s", name);
  return TP_OK;
}

tp_status rset_load_file(rset_table *t, const char *path, tp_error *err) {
  char *text;
  size_t len;
  tp_status st = tp_read_file(path, RSET__FILE_MAX, &text, &len, err);
  if (st != TP_OK) return st;
  st = rset_load_text(t, path, text, len, err);
  free(text);
  return st;
}

static const rset__value *value_of(const rset_table *t, const char *key,
                                   rset_kind kind) {
  int i = t ? find_key_z(t, key) : -1;
  if (i < 0 || t->keys[i].kind != kind) return NULL;
  return &t->values[i];
}

long rset_int(const rset_table *t, const char *key) {
  const rset__value *v = value_of(t, key, RSET_INT);
  return v ? v->i : 0;
}

int rset_list(const rset_table *t, const char *key, const long **values) {
  const rset__value *v = value_of(t, key, RSET_LIST);
  *values = v ? v->list : NULL;
  return v ? v->count : 0;
}

const char *rset_word(const rset_table *t, const char *key) {
  const rset__value *v = value_of(t, key, RSET_WORD);
  return v ? v->word : "";
}

bool rset_is(const rset_table *t, const char *key, const char *word) {
  return !strcmp(rset_word(t, key), word);
}

int rset_line(const rset_table *t, const char *key) {
  int i = t ? find_key_z(t, key) : -1;
  return i < 0 ? 0 : t->values[i].line;
}

const char *rset_source(const rset_table *t) {
  return t->source;
}

size_t rset_count(const rset_table *t) {
  return t->n_keys;
}

const rset_key *rset_key_at(const rset_table *t, size_t i) {
  return i < t->n_keys ? &t->keys[i] : NULL;
}

void rset_format_value(const rset_table *t, size_t i, char *buf, size_t cap) {
  if (cap == 0) return;
  buf[0] = '\0';
  if (i >= t->n_keys) return;
  const rset__value *v = &t->values[i];
  size_t used = 0;
  switch (t->keys[i].kind) {
  case RSET_INT:
    snprintf(buf, cap, "%ld", v->i);
    break;
  case RSET_WORD:
    snprintf(buf, cap, "%s", v->word);
    break;
  case RSET_LIST:
    for (int j = 0; j < v->count && used < cap; j++) {
      int n =
          snprintf(buf + used, cap - used, "%s%ld", j ? ", " : "", v->list[j]);
      if (n < 0) break;
      used += (size_t)n;
    }
    break;
  }
}
