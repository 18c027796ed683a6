/* ft players: the `--players` spec (spec sections 4 and 6). */
#include "ft.h"

#include <stdio.h>
#include <string.h>

static bool name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c >= 0x80;
}

static bool colour_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

/* Copies text[0..n) into dst after checking its characters. */
static tp_status take_token(const char *spec, const char *text, size_t n,
                            bool colour, char dst[FT_NAME_MAX], tp_error *err) {
  const char *what = colour ? "carpet colour" : "player name";
  if (n == 0)
    return tp_error_set(err, TP_ERR_INVALID,
                        "--players '%s': empty %s (write NAME=COLOUR+COLOUR,"
                        "NAME=COLOUR)",
                        spec, what);
  if (n >= FT_NAME_MAX)
    return tp_error_set(err, TP_ERR_INVALID,
                        "--players '%s': %s '%.*s' is longer than %d "
                        "characters",
                        spec, what, (int)n, text, FT_NAME_MAX - 1);
  for (size_t i = 0; i < n; i++)
    if (!(colour ? colour_char : name_char)((unsigned char)text[i]))
      return tp_error_set(err, TP_ERR_INVALID,
                          "--players '%s': %s '%.*s' may only use %s", spec,
                          what, (int)n, text,
                          colour ? "a-z 0-9 _ -" : "letters, digits, _ and -");
  memcpy(dst, text, n);
  dst[n] = '\0';
  return TP_OK;
}

static tp_status check_unique(const char *spec, const ft_players *p,
                              tp_error *err) {
  for (int i = 0; i < p->n_players; i++) {
    const ft_player *a = &p->players[i];
    if (ft_players_by_name(p, a->name) != i)
      return tp_error_set(err, TP_ERR_INVALID,
                          "--players '%s': player '%s' is named twice", spec,
                          a->name);
    for (int c = 0; c < a->n_carpets; c++) {
      int owner = ft_players_by_colour(p, a->carpets[c]);
      bool twice = owner != i;
      for (int d = 0; d < c; d++)
        twice = twice || !strcmp(a->carpets[d], a->carpets[c]);
      if (twice)
        return tp_error_set(err, TP_ERR_INVALID,
                            "--players '%s': carpet '%s' is given twice", spec,
                            a->carpets[c]);
    }
  }
  return TP_OK;
}

/* Parses one NAME=COLOUR[+COLOUR...] of length n. */
static tp_status parse_player(const char *spec, const char *s, size_t n,
                              ft_player *pl, tp_error *err) {
  const char *eq = memchr(s, '=', n);
  if (n == 0) eq = s; /* "anna=red," : report the empty name */
  if (!eq)
    return tp_error_set(err, TP_ERR_INVALID,
                        "--players '%s': '%.*s' lacks '=COLOUR' (write "
                        "anna=red,ben=blue)",
                        spec, (int)n, s);
  tp_status st = take_token(spec, s, (size_t)(eq - s), false, pl->name, err);
  const char *end = s + n;
  for (const char *c = eq + 1; st == TP_OK;) {
    const char *plus = memchr(c, '+', (size_t)(end - c));
    const char *stop = plus ? plus : end;
    if (pl->n_carpets == FT_MAX_CARPETS_PER_PLAYER)
      return tp_error_set(err, TP_ERR_INVALID,
                          "--players '%s': %s has more than %d carpets", spec,
                          pl->name, FT_MAX_CARPETS_PER_PLAYER);
    st = take_token(spec, c, (size_t)(stop - c), true,
                    pl->carpets[pl->n_carpets++], err);
    if (!plus) break;
    c = plus + 1;
  }
  return st;
}

tp_status ft_players_parse(const char *spec, ft_players *out, tp_error *err) {
  ft_players p;
  memset(&p, 0, sizeof p);
  if (!spec || !*spec)
    return tp_error_set(err, TP_ERR_INVALID,
                        "--players is empty (write anna=red,ben=blue)");
  for (const char *c = spec; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) /* keep messages one line */
      return tp_error_set(err, TP_ERR_INVALID,
                          "--players contains a control character (write "
                          "anna=red,ben=blue)");
  const char *s = spec;
  for (tp_status st;;) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    if (p.n_players == FT_MAX_PLAYERS)
      return tp_error_set(err, TP_ERR_INVALID,
                          "--players '%s': more than %d players", spec,
                          FT_MAX_PLAYERS);
    st = parse_player(spec, s, n, &p.players[p.n_players++], err);
    if (st != TP_OK) return st;
    if (!comma) break;
    s = comma + 1;
  }
  tp_status st = check_unique(spec, &p, err);
  if (st == TP_OK) *out = p;
  return st;
}

size_t ft_players_format(const ft_players *p, char *buf, size_t cap) {
  size_t used = 0;
  if (cap) buf[0] = '\0';
  for (int i = 0; i < p->n_players; i++) {
    const ft_player *pl = &p->players[i];
    for (int c = -1; c < pl->n_carpets; c++) {
      const char *sep = c < 0 ? (i ? "," : "") : (c ? "+" : "=");
      const char *txt = c < 0 ? pl->name : pl->carpets[c];
      int n = snprintf(used < cap ? buf + used : NULL,
                       used < cap ? cap - used : 0, "%s%s", sep, txt);
      used += n > 0 ? (size_t)n : 0;
    }
  }
  return used;
}

int ft_players_by_colour(const ft_players *p, const char *colour) {
  for (int i = 0; i < p->n_players; i++)
    for (int c = 0; c < p->players[i].n_carpets; c++)
      if (!strcmp(p->players[i].carpets[c], colour)) return i;
  return -1;
}

int ft_players_by_name(const ft_players *p, const char *name) {
  for (int i = 0; i < p->n_players; i++)
    if (!strcmp(p->players[i].name, name)) return i;
  return -1;
}

tp_status ft_players_check_game(const ft_players *p, const ft_rules *rules,
                                tp_error *err) {
  if (p->n_players < 2 || p->n_players > 4)
    return tp_error_set(err, TP_ERR_INVALID,
                        "a game needs 2 to 4 players, --players names %d",
                        p->n_players);
  int want = rules->carpets[p->n_players];
  for (int i = 0; i < p->n_players; i++)
    if (p->players[i].n_carpets != want)
      return tp_error_set(err, TP_ERR_INVALID,
                          "player %s has %d carpet(s); with %d players each "
                          "player has %d (e.g. %s=%s%s)",
                          p->players[i].name, p->players[i].n_carpets,
                          p->n_players, want, p->players[i].name,
                          p->players[i].carpets[0], want > 1 ? "+yellow" : "");
  return TP_OK;
}
