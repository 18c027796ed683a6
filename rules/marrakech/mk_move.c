/* marrakech: turning Assam and walking him along the border tracks. */
#include "mk_internal.h"

static const int mk__dx[4] = {0, 1, 0, -1};
static const int mk__dy[4] = {-1, 0, 1, 0};

/* Where a step off the board lands, for the square on the edge at
 * position `along` (x for the north/south edges, y for east/west). The
 * tracks pair neighbouring rows/columns and send Assam back the opposite
 * way; the two corner arcs (top-right, bottom-left) turn him 90 degrees on
 * the same square. This is the table of the rules doc, row by row. */
static mk_assam border_exit(mk_assam a) {
  switch (a.dir) {
  case MK_N: /* pairs (0,1) (2,3) (4,5) of x; x = 6 is the corner arc */
    if (a.x == 6) return (mk_assam){6, 0, MK_W};
    return (mk_assam){a.x ^ 1, 0, MK_S};
  case MK_E: /* y = 0 is the corner arc; pairs (1,2) (3,4) (5,6) of y */
    if (a.y == 0) return (mk_assam){6, 0, MK_S};
    return (mk_assam){6, a.y % 2 ? a.y + 1 : a.y - 1, MK_W};
  case MK_S: /* x = 0 is the corner arc; pairs (1,2) (3,4) (5,6) of x */
    if (a.x == 0) return (mk_assam){0, 6, MK_E};
    return (mk_assam){a.x % 2 ? a.x + 1 : a.x - 1, 6, MK_N};
  case MK_W: /* pairs (0,1) (2,3) (4,5) of y; y = 6 is the corner arc */
    if (a.y == 6) return (mk_assam){0, 6, MK_N};
    return (mk_assam){0, a.y ^ 1, MK_E};
  }
  return a;
}

mk_assam mk_step(mk_assam from) {
  int nx = from.x + mk__dx[from.dir], ny = from.y + mk__dy[from.dir];
  if (mk__on_board(nx, ny)) return (mk_assam){nx, ny, from.dir};
  return border_exit(from);
}

/* Every track is a closed loop (stepping is a permutation of the 196
 * positions), so a long walk only needs steps modulo the loop's length. */
static long loop_length(mk_assam from) {
  mk_assam a = mk_step(from);
  long n = 1;
  while (a.x != from.x || a.y != from.y || a.dir != from.dir) {
    a = mk_step(a);
    n++;
  }
  return n;
}

mk_assam mk_walk(mk_assam from, long steps) {
  if (steps <= 0) return from;
  if (steps > 4 * MK_SQUARES) steps %= loop_length(from);
  for (long i = 0; i < steps; i++)
    from = mk_step(from);
  return from;
}

void mk_game_move(mk_game *g, long steps) {
  g->assam = mk_walk(g->assam, steps);
  g->moved = true;
}

void mk_game_rotate(mk_game *g, mk_rotation rotation) {
  if (rotation == MK_TURN_LEFT) g->assam.dir = (mk_dir)((g->assam.dir + 3) % 4);
  if (rotation == MK_TURN_RIGHT)
    g->assam.dir = (mk_dir)((g->assam.dir + 1) % 4);
}

bool mk_game_can_face(const mk_game *g, mk_dir dir) {
  return !g->moved || dir != (mk_dir)((g->assam.dir + 2) % 4);
}

tp_status mk_game_face(mk_game *g, mk_dir dir, tp_error *err) {
  if (dir < MK_N || dir > MK_W)
    return tp_error_set(err, TP_ERR_INVALID, "no such direction");
  if (!mk_game_can_face(g, dir))
    return tp_error_set(err, TP_ERR_INVALID, "Assam may not turn 180 degrees");
  g->assam.dir = dir;
  return TP_OK;
}
