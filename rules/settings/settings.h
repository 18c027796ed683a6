/* settings: the rules files of every teppich game. Prefix rset_.
 *
 * A rules file is plain text, one setting per line:
 *
 *     # a comment (also after a value)
 *     palace_most = 5              integer
 *     adventure_sets = 1, 3, 6     list of integers (commas)
 *     palace_tie = shared          word: a-z 0-9 _ -
 *
 * A game declares the keys it knows in a table of rset_key (name, kind,
 * range, allowed words, default as text, one line of help), creates an
 * rset_table from it (every key holds its default), and loads files over
 * it. Anything that does not fit is an error naming file, line and value:
 * an unknown key, a key set twice, an integer out of range, a word not
 * allowed, a list too long. A failed load leaves the table as it was.
 *
 * Pure C and libc; errors are core's tp_status + tp_error. */
#ifndef TEPPICH_RULES_SETTINGS_H
#define TEPPICH_RULES_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  RSET_LIST_MAX = 16,  /* most integers a list setting can hold */
  RSET_WORD_MAX = 32,  /* longest word, including the NUL */
  RSET_LINE_MAX = 1024 /* longest line of a rules file */
};

typedef enum { RSET_INT, RSET_LIST, RSET_WORD } rset_kind;

/* One known key. Tables are usually `static const` arrays in the game. */
typedef struct {
  const char *key; /* a-z 0-9 _ . - */
  rset_kind kind;
  long min, max;     /* RSET_INT, and every element of an RSET_LIST */
  int min_count;     /* RSET_LIST: fewest elements (>= 0) */
  int max_count;     /* RSET_LIST: most elements (<= RSET_LIST_MAX) */
  const char *words; /* RSET_WORD: allowed words "yes|no"; NULL = any word */
  const char *def;   /* default, written as in a file: "5", "8,5,4,1", "yes" */
  const char *help;  /* one line for documentation */
} rset_key;

typedef struct rset_table rset_table;

/* Copies nothing: `keys` must outlive the table. Checks that every default
 * fits its own declaration (a programming error otherwise: TP_ERR_INTERNAL
 * naming the key). */
tp_status rset_create(const rset_key *keys, size_t n_keys, rset_table **out,
                      tp_error *err);
void rset_destroy(rset_table *table); /* NULL-safe */

/* Loads settings from text (`name` is used in messages, e.g. the path).
 * Keys not in the text keep their current values. All or nothing. */
tp_status rset_load_text(rset_table *table, const char *name, const char *text,
                         size_t len, tp_error *err);
/* Reads the file (at most 1 MiB) and loads it as above. */
tp_status rset_load_file(rset_table *table, const char *path, tp_error *err);

/* Current values. The key must be declared (else 0 / NULL / empty). */
long rset_int(const rset_table *table, const char *key);
/* Number of elements; *values points into the table (valid until the next
 * load or destroy). */
int rset_list(const rset_table *table, const char *key, const long **values);
const char *rset_word(const rset_table *table, const char *key);
bool rset_is(const rset_table *table, const char *key, const char *word);

/* Where a value came from, for errors that involve several keys:
 * the line number in the last file that set it, or 0 for the default. */
int rset_line(const rset_table *table, const char *key);
/* Name of the last successfully loaded file, or "built-in defaults". */
const char *rset_source(const rset_table *table);

/* Number of keys and the declaration of key i (for docs and dumps). */
size_t rset_count(const rset_table *table);
const rset_key *rset_key_at(const rset_table *table, size_t i);
/* Writes the current value of key i as it would appear in a file. */
void rset_format_value(const rset_table *table, size_t i, char *buf,
                       size_t cap);

#ifdef __cplusplus
}
#endif
#endif
