/* marrakech: game transcripts (docs/marrakech.md). Every line of a
 * transcript is checked against the rules while it is replayed, so a
 * transcript that replays is a legal game. */
#include "mk_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MK__T_LINE_MAX = 1024, MK__T_WORDS = 16 };

typedef struct {
  mk_game *game;
  const mk_replay_options *options;
  mk_emit_fn emit;
  void *ctx;
  int line;     /* current line number, from 1 */
  int turns;    /* turns replayed */
  bool started; /* the first turn has been read: no more players */
} replay;

static const char *dir_name(mk_dir d) {
  return (const char *[]){"N", "E", "S", "W"}[d];
}

static void emitf(replay *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void emitf(replay *r, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r->emit(r->ctx, buf);
}

void mk_game_emit_board(const mk_game *g, mk_emit_fn emit, void *ctx) {
  char cells[MK_SQUARES][MK_NAME_MAX + 8];
  int width = 1;
  for (int i = 0; i < MK_SQUARES; i++) {
    mk_cell c = g->board[i];
    if (c.colour < 0)
      snprintf(cells[i], sizeof cells[i], ".");
    else
      snprintf(cells[i], sizeof cells[i], "%s:%d", g->colours[c.colour],
               (int)c.rug);
    int n = (int)strlen(cells[i]);
    if (n > width) width = n;
  }
  for (int y = 0; y < MK_SIZE; y++) {
    char row[MK_SIZE * (MK_NAME_MAX + 9) + 1];
    size_t len = 0;
    for (int x = 0; x < MK_SIZE; x++)
      len +=
          (size_t)snprintf(row + len, sizeof row - len, "%s%-*s", x ? " " : "",
                           x + 1 < MK_SIZE ? width : 0, cells[y * MK_SIZE + x]);
    emit(ctx, row);
  }
}

static tp_status bad(replay *r, tp_error *err, tp_status st, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
static tp_status bad(replay *r, tp_error *err, tp_status st, const char *fmt,
                     ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return tp_error_set(err, st, "line %d: %s", r->line, why);
}

static bool parse_int(const char *text, long lo, long hi, long *out) {
  if (!text || *text < '0' || *text > '9') return false;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* ---- lines ------------------------------------------------------------- */

static tp_status do_player(replay *r, char **w, int n, tp_error *err) {
  if (r->started)
    return bad(r, err, TP_ERR_FORMAT, "players come before the first turn");
  if (n != 3)
    return bad(r, err, TP_ERR_FORMAT, "say: player NAME COLOUR[+COLOUR]");
  if (mk_game_find_player(r->game, w[1]) >= 0)
    return bad(r, err, TP_ERR_INVALID, "player %s is declared twice", w[1]);
  tp_error why;
  const int rugs[2] = {0, 0};
  if (mk_game_set_player(r->game, w[1], w[2], 0, rugs, true, &why) != TP_OK)
    return bad(r, err, TP_ERR_INVALID, "%s", why.text);
  return TP_OK;
}

static tp_status start(replay *r, tp_error *err) {
  tp_error why;
  if (mk_game_deal(r->game, &why) != TP_OK)
    return bad(r, err, TP_ERR_INVALID, "%s", why.text);
  r->started = true;
  mk_game_next_turn(r->game); /* the first player declared begins */
  return TP_OK;
}

static tp_status do_rotate(replay *r, const char *how, tp_error *err) {
  mk_game *g = r->game;
  if (!strcmp(how, "left"))
    mk_game_rotate(g, MK_TURN_LEFT);
  else if (!strcmp(how, "right"))
    mk_game_rotate(g, MK_TURN_RIGHT);
  else if (!strcmp(how, "none"))
    mk_game_rotate(g, MK_TURN_NONE);
  else {
    const char *dirs = "NESW",
               *p = how[0] && !how[1] ? strchr(dirs, how[0]) : NULL;
    if (!p)
      return bad(r, err, TP_ERR_FORMAT,
                 "rotate '%.20s': say left, right, none or N, E, S, W", how);
    if (mk_game_face(g, (mk_dir)(p - dirs), NULL) != TP_OK)
      return bad(r, err, TP_ERR_INVALID,
                 "Assam faces %s and may not turn 180 degrees to %s",
                 dir_name(g->assam.dir), how);
  }
  return TP_OK;
}

static tp_status do_roll(replay *r, const char *text, tp_error *err) {
  long roll;
  const mk_settings *s = &r->game->settings;
  bool face = parse_int(text, 1, 100, &roll);
  for (int i = 0; face && i < s->die_face_count; i++)
    if (s->die_faces[i] == roll) {
      mk_game_move(r->game, roll);
      return TP_OK;
    }
  return bad(r, err, TP_ERR_INVALID, "roll '%.20s' is not a face of the die",
             text);
}

static tp_status do_place(replay *r, char **w, tp_error *err) {
  mk_game *g = r->game;
  long v[4];
  for (int i = 0; i < 4; i++)
    if (!parse_int(w[1 + i], 0, 1000, &v[i]))
      return bad(r, err, TP_ERR_FORMAT, "'%.20s' is not a square coordinate",
                 w[1 + i]);
  int colour = mk_game_find_colour(g, w[0]);
  mk_placement p = {(int)v[0], (int)v[1], (int)v[2], (int)v[3]};
  mk_place_result res =
      colour < 0 ? MK_PLACE_WRONG_PLAYER : mk_game_place(g, colour, p);
  if (res != MK_PLACE_OK)
    return bad(r, err, TP_ERR_INVALID,
               "rug %.20s %ld %ld %ld %ld: %s "
               "(Assam on %d %d)",
               w[0], v[0], v[1], v[2], v[3], mk_place_reason(res), g->assam.x,
               g->assam.y);
  return TP_OK;
}

static void report_payment(replay *r, mk_payment pay) {
  const mk_game *g = r->game;
  if (pay.payer < 0) return;
  if (pay.eliminated)
    emitf(r, "turn %d: %s pays %s %d of %d and is out", r->turns,
          g->players[pay.payer].name, g->players[pay.payee].name, pay.paid,
          pay.owed);
  else
    emitf(r, "turn %d: %s pays %s %d", r->turns, g->players[pay.payer].name,
          g->players[pay.payee].name, pay.paid);
}

/* turn NAME rotate HOW roll N [place COLOUR X1 Y1 X2 Y2] */
static tp_status do_turn(replay *r, char **w, int n, tp_error *err) {
  tp_status st;
  if (!r->started && (st = start(r, err)) != TP_OK) return st;
  mk_game *g = r->game;
  if (mk_game_over(g))
    return bad(r, err, TP_ERR_INVALID, "the game is over: no more turns");
  if (n != 6 && n != 12)
    return bad(r, err, TP_ERR_FORMAT,
               "say: turn NAME rotate HOW roll N "
               "[place COLOUR X1 Y1 X2 Y2]");
  if (strcmp(w[2], "rotate") || strcmp(w[4], "roll") ||
      (n == 12 && strcmp(w[6], "place")))
    return bad(r, err, TP_ERR_FORMAT,
               "say: turn NAME rotate HOW roll N "
               "[place COLOUR X1 Y1 X2 Y2]");
  const char *who = g->players[g->turn].name;
  if (strcmp(w[1], who))
    return bad(r, err, TP_ERR_INVALID, "it is %s's turn, not %.40s's", who,
               w[1]);
  r->turns++;
  if ((st = do_rotate(r, w[3], err)) != TP_OK) return st;
  if ((st = do_roll(r, w[5], err)) != TP_OK) return st;
  mk_payment pay = mk_game_pay(g);
  report_payment(r, pay);
  if (pay.eliminated && n == 12)
    return bad(r, err, TP_ERR_INVALID, "%s is out and places no rug", who);
  if (!pay.eliminated && n == 6)
    return bad(r, err, TP_ERR_INVALID, "%s must place a rug", who);
  if (n == 12 && (st = do_place(r, w + 7, err)) != TP_OK) return st;
  mk_game_next_turn(g);
  if (r->options && r->options->board_each_turn) {
    mk_assam a = mk_game_assam(g);
    emitf(r, "board after turn %d (Assam %d %d %s):", r->turns, a.x, a.y,
          dir_name(a.dir));
    mk_game_emit_board(g, r->emit, r->ctx);
  }
  return TP_OK;
}

static tp_status do_line(replay *r, char *text, tp_error *err) {
  char *hash = strchr(text, '#');
  if (hash) *hash = '\0';
  char *w[MK__T_WORDS];
  int n = 0;
  for (char *p = text; *p;) {
    while (*p == ' ' || *p == '\t' || *p == '\r')
      *p++ = '\0';
    if (!*p) break;
    if (n == MK__T_WORDS)
      return bad(r, err, TP_ERR_FORMAT, "too many words on the line");
    w[n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r')
      p++;
  }
  if (n == 0) return TP_OK;
  if (!strcmp(w[0], "player")) return do_player(r, w, n, err);
  if (!strcmp(w[0], "turn")) return do_turn(r, w, n, err);
  if (!strcmp(w[0], "board") && n == 1) {
    emitf(r, "board after turn %d:", r->turns);
    mk_game_emit_board(r->game, r->emit, r->ctx);
    return TP_OK;
  }
  return bad(r, err, TP_ERR_FORMAT,
             "'%.40s' is not a transcript line (player, turn, board)", w[0]);
}

static void emit_scores(replay *r) {
  const mk_game *g = r->game;
  emitf(r,
        mk_game_over(g) ? "game over after %d turns"
                        : "game not finished after %d turns",
        r->turns);
  mk_score s[MK_MAX_PLAYERS];
  mk_game_score(g, s);
  char winners[MK_MAX_PLAYERS * MK_NAME_MAX + 16] = "winner";
  for (int i = 0; i < g->player_count; i++) {
    emitf(r, "%s %d %d %d", g->players[i].name, s[i].dirhams, s[i].squares,
          s[i].total);
    if (s[i].winner) {
      strcat(winners, " ");
      strcat(winners, g->players[i].name);
    }
  }
  r->emit(r->ctx, winners);
}

tp_status mk_transcript_replay(const char *text, const mk_settings *settings,
                               const mk_replay_options *options,
                               mk_emit_fn emit, void *ctx, tp_error *err) {
  replay r = {0};
  r.game = mk_game_create(settings, 0);
  if (!r.game)
    return tp_error_set(err, settings ? TP_ERR_INVALID : TP_ERR_NOMEM,
                        "cannot start a game with these settings");
  r.options = options;
  r.emit = emit;
  r.ctx = ctx;
  tp_status st = TP_OK;
  for (const char *p = text; st == TP_OK && *p;) {
    r.line++;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[MK__T_LINE_MAX];
    if (len >= sizeof line)
      st = bad(&r, err, TP_ERR_FORMAT, "line longer than %d bytes",
               MK__T_LINE_MAX - 1);
    else {
      memcpy(line, p, len);
      line[len] = '\0';
      st = do_line(&r, line, err);
    }
    p = nl ? nl + 1 : p + len;
  }
  if (st == TP_OK && !r.started) {
    r.line++;
    st = r.game->player_count ? start(&r, err)
                              : bad(&r, err, TP_ERR_FORMAT,
                                    "no players: the transcript is empty");
  }
  if (st == TP_OK) emit_scores(&r);
  mk_game_destroy(r.game);
  return st;
}

size_t mk_transcript_format_turn(const mk_game *g, const mk_turn_record *t,
                                 char *out, size_t cap) {
  static const char *rot[] = {"none", "left", "right"};
  int n = snprintf(out, cap, "turn %s rotate %s roll %d",
                   g->players[t->player].name,
                   t->faced ? dir_name(t->facing) : rot[t->rotation], t->roll);
  if (n > 0 && (size_t)n < cap && t->placed)
    n += snprintf(out + n, cap - (size_t)n, " place %s %d %d %d %d",
                  mk_game_colour_name(g, t->colour), t->placement.x1,
                  t->placement.y1, t->placement.x2, t->placement.y2);
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}
