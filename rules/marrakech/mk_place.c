/* marrakech: rug placement legality, the legal placements, the 2-player
 * colour draw and a whole random turn. */
#include "mk_internal.h"

#include <stdlib.h>

const char *mk_place_reason(mk_place_result r) {
  switch (r) {
  case MK_PLACE_OK:
    return "ok";
  case MK_PLACE_NO_TURN:
    return "no-turn";
  case MK_PLACE_WRONG_PLAYER:
    return "wrong-player";
  case MK_PLACE_NO_RUGS:
    return "no-rugs-left";
  case MK_PLACE_OFF_BOARD:
    return "off-board";
  case MK_PLACE_NOT_A_PAIR:
    return "not-two-neighbouring-squares";
  case MK_PLACE_ON_ASSAM:
    return "on-assam";
  case MK_PLACE_NOT_BY_ASSAM:
    return "not-next-to-assam";
  case MK_PLACE_COVERS_ONE_RUG:
    return "covers-one-whole-rug";
  }
  return "unknown";
}

static bool touches(int x, int y, mk_assam a) {
  return abs(x - a.x) + abs(y - a.y) == 1;
}

/* Is the player able to lay a rug of that colour (-1: of any colour)? */
static mk_place_result check_player(const mk_game *g, int colour) {
  if (g->turn < 0 || !g->players[g->turn].in) return MK_PLACE_NO_TURN;
  const mk_player *p = &g->players[g->turn];
  if (colour < 0)
    return mk_game_rugs_left(p) > 0 ? MK_PLACE_OK : MK_PLACE_NO_RUGS;
  int slot = mk__colour_slot(p, colour);
  if (slot < 0) return MK_PLACE_WRONG_PLAYER;
  return p->rugs_left[slot] > 0 ? MK_PLACE_OK : MK_PLACE_NO_RUGS;
}

static mk_place_result check_squares(const mk_game *g, mk_placement p) {
  if (!mk__on_board(p.x1, p.y1) || !mk__on_board(p.x2, p.y2))
    return MK_PLACE_OFF_BOARD;
  if (abs(p.x1 - p.x2) + abs(p.y1 - p.y2) != 1) return MK_PLACE_NOT_A_PAIR;
  mk_assam a = g->assam;
  if ((p.x1 == a.x && p.y1 == a.y) || (p.x2 == a.x && p.y2 == a.y))
    return MK_PLACE_ON_ASSAM;
  if (!touches(p.x1, p.y1, a) && !touches(p.x2, p.y2, a))
    return MK_PLACE_NOT_BY_ASSAM;
  mk_cell c1 = g->board[mk__index(p.x1, p.y1)];
  mk_cell c2 = g->board[mk__index(p.x2, p.y2)];
  if (c1.colour >= 0 && c1.colour == c2.colour && c1.rug == c2.rug) {
    bool own = mk_game_colour_owner(g, c1.colour) == g->turn;
    if (!(own && g->settings.cover_own_rug)) return MK_PLACE_COVERS_ONE_RUG;
  }
  return MK_PLACE_OK;
}

mk_place_result mk_game_check_place(const mk_game *g, int colour,
                                    mk_placement p) {
  mk_place_result r = check_player(g, colour);
  return r != MK_PLACE_OK ? r : check_squares(g, p);
}

/* The colour a rug is laid in when the caller leaves it open: the first
 * of the player's colours that still has rugs. */
static int default_colour(const mk_player *p) {
  for (int k = 0; k < p->colour_count; k++)
    if (p->rugs_left[k] > 0) return p->colours[k];
  return -1;
}

mk_place_result mk_game_place(mk_game *g, int colour, mk_placement p) {
  mk_place_result r = mk_game_check_place(g, colour, p);
  if (r != MK_PLACE_OK) return r;
  mk_player *player = &g->players[g->turn];
  if (colour < 0) colour = default_colour(player);
  player->rugs_left[mk__colour_slot(player, colour)]--;
  int32_t rug = g->next_rug[colour];
  if (g->next_rug[colour] < MK_MAX_RUG_ID) g->next_rug[colour]++;
  g->board[mk__index(p.x1, p.y1)] = (mk_cell){(int8_t)colour, rug};
  g->board[mk__index(p.x2, p.y2)] = (mk_cell){(int8_t)colour, rug};
  return MK_PLACE_OK;
}

static int compare_placements(const void *a, const void *b) {
  const mk_placement *p = a, *q = b;
  int pa = mk__index(p->x1, p->y1) * MK_SQUARES + mk__index(p->x2, p->y2);
  int qa = mk__index(q->x1, q->y1) * MK_SQUARES + mk__index(q->x2, q->y2);
  return (pa > qa) - (pa < qa);
}

int mk_game_legal_placements(const mk_game *g,
                             mk_placement out[MK_MAX_PLACEMENTS]) {
  if (check_player(g, -1) != MK_PLACE_OK) return 0;
  static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
  mk_assam a = g->assam;
  int n = 0;
  /* One square by Assam, the other any neighbour of it; two squares by
   * Assam are never neighbours, so no pair is found twice. */
  for (int d = 0; d < 4; d++) {
    int x1 = a.x + dx[d], y1 = a.y + dy[d];
    if (!mk__on_board(x1, y1)) continue;
    for (int e = 0; e < 4; e++) {
      mk_placement p = {x1, y1, x1 + dx[e], y1 + dy[e]};
      if (mk__index(p.x2, p.y2) < mk__index(p.x1, p.y1) &&
          mk__on_board(p.x2, p.y2))
        p = (mk_placement){p.x2, p.y2, p.x1, p.y1};
      if (check_squares(g, p) == MK_PLACE_OK && n < MK_MAX_PLACEMENTS)
        out[n++] = p;
    }
  }
  qsort(out, (size_t)n, sizeof *out, compare_placements);
  return n;
}

int mk_game_draw_colour(mk_game *g) {
  if (g->turn < 0) return -1;
  const mk_player *p = &g->players[g->turn];
  int total = mk_game_rugs_left(p);
  if (total <= 0) return -1;
  /* Drawing the top rug of a shuffled pile is drawing one of the
   * remaining rugs uniformly: weight the colours by rugs left. */
  int r = (int)tp_rng_below(&g->rng, (uint32_t)total);
  return r < p->rugs_left[0] ? p->colours[0] : p->colours[1];
}

bool mk_game_play_random_turn(mk_game *g, tp_rng *rng, mk_turn_record *out) {
  if (mk_game_over(g) || g->turn < 0 || !g->players[g->turn].in) return false;
  mk_turn_record t = {0};
  t.player = g->turn;
  t.colour = -1;
  if (!g->moved) {
    t.faced = true;
    t.facing = (mk_dir)tp_rng_below(rng, 4);
    g->assam.dir = t.facing;
  } else {
    t.rotation = (mk_rotation)tp_rng_below(rng, 3);
    mk_game_rotate(g, t.rotation);
  }
  const mk_settings *s = &g->settings;
  t.roll = s->die_faces[tp_rng_below(rng, (uint32_t)s->die_face_count)];
  mk_game_move(g, t.roll);
  t.payment = mk_game_pay(g);
  if (!t.payment.eliminated && mk_game_rugs_left(&g->players[t.player]) > 0) {
    mk_placement legal[MK_MAX_PLACEMENTS];
    int n = mk_game_legal_placements(g, legal);
    if (n > 0) {
      t.colour = mk_game_draw_colour(g);
      t.placement = legal[tp_rng_below(rng, (uint32_t)n)];
      t.placed = mk_game_place(g, t.colour, t.placement) == MK_PLACE_OK;
    }
  }
  mk_game_next_turn(g);
  if (out) *out = t;
  return true;
}
