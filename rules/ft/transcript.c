/* ft transcript: read (replay) and write the line-based game record. */
#include "ft.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINE_MAX_CHARS = 4096, MAX_TOKENS = 80 };

struct ft_transcript {
  ft_rules rules;
  char name[256];
  char *text;
  size_t len, pos, good;
  int line;
  unsigned flags;
  bool truncated, have_header, final_pending, final_done;
  ft_players players;
  ft_game *game;
};

typedef struct {
  int n;
  char *tok[MAX_TOKENS];
} tokens;

tp_status ft_transcript_open(const ft_rules *rules, const char *name,
                             const char *text, size_t len, unsigned flags,
                             ft_transcript **out, tp_error *err) {
  *out = NULL;
  ft_transcript *t = calloc(1, sizeof *t);
  char *copy = malloc(len + 1);
  if (!t || !copy) {
    free(t);
    free(copy);
    return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", name);
  }
  if (rules)
    t->rules = *rules;
  else
    ft_rules_default(&t->rules);
  snprintf(t->name, sizeof t->name, "%s", name ? name : "transcript");
  memcpy(copy, text, len);
  copy[len] = '\0';
  t->text = copy;
  t->len = len;
  t->flags = flags;
  *out = t;
  return TP_OK;
}

void ft_transcript_close(ft_transcript *t) {
  if (!t) return;
  ft_game_destroy(t->game);
  free(t->text);
  free(t);
}

const ft_game *ft_transcript_game(const ft_transcript *t) {
  return t->game;
}
size_t ft_transcript_good_bytes(const ft_transcript *t) {
  return t->good;
}
bool ft_transcript_truncated(const ft_transcript *t) {
  return t->truncated;
}

/* ---- small parsers ---- */

static bool parse_int(const char *s, int lo, int hi, int *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi || (*s == '+' || *s == ' '))
    return false;
  *out = (int)v;
  return true;
}

static bool parse_double(const char *s, double *out) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || v != v || v > 1e9 || v < -1e9) return false;
  *out = v;
  return true;
}

/* Splits "key=value" in place; false if there is no '='. */
static bool split_eq(char *tok, char **key, char **value) {
  char *eq = strchr(tok, '=');
  if (!eq) return false;
  *eq = '\0';
  *key = tok;
  *value = eq + 1;
  return true;
}

/* Parses "1,2,3" (or "-" for none) into ints in lo..hi. */
static int parse_list(char *s, int lo, int hi, int *out, int max) {
  if (!strcmp(s, "-")) return 0;
  int n = 0;
  for (char *p = s;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = '\0';
    if (n == max || !parse_int(p, lo, hi, &out[n])) return -1;
    n++;
    if (!comma) return n;
    p = comma + 1;
  }
}

static tp_status bad(tp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static tp_status bad(tp_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->text, sizeof err->text, fmt, ap);
  va_end(ap);
  return TP_ERR_FORMAT;
}

static tp_status need_game(const ft_transcript *t, const char *what,
                           tp_error *err) {
  if (!t->game) return bad(err, "'%s' before the 'players' line", what);
  return TP_OK;
}

static int player_by_name(const ft_players *players, const char *name,
                          tp_error *err) {
  int p = ft_players_by_name(players, name);
  if (p < 0) bad(err, "unknown player '%.40s'", name);
  return p;
}

/* ---- line handlers: each returns the event kind or FT_EV_END (none) ---- */

static tp_status on_players(ft_transcript *t, tokens *tk, ft_event *ev,
                            tp_error *err) {
  if (t->game) return bad(err, "a second 'players' line");
  if (tk->n != 2) return bad(err, "write 'players anna=red,ben=blue'");
  ft_players p;
  tp_status st = ft_players_parse(tk->tok[1], &p, err);
  if (st == TP_OK) st = ft_players_check_game(&p, &t->rules, err);
  if (st == TP_OK) st = ft_game_create(&t->rules, &p, 0, &t->game, err);
  if (st != TP_OK) return st;
  t->players = p;
  ev->kind = FT_EV_PLAYERS;
  return TP_OK;
}

static tp_status on_first_layer(ft_transcript *t, tokens *tk, tp_error *err) {
  tp_status st = need_game(t, "first-layer", err);
  if (st != TP_OK) return st;
  if (tk->n != 2) return bad(err, "write 'first-layer NAME'");
  if (ft_game_phase(t->game) != FT_PHASE_GENIES)
    return bad(err, "'first-layer' must come before the genies");
  int p = player_by_name(&t->players, tk->tok[1], err);
  if (p < 0) return TP_ERR_FORMAT;
  ft_game *g;
  st = ft_game_create(&t->rules, &t->players, p, &g, err);
  if (st != TP_OK) return st;
  ft_game_destroy(t->game);
  t->game = g;
  return TP_OK;
}

/* NAME=G,G... for every player exactly once, from token `first` on. */
static tp_status parse_genies(const ft_players *players, tokens *tk, int first,
                              ft_hand hands[FT_MAX_PLAYERS], tp_error *err) {
  bool given[FT_MAX_PLAYERS] = {false};
  memset(hands, 0, FT_MAX_PLAYERS * sizeof hands[0]);
  for (int i = first; i < tk->n; i++) {
    char *name, *list;
    if (!split_eq(tk->tok[i], &name, &list))
      return bad(err, "'%.40s' is not NAME=GENIE,GENIE", tk->tok[i]);
    int p = player_by_name(players, name, err);
    if (p < 0) return TP_ERR_FORMAT;
    if (given[p]) return bad(err, "genies of %s given twice", name);
    given[p] = true;
    hands[p].n = parse_list(list, 1, 99, hands[p].values, FT_MAX_GENIES);
    if (hands[p].n <= 0)
      return bad(err, "genies of %s: '%.40s' is not a list of genies", name,
                 list);
  }
  for (int p = 0; p < players->n_players; p++)
    if (!given[p])
      return bad(err, "genies of %s missing", players->players[p].name);
  return TP_OK;
}

static tp_status on_genies(ft_transcript *t, tokens *tk, ft_event *ev,
                           tp_error *err) {
  tp_status st = need_game(t, "genies", err);
  if (st != TP_OK) return st;
  ft_hand hands[FT_MAX_PLAYERS];
  st = parse_genies(&t->players, tk, 1, hands, err);
  if (st != TP_OK) return st;
  ev->kind = FT_EV_GENIES;
  return ft_game_set_genies(t->game, hands, err);
}

static tp_status on_round(ft_transcript *t, tokens *tk, ft_event *ev,
                          tp_error *err) {
  tp_status st = need_game(t, "round", err);
  if (st != TP_OK) return st;
  int round;
  if (tk->n < 2 || tk->n > 3 || !parse_int(tk->tok[1], 1, 99, &round))
    return bad(err, "write 'round N layer=NAME'");
  if (ft_game_phase(t->game) != FT_PHASE_LAYOUT ||
      round != ft_game_round(t->game))
    return bad(err,
               "'round %d' does not fit: the game is in round %d, "
               "waiting for %s",
               round, ft_game_round(t->game),
               ft_phase_name(ft_game_phase(t->game)));
  const char *layer = t->players.players[ft_game_layer(t->game)].name;
  if (tk->n == 3 &&
      (strncmp(tk->tok[2], "layer=", 6) || strcmp(tk->tok[2] + 6, layer)))
    return bad(err, "'%.40s' does not fit: %s lays out round %d", tk->tok[2],
               layer, round);
  ev->kind = FT_EV_ROUND;
  return TP_OK;
}

static tp_status parse_card(char *tok, ft_card *c, tp_error *err) {
  char *id, *type;
  memset(c, 0, sizeof *c);
  if (!split_eq(tok, &id, &type))
    return bad(err, "'%.40s' is not ID=TYPE", tok);
  char *at = strchr(type, '@');
  if (at) {
    *at = '\0';
    char *comma = strchr(at + 1, ',');
    if (!comma) return bad(err, "card %.20s: position is not @X,Y", id);
    *comma = '\0';
    if (!parse_double(at + 1, &c->x_mm) || !parse_double(comma + 1, &c->y_mm))
      return bad(err, "card %.20s: position is not @X,Y in mm", id);
    c->has_pos = true;
  }
  int ty = ft_card_type_parse(type);
  if (!parse_int(id, 0, 1000000, &c->id))
    return bad(err, "card id '%.20s' is not a number 0..1000000", id);
  if (ty < 0)
    return bad(err,
               "card %d: unknown type '%.30s' (palace, adventure-a..e, "
               "spice-bazaar, carpet-bazaar, camel-bazaar, treasure, lamp, "
               "desert)",
               c->id, type);
  c->type = (ft_card_type)ty;
  return TP_OK;
}

static tp_status on_layout(ft_transcript *t, tokens *tk, ft_event *ev,
                           tp_error *err) {
  tp_status st = need_game(t, "layout", err);
  if (st != TP_OK) return st;
  ft_card cards[FT_MAX_CARDS];
  if (tk->n - 1 > FT_MAX_CARDS) return bad(err, "too many cards");
  for (int i = 1; i < tk->n; i++) {
    st = parse_card(tk->tok[i], &cards[i - 1], err);
    if (st != TP_OK) return st;
  }
  ev->kind = FT_EV_LAYOUT;
  return ft_game_layout(t->game, cards, tk->n - 1, err);
}

static tp_status on_flight(ft_transcript *t, tokens *tk, ft_event *ev,
                           tp_error *err) {
  tp_status st = need_game(t, "flight", err);
  if (st != TP_OK) return st;
  ft_landing ls[FT_MAX_CARPETS];
  int ids[FT_MAX_CARPETS][FT_MAX_CARDS];
  if (tk->n - 1 > FT_MAX_CARPETS) return bad(err, "too many carpets");
  for (int i = 1; i < tk->n; i++) {
    char *colour, *list;
    if (!split_eq(tk->tok[i], &colour, &list))
      return bad(err, "'%.40s' is not COLOUR=CARD,CARD (or COLOUR=-)",
                 tk->tok[i]);
    int n = parse_list(list, 0, 1000000, ids[i - 1], FT_MAX_CARDS);
    if (n < 0)
      return bad(err, "carpet %.30s: '%.40s' is not a list of card ids", colour,
                 list);
    ls[i - 1] = (ft_landing){colour, ids[i - 1], n};
  }
  ev->kind = FT_EV_FLIGHT;
  return ft_game_flight(t->game, ls, tk->n - 1, &ev->flight, err);
}

/* Parses NAME=N pairs into per-player values (0 when absent). */
static tp_status parse_player_values(const ft_players *players, tokens *tk,
                                     int first, int values[FT_MAX_PLAYERS],
                                     tp_error *err) {
  bool given[FT_MAX_PLAYERS] = {false};
  memset(values, 0, FT_MAX_PLAYERS * sizeof values[0]);
  for (int i = first; i < tk->n; i++) {
    char *name, *num;
    if (!split_eq(tk->tok[i], &name, &num))
      return bad(err, "'%.40s' is not NAME=NUMBER", tk->tok[i]);
    int p = player_by_name(players, name, err);
    if (p < 0) return TP_ERR_FORMAT;
    if (given[p]) return bad(err, "%s is given twice", name);
    given[p] = true;
    if (!parse_int(num, 0, 99, &values[p]))
      return bad(err, "%s=%.20s: not a number 0..99", name, num);
  }
  return TP_OK;
}

static tp_status on_reveal(ft_transcript *t, tokens *tk, ft_event *ev,
                           tp_error *err) {
  tp_status st = need_game(t, "reveal", err);
  if (st != TP_OK) return st;
  int card, genies[FT_MAX_PLAYERS];
  if (tk->n < 2 || !parse_int(tk->tok[1], 0, 1000000, &card))
    return bad(err, "write 'reveal CARD NAME=GENIE NAME=GENIE'");
  st = parse_player_values(&t->players, tk, 2, genies, err);
  if (st != TP_OK) return st;
  ev->kind = FT_EV_CONTEST;
  return ft_game_reveal(t->game, card, genies, &ev->contest, err);
}

static tp_status on_lamps(ft_transcript *t, tokens *tk, ft_event *ev,
                          tp_error *err) {
  tp_status st = need_game(t, "lamps", err);
  if (st != TP_OK) return st;
  int lamps[FT_MAX_PLAYERS];
  st = parse_player_values(&t->players, tk, 1, lamps, err);
  if (st != TP_OK) return st;
  ev->kind = FT_EV_ROUND_END;
  st = ft_game_round_end(t->game, lamps, &ev->round_end, err);
  if (st == TP_OK && ft_game_phase(t->game) == FT_PHASE_OVER)
    t->final_pending = true;
  return st;
}

static tp_status dispatch(ft_transcript *t, tokens *tk, ft_event *ev,
                          tp_error *err) {
  const char *w = tk->tok[0];
  if (!t->have_header) {
    if (tk->n != 2 || strcmp(w, "teppich-transcript") ||
        strcmp(tk->tok[1], "1"))
      return bad(err, "not a teppich transcript: the first line must be "
                      "'teppich-transcript 1'");
    t->have_header = true;
    return TP_OK;
  }
  if (!strcmp(w, "players")) return on_players(t, tk, ev, err);
  if (!strcmp(w, "first-layer")) return on_first_layer(t, tk, err);
  if (!strcmp(w, "genies")) return on_genies(t, tk, ev, err);
  if (!strcmp(w, "round")) return on_round(t, tk, ev, err);
  if (!strcmp(w, "layout")) return on_layout(t, tk, ev, err);
  if (!strcmp(w, "flight")) return on_flight(t, tk, ev, err);
  if (!strcmp(w, "reveal")) return on_reveal(t, tk, ev, err);
  if (!strcmp(w, "lamps")) return on_lamps(t, tk, ev, err);
  if (t->game && ft_game_phase(t->game) == FT_PHASE_OVER)
    return bad(err, "'%.30s' after the end of the game", w);
  return bad(err,
             "unknown line '%.30s' (players, first-layer, genies, "
             "round, layout, flight, reveal, lamps)",
             w);
}

static void tokenize(char *line, tokens *tk) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  tk->n = 0;
  for (char *p = line; *p && tk->n < MAX_TOKENS;) {
    while (*p == ' ' || *p == '\t' || *p == '\r')
      *p++ = '\0';
    if (!*p) break;
    tk->tok[tk->n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r')
      p++;
  }
}

/* Runs one line; *ev->kind stays FT_EV_END when it makes no event. */
static tp_status run_line(ft_transcript *t, char *line, size_t n, ft_event *ev,
                          tp_error *err) {
  tokens tk;
  if (n > LINE_MAX_CHARS)
    return bad(err, "longer than %d characters", LINE_MAX_CHARS);
  if (memchr(line, '\0', n)) return bad(err, "contains a NUL byte");
  tokenize(line, &tk);
  if (tk.n == MAX_TOKENS) return bad(err, "more than %d words", MAX_TOKENS - 1);
  if (tk.n == 0) return TP_OK;
  if (t->game && ft_game_phase(t->game) == FT_PHASE_OVER && t->final_done)
    return bad(err, "'%.30s' after the end of the game", tk.tok[0]);
  /* The game checks every move before it changes anything. */
  return dispatch(t, &tk, ev, err);
}

static tp_status emit_final(ft_transcript *t, ft_event *ev, tp_error *err) {
  t->final_pending = false;
  t->final_done = true;
  ev->kind = FT_EV_FINAL;
  return ft_game_final(t->game, &ev->final, err);
}

tp_status ft_transcript_next(ft_transcript *t, ft_event *ev, tp_error *err) {
  memset(ev, 0, sizeof *ev);
  if (t->final_pending) return emit_final(t, ev, err);
  char *line = malloc(LINE_MAX_CHARS + 2);
  if (!line)
    return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", t->name);
  tp_status st = TP_OK;
  while (st == TP_OK && ev->kind == FT_EV_END && t->pos < t->len) {
    const char *start = t->text + t->pos;
    const char *nl = memchr(start, '\n', t->len - t->pos);
    size_t n = nl ? (size_t)(nl - start) : t->len - t->pos;
    t->line++;
    tp_error inner;
    memcpy(line, start, n > LINE_MAX_CHARS ? LINE_MAX_CHARS + 1 : n);
    line[n > LINE_MAX_CHARS ? LINE_MAX_CHARS + 1 : n] = '\0';
    ev->line = t->line;
    if (!nl && (t->flags & FT_TRANSCRIPT_ALLOW_TRUNCATED)) {
      /* Writers end every line with '\n': without it the line may be cut
       * anywhere, even where it still parses. Skip it. */
      t->truncated = strspn(line, " \t\r") < n;
      t->pos = t->len;
      memset(ev, 0, sizeof *ev);
      break;
    }
    st = run_line(t, line, n, ev, &inner);
    if (st != TP_OK) {
      tp_error_set(err, st, "%s: line %d: %s", t->name, t->line, inner.text);
      memset(ev, 0, sizeof *ev);
      t->line--;
      break;
    }
    t->pos += n + (nl ? 1 : 0);
    t->good = t->pos;
  }
  free(line);
  return st;
}

/* ---- writers ---- */

typedef struct {
  char *buf;
  size_t cap, used;
} out_buf;

static void put(out_buf *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(out_buf *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->used < o->cap ? o->buf + o->used : NULL,
                    o->used < o->cap ? o->cap - o->used : 0, fmt, ap);
  va_end(ap);
  if (n > 0) o->used += (size_t)n;
}

static out_buf start(char *buf, size_t cap) {
  if (buf && cap) buf[0] = '\0';
  return (out_buf){buf, buf ? cap : 0, 0};
}

size_t ft_transcript_write_header(char *buf, size_t cap,
                                  const ft_players *players, int first_layer) {
  out_buf o = start(buf, cap);
  char spec[FT_MAX_PLAYERS * (FT_MAX_CARPETS_PER_PLAYER + 1) * FT_NAME_MAX];
  ft_players_format(players, spec, sizeof spec);
  put(&o, "teppich-transcript 1\nplayers %s\n", spec);
  if (first_layer >= 0 && first_layer < players->n_players)
    put(&o, "first-layer %s\n", players->players[first_layer].name);
  return o.used;
}

size_t ft_transcript_write_genies(char *buf, size_t cap,
                                  const ft_players *players,
                                  const ft_hand hands[FT_MAX_PLAYERS]) {
  out_buf o = start(buf, cap);
  put(&o, "genies");
  for (int p = 0; p < players->n_players; p++) {
    put(&o, " %s=", players->players[p].name);
    for (int i = 0; i < hands[p].n; i++)
      put(&o, "%s%d", i ? "," : "", hands[p].values[i]);
  }
  put(&o, "\n");
  return o.used;
}

size_t ft_transcript_write_round(char *buf, size_t cap, int round,
                                 const char *layer) {
  out_buf o = start(buf, cap);
  put(&o, "round %d layer=%s\n", round, layer);
  return o.used;
}

size_t ft_transcript_write_layout(char *buf, size_t cap, const ft_card *cards,
                                  int n_cards) {
  out_buf o = start(buf, cap);
  put(&o, "layout");
  for (int i = 0; i < n_cards; i++) {
    put(&o, " %d=%s", cards[i].id, ft_card_type_name(cards[i].type));
    if (cards[i].has_pos) put(&o, "@%.1f,%.1f", cards[i].x_mm, cards[i].y_mm);
  }
  put(&o, "\n");
  return o.used;
}

size_t ft_transcript_write_flight(char *buf, size_t cap,
                                  const ft_landing *landings, int n_landings) {
  out_buf o = start(buf, cap);
  put(&o, "flight");
  for (int i = 0; i < n_landings; i++) {
    put(&o, " %s=", landings[i].colour);
    if (landings[i].n_cards == 0) put(&o, "-");
    for (int k = 0; k < landings[i].n_cards; k++)
      put(&o, "%s%d", k ? "," : "", landings[i].cards[k]);
  }
  put(&o, "\n");
  return o.used;
}

size_t ft_transcript_write_reveal(char *buf, size_t cap,
                                  const ft_players *players, int card_id,
                                  const int genies[FT_MAX_PLAYERS]) {
  out_buf o = start(buf, cap);
  put(&o, "reveal %d", card_id);
  for (int p = 0; p < players->n_players; p++)
    if (genies[p] > 0) put(&o, " %s=%d", players->players[p].name, genies[p]);
  put(&o, "\n");
  return o.used;
}

size_t ft_transcript_write_lamps(char *buf, size_t cap,
                                 const ft_players *players,
                                 const int lamps[FT_MAX_PLAYERS]) {
  out_buf o = start(buf, cap);
  put(&o, "lamps");
  for (int p = 0; p < players->n_players; p++)
    put(&o, " %s=%d", players->players[p].name, lamps[p]);
  put(&o, "\n");
  return o.used;
}

/* ---- answers (spec section 6) ---- */

/* Tokenizes a copy of `line`; *first is the first NAME=VALUE word. The
 * answer's own word may be left out (`anna=7 ben=3` on the terminal), but
 * a first word without '=' must be it. */
static tp_status answer_tokens(const char *line, const char *word, char *copy,
                               size_t cap, tokens *tk, int *first,
                               tp_error *err) {
  if (!line || strlen(line) >= cap)
    return tp_error_set(err, TP_ERR_FORMAT, "answer line too long or missing");
  strcpy(copy, line);
  char *nl = strchr(copy, '\n');
  if (nl) *nl = '\0';
  tokenize(copy, tk);
  *first = tk->n > 0 && !strchr(tk->tok[0], '=');
  if (*first && strcmp(tk->tok[0], word))
    return tp_error_set(err, TP_ERR_FORMAT, "expected a '%s' line, got '%.40s'",
                        word, tk->tok[0]);
  return TP_OK;
}

tp_status ft_answer_genies(const ft_players *players, const char *line,
                           ft_hand hands[FT_MAX_PLAYERS], tp_error *err) {
  char copy[LINE_MAX_CHARS + 1];
  tokens tk;
  int first;
  tp_status st =
      answer_tokens(line, "genies", copy, sizeof copy, &tk, &first, err);
  return st == TP_OK ? parse_genies(players, &tk, first, hands, err) : st;
}

/* `word NAME=N NAME=N ...`: the reveal and lamps answers. */
static tp_status answer_values(const ft_players *players, const char *line,
                               const char *word, int values[FT_MAX_PLAYERS],
                               tp_error *err) {
  char copy[LINE_MAX_CHARS + 1];
  tokens tk;
  int first;
  tp_status st = answer_tokens(line, word, copy, sizeof copy, &tk, &first, err);
  return st == TP_OK ? parse_player_values(players, &tk, first, values, err)
                     : st;
}

tp_status ft_answer_reveal(const ft_players *players, const char *line,
                           int genies[FT_MAX_PLAYERS], tp_error *err) {
  return answer_values(players, line, "reveal", genies, err);
}

tp_status ft_answer_lamps(const ft_players *players, const char *line,
                          int lamps[FT_MAX_PLAYERS], tp_error *err) {
  return answer_values(players, line, "lamps", lamps, err);
}
