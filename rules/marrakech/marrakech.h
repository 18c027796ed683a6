/* marrakech: the rules of Marrakech (Gigamic) in pure C. Prefix mk_.
 *
 * The rules are ../shared/rules/marrakech.md: a 7x7 market, Assam walking
 * the border tracks, 4-connected payment areas, two-square rugs. This
 * module knows nothing about cameras or terminals: it keeps a game state
 * (mk_game), answers the line protocol of `teppich marrakech query`
 * (mk_query) and replays game transcripts (mk_transcript_replay).
 *
 * Coordinates: x = column 0..6 left to right, y = row 0..6 top to bottom.
 * No global mutable state; randomness only from the caller-seeded tp_rng. */
#ifndef TEPPICH_MARRAKECH_H
#define TEPPICH_MARRAKECH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  MK_SIZE = 7, /* the market is MK_SIZE x MK_SIZE squares */
  MK_SQUARES = 49,
  MK_MAX_PLAYERS = 4,
  MK_MIN_PLAYERS = 2,
  MK_MAX_COLOURS = 16, /* distinct colour names known at once */
  MK_NAME_MAX = 32,    /* player and colour names, with the NUL */
  MK_MAX_DIE_FACES = 12,
  MK_MAX_RUG_ID = 999999,
  MK_MAX_PLACEMENTS = 12,    /* at most 4 squares by Assam x 3 partners */
  MK_QUERY_ANSWER_MAX = 4096 /* longest answer of mk_query_line, with NUL */
};

/* Facings, in clockwise order so that right = +1 and left = +3 (mod 4). */
typedef enum { MK_N = 0, MK_E = 1, MK_S = 2, MK_W = 3 } mk_dir;

typedef enum { MK_TURN_NONE, MK_TURN_LEFT, MK_TURN_RIGHT } mk_rotation;

/* ---- settings (rules/marrakech.rules) ---------------------------------- */

typedef struct {
  int starting_dirhams; /* per player, at every player count: 30 */
  /* Rugs per player by player count (index 2..4): 24, 15, 12. With two
   * players each has two colours and half of these rugs in each. */
  int rugs_per_player[MK_MAX_PLAYERS + 1];
  int die_faces[MK_MAX_DIE_FACES]; /* 1 2 2 3 3 4 */
  int die_face_count;
  bool two_colours_for_two_players; /* the 2-player two-colour rule: yes */
  /* Board Game Arena lets a rug cover both halves of one of the player's
   * own rugs; the printed rules do not. Default false (forbidden). */
  bool cover_own_rug;
} mk_settings;

/* The printed rules; equal to the shipped rules/marrakech.rules. */
void mk_settings_default(mk_settings *s);
/* Checks ranges (dirhams >= 0, rugs 1..200 and even for two colours,
 * die faces 1..100); writes one line naming the setting on error. */
tp_status mk_settings_check(const mk_settings *s, tp_error *err);
/* Reads a rules file (see rules/marrakech.rules) over the defaults. */
tp_status mk_settings_load(mk_settings *s, const char *path, tp_error *err);

/* ---- the game state ---------------------------------------------------- */

typedef struct mk_game mk_game;

/* One square of the market: the visible rug, or colour -1 when empty. */
typedef struct {
  int8_t colour; /* index into the game's colour names, -1 = empty */
  int32_t rug;   /* the rug's number within its colour */
} mk_cell;

typedef struct {
  char name[MK_NAME_MAX];
  int colours[2];   /* colour indices; colours[1] is -1 for one colour */
  int colour_count; /* 1 or 2 */
  int dirhams;
  int rugs_left[2]; /* per colour, same order as colours[] */
  bool in;          /* false once eliminated */
} mk_player;

typedef struct {
  int x, y;
  mk_dir dir;
} mk_assam;

/* A new game with no players, an empty market and Assam on (3,3) facing
 * north, on his first turn. settings NULL means mk_settings_default. The
 * seed drives the 2-player colour draw. NULL when out of memory or the
 * settings are invalid. */
mk_game *mk_game_create(const mk_settings *settings, uint64_t seed);
void mk_game_destroy(mk_game *g); /* NULL-safe */
/* Back to the state right after mk_game_create (the RNG keeps going). */
void mk_game_reset(mk_game *g);
void mk_game_copy(mk_game *dst, const mk_game *src);
const mk_settings *mk_game_settings(const mk_game *g);

/* Colours: names of a-z 0-9 _ - (< MK_NAME_MAX), as in `--players`.
 * mk_game_colour returns the index of a name, adding it when new (-1 when
 * the name is bad or MK_MAX_COLOURS names are in use). */
int mk_game_colour(mk_game *g, const char *name);
int mk_game_find_colour(const mk_game *g, const char *name); /* -1 if none */
const char *mk_game_colour_name(const mk_game *g, int colour);
/* The player who owns a colour, or -1. */
int mk_game_colour_owner(const mk_game *g, int colour);

/* Declares a player (or redeclares one of that name) with one or two
 * colours "red" or "red+yellow", dirhams and rugs per colour. Player
 * names: letters, digits, _ - and UTF-8 (as in `--players`). */
tp_status mk_game_set_player(mk_game *g, const char *name, const char *colours,
                             int dirhams, const int rugs[2], bool in,
                             tp_error *err);
/* Gives every declared player the starting dirhams and rugs of the
 * settings for the number of players (split over two colours). */
tp_status mk_game_deal(mk_game *g, tp_error *err);
int mk_game_player_count(const mk_game *g);
const mk_player *mk_game_player(const mk_game *g, int index);
int mk_game_find_player(const mk_game *g, const char *name); /* -1 if none */
int mk_game_rugs_left(const mk_player *p); /* all colours together */

/* The market. */
mk_cell mk_game_cell(const mk_game *g, int x, int y);
void mk_game_clear_board(mk_game *g);
/* Puts one visible rug half on a square (colour -1: empties it). */
tp_status mk_game_set_cell(mk_game *g, int x, int y, int colour, int32_t rug,
                           tp_error *err);
/* Checks that every rug shows on at most two, orthogonally adjacent
 * squares. */
tp_status mk_game_check_board(const mk_game *g, tp_error *err);

mk_assam mk_game_assam(const mk_game *g);
tp_status mk_game_set_assam(mk_game *g, int x, int y, mk_dir dir,
                            tp_error *err);

/* Whose turn it is: a player index, or -1 before anyone is set. */
int mk_game_turn(const mk_game *g);
tp_status mk_game_set_turn(mk_game *g, int player, tp_error *err);
/* Passes the turn to the next player still in (seating order) and returns
 * that index, or -1 when nobody is in. */
int mk_game_next_turn(mk_game *g);
/* True until Assam has moved for the first time: he may face any way. */
bool mk_game_first_turn(const mk_game *g);

/* ---- movement ---------------------------------------------------------- */

/* Rotation left/right/none is always legal. Facing a direction is legal
 * unless it is the opposite of the current facing (180 degrees) after the
 * first turn. */
void mk_game_rotate(mk_game *g, mk_rotation rotation);
bool mk_game_can_face(const mk_game *g, mk_dir dir);
tp_status mk_game_face(mk_game *g, mk_dir dir, tp_error *err);
/* Moves Assam steps squares ahead along the border tracks (any steps
 * >= 0; the tracks are closed loops, so large counts are cheap). */
void mk_game_move(mk_game *g, long steps);
/* The pure movement: from a position, steps ahead. */
mk_assam mk_walk(mk_assam from, long steps);
/* One step, including the 28 border exits of the rules doc. */
mk_assam mk_step(mk_assam from);

/* ---- payment ----------------------------------------------------------- */

typedef struct {
  int payer, payee; /* player indices; -1 when nobody pays */
  int owed;         /* squares of the 4-connected area */
  int paid;         /* what actually changed hands (<= owed) */
  bool eliminated;  /* the payer could not pay in full and is out */
} mk_payment;

/* The 4-connected area of the colour on (x,y): number of squares, 0 when
 * the square is empty. */
int mk_game_area(const mk_game *g, int x, int y);
/* What the player whose turn it is owes for Assam's square, without
 * changing anything. */
mk_payment mk_game_price(const mk_game *g);
/* The same, and the money changes hands (elimination included). */
mk_payment mk_game_pay(mk_game *g);

/* ---- rug placement ----------------------------------------------------- */

typedef enum {
  MK_PLACE_OK = 0,
  MK_PLACE_NO_TURN,       /* nobody's turn, or that player is out */
  MK_PLACE_WRONG_PLAYER,  /* the colour is not the current player's */
  MK_PLACE_NO_RUGS,       /* no rugs left (of that colour) */
  MK_PLACE_OFF_BOARD,     /* a square outside the market */
  MK_PLACE_NOT_A_PAIR,    /* the squares are not orthogonal neighbours */
  MK_PLACE_ON_ASSAM,      /* a square under Assam */
  MK_PLACE_NOT_BY_ASSAM,  /* neither square touches Assam's square */
  MK_PLACE_COVERS_ONE_RUG /* both halves of one visible rug */
} mk_place_result;

/* A short hyphenated word for the protocol: "off-board", ... */
const char *mk_place_reason(mk_place_result r);

typedef struct {
  int x1, y1, x2, y2;
} mk_placement;

/* Can the current player lay a rug there? colour -1: any of theirs. */
mk_place_result mk_game_check_place(const mk_game *g, int colour,
                                    mk_placement p);
/* Checks, then lays it (the next rug number of that colour). */
mk_place_result mk_game_place(mk_game *g, int colour, mk_placement p);
/* Every legal placement for the current player, each unordered pair once
 * with the first square first in row-major order, sorted. */
int mk_game_legal_placements(const mk_game *g,
                             mk_placement out[MK_MAX_PLACEMENTS]);
/* The 2-player rule: the current player's next colour is drawn from the
 * shuffled pile of their remaining rugs (weighted by rugs left). -1 when
 * they have none. */
int mk_game_draw_colour(mk_game *g);

/* ---- end and score ----------------------------------------------------- */

typedef struct {
  int dirhams, squares, total;
  bool winner;
} mk_score;

/* The last rug of the players still in has been placed, or at most one
 * player is left. */
bool mk_game_over(const mk_game *g);
/* Scores of every player (mk_game_player_count entries). Winners: players
 * still in with the highest total, then the most dirhams; ties share. */
void mk_game_score(const mk_game *g, mk_score out[MK_MAX_PLAYERS]);

/* ---- random play (tests, example games, benchmarks) -------------------- */

typedef struct {
  int player;
  bool faced; /* first turn: faced `facing` instead of rotating */
  mk_dir facing;
  mk_rotation rotation;
  int roll;
  mk_payment payment;
  bool placed;
  int colour;
  mk_placement placement;
} mk_turn_record;

/* Plays one whole turn for the current player with random choices from
 * rng: rotation, a roll of the settings' die, payment, the colour draw and
 * a legal placement; then passes the turn. Returns false (and does
 * nothing) when the game is over or nobody's turn is set. */
bool mk_game_play_random_turn(mk_game *g, tp_rng *rng, mk_turn_record *out);

/* ---- the query line protocol (docs/marrakech.md) ----------------------- */

typedef struct mk_query mk_query;

mk_query *mk_query_create(const mk_settings *settings, uint64_t seed);
void mk_query_destroy(mk_query *q); /* NULL-safe */
/* Answers one command line (without its newline). The answer, one or more
 * lines each ending in '\n', goes to out (at most MK_QUERY_ANSWER_MAX
 * bytes with the NUL). Errors are answered as "error: <reason>\n" and
 * leave the state as it was. Returns the answer's length. */
size_t mk_query_line(mk_query *q, const char *line,
                     char out[MK_QUERY_ANSWER_MAX]);
const mk_game *mk_query_game(const mk_query *q);

/* ---- transcripts (docs/marrakech.md) ----------------------------------- */

/* Receives the replay's output, one line at a time (no newline). */
typedef void (*mk_emit_fn)(void *ctx, const char *line);

typedef struct {
  bool board_each_turn; /* print the market after every turn */
} mk_replay_options;

/* Replays a whole transcript text: every line is checked against the
 * rules. Output: payments, eliminations, boards (on request), then the
 * final scores and winners. On a bad line: TP_ERR_FORMAT (or
 * TP_ERR_INVALID for an illegal move) and err = "line N: what is wrong". */
tp_status mk_transcript_replay(const char *text, const mk_settings *settings,
                               const mk_replay_options *options,
                               mk_emit_fn emit, void *ctx, tp_error *err);

/* Writes the transcript line of one turn ("turn anna rotate left roll 3
 * place red 2 3 2 4") into out; returns its length (0 if cap is short). */
size_t mk_transcript_format_turn(const mk_game *g, const mk_turn_record *t,
                                 char *out, size_t cap);

/* Writes the market as 7 lines of 7 tokens ("." or colour:id), each line
 * without newline, through emit. */
void mk_game_emit_board(const mk_game *g, mk_emit_fn emit, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
