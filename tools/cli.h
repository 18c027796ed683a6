/* cli: what every teppich subcommand is, and the small parsing helpers
 * they share. Prefix cli_.
 *
 * A subcommand lives in tools/commands/NAME.c (no OpenCV needed) or
 * tools/commands-cv/NAME.c (needs the vision side) and defines
 *     const cli_command cli_command_NAME = { "NAME", "one-line summary", run };
 * CMake finds the files and builds the dispatch table, so adding a command
 * touches no shared file. A '-' in a command name is '_' in the symbol. */
#ifndef TEPPICH_CLI_H
#define TEPPICH_CLI_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
  const char *name;
  const char *summary;
  /* argv[0] is the command name; returns the exit status (spec section 5). */
  int (*run)(int argc, char **argv);
} cli_command;

/* True if argv holds -h or --help. */
bool cli_wants_help(int argc, char **argv);

/* Prints "teppich: <message>" and a newline on stderr, returns status. */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal number / finite real in [lo, hi]; false if the
 * text is not exactly that. */
bool cli_parse_long(const char *text, long lo, long hi, long *out);
bool cli_parse_double(const char *text, double lo, double hi, double *out);
/* "WIDTHxHEIGHT", each 16..8192 (a camera resolution); false otherwise. */
bool cli_parse_size(const char *text, long *w, long *h);

#endif
