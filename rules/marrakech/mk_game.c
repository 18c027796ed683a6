/* marrakech: the game state (players, colours, market, Assam, turn). */
#include "mk_internal.h"

#include <stdlib.h>
#include <string.h>

mk_game *mk_game_create(const mk_settings *settings, uint64_t seed) {
  mk_settings defaults;
  if (!settings) {
    mk_settings_default(&defaults);
    settings = &defaults;
  }
  if (mk_settings_check(settings, NULL) != TP_OK) return NULL;
  mk_game *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->settings = *settings;
  tp_rng_seed(&g->rng, seed);
  mk_game_reset(g);
  return g;
}

void mk_game_destroy(mk_game *g) {
  free(g);
}

void mk_game_reset(mk_game *g) {
  mk_settings settings = g->settings;
  tp_rng rng = g->rng;
  memset(g, 0, sizeof *g);
  g->settings = settings;
  g->rng = rng;
  mk_game_clear_board(g);
  g->assam = (mk_assam){3, 3, MK_N};
  g->turn = -1;
}

void mk_game_copy(mk_game *dst, const mk_game *src) {
  *dst = *src;
}

const mk_settings *mk_game_settings(const mk_game *g) {
  return &g->settings;
}

bool mk__valid_name(const char *name, size_t len) {
  if (len == 0 || len >= MK_NAME_MAX) return false;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return false;
  }
  return true;
}

bool mk__valid_player_name(const char *name, size_t len) {
  if (len == 0 || len >= MK_NAME_MAX) return false;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-' || c >= 0x80))
      return false;
  }
  return true;
}

int mk_game_find_colour(const mk_game *g, const char *name) {
  for (int i = 0; i < g->colour_count; i++)
    if (!strcmp(g->colours[i], name)) return i;
  return -1;
}

int mk_game_colour(mk_game *g, const char *name) {
  if (!mk__valid_name(name, strlen(name))) return -1;
  int found = mk_game_find_colour(g, name);
  if (found >= 0) return found;
  if (g->colour_count == MK_MAX_COLOURS) mk__compact_colours(g);
  if (g->colour_count == MK_MAX_COLOURS) return -1;
  int c = g->colour_count++;
  strcpy(g->colours[c], name);
  g->next_rug[c] = 1;
  return c;
}

const char *mk_game_colour_name(const mk_game *g, int colour) {
  return colour >= 0 && colour < g->colour_count ? g->colours[colour] : "?";
}

int mk__colour_slot(const mk_player *p, int colour) {
  for (int i = 0; i < p->colour_count; i++)
    if (p->colours[i] == colour) return i;
  return -1;
}

int mk_game_colour_owner(const mk_game *g, int colour) {
  if (colour < 0) return -1;
  for (int i = 0; i < g->player_count; i++)
    if (mk__colour_slot(&g->players[i], colour) >= 0) return i;
  return -1;
}

void mk__compact_colours(mk_game *g) {
  bool used[MK_MAX_COLOURS] = {false};
  for (int i = 0; i < MK_SQUARES; i++)
    if (g->board[i].colour >= 0) used[g->board[i].colour] = true;
  for (int p = 0; p < g->player_count; p++)
    for (int k = 0; k < g->players[p].colour_count; k++)
      used[g->players[p].colours[k]] = true;
  int map[MK_MAX_COLOURS], n = 0;
  for (int c = 0; c < g->colour_count; c++) {
    map[c] = used[c] ? n : -1;
    if (!used[c]) continue;
    if (n != c) {
      memcpy(g->colours[n], g->colours[c], MK_NAME_MAX);
      g->next_rug[n] = g->next_rug[c];
    }
    n++;
  }
  g->colour_count = n;
  for (int i = 0; i < MK_SQUARES; i++)
    if (g->board[i].colour >= 0)
      g->board[i].colour = (int8_t)map[g->board[i].colour];
  for (int p = 0; p < g->player_count; p++)
    for (int k = 0; k < g->players[p].colour_count; k++)
      g->players[p].colours[k] = map[g->players[p].colours[k]];
}

/* ---- players ----------------------------------------------------------- */

int mk_game_find_player(const mk_game *g, const char *name) {
  for (int i = 0; i < g->player_count; i++)
    if (!strcmp(g->players[i].name, name)) return i;
  return -1;
}

int mk_game_player_count(const mk_game *g) {
  return g->player_count;
}

const mk_player *mk_game_player(const mk_game *g, int index) {
  return index >= 0 && index < g->player_count ? &g->players[index] : NULL;
}

int mk_game_rugs_left(const mk_player *p) {
  return p->rugs_left[0] + (p->colour_count == 2 ? p->rugs_left[1] : 0);
}

/* Splits "red+yellow" into interned colours; checks nobody else owns them. */
static tp_status parse_colours(mk_game *g, int self, const char *spec,
                               int out[2], int *count, tp_error *err) {
  const char *plus = strchr(spec, '+');
  size_t len0 = plus ? (size_t)(plus - spec) : strlen(spec);
  const char *parts[2] = {spec, plus ? plus + 1 : NULL};
  size_t lens[2] = {len0, plus ? strlen(plus + 1) : 0};
  *count = plus ? 2 : 1;
  char names[2][MK_NAME_MAX];
  for (int k = 0; k < *count; k++) {
    if (!mk__valid_name(parts[k], lens[k]))
      return tp_error_set(
          err, TP_ERR_FORMAT,
          "bad colours '%.40s': one or two colours (a-z 0-9 _ -) "
          "joined by +",
          spec);
    memcpy(names[k], parts[k], lens[k]);
    names[k][lens[k]] = '\0';
  }
  if (*count == 2 && !strcmp(names[0], names[1]))
    return tp_error_set(err, TP_ERR_INVALID, "colour %s given twice", names[0]);
  for (int k = 0; k < *count; k++) {
    int owner = mk_game_colour_owner(g, mk_game_find_colour(g, names[k]));
    if (owner >= 0 && owner != self)
      return tp_error_set(err, TP_ERR_INVALID, "colour %s belongs to %s",
                          names[k], g->players[owner].name);
  }
  for (int k = 0; k < *count; k++) {
    out[k] = mk_game_colour(g, names[k]);
    if (out[k] < 0)
      return tp_error_set(err, TP_ERR_INVALID, "too many colours (at most %d)",
                          MK_MAX_COLOURS);
  }
  return TP_OK;
}

static tp_status set_player(mk_game *g, const char *name, const char *colours,
                            int dirhams, const int rugs[2], bool in,
                            tp_error *err) {
  if (!mk__valid_player_name(name, strlen(name)))
    return tp_error_set(err, TP_ERR_FORMAT,
                        "bad player name '%.40s': letters, digits, _ and -",
                        name);
  int self = mk_game_find_player(g, name);
  if (self < 0 && g->player_count == MK_MAX_PLAYERS)
    return tp_error_set(err, TP_ERR_INVALID, "at most %d players",
                        MK_MAX_PLAYERS);
  if (dirhams < 0 || rugs[0] < 0 || rugs[1] < 0)
    return tp_error_set(err, TP_ERR_INVALID, "negative dirhams or rugs");
  /* The slot is claimed with no colours first: interning a colour may
   * drop the player's old ones and renumber the rest. */
  if (self < 0) self = g->player_count++;
  mk_player p = {0};
  strcpy(p.name, name);
  p.colours[1] = -1;
  g->players[self] = p;
  tp_status st =
      parse_colours(g, self, colours, p.colours, &p.colour_count, err);
  if (st != TP_OK) return st;
  if (p.colour_count == 1 && rugs[1] != 0)
    return tp_error_set(err, TP_ERR_INVALID,
                        "rugs for a second colour but only one colour");
  p.dirhams = dirhams;
  p.rugs_left[0] = rugs[0];
  p.rugs_left[1] = p.colour_count == 2 ? rugs[1] : 0;
  p.in = in;
  g->players[self] = p;
  return TP_OK;
}

tp_status mk_game_set_player(mk_game *g, const char *name, const char *colours,
                             int dirhams, const int rugs[2], bool in,
                             tp_error *err) {
  mk_game before = *g; /* small: a failed declaration changes nothing */
  tp_status st = set_player(g, name, colours, dirhams, rugs, in, err);
  if (st != TP_OK) *g = before;
  return st;
}

tp_status mk_game_deal(mk_game *g, tp_error *err) {
  int n = g->player_count;
  if (n < MK_MIN_PLAYERS || n > MK_MAX_PLAYERS)
    return tp_error_set(err, TP_ERR_INVALID,
                        "%d players: Marrakech needs 2 to 4", n);
  int rugs = g->settings.rugs_per_player[n];
  for (int i = 0; i < n; i++) {
    mk_player *p = &g->players[i];
    bool two = n == 2 && g->settings.two_colours_for_two_players;
    if (two != (p->colour_count == 2))
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s has %d colour(s); with %d players each has %d",
                          p->name, p->colour_count, n, two ? 2 : 1);
    p->dirhams = g->settings.starting_dirhams;
    p->rugs_left[0] = two ? rugs / 2 : rugs;
    p->rugs_left[1] = two ? rugs - rugs / 2 : 0;
    p->in = true;
  }
  return TP_OK;
}

/* ---- market, Assam, turn ----------------------------------------------- */

mk_cell mk_game_cell(const mk_game *g, int x, int y) {
  if (!mk__on_board(x, y)) return (mk_cell){-1, 0};
  return g->board[mk__index(x, y)];
}

void mk_game_clear_board(mk_game *g) {
  for (int i = 0; i < MK_SQUARES; i++)
    g->board[i] = (mk_cell){-1, 0};
}

tp_status mk_game_set_cell(mk_game *g, int x, int y, int colour, int32_t rug,
                           tp_error *err) {
  if (!mk__on_board(x, y))
    return tp_error_set(err, TP_ERR_INVALID, "square %d %d is off the board", x,
                        y);
  if (colour < -1 || colour >= g->colour_count || rug < 0 ||
      rug > MK_MAX_RUG_ID)
    return tp_error_set(err, TP_ERR_INVALID, "bad rug colour or number");
  g->board[mk__index(x, y)] = (mk_cell){(int8_t)colour, colour < 0 ? 0 : rug};
  if (colour >= 0 && rug >= g->next_rug[colour]) g->next_rug[colour] = rug + 1;
  return TP_OK;
}

tp_status mk_game_check_board(const mk_game *g, tp_error *err) {
  for (int i = 0; i < MK_SQUARES; i++) {
    mk_cell c = g->board[i];
    if (c.colour < 0) continue;
    int same = 0, adjacent = 0;
    for (int j = 0; j < MK_SQUARES; j++) {
      if (g->board[j].colour != c.colour || g->board[j].rug != c.rug) continue;
      same++;
      int dx = abs(j % MK_SIZE - i % MK_SIZE),
          dy = abs(j / MK_SIZE - i / MK_SIZE);
      if (dx + dy == 1) adjacent++;
    }
    if (same > 2 || (same == 2 && adjacent != 1))
      return tp_error_set(err, TP_ERR_INVALID,
                          "rug %s:%d shows on %d squares that are not one "
                          "pair of neighbours",
                          mk_game_colour_name(g, c.colour), (int)c.rug, same);
  }
  return TP_OK;
}

mk_assam mk_game_assam(const mk_game *g) {
  return g->assam;
}

tp_status mk_game_set_assam(mk_game *g, int x, int y, mk_dir dir,
                            tp_error *err) {
  if (!mk__on_board(x, y) || dir < MK_N || dir > MK_W)
    return tp_error_set(err, TP_ERR_INVALID,
                        "Assam must stand on the board (0..6 0..6, N E S W)");
  g->assam = (mk_assam){x, y, dir};
  return TP_OK;
}

int mk_game_turn(const mk_game *g) {
  return g->turn;
}

tp_status mk_game_set_turn(mk_game *g, int player, tp_error *err) {
  if (player < 0 || player >= g->player_count)
    return tp_error_set(err, TP_ERR_NOTFOUND, "no such player");
  if (!g->players[player].in)
    return tp_error_set(err, TP_ERR_INVALID, "%s is out of the game",
                        g->players[player].name);
  g->turn = player;
  return TP_OK;
}

int mk_game_next_turn(mk_game *g) {
  int from = g->turn < 0 ? g->player_count - 1 : g->turn;
  for (int k = 1; k <= g->player_count; k++) {
    int i = (from + k) % g->player_count;
    if (g->players[i].in) return g->turn = i;
  }
  return g->turn = -1;
}

bool mk_game_first_turn(const mk_game *g) {
  return !g->moved;
}
