/* marrakech: the line protocol of `teppich marrakech query`
 * (docs/marrakech.md). One command line in, one answer out; a bad line is
 * answered "error: <reason>" and changes nothing. */
#include "mk_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MK__MAX_WORDS = 64, MK__LINE_MAX = 4096 };

struct mk_query {
  mk_game *game;
};

mk_query *mk_query_create(const mk_settings *settings, uint64_t seed) {
  mk_query *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->game = mk_game_create(settings, seed);
  if (!q->game) {
    free(q);
    return NULL;
  }
  return q;
}

void mk_query_destroy(mk_query *q) {
  if (!q) return;
  mk_game_destroy(q->game);
  free(q);
}

const mk_game *mk_query_game(const mk_query *q) {
  return q->game;
}

/* ---- the answer buffer ------------------------------------------------- */

typedef struct {
  char *buf;
  size_t len; /* stays < MK_QUERY_ANSWER_MAX */
} answer;

static void say(answer *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(answer *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = MK_QUERY_ANSWER_MAX - a->len;
  int n = vsnprintf(a->buf + a->len, room, fmt, ap);
  va_end(ap);
  if (n > 0) a->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Replaces whatever was said with the error (keeps answers one line). */
static bool fail(answer *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool fail(answer *a, const char *fmt, ...) {
  char why[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  /* Echoed input may hold control bytes: keep the answer one clean line. */
  for (char *c = why; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  a->len = 0;
  say(a, "error: %s\n", why);
  return false;
}

/* ---- words and numbers ------------------------------------------------- */

typedef struct {
  char *w[MK__MAX_WORDS];
  int n;
} words;

static bool parse_num(const char *text, long lo, long hi, long *out) {
  if (!text || !*text) return false;
  const char *s = text[0] == '-' || text[0] == '+' ? text + 1 : text;
  if (*s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

static bool parse_dir(const char *text, mk_dir *out) {
  static const char names[] = "NESW";
  if (!text[0] || text[1]) return false;
  const char *p = strchr(names, text[0]);
  if (!p) return false;
  *out = (mk_dir)(p - names);
  return true;
}

static const char *dir_name(mk_dir d) {
  return (const char *[]){"N", "E", "S", "W"}[d];
}

static bool parse_coords(answer *a, char *const *w, mk_placement *p) {
  long v[4];
  for (int i = 0; i < 4; i++)
    if (!parse_num(w[i], -1000, 1000, &v[i]))
      return fail(a, "'%.40s' is not a square coordinate", w[i]);
  *p = (mk_placement){(int)v[0], (int)v[1], (int)v[2], (int)v[3]};
  return true;
}

static void say_assam(answer *a, const mk_game *g) {
  mk_assam s = mk_game_assam(g);
  say(a, "%d %d %s\n", s.x, s.y, dir_name(s.dir));
}

/* ---- the commands ------------------------------------------------------ */

/* "red:4" -> colour name and number; "." -> empty. */
static bool parse_cell(const char *tok, char name[MK_NAME_MAX], long *rug) {
  if (!strcmp(tok, ".")) {
    name[0] = '\0';
    return true;
  }
  const char *colon = strchr(tok, ':');
  if (!colon || !mk__valid_name(tok, (size_t)(colon - tok))) return false;
  memcpy(name, tok, (size_t)(colon - tok));
  name[colon - tok] = '\0';
  return parse_num(colon + 1, 0, MK_MAX_RUG_ID, rug) && colon[1] != '-' &&
         colon[1] != '+';
}

static bool cmd_board(mk_game *g, const words *w, answer *a) {
  if (w->n == 1) {
    for (int i = 0; i < MK_SQUARES; i++) {
      mk_cell c = g->board[i];
      const char *sep = i + 1 < MK_SQUARES ? " " : "\n";
      if (c.colour < 0)
        say(a, ".%s", sep);
      else
        say(a, "%s:%d%s", g->colours[c.colour], (int)c.rug, sep);
    }
    return true;
  }
  if (w->n != 1 + MK_SQUARES)
    return fail(a, "board needs %d squares, got %d", MK_SQUARES, w->n - 1);
  char names[MK_SQUARES][MK_NAME_MAX];
  long rugs[MK_SQUARES];
  for (int i = 0; i < MK_SQUARES; i++)
    if (!parse_cell(w->w[1 + i], names[i], &rugs[i]))
      return fail(a, "square %d: '%.40s' is not . or colour:number", i,
                  w->w[1 + i]);
  mk_game before = *g;
  mk_game_clear_board(g);
  mk__compact_colours(g);
  tp_error err;
  for (int i = 0; i < MK_SQUARES; i++) {
    int c = names[i][0] ? mk_game_colour(g, names[i]) : -1;
    if (names[i][0] && c < 0) {
      *g = before;
      return fail(a, "too many colours (at most %d)", MK_MAX_COLOURS);
    }
    mk_game_set_cell(g, i % MK_SIZE, i / MK_SIZE, c, (int32_t)rugs[i], NULL);
  }
  if (mk_game_check_board(g, &err) != TP_OK) {
    *g = before;
    return fail(a, "%s", err.text);
  }
  say(a, "ok\n");
  return true;
}

static bool cmd_assam(mk_game *g, const words *w, answer *a) {
  if (w->n == 1) {
    say_assam(a, g);
    return true;
  }
  long x, y;
  mk_dir d;
  if (w->n != 4 || !parse_num(w->w[1], 0, MK_SIZE - 1, &x) ||
      !parse_num(w->w[2], 0, MK_SIZE - 1, &y) || !parse_dir(w->w[3], &d))
    return fail(a, "usage: assam X Y N|E|S|W with X, Y in 0..6");
  mk_game_set_assam(g, (int)x, (int)y, d, NULL);
  say(a, "ok\n");
  return true;
}

/* RUGS is one count (split over two colours, the first gets the odd one)
 * or A+B per colour. */
static bool parse_rugs(const char *text, int colours, int rugs[2]) {
  const char *plus = strchr(text, '+');
  long a, b;
  if (plus) {
    char first[16];
    size_t n = (size_t)(plus - text);
    if (n == 0 || n >= sizeof first || colours != 2) return false;
    memcpy(first, text, n);
    first[n] = '\0';
    if (!parse_num(first, 0, 1000, &a) || !parse_num(plus + 1, 0, 1000, &b) ||
        plus[1] == '+' || plus[1] == '-')
      return false;
    rugs[0] = (int)a;
    rugs[1] = (int)b;
    return true;
  }
  if (!parse_num(text, 0, 2000, &a) || text[0] == '-' || text[0] == '+')
    return false;
  rugs[0] = colours == 2 ? (int)(a - a / 2) : (int)a;
  rugs[1] = colours == 2 ? (int)(a / 2) : 0;
  return true;
}

static bool cmd_player(mk_game *g, const words *w, answer *a) {
  if (w->n != 6)
    return fail(a, "usage: player NAME COLOUR[+COLOUR] DIRHAMS RUGS in|out");
  long dirhams;
  int rugs[2];
  int colours = strchr(w->w[2], '+') ? 2 : 1;
  if (!parse_num(w->w[3], 0, 1000000, &dirhams) || w->w[3][0] == '-')
    return fail(a, "'%.40s' is not a number of dirhams (0..1000000)", w->w[3]);
  if (!parse_rugs(w->w[4], colours, rugs))
    return fail(a,
                "'%.40s' is not a number of rugs (N, or A+B for two "
                "colours)",
                w->w[4]);
  bool in = !strcmp(w->w[5], "in");
  if (!in && strcmp(w->w[5], "out"))
    return fail(a, "'%.40s': say in or out", w->w[5]);
  tp_error err;
  if (mk_game_set_player(g, w->w[1], w->w[2], (int)dirhams, rugs, in, &err) !=
      TP_OK)
    return fail(a, "%s", err.text);
  say(a, "ok\n");
  return true;
}

static bool cmd_players(mk_game *g, const words *w, answer *a) {
  if (w->n != 1) return fail(a, "usage: players");
  for (int i = 0; i < g->player_count; i++) {
    const mk_player *p = &g->players[i];
    say(a, "%s %s%s%s %d %d", p->name, g->colours[p->colours[0]],
        p->colour_count == 2 ? "+" : "",
        p->colour_count == 2 ? g->colours[p->colours[1]] : "", p->dirhams,
        p->rugs_left[0]);
    if (p->colour_count == 2) say(a, "+%d", p->rugs_left[1]);
    say(a, " %s\n", p->in ? "in" : "out");
  }
  say(a, "end\n");
  return true;
}

static bool cmd_turn(mk_game *g, const words *w, answer *a) {
  if (w->n == 1) {
    say(a, "%s\n", g->turn < 0 ? "none" : g->players[g->turn].name);
    return true;
  }
  if (w->n != 2) return fail(a, "usage: turn NAME");
  int p = mk_game_find_player(g, w->w[1]);
  if (p < 0) return fail(a, "no player named '%.40s'", w->w[1]);
  tp_error err;
  if (mk_game_set_turn(g, p, &err) != TP_OK) return fail(a, "%s", err.text);
  say(a, "ok\n");
  return true;
}

static bool cmd_next(mk_game *g, const words *w, answer *a) {
  if (w->n != 1) return fail(a, "usage: next");
  if (g->player_count == 0) return fail(a, "no players declared");
  int p = mk_game_next_turn(g);
  say(a, "%s\n", p < 0 ? "none" : g->players[p].name);
  return true;
}

static bool cmd_move(mk_game *g, const words *w, answer *a) {
  long steps;
  if (w->n != 2 || !parse_num(w->w[1], 0, 1000000000000L, &steps) ||
      w->w[1][0] == '+')
    return fail(a, "usage: move STEPS (a whole number >= 0)");
  mk_game_move(g, steps);
  say_assam(a, g);
  return true;
}

static bool cmd_rotate(mk_game *g, const words *w, answer *a) {
  if (w->n != 2) return fail(a, "usage: rotate left|right|none|N|E|S|W");
  const char *how = w->w[1];
  mk_dir d;
  if (!strcmp(how, "left"))
    mk_game_rotate(g, MK_TURN_LEFT);
  else if (!strcmp(how, "right"))
    mk_game_rotate(g, MK_TURN_RIGHT);
  else if (!strcmp(how, "none"))
    mk_game_rotate(g, MK_TURN_NONE);
  else if (!parse_dir(how, &d))
    return fail(a, "'%.40s': rotate left, right, none or to N, E, S, W", how);
  else if (!mk_game_can_face(g, d))
    return fail(a, "Assam may not turn 180 degrees (only on the first turn)");
  else
    mk_game_face(g, d, NULL);
  say_assam(a, g);
  return true;
}

static bool cmd_payment(mk_game *g, const words *w, answer *a, bool apply) {
  if (w->n != 1) return fail(a, "usage: %s", w->w[0]);
  if (g->turn < 0) return fail(a, "nobody's turn: say turn NAME first");
  mk_payment p = apply ? mk_game_pay(g) : mk_game_price(g);
  if (p.payer < 0)
    say(a, "none\n");
  else
    say(a, "%s %s %d\n", g->players[p.payer].name, g->players[p.payee].name,
        p.paid);
  return true;
}

static bool cmd_legal(mk_game *g, const words *w, answer *a) {
  mk_placement p;
  if (w->n != 5) return fail(a, "usage: legal X1 Y1 X2 Y2");
  if (!parse_coords(a, w->w + 1, &p)) return false;
  mk_place_result r = mk_game_check_place(g, -1, p);
  if (r == MK_PLACE_OK)
    say(a, "yes\n");
  else
    say(a, "no %s\n", mk_place_reason(r));
  return true;
}

static bool cmd_legal_all(mk_game *g, const words *w, answer *a) {
  if (w->n != 1) return fail(a, "usage: legal-all");
  mk_placement p[MK_MAX_PLACEMENTS];
  int n = mk_game_legal_placements(g, p);
  for (int i = 0; i < n; i++)
    say(a, "%d %d %d %d\n", p[i].x1, p[i].y1, p[i].x2, p[i].y2);
  say(a, "end\n");
  return true;
}

static bool cmd_place(mk_game *g, const words *w, answer *a) {
  mk_placement p;
  if (w->n != 6) return fail(a, "usage: place COLOUR X1 Y1 X2 Y2");
  if (!mk__valid_name(w->w[1], strlen(w->w[1])))
    return fail(a, "'%.40s' is not a colour name", w->w[1]);
  if (!parse_coords(a, w->w + 2, &p)) return false;
  int colour = mk_game_find_colour(g, w->w[1]);
  /* A colour nobody has is simply not the current player's. */
  bool playing = g->turn >= 0 && g->players[g->turn].in;
  mk_place_result r = colour >= 0 ? mk_game_place(g, colour, p)
                      : playing   ? MK_PLACE_WRONG_PLAYER
                                  : MK_PLACE_NO_TURN;
  if (r == MK_PLACE_OK)
    say(a, "ok\n");
  else
    say(a, "no %s\n", mk_place_reason(r));
  return true;
}

static bool cmd_score(mk_game *g, const words *w, answer *a) {
  if (w->n != 1) return fail(a, "usage: score");
  mk_score s[MK_MAX_PLAYERS];
  mk_game_score(g, s);
  for (int i = 0; i < g->player_count; i++)
    say(a, "%s %d %d %d\n", g->players[i].name, s[i].dirhams, s[i].squares,
        s[i].total);
  say(a, "winner");
  for (int i = 0; i < g->player_count; i++)
    if (s[i].winner) say(a, " %s", g->players[i].name);
  say(a, "\n");
  return true;
}

static bool cmd_simple(mk_game *g, const words *w, answer *a) {
  if (w->n != 1) return fail(a, "usage: %s", w->w[0]);
  if (!strcmp(w->w[0], "reset")) {
    mk_game_reset(g);
    say(a, "ok\n");
  } else { /* over */
    say(a, "%s\n", mk_game_over(g) ? "yes" : "no");
  }
  return true;
}

typedef bool (*command_fn)(mk_game *, const words *, answer *);

static bool cmd_pay(mk_game *g, const words *w, answer *a) {
  return cmd_payment(g, w, a, true);
}
static bool cmd_price(mk_game *g, const words *w, answer *a) {
  return cmd_payment(g, w, a, false);
}

static const struct {
  const char *name;
  command_fn run;
} commands[] = {
    {"board", cmd_board},   {"assam", cmd_assam},
    {"player", cmd_player}, {"players", cmd_players},
    {"turn", cmd_turn},     {"next", cmd_next},
    {"move", cmd_move},     {"rotate", cmd_rotate},
    {"payment", cmd_pay},   {"price", cmd_price},
    {"legal", cmd_legal},   {"legal-all", cmd_legal_all},
    {"place", cmd_place},   {"score", cmd_score},
    {"over", cmd_simple},   {"reset", cmd_simple},
};

static bool split(char *line, words *w) {
  w->n = 0;
  for (char *p = line; *p;) {
    while (*p == ' ' || *p == '\t' || *p == '\r')
      *p++ = '\0';
    if (!*p) break;
    if (w->n == MK__MAX_WORDS) return false;
    w->w[w->n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r')
      p++;
  }
  return true;
}

size_t mk_query_line(mk_query *q, const char *line,
                     char out[MK_QUERY_ANSWER_MAX]) {
  answer a = {out, 0};
  out[0] = '\0';
  char copy[MK__LINE_MAX];
  size_t len = strlen(line);
  words w;
  if (len >= sizeof copy) {
    fail(&a, "line longer than %d bytes", MK__LINE_MAX - 1);
    return a.len;
  }
  memcpy(copy, line, len + 1);
  if (!split(copy, &w)) {
    fail(&a, "more than %d words on the line", MK__MAX_WORDS);
    return a.len;
  }
  if (w.n == 0) {
    fail(&a, "empty line: say a command (board, assam, player, turn, move, "
             "rotate, payment, legal, legal-all, place, score, reset)");
    return a.len;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(commands[i].name, w.w[0])) {
      commands[i].run(q->game, &w, &a);
      return a.len;
    }
  fail(&a, "unknown command '%.40s'", w.w[0]);
  return a.len;
}
