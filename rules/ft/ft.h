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
  /* claims (edge_contact, contact_depth and carpet_on_carpet are for
   * the camera side: what "lies on" means) */
  bool edge_contact_counts;
  int contact_depth_tenths_mm; /* how deep a carpet must reach into a card
                                  (default 0: any overlap) */
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
/* How deep (mm) a carpet must reach into a card to lie on it, for
 * tp_contact_lies_on(tp_rounded_rect_contact_depth(carpet, card), this): the
 * contact depth setting, or, with edge_contact_counts, a hair below 0 so
 * that touching counts. A depth of 0 means any overlap (a hair above 0:
 * outlines that share an edge touch, whatever the rounding). */
double ft_rules_contact_mm(const ft_rules *rules);

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

/* ---------------------------------------------------------------------
 * A small seedable random generator: core's tp_rng under this module's
 * names (the state is yours). */
typedef tp_rng ft_rng;

static inline void ft_rng_seed(ft_rng *rng, uint64_t seed) {
  tp_rng_seed(rng, seed);
}
static inline uint64_t ft_rng_next(ft_rng *rng) {
  return tp_rng_next(rng);
}
/* Uniform in 0..n-1 for n >= 1 (0 for n <= 1). */
static inline int ft_rng_below(ft_rng *rng, int n) {
  return n <= 1 ? 0 : (int)tp_rng_below(rng, (uint32_t)n);
}

/* ---------------------------------------------------------------------
 * 4. Final scoring of one collection (stateless).
 * counts[type] = cards the player holds at the end (palaces and spent
 * lamps are gone by then; any palaces left are ignored). Lamps go to their
 * best use by trying every assignment; of equal totals the first in a
 * fixed order is reported, and a lamp that would add nothing stays unused.
 * Adventure sets: the largest set of different kinds first, then the next from
 * what is left. */
typedef struct {
  int bazaar_pairs[3]; /* spice, carpet, camel: pairs incl. wild lamps */
  int bazaar_points;
  int n_adventure_sets;
  int adventure_set_sizes[16]; /* largest first, incl. wild lamps */
  int adventure_points;
  int treasures, treasure_points;
  int deserts, deserts_cancelled, desert_points;
  int lamps, lamps_for_desert, lamps_for_bazaar[3], lamps_for_adventure,
      lamps_unused;
  int palace_points; /* the sum of the round-end comparisons (game only) */
  int total;
} ft_score;

void ft_score_collection(const ft_rules *rules, const int counts[FT_N_TYPES],
                         ft_score *out);

/* ---------------------------------------------------------------------
 * 5. A whole game. Opaque; every call that is told something checks it
 * first and on any error changes nothing (TP_ERR_INVALID, or
 * TP_ERR_UNSUPPORTED "wrong phase", with a one-line message).
 *
 * Order: deal/set genies -> per round: layout -> flights (each: landings,
 * then one reveal per contest) -> lamps (palace comparison) -> ... -> over.
 * Players are indices into the ft_players given at create (seat order,
 * clockwise); card ids are the caller's, unique within the game. */
typedef enum {
  FT_PHASE_GENIES,  /* waiting for ft_game_deal_genies / set_genies */
  FT_PHASE_LAYOUT,  /* waiting for the layer's cards */
  FT_PHASE_FLIGHT,  /* waiting for where the carpets landed */
  FT_PHASE_CONTEST, /* waiting for the reveal of the next contest */
  FT_PHASE_LAMPS,   /* round over: waiting for lamps spent as palaces */
  FT_PHASE_OVER     /* final scores ready */
} ft_phase;

const char *ft_phase_name(ft_phase phase);

typedef struct {
  int id;
  ft_card_type type;
  bool has_pos; /* optional position on the table, mm */
  double x_mm, y_mm;
} ft_card;

typedef struct {
  int n;
  int values[FT_MAX_GENIES];
} ft_hand;

/* Where one carpet landed: the ids of the table cards it lies on from
 * above. Carpets not listed lie on nothing (returned). */
typedef struct {
  const char *colour;
  const int *cards;
  int n_cards;
} ft_landing;

typedef struct {
  int card;      /* card id */
  int n_players; /* players in seat order */
  int players[FT_MAX_PLAYERS];
} ft_game_contest;

typedef struct {
  int round, flight;
  int claimed[FT_MAX_PLAYERS][FT_MAX_CARDS]; /* card ids per player */
  int n_claimed[FT_MAX_PLAYERS];
  int n_contests; /* to be settled, in this order */
  ft_game_contest contests[FT_MAX_CARDS];
  int n_returned;
  char returned[FT_MAX_CARPETS][FT_NAME_MAX];
  int n_unclaimed; /* same_player_carpets = void */
  int unclaimed[FT_MAX_CARDS];
} ft_flight_report;

typedef struct {
  int card;                     /* card id */
  int revealed[FT_MAX_PLAYERS]; /* genie per player, 0 = not involved */
  int winner, lowest;           /* player indices */
  int winner_genie, lowest_genie;
  bool swap_deferred; /* genie_swap = after_flight */
} ft_contest_result;

typedef struct {
  int round;
  int palaces[FT_MAX_PLAYERS]; /* palaces incl. lamps counted */
  int lamps_spent[FT_MAX_PLAYERS];
  int points[FT_MAX_PLAYERS];
  int n_leftovers;
  int leftovers[FT_MAX_CARDS]; /* card ids left on the table */
} ft_round_report;

typedef struct {
  int n_players;
  ft_score scores[FT_MAX_PLAYERS];
  bool winner[FT_MAX_PLAYERS];
  int n_winners;
} ft_final;

typedef struct ft_game ft_game;

/* rules NULL = defaults. players must pass ft_players_check_game. */
tp_status ft_game_create(const ft_rules *rules, const ft_players *players,
                         int first_layer, ft_game **out, tp_error *err);
void ft_game_destroy(ft_game *game);         /* NULL-safe */
ft_game *ft_game_clone(const ft_game *game); /* NULL when out of memory */
bool ft_game_equal(const ft_game *a, const ft_game *b);

/* Deals the configured genie sets at random (the sets go to random
 * players) / gives each player the set the caller says (hands[player];
 * every set of the rules exactly once, in any order within a set). */
tp_status ft_game_deal_genies(ft_game *game, ft_rng *rng,
                              ft_hand hands_out[FT_MAX_PLAYERS], tp_error *err);
tp_status ft_game_set_genies(ft_game *game, const ft_hand hands[FT_MAX_PLAYERS],
                             tp_error *err);

/* The layer's cards in layout order: rules->layout_cards of them (fewer
 * only when the deck has fewer left). Ids unique in the game; types within
 * the 52-card deck. */
tp_status ft_game_layout(ft_game *game, const ft_card *cards, int n_cards,
                         tp_error *err);

/* One flight: every carpet of the game at most once. Uncontested cards go
 * to their players now; contests wait for ft_game_reveal. */
tp_status ft_game_flight(ft_game *game, const ft_landing *landings,
                         int n_landings, ft_flight_report *out, tp_error *err);

/* The next contest (false if none waits). */
bool ft_game_next_contest(const ft_game *game, ft_game_contest *out);

/* Settles the contest about card `card_id`, which must be the next one.
 * genies[player] = the revealed genie, 0 for players not involved. */
tp_status ft_game_reveal(ft_game *game, int card_id,
                         const int genies[FT_MAX_PLAYERS],
                         ft_contest_result *out, tp_error *err);

/* Round end: lamps[player] = lamps spent as palaces. Palace comparison,
 * palaces and spent lamps leave, leftovers go. */
tp_status ft_game_round_end(ft_game *game, const int lamps[FT_MAX_PLAYERS],
                            ft_round_report *out, tp_error *err);

/* Final scores and winners (phase OVER only). */
tp_status ft_game_final(const ft_game *game, ft_final *out, tp_error *err);

ft_phase ft_game_phase(const ft_game *game);
const ft_rules *ft_game_rules(const ft_game *game);
const ft_players *ft_game_players(const ft_game *game);
int ft_game_round(const ft_game *game);  /* 1-based; rounds+1 when over */
int ft_game_rounds(const ft_game *game); /* rounds in this game */
int ft_game_flight_number(const ft_game *game); /* 1-based in the round */
int ft_game_layer(const ft_game *game);         /* player index */
ft_hand ft_game_genies(const ft_game *game, int player);
/* Counts of the cards a player holds now, per type; returns the sum. */
int ft_game_collection(const ft_game *game, int player, int counts[FT_N_TYPES]);
/* The cards on the table in layout order; returns how many. */
int ft_game_table(const ft_game *game, ft_card cards[FT_MAX_CARDS]);
/* Cards out of the game (palaces, spent lamps, leftovers) per type. */
int ft_game_removed(const ft_game *game, int counts[FT_N_TYPES]);
int ft_game_deck_left(const ft_game *game); /* cards not yet laid out */
int ft_game_palace_points(const ft_game *game, int player);
/* The throw order of the current flight: carpet colours, first first. */
int ft_game_throw_order(const ft_game *game,
                        const char *colours[FT_MAX_CARPETS]);

/* ---------------------------------------------------------------------
 * 6. Transcripts: the plain-text record of a game (docs/transcript.md).
 * One complete event per line, so a live game can append line by line
 * and a file cut off by a power failure is resumed from its last whole
 * line:
 *
 *     teppich-transcript 1
 *     players anna=red+yellow,ben=blue+green
 *     first-layer anna                      (optional)
 *     genies anna=8,5,4,1 ben=7,6,3,2
 *     round 1 layer=anna                    (optional check)
 *     layout 11=palace 12=desert@120,80 ... (id=type[@x,y mm])
 *     flight red=11,12 blue=12 green=- yellow=-   (omitted carpet = -)
 *     reveal 12 anna=7 ben=3                (card id, genies)
 *     lamps anna=1 ben=0                    (at each round end)
 *
 * The reader replays the lines through an ft_game and hands out one event
 * per call, with the game's reports. Reading needs no I/O: give it text. */
typedef enum {
  FT_EV_END,     /* no more lines */
  FT_EV_PLAYERS, /* the players line (the game exists from now on) */
  FT_EV_GENIES,
  FT_EV_ROUND, /* an optional `round` line, checked */
  FT_EV_LAYOUT,
  FT_EV_FLIGHT,    /* .flight */
  FT_EV_CONTEST,   /* .contest */
  FT_EV_ROUND_END, /* .round_end (a `lamps` line) */
  FT_EV_FINAL      /* .final, after the last round's lamps */
} ft_event_kind;

typedef struct {
  ft_event_kind kind;
  int line; /* 1-based line number of the event's line */
  ft_flight_report flight;
  ft_contest_result contest;
  ft_round_report round_end;
  ft_final final;
} ft_event;

enum {
  /* For resuming: a last line without its newline is taken as cut off
   * (a crash while writing) and skipped, whatever it says; without this
   * flag it is read like any line (hand-written files). */
  FT_TRANSCRIPT_ALLOW_TRUNCATED = 1
};

typedef struct ft_transcript ft_transcript;

/* rules NULL = defaults. The text is copied. name is used in errors:
 * "NAME: line N: problem". */
tp_status ft_transcript_open(const ft_rules *rules, const char *name,
                             const char *text, size_t len, unsigned flags,
                             ft_transcript **out, tp_error *err);
void ft_transcript_close(ft_transcript *t); /* NULL-safe */

/* The next event (FT_EV_END at the end, again and again). On an error the
 * message names file and line; the game stays as before that line. */
tp_status ft_transcript_next(ft_transcript *t, ft_event *ev, tp_error *err);

/* The game replayed so far (NULL before the players line). */
const ft_game *ft_transcript_game(const ft_transcript *t);
/* Bytes of the text up to and including the last line read completely;
 * to resume a cut-off file, truncate it to this length, then append. */
size_t ft_transcript_good_bytes(const ft_transcript *t);
/* True if a cut-off last line was skipped. */
bool ft_transcript_truncated(const ft_transcript *t);

/* Writers: each formats one or more whole lines ending in '\n' into buf
 * and returns the length needed (like snprintf; buf may be NULL when cap
 * is 0). */
size_t ft_transcript_write_header(char *buf, size_t cap,
                                  const ft_players *players, int first_layer);
size_t ft_transcript_write_genies(char *buf, size_t cap,
                                  const ft_players *players,
                                  const ft_hand hands[FT_MAX_PLAYERS]);
size_t ft_transcript_write_round(char *buf, size_t cap, int round,
                                 const char *layer);
size_t ft_transcript_write_layout(char *buf, size_t cap, const ft_card *cards,
                                  int n_cards);
size_t ft_transcript_write_flight(char *buf, size_t cap,
                                  const ft_landing *landings, int n_landings);
size_t ft_transcript_write_reveal(char *buf, size_t cap,
                                  const ft_players *players, int card_id,
                                  const int genies[FT_MAX_PLAYERS]);
size_t ft_transcript_write_lamps(char *buf, size_t cap,
                                 const ft_players *players,
                                 const int lamps[FT_MAX_PLAYERS]);

/* Answers of spec section 6 (`watch --answers FILE`, the terminal, the web
 * page), one line each:
 *     genies anna=8,1 ben=7,2 cleo=6,3 dirk=5,4
 *     reveal anna=7 ben=3
 *     lamps anna=1 ben=0 cleo=0 dirk=0
 * The word may be left out (`anna=7 ben=3`); a first word without '=' must
 * be it. Names must be players (genies: each once; reveal/lamps: players
 * left out get 0). Only the syntax is checked
 * here (message without a line number: the caller adds it); the game
 * checks the values: ft_game_set_genies, ft_game_reveal (the card is
 * ft_game_next_contest's), ft_game_round_end. */
tp_status ft_answer_genies(const ft_players *players, const char *line,
                           ft_hand hands[FT_MAX_PLAYERS], tp_error *err);
tp_status ft_answer_reveal(const ft_players *players, const char *line,
                           int genies[FT_MAX_PLAYERS], tp_error *err);
tp_status ft_answer_lamps(const ft_players *players, const char *line,
                          int lamps[FT_MAX_PLAYERS], tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
