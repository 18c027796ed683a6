/* watch increment: when a flight frame analysed against the last decided
 * frame (the incremental reference) is analysed again against the layout
 * alone. */
#include <string.h>

#include "watch_internal.h"

static bool has_colour(const char *const *colours, int n, const char *c) {
  for (int i = 0; i < n; i++)
    if (!strcmp(colours[i], c)) return true;
  return false;
}

bool wch_increment_doubtful(const char *const *decided, int n_decided,
                            const char *const *now, int n_now) {
  bool new_colour = false;
  for (int i = 0; i < n_now && !new_colour; i++)
    new_colour = !has_colour(decided, n_decided, now[i]);
  if (!new_colour) return true;
  for (int k = 0; k < n_decided; k++)
    if (!has_colour(now, n_now, decided[k])) return true;
  return false;
}
