/* watch internals: the controller's state, shared by its files. */
#ifndef TEPPICH_WATCH_INTERNAL_H
#define TEPPICH_WATCH_INTERNAL_H

#include "watch.h"

/* A card the controller knows where it lies. */
typedef struct {
  int id;
  int type;
  double x, y, angle;
  bool missing_warned; /* warned that it went away unclaimed */
  bool bump_warned;
  /* while the layout is followed: frames it was seen and missed in, and
   * the types it was seen as (the type is the majority) */
  int seen, missed, missed_in_row;
  double votes[FT_N_TYPES]; /* a sure reading 2, a guess 1 (seen_as) */
  /* [t][u]: frames that read it as t (sure or a guess) and found u next
   * most like it, each counted by how well u matched (0..1) */
  double seconds[FT_N_TYPES][FT_N_TYPES];
  bool unseen; /* a layout card that no frame showed: place unknown */
  unsigned sure_types; /* bit t: a frame of the layout was sure it is t */
  /* its type in the layout is a guess (no frame was sure of it): a later
   * frame sure of another type retypes it (retype.c) */
  bool type_guessed;
  unsigned retype_refused; /* bit t: the game could not take type t */
} wch__card;

/* A card out of the game (claimed, won, leftover) that may still lie on
 * the table until someone takes it: so that it is neither mistaken for a
 * new layout card nor claimed again. */
typedef struct {
  int id;
  int type;
  double x, y, angle;
  int owner;        /* player who got it, -1 for leftovers */
  int since_flight; /* flight counter when it left the game */
  bool left_warned;
} wch__ghost;

/* Each carpet's cards as a frame shows them, in the throw order: the
 * landings a flight is resolved from. */
typedef struct {
  int n;
  char colour[FT_MAX_CARPETS][FT_NAME_MAX];
  int cards[FT_MAX_CARPETS][FT_MAX_CARDS];
  int n_cards[FT_MAX_CARPETS];
  /* bit `id` (card ids are below 64): the eyes were not sure this carpet
   * lies on that card (wch_carpet_obs.on_uncertain) */
  uint64_t unsure[FT_MAX_CARPETS];
  /* bit `id`: the frame measured the carpet's depth into that card within
   * the pose error of lying on it (on_barely or barely_off): it was not
   * sure whether the carpet lies on it or not */
  uint64_t barely[FT_MAX_CARPETS];
} wch__landings;

/* Where a carpet of the flight being thrown lay when a frame last showed
 * it, and the cards it lay on there; `sure`: the cards the frames that
 * showed it at that place (not moved since) saw it surely lie on. */
typedef struct {
  bool seen;
  double x, y, angle;
  int cards[FT_MAX_CARDS];
  int n_cards;
  int sure[FT_MAX_CARDS];
  int n_sure;
} wch__last_seen;

/* What a frame's cards are matched against: the table cards, the cards
 * out of the game that may still lie there, and their game (its throw
 * order). Now, or as they were before the last flight (its second look). */
typedef struct {
  const ft_game *game;
  const wch__card *ref;
  int n_ref;
  const wch__ghost *ghost;
  int n_ghost;
} wch__known;

/* A reveal given for the last flight (re-applied after `give`). */
typedef struct {
  int card;
  int genies[FT_MAX_PLAYERS];
} wch__reveal;

enum { WCH__SAID = 8 }; /* commentary lines kept for the web page */

struct wch {
  wch_config cfg;
  ft_rules rules;
  ft_players players;
  wch_output out;
  ft_game *game;
  wch_stage stage;
  int64_t frame;

  /* the cards on the game's table, with their poses (layout reference) */
  int n_ref;
  wch__card ref[FT_MAX_CARDS];
  /* layout being laid out */
  int n_track;
  wch__card track[WCH_MAX_OBS_CARDS];
  bool layout_excess_warned;
  /* still frames the whole layout waited for while a card's type was
   * only guessed (observe_layout) */
  int layout_doubt_looks;
  /* the layout was taken with fewer cards than it has (a carpet flew
   * first): cards seen later join it until the flight is resolved */
  bool layout_pending;
  /* carpets that lay there when the layout began (the last flight's, not
   * taken yet): not a first landing. Set from the first layout frame. */
  int layout_frames;
  int n_stale;
  char stale[FT_MAX_CARPETS][FT_NAME_MAX];
  int next_id;
  /* cards out of the game that may still lie there */
  int n_ghost;
  wch__ghost ghost[FT_DECK_SIZE];

  /* the flight being thrown: carpets seen so far, in landing order */
  int n_landed;
  char landed[FT_MAX_CARPETS][FT_NAME_MAX];
  bool landed_off[FT_MAX_CARPETS];
  int landed_seen[FT_MAX_CARPETS]; /* still frames that showed it */
  /* noted in the frame that took the layout (analysed without the layout
   * known, where a card may pass for a carpet) */
  bool landed_doubtful[FT_MAX_CARPETS];
  bool landed_out_of_turn[FT_MAX_CARPETS]; /* another's turn when it landed */
  wch__last_seen landed_last[FT_MAX_CARPETS];
  bool in_layout_frame; /* the throws of the frame that took the layout,
                           or that ended the taking-away */
  /* the carpets where the last flight was resolved: the taking-away is
   * over when none of them lies there any more */
  /* the last still frame of the throws with a carpet in view: when the
   * carpets are gone before all were seen to land, the flight is resolved
   * from it */
  wch_obs throw_obs;
  bool have_throw_obs;
  int n_flight_carpets;
  /* the last flight's carpets were seen taken away (the players took
   * what it gave them): at a round's last flight the lamps wait for it */
  bool taking_seen;
  /* looks of the taking so far that showed cards it would give to a
   * carpet gone (cfg.taking_looks), and those gone in every one of them
   * (by card id) */
  int taking_looked;
  uint64_t taking_gone;
  wch_carpet_obs flight_carpets[WCH_MAX_OBS_CARPETS];
  bool unknown_warned;
  int flights_total; /* counts resolved flights over the game */

  /* the last flight, for contests, taking-away and corrections */
  ft_game *before_flight;
  int n_ref_before;
  wch__card ref_before[FT_MAX_CARDS];
  int n_ghost_before;
  wch__ghost ghost_before[FT_DECK_SIZE];
  size_t log_before; /* transcript length before its flight line */
  wch__landings landings;
  ft_flight_report report;
  int n_results; /* -1 once the flight event was emitted */
  ft_contest_result results[FT_MAX_CARDS];
  int n_emitted; /* the results of the emitted flight event */
  ft_contest_result emitted[FT_MAX_CARDS];
  int n_reveals;
  wch__reveal reveals[FT_MAX_CARDS];
  int n_old_reveals; /* kept across a `give` */
  wch__reveal old_reveals[FT_MAX_CARDS];
  bool have_flight;

  /* the transcript, as written so far */
  char *log;
  size_t log_len, log_cap;
  bool cut_pending; /* cut back in memory, not written yet (wch__cut) */
  int answers_used;
  int64_t resume_frame;
  int warnings;
  bool replaying; /* wch_resume: rebuild state, write and say nothing */
  wch_obs last_obs; /* the last still frame (for `resolve`) */
  bool have_last_obs;
  /* announce at once, confirm after (confirm.c): the flight was resolved
   * from the first still frame of a scene; the next still frames of the
   * same scene vote again on each carpet's cards */
  bool confirming;
  int confirm_frames; /* frames that voted after the announced one */
  int vote_seen[FT_MAX_CARPETS]; /* frames showing landing k's carpet */
  unsigned char votes[FT_MAX_CARPETS][FT_DECK_SIZE]; /* ... on card id */
  /* of those frames, the ones that were not sure of the contact (barely,
   * or hidden: unsure), and of these the ones that took the carpet as
   * lying on the card */
  unsigned char doubted[FT_MAX_CARPETS][FT_DECK_SIZE];
  unsigned char doubted_on[FT_MAX_CARPETS][FT_DECK_SIZE];
  int corrections; /* flights corrected on a second look, whole game */
  /* the last commentary lines (a ring; n_said counts all ever said) */
  int n_said;
  wch_tone said_tone[WCH__SAID];
  char said[WCH__SAID][256];
};

/* controller.c */
void wch__say(wch *w, wch_tone tone, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void wch__warn(wch *w, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void wch__event(wch *w, const char *json);
tp_status wch__append(wch *w, const char *text, tp_error *err);
tp_status wch__rewrite(wch *w, size_t keep, tp_error *err);
void wch__cut(wch *w, size_t keep);
tp_status wch__commit(wch *w, tp_status so_far, tp_error *err);
tp_status wch__mark(wch *w, tp_error *err);
tp_status wch__append_marked(wch *w, const char *text, tp_error *err);
const char *wch__card_label(int type);
/* The plural for counted cards: "palaces" in "two palaces". */
const char *wch__card_plural(int type);
tp_status wch__resolve(wch *w, const wch_obs *obs, bool reuse_landings,
                       tp_error *err);
tp_status wch__after_answer(wch *w, tp_error *err);
void wch__enter_layout(wch *w);
void wch__save_before_flight(wch *w);
void wch__ref_to_ghost(wch *w, int card_id, int owner);
void wch__landings_from(wch *w, const wch_obs *obs);
void wch__landings_seen(const wch *w, const wch__known *known,
                        const wch_obs *obs, wch__landings *out);
bool wch__carpet_in(const wch_obs *obs, const char *colour);
/* Takes out of obs each landed carpet seen only as a sliver away from
 * where it was last seen, with a later carpet over that place: it is
 * hidden there (controller.c, stray_sliver). */
void wch__hide_stray_slivers(const wch *w, wch_obs *obs);
void wch__remember_flight_carpets(wch *w, const wch_obs *obs);

/* answers.c */
tp_status wch__answer_genies(wch *w, char *rest, tp_error *err);
tp_status wch__answer_reveal(wch *w, char *rest, tp_error *err);
tp_status wch__answer_lamps(wch *w, char *rest, tp_error *err);
tp_status wch__amend_flight(wch *w, const int *cards, const int *landing,
                            int n, tp_error *err);
tp_status wch__unclaim_flight(wch *w, const int *cards, const int *landing,
                              int n, tp_error *err);
tp_status wch__take_back(wch *w, tp_error *err);
tp_status wch__resolve_again(wch *w, const char *note, tp_error *err);
void wch__correction_event(wch *w, const char *action, int card,
                           const char *player);

/* confirm.c */
void wch__confirm_begin(wch *w, const wch_obs *obs);
void wch__confirm_resumed(wch *w);
/* `id` is one of the n ids. */
bool wch__has_id(const int *ids, int n, int id);

/* report.c */
void wch__emit_layout(wch *w);
void wch__emit_flight(wch *w);
void wch__emit_round_end(wch *w, const ft_round_report *r);
void wch__emit_final(wch *w);
void wch__say_flight(wch *w);

/* retype.c: card w->ref[k] is `type` (a frame sure of it), not the type
 * guessed at the layout; refused (warned) when the game cannot take it */
tp_status wch__retype_card(wch *w, int k, int type, tp_error *err);
/* ... and the place of card w->ref[k], unseen at the layout and seen now,
 * written into the round's layout line (where the card lies, as for the
 * cards seen at the layout); also what a refused retype does */
tp_status wch__place_card(wch *w, int k, tp_error *err);

/* geom.c */
double wch__rect_overlap(double ax, double ay, double aang, const double asz[2],
                         double bx, double by, double bang,
                         const double bsz[2]);
double wch__dist(double ax, double ay, double bx, double by);

#endif
