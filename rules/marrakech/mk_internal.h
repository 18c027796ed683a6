/* marrakech internals shared by the mk_*.c files. Prefix mk__. */
#ifndef TEPPICH_MK_INTERNAL_H
#define TEPPICH_MK_INTERNAL_H

#include "marrakech.h"

struct mk_game {
  mk_settings settings;
  tp_rng rng;                /* the 2-player colour draw */
  mk_cell board[MK_SQUARES]; /* row-major: index y * MK_SIZE + x */
  mk_assam assam;
  bool moved; /* Assam has moved: the first turn is over */
  int turn;   /* player index, -1 = nobody */
  int player_count;
  mk_player players[MK_MAX_PLAYERS];
  int colour_count;
  char colours[MK_MAX_COLOURS][MK_NAME_MAX];
  int32_t next_rug[MK_MAX_COLOURS]; /* number of the next rug laid */
};

static inline bool mk__on_board(int x, int y) {
  return x >= 0 && x < MK_SIZE && y >= 0 && y < MK_SIZE;
}
static inline int mk__index(int x, int y) {
  return y * MK_SIZE + x;
}

/* Names as in the `--players` spec shared with Fliegende Teppiche:
 * colours a-z 0-9 _ -, player names letters, digits, _ - and UTF-8;
 * both non-empty and shorter than MK_NAME_MAX. */
bool mk__valid_name(const char *name, size_t len);
bool mk__valid_player_name(const char *name, size_t len);
/* Does the player own this colour? Which of their slots (0/1), or -1. */
int mk__colour_slot(const mk_player *p, int colour);
/* Drops colour names no player and no square uses (renumbering). */
void mk__compact_colours(mk_game *g);

#endif
