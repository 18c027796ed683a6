/* watch: the live-game controller behind `teppich watch`. Prefix wch_.
 *
 * Pure C, no pixels: it is fed OBSERVATIONS of still frames (cards seen
 * with type and pose, carpets seen with colour, pose and the cards they
 * lie on from above) and follows a whole game of Fliegende Teppiche with
 * the rules core (rules/ft): layout, flights, contests, taking-away,
 * rounds, palace comparison, final scores. It says what happens
 * (commentary), writes the spec's events (JSON lines) and the transcript
 * (the `teppich score` format), asks the questions only people can answer
 * (genies, reveals, lamps) and takes corrections (undo / give).
 *
 *   wch_config cfg; wch_config_default(&cfg); cfg.players = ...;
 *   wch_output out = {user, say, event, record};
 *   wch *w; wch_create(&cfg, &out, &w, &err);
 *   loop: if (wch_question_pending(w, &q)) wch_answer(w, line, &err);
 *         else if (still frame) wch_observe(w, &obs, &err);
 *   wch_destroy(w);
 *
 * Also here: stillness detection on gray frames (wch_motion), a parser of
 * observations as JSON (the `teppich analyze --json` format), and a game
 * simulator that makes scripted observation sequences for tests.
 * No global state; every output goes through the caller's callbacks. */
#ifndef TEPPICH_WATCH_H
#define TEPPICH_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "ft.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WCH_MAX_OBS_CARDS = 64, WCH_MAX_OBS_CARPETS = 16 };

/* ------------------------------------------------------ observations */

/* One destination card seen in a still frame, table mm (spec section 1). */
typedef struct {
  int type; /* ft_card_type, or -1 when the type is not certain */
  double x_mm, y_mm, angle_deg;
  double visible_fraction; /* 0..1; 0 = not known */
  /* the card's id, when the observer knows which card it is (analysed
   * against the layout reference, wch_table_cards): then it is matched by
   * id, not by place */
  bool has_id;
  int id;
  /* type -1 (not certain): the most likely type, if the eyes have one; a
   * layout card seen only so still counts, as that type */
  bool has_guess;
  int guess;
  /* the type the eyes found next most like it (the look-alike), if any:
   * a layout card voted a type the game has used up is counted as it */
  bool has_second;
  int second;
  double second_score; /* how well it matched, 0..1 (as a type's score) */
  /* when the card came to lie as seen now (wch_motion_came: the frame
   * its place stopped showing the table, and the frame it first showed
   * whole), if known: cards new in one observation get their ids in this
   * order (the order they were laid in, which settles contests) */
  bool has_laid;
  int64_t laid_frame, laid_shown;
} wch_card_obs;

/* One carpet seen: on_cards are indices into the observation's cards. */
typedef struct {
  char colour[FT_NAME_MAX];
  double x_mm, y_mm, angle_deg;
  int n_on_cards;
  int on_cards[WCH_MAX_OBS_CARDS];
  /* per on_cards entry: the eyes could not tell whether the carpet lies
   * above that card (another carpet hides where they meet) or reaches
   * into it at all (it barely does, within the pose error) */
  bool on_uncertain[WCH_MAX_OBS_CARDS];
  /* per on_cards entry: uncertain only because it barely reaches into the
   * card (within the pose error); no other carpet hides where they meet */
  bool on_barely[WCH_MAX_OBS_CARDS];
  /* cards (indices into cards) the carpet barely misses: its depth into
   * them is within the pose error of lying on them, taken as not on */
  int n_barely_off;
  int barely_off[WCH_MAX_OBS_CARDS];
  /* carpets of this observation (indices) seen lying on top of this one */
  int n_under;
  int under[WCH_MAX_OBS_CARPETS];
  /* the share of the carpet the eyes saw (0..1), when they said */
  bool has_visible;
  double visible_fraction;
} wch_carpet_obs;

typedef struct {
  int64_t frame; /* the source's frame number (for logs and resume) */
  /* a further still frame of the scene observed last (no motion since):
   * nothing can have landed in between */
  bool same_scene;
  int n_cards;
  wch_card_obs cards[WCH_MAX_OBS_CARDS];
  int n_carpets;
  wch_carpet_obs carpets[WCH_MAX_OBS_CARPETS];
} wch_obs;

/* Parses one observation from JSON in the `teppich analyze --json` format
 * (spec section 4: cards[].type/center_mm/angle_deg, carpets[].colour/
 * center_mm/angle_deg/on_cards; other fields ignored). Bad JSON or values
 * out of range: TP_ERR_FORMAT naming `name`. */
tp_status wch_obs_parse_json(const char *text, size_t len, const char *name,
                             wch_obs *out, tp_error *err);
/* The observation as one line of JSON (malloc'd), parseable by the above. */
char *wch_obs_to_json(const wch_obs *obs);

/* ------------------------------------------------------ the controller */

typedef enum {
  WCH_SAY_INFO,     /* what is going on */
  WCH_SAY_RESULT,   /* claims and results of a flight */
  WCH_SAY_CONTEST,  /* a genie contest */
  WCH_SAY_QUESTION, /* something the players must answer */
  WCH_SAY_WARN,     /* something on the table is not as it should be */
  WCH_SAY_FINAL     /* the final score table */
} wch_tone;

/* Where everything goes. Any callback may be NULL. `record` gets whole
 * transcript lines to append (`all` false) or the whole transcript to
 * write over the old one (`all` true, after a correction); a failing
 * record makes the calling function fail with its status. */
typedef struct {
  void *user;
  void (*say)(void *user, wch_tone tone, const char *text);
  void (*event)(void *user, const char *json_line); /* no newline */
  tp_status (*record)(void *user, const char *text, bool all, tp_error *err);
} wch_output;

typedef struct {
  const ft_rules *rules;     /* NULL = defaults */
  const ft_players *players; /* seat order, checked for a game */
  int first_layer;           /* player index (default 0) */
  /* matching cards between frames: a card within match_mm of where it
   * was is the same card; one that moved up to bump_mm (and no other
   * card of its type is nearer) was bumped. */
  double match_mm, bump_mm;
  /* the part of the table where carpets count (x0 y0 x1 y1 mm); a
   * carpet whose centre is outside landed off the table. All 0: none. */
  double table_mm[4];
  /* a carpet over a card that this frame does not show (covered) lies on
   * it when they overlap by more than this (mm^2), using the card's pose
   * from the layout reference. */
  double min_overlap_mm2;
  double card_mm[2], carpet_mm[2]; /* sizes (deck.json) */
  /* still looks in a row that must show a card gone before the taking
   * gives it to a carpet it lay beside (card_taken_under_carpet); 0 or 1:
   * the first look decides. A look can miss a card that is there, so an
   * observer that can show more still frames of the scene sets 2 and
   * shows them while wch_taking_pending says so. */
  int taking_looks;
} wch_config;

void wch_config_default(wch_config *cfg);

typedef enum {
  WCH_Q_NONE,
  WCH_Q_GENIES, /* genies anna=8,1 ben=7,2 ... */
  WCH_Q_REVEAL, /* reveal anna=7 ben=3 */
  WCH_Q_LAMPS   /* lamps anna=1 ben=0 ... */
} wch_question_kind;

typedef struct {
  wch_question_kind kind;
  int card;                   /* REVEAL: card id */
  int n_players;              /* REVEAL: players involved (indices) */
  int players[FT_MAX_PLAYERS];
  char prompt[256];           /* a line to show a person */
} wch_question;

/* What the controller is watching for. */
typedef enum {
  WCH_WAIT_GENIES,  /* the genie deal (a question) */
  WCH_WAIT_LAYOUT,  /* the layer lays out the cards */
  WCH_WAIT_THROWS,  /* carpets land one after the other */
  WCH_WAIT_ANSWER,  /* a reveal or the lamps */
  WCH_WAIT_TAKING,  /* the players take their cards and carpets away */
  WCH_GAME_OVER
} wch_stage;

const char *wch_stage_name(wch_stage stage);

typedef struct wch wch;

tp_status wch_create(const wch_config *cfg, const wch_output *out, wch **w,
                     tp_error *err);
void wch_destroy(wch *w); /* NULL-safe */

/* Continues a game from a transcript (the text of a --transcript file):
 * replays it through the rules, rebuilds the controller's state from the
 * `# watch` comments written with it, and writes nothing. A cut-off last
 * line is ignored; *good_bytes (if not NULL) = how much of the text to
 * keep (truncate the file to it before appending). The players of the
 * transcript must be cfg->players. */
tp_status wch_resume(wch *w, const char *name, const char *text, size_t len,
                     size_t *good_bytes, tp_error *err);
/* From the resumed transcript: the last frame decided on (-1: none) and how
 * many answers were used (skip that many lines of --answers). */
int64_t wch_resume_frame(const wch *w);
int wch_answers_used(const wch *w);

/* Starts a new game: writes the transcript header. */
tp_status wch_start(wch *w, tp_error *err);

/* One still frame. Returns TP_OK also when it warns; errors only when
 * writing the transcript fails. */
tp_status wch_observe(wch *w, const wch_obs *obs, tp_error *err);

/* The source ended (a recording ran out; no frame will come): settles
 * what only a later frame could show. After a round's last flight the
 * lamps wait for the players' taking (wch_observe); with no frame left
 * the flight stands as it was decided and the lamps are asked now (a
 * question is pending). Any other stage is left as it is. */
void wch_source_ended(wch *w);

/* Announce at once, confirm after. A flight is resolved and announced on
 * the first still frame of the scene where its last carpet lies; the
 * observer then shows the controller the next still frames of the SAME
 * scene (no motion in between; up to two): each votes again on which
 * cards each carpet lies on. When two of the three frames agree on a
 * carpet's cards against the announced result (frames that do not show
 * that carpet do not vote on it), the flight is resolved again: said as a
 * correction, event `correction` with action `recheck`, the transcript
 * rewritten (a `# watch corrected ...` comment before the new flight
 * line). Ask the players the flight's questions only after this (their
 * answers, commands and the next wch_observe end the confirmation).
 * pending: the last wch_observe resolved a flight that still takes
 * confirm frames. *corrected (may be NULL): this frame changed it. */
bool wch_confirm_pending(const wch *w);
tp_status wch_confirm(wch *w, const wch_obs *obs, bool *corrected,
                      tp_error *err);
/* Flights corrected on a second look so far (whole game). */
int wch_corrections(const wch *w);

/* The last wch_observe saw the players take a card that the taking would
 * give to a carpet, and cfg.taking_looks asks for another look before
 * that is decided: show the next still frame (wch_observe). */
bool wch_taking_pending(const wch *w);

/* The question waiting for an answer (false: none). */
bool wch_question_pending(const wch *w, wch_question *q);
/* An answer line as in spec section 6 (`reveal anna=7 ben=3`; the first
 * word may be left out). A line that does not fit is TP_ERR_INVALID with a
 * message saying why; nothing changes. */
tp_status wch_answer(wch *w, const char *line, tp_error *err);

/* An answer for the pending question when nobody can give one (the
 * recorded answers of a replay no longer fit the game the eyes followed):
 * every player in a genie contest reveals the genie the recorded reveal
 * line `recorded` gives them if they hold it (NULL: none), else their
 * highest; no lamp is spent as a palace. Written into line (an answer
 * line for wch_answer); false when nothing can be assumed (no question,
 * the genie deal, or line too small). */
bool wch_assumed_answer(const wch *w, const char *recorded, char *line,
                        size_t cap);

/* A replay's recorded reveals come in the order the true game settled
 * its contests (its layout order), which is not the watch's where the
 * eyes gave the cards ids in another order (a card seen late gets a late
 * id). wch_pick_reveal: of the next recorded answer lines (`lines`, n of
 * them, all reveal lines), the one that answers the contest waiting now:
 * among as many lines as the flight has contests left, those revealed by
 * exactly its players, and of them the one whose comment names its card
 * (`# card TYPE@X,Y`, as `teppich render` writes it: the nearest to the
 * card's place, else one of its type), else the first; -1 when none is
 * (the order stays the file's). wch_reveals_given: the reveals already given for the flight
 * that waits for one (0: none waits); wch_pick_given: of the lines, the
 * one that gave the k-th of them (its players and genies; -1: none), so
 * that a resume finds the lines a replay used. */
int wch_pick_reveal(const wch *w, const char *const *lines, int n);
int wch_reveals_given(const wch *w);
int wch_pick_given(const wch *w, int k, const char *const *lines, int n);

/* Commands people give:
 *   undo               take back the last flight: its cards go back on the
 *                      table, its genie swaps are undone, throw again
 *   give CARD PLAYER   the last flight's card CARD (id) goes to PLAYER
 *   give CARD -        ... stays on the table
 *   resolve            all carpets that will land have landed (one flew
 *                      off the table unseen): resolve the flight now
 * TP_ERR_INVALID with a reason when not possible now. */
tp_status wch_command(wch *w, const char *line, tp_error *err);

wch_stage wch_get_stage(const wch *w);
const ft_game *wch_game(const wch *w);
/* The whole state as one JSON object (malloc'd): stage, round, flight,
 * layer, table cards, carpets landed, question, scores so far. For a web
 * page. */
char *wch_state_json(const wch *w);
/* The final table as text (malloc'd), when the game is over. colour: ANSI
 * bold for the winners. */
char *wch_final_table(const wch *w, bool colour);
/* A card the controller knows on the table, for the observer's layout
 * reference. */
typedef struct {
  int id, type;
  double x_mm, y_mm, angle_deg;
  bool claimed; /* out of the game (won), but maybe still lying there */
  bool unseen;  /* a layout card never seen (its place is not known) */
} wch_table_card;

/* The cards on the table now (the layout's, in id order) and then the
 * claimed ones that may still lie there; returns how many (<= max). */
int wch_table_cards(const wch *w, wch_table_card *out, int max);

/* Counters for the report: flights resolved, warnings given. */
int wch_warnings(const wch *w);

/* ------------------------------------------------------ stillness */

/* Decides which frames are still: a frame is still when it and the
 * frames before it differ by no more than sensor noise. The frame is
 * shrunk to about 160 pixels wide and normalised by its mean brightness
 * first (a lamp switched on changes the mean, not the normalised
 * picture). */
typedef struct {
  int width;          /* working width in pixels (160): more is slower */
  double noise_level; /* per-pixel difference treated as noise, in gray
                         levels after normalisation (8) */
  double max_changed; /* fraction of pixels allowed over the noise (0.002) */
  int still_frames;   /* consecutive still frames needed (3) */
} wch_motion_config;

void wch_motion_config_default(wch_motion_config *cfg);

typedef struct wch_motion wch_motion;
tp_status wch_motion_create(const wch_motion_config *cfg, wch_motion **out,
                            tp_error *err);
void wch_motion_destroy(wch_motion *m); /* NULL-safe */

typedef struct {
  bool still;         /* this frame ends a run of still frames */
  bool settled;       /* first still frame after motion: decide now */
  double changed;     /* fraction of pixels that changed from the last */
  int run;            /* still frames in a row so far */
} wch_motion_result;

/* Feeds one gray frame (1 channel). */
tp_status wch_motion_feed(wch_motion *m, const tp_image *gray,
                          wch_motion_result *out, tp_error *err);

/* When a place came to look as it does in the last frame fed, over the
 * motion since the last still scene (frames counted from 1 by
 * wch_motion_feed). Cards put down together between two still scenes
 * went down in this order: the table shows at a card's place until the
 * card is down (a hand or an arm hides it only for a while), never
 * after; the hand that lays it hides most of it until it moves on. */
typedef struct {
  int64_t covered; /* the frame from which on the place (mostly) no
                      longer showed the table as before the motion */
  int64_t shown;   /* the first frame from then on that showed nearly
                      all of it as now */
} wch_motion_arrival;

/* The arrival of the place inside a quad (pixels of the frames fed);
 * false when not known (no motion kept, or too little of the place
 * changed). Not const: it caches the light change of the frames kept to
 * the last one. */
bool wch_motion_came(wch_motion *m, const double corners_px[4][2], wch_motion_arrival *out);

/* ------------------------------------------- the incremental reference */

/* Whether a flight frame analysed against the last decided frame (only
 * where it changed since; the decided carpets kept) must be analysed
 * again against the layout alone, given the carpet colours the decided
 * frame showed and those the analysis found:
 * - no colour the decided frame did not show, though the frame is still
 *   after a motion (a throw, or a hand that came and went): a carpet
 *   thrown almost exactly onto a decided one can hide from it, which
 *   keeps that one (tuning game 4:603 round 3 flight 3: green 5 mm from
 *   red, never seen, and the flight resolved without it);
 * - or a colour of the decided frame is missing: while a flight is thrown
 *   carpets only come, and one thrown almost onto a decided one can make
 *   that one vanish instead (tuning game 2:621 round 1 flight 2: red 10 mm
 *   from blue, blue lost; the controller took blue as taken away and
 *   resolved the flight with blue alone).
 * A needless second analysis costs time; a wrong increment, the flight. */
bool wch_increment_doubtful(const char *const *decided, int n_decided,
                            const char *const *now, int n_now);

/* ------------------------------------------------------ simulation */

/* A scripted game: what a camera over the table would see, frame by
 * frame, as observations, with the answers the players gave and the true
 * transcript. For tests and measurements without pixels. */
typedef struct {
  uint64_t seed;
  int moving_frames; /* frames of hands between two still scenes (3) */
  int still_frames;  /* frames of a still scene (5) */
  /* mischief, each 0..1: chances per flight / per card */
  double p_out_of_turn, p_bump, p_wrong_take, p_off_table;
} wch_sim_config;

typedef struct {
  int n_frames;
  wch_obs *frames;  /* n_frames observations */
  bool *moving;     /* per frame: hands in view, not still */
  char *answers;    /* the answers file */
  char *transcript; /* the true transcript */
  int n_flights;
  int warnings_expected;
} wch_sim;

tp_status wch_simulate(const wch_sim_config *cfg, const ft_rules *rules,
                       const ft_players *players, int first_layer,
                       wch_sim *out, tp_error *err);
void wch_sim_free(wch_sim *sim); /* NULL-safe */

#ifdef __cplusplus
}
#endif
#endif
