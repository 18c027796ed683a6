/* cli: helpers shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return true;
  return false;
}

int cli_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("teppich: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return status;
}

bool cli_parse_long(const char *text, long lo, long hi, long *out) {
  if (!text || !*text) return false;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool cli_parse_double(const char *text, double lo, double hi, double *out) {
  if (!text || !*text) return false;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || *end || !isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool cli_parse_size(const char *text, long *w, long *h) {
  const char *x = text ? strchr(text, 'x') : NULL;
  if (!x) return false;
  char wbuf[16];
  size_t n = (size_t)(x - text);
  if (n == 0 || n >= sizeof wbuf) return false;
  memcpy(wbuf, text, n);
  wbuf[n] = '\0';
  return cli_parse_long(wbuf, 16, 8192, w) && cli_parse_long(x + 1, 16, 8192, h);
}
