/* ft: the rules of Fliegende Teppiche (Flying Carpets) in pure C.
 * Prefix ft_. The rules are /work/shared/rules/fliegende-teppiche.md and
 * docs/rules.md; every reading of ours ([A]) and every number from the
 * seed summary ([S]) is a setting of an ft_rules, read from a rules file
 * (rules/fliegende-teppiche.rules holds the defaults).
 *
 * Four parts, usable on their own:
 *   1. ft_rules      the settings (defaults, or loaded from a rules file)
 *   2. ft_players    the `--players` spec: anna=red+yellow,ben=blue+green
 *   3. ft_resolve    STATELESS: which carpet lies on which cards -> claims,
 *                    contests, returned carpets (spec section 4). No game.
 *   4. ft_game       a whole game: genies, layouts, flights, contests,
 *                    palace comparisons, final scoring, winners.
 *   5. ft_transcript the plain-text game record (docs/transcript.md).
 *
 * Everything is caller-owned, no global state, no I/O except reading a
 * rules file or a transcript. Errors: tp_status + a one-line tp_error. */
#ifndef TEPPICH_RULES_FT_H
#define TEPPICH_RULES_FT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  FT_MAX_PLAYERS = 8,  /* in a spec or a resolution; a game has 2..4 */
  FT_MAX_CARPETS = 16, /* carpets in one resolution or game */
  FT_MAX_CARPETS_PER_PLAYER = 4,
  FT_NAME_MAX = 32,  /* player names and carpet colours, with the NUL */
  FT_MAX_CARDS = 64, /* cards on the table in one resolution */
  FT_DECK_SIZE = 52,
  FT_MAX_GENIES = 8, /* genies in one set (values 1..99) */
  FT_MAX_ROUNDS = 16
};

/* ---------------------------------------------------------------------
 * Cards. The names are the deck-folder stems of spec section 2. */
typedef enum {
  FT_PALACE,
  FT_ADVENTURE_A,
  FT_ADVENTURE_B,
  FT_ADVENTURE_C,
  FT_ADVENTURE_D,
  FT_ADVENTURE_E,
  FT_SPICE_BAZAAR,
  FT_CARPET_BAZAAR,
  FT_CAMEL_BAZAAR,
  FT_TREASURE,
  FT_LAMP,
  FT_DESERT,
  FT_N_TYPES
} ft_card_type;

const char *ft_card_type_name(ft_card_type type); /* "palace", "adventure-a" */
/* The type named `name`, or -1. */
int ft_card_type_parse(const char *name);
/* How many cards of each type the 52-card deck holds (12 palaces ...). */
int ft_deck_count(ft_card_type type);

/* ---------------------------------------------------------------------
 * 1. Rules settings. */
typedef enum { FT_SAME_PLAYER_CLAIM, FT_SAME_PLAYER_VOID } ft_same_player;
typedef enum { FT_THROW_ALTERNATE, FT_THROW_GROUPED } ft_throw_order;
typedef enum { FT_SWAP_IMMEDIATE, FT_SWAP_AFTER_FLIGHT } ft_swap_timing;
typedef enum {
  FT_CONTEST_LAYOUT_ORDER,
  FT_CONTEST_REVERSE_ORDER
} ft_contest_order;

typedef struct {
  /* players and setup, indexed by player count 2..4 */
  int carpets[5];                      /* carpets per player */
  int rounds[5];                       /* rounds in the game */
  int genie_sets[5][4][FT_MAX_GENIES]; /* [count][set][i]: the values */
  int genie_set_size[5][4];            /* how many in each set */
  int layout_cards;                    /* cards a layer lays out */
  ft_throw_order throw_order;          /* with more than one carpet each */
  /* claims (edge_contact / carpet_on_carpet are for the camera side) */
  bool edge_contact_counts;
  bool carpet_on_carpet_counts;
  ft_same_player same_player;
  /* contests */
  ft_contest_order contest_order;
  ft_swap_timing swap_timing;
  /* flights and rounds */
  int refly_min_cards; /* fly again with at least this many */
  bool stop_if_only_deserts;
  bool leftovers_removed; /* false: back into the deck */
  /* palaces */
  int palace_most, palace_fewest;
  bool palace_ties_all;         /* false: a tie for most/fewest scores 0 */
  bool palace_all_equal_scores; /* true: all equal get most AND fewest */
  bool lamps_as_palaces;
  /* final scoring */
  int pair_points[3];    /* spice, carpet, camel bazaar pairs */
  int adventure_sets[5]; /* a set of 1..5 different kinds */
  int treasure, desert;
  bool lamp_cancels_desert, lamp_wild_bazaar, lamp_wild_adventure;
  bool lamp_needs_real_card; /* a wild lamp completes a real card */
  bool shared_win;           /* false: a tie has no winner */
} ft_rules;

/* The defaults of the rules document (same as the shipped rules file). */
void ft_rules_default(ft_rules *rules);
/* Defaults, then the file over them. path NULL: defaults only. A bad file
 * is TP_ERR_FORMAT/INVALID with "FILE: line N: key = 'value': ..." and
 * leaves *rules untouched. */
tp_status ft_rules_load(const char *path, ft_rules *rules, tp_error *err);
tp_status ft_rules_load_text(const char *name, const char *text, size_t len,
                             ft_rules *rules, tp_error *err);

/* ---------------------------------------------------------------------
 * 2. Players: `--players` of spec sections 4 and 6. Seating order,
 * clockwise: anna=red+yellow,ben=blue+green . Names: letters, digits,
 * _ - and UTF-8; colours: a-z 0-9 _ - (deck stems). Names and colours
 * are unique. */
typedef struct {
  char name[FT_NAME_MAX];
  int n_carpets;
  char carpets[FT_MAX_CARPETS_PER_PLAYER][FT_NAME_MAX];
} ft_player;

typedef struct {
  int n_players;
  ft_player players[FT_MAX_PLAYERS];
} ft_players;

tp_status ft_players_parse(const char *spec, ft_players *out, tp_error *err);
/* Back to the spec text; returns the length it needs (like snprintf). */
size_t ft_players_format(const ft_players *players, char *buf, size_t cap);
/* Index of the player who owns `colour` / is called `name`, or -1. */
int ft_players_by_colour(const ft_players *players, const char *colour);
int ft_players_by_name(const ft_players *players, const char *name);
/* Checks a spec for a game under `rules`: 2..4 players, each with the
 * number of carpets the rules give for that many players. */
tp_status ft_players_check_game(const ft_players *players,
                                const ft_rules *rules, tp_error *err);

/* ---------------------------------------------------------------------
 * 3. Stateless resolution of one flight (spec section 4).
 *
 * Input: the carpets that were thrown and, for each, the indices of the
 * cards it lies on FROM ABOVE (positive area of overlap, not underneath;
 * the camera side decides that). Cards are numbered 0..n_cards-1 in layout
 * order. Output, fully deterministic whatever the input order:
 *   claims:   one entry per player who takes cards alone, sorted by player
 *             name; their cards ascending. A card under carpets of exactly
 *             one player goes to that player (also with two of their
 *             carpets on it, unless rules->same_player is VOID: then the
 *             card stays on the table, listed in `unclaimed`).
 *   contests: one per card under carpets of two or more players, in the
 *             order they are settled (layout order by default), players
 *             sorted by name.
 *   returned: colours of carpets on no card, sorted.
 * Errors (TP_ERR_INVALID, *out zeroed): a card index outside 0..n_cards-1,
 * a colour given twice, an empty colour or player, a name too long,
 * too many carpets/cards/players. rules NULL = defaults. */
typedef struct {
  const char *colour;  /* the carpet's colour */
  const char *player;  /* its owner's name */
  const int *on_cards; /* indices of cards it lies on from above */
  int n_on_cards;      /* duplicates are ignored */
} ft_carpet_on;

typedef struct {
  char player[FT_NAME_MAX];
  int n_cards;
  int cards[FT_MAX_CARDS];
} ft_claim;

typedef struct {
  int card;
  int n_players;
  char players[FT_MAX_PLAYERS][FT_NAME_MAX];
} ft_contest;

typedef struct {
  int n_claims;
  ft_claim claims[FT_MAX_PLAYERS];
  int n_contests;
  ft_contest contests[FT_MAX_CARDS];
  int n_returned;
  char returned[FT_MAX_CARPETS][FT_NAME_MAX];
  int n_unclaimed; /* same_player = void only */
  int unclaimed[FT_MAX_CARDS];
} ft_resolution;

tp_status ft_resolve(const ft_rules *rules, const ft_carpet_on *carpets,
                     int n_carpets, int n_cards, ft_resolution *out,
                     tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
