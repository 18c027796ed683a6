/* marrakech: payment areas, payments, game end and score. */
#include "mk_internal.h"

int mk_game_area(const mk_game *g, int x, int y) {
  if (!mk__on_board(x, y)) return 0;
  int colour = g->board[mk__index(x, y)].colour;
  if (colour < 0) return 0;
  /* Flood fill over orthogonal neighbours only: diagonal contact does not
   * connect. Every square is pushed at most once (marked when pushed). */
  bool seen[MK_SQUARES] = {false};
  int stack[MK_SQUARES], top = 0, area = 0;
  stack[top++] = mk__index(x, y);
  seen[mk__index(x, y)] = true;
  static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
  while (top > 0) {
    int i = stack[--top];
    area++;
    for (int d = 0; d < 4; d++) {
      int nx = i % MK_SIZE + dx[d], ny = i / MK_SIZE + dy[d];
      if (!mk__on_board(nx, ny)) continue;
      int j = mk__index(nx, ny);
      if (seen[j] || g->board[j].colour != colour) continue;
      seen[j] = true;
      stack[top++] = j;
    }
  }
  return area;
}

mk_payment mk_game_price(const mk_game *g) {
  mk_payment pay = {-1, -1, 0, 0, false};
  if (g->turn < 0 || !g->players[g->turn].in) return pay;
  int colour = g->board[mk__index(g->assam.x, g->assam.y)].colour;
  int owner = mk_game_colour_owner(g, colour);
  /* Own rugs (either colour of a 2-player player) and rugs of eliminated
   * or undeclared owners cost nothing. */
  if (owner < 0 || owner == g->turn || !g->players[owner].in) return pay;
  const mk_player *payer = &g->players[g->turn];
  pay.payer = g->turn;
  pay.payee = owner;
  pay.owed = mk_game_area(g, g->assam.x, g->assam.y);
  pay.paid = payer->dirhams < pay.owed ? payer->dirhams : pay.owed;
  pay.eliminated = payer->dirhams < pay.owed; /* paying down to 0 is fine */
  return pay;
}

mk_payment mk_game_pay(mk_game *g) {
  mk_payment pay = mk_game_price(g);
  if (pay.payer < 0) return pay;
  g->players[pay.payer].dirhams -= pay.paid;
  g->players[pay.payee].dirhams += pay.paid;
  if (pay.eliminated) g->players[pay.payer].in = false;
  return pay;
}

bool mk_game_over(const mk_game *g) {
  int in = 0, rugs = 0;
  for (int i = 0; i < g->player_count; i++) {
    if (!g->players[i].in) continue;
    in++;
    rugs += mk_game_rugs_left(&g->players[i]);
  }
  return in <= 1 || rugs == 0;
}

void mk_game_score(const mk_game *g, mk_score out[MK_MAX_PLAYERS]) {
  int squares[MK_MAX_COLOURS] = {0};
  for (int i = 0; i < MK_SQUARES; i++)
    if (g->board[i].colour >= 0) squares[g->board[i].colour]++;
  int best = -1; /* the best player still in: total, then dirhams */
  for (int i = 0; i < g->player_count; i++) {
    const mk_player *p = &g->players[i];
    mk_score s = {p->dirhams, 0, 0, false};
    for (int k = 0; k < p->colour_count; k++)
      s.squares += squares[p->colours[k]];
    s.total = s.dirhams + s.squares;
    out[i] = s;
    if (p->in &&
        (best < 0 || s.total > out[best].total ||
         (s.total == out[best].total && s.dirhams > out[best].dirhams)))
      best = i;
  }
  for (int i = 0; i < g->player_count; i++)
    out[i].winner = best >= 0 && g->players[i].in &&
                    out[i].total == out[best].total &&
                    out[i].dirhams == out[best].dirhams;
}
