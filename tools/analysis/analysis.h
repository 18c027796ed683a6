/* analysis: what `teppich analyze`, `eval` and `bench` share. Prefix an_.
 *
 * A session holds the deck (a folder or the built-in demo deck), the
 * vision analyzer, the rules and the players; a report is one analysed
 * photo with the rules' claims, contests and returned carpets. */
#ifndef TEPPICH_ANALYSIS_H
#define TEPPICH_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "core.h"
#include "ft.h"
#include "vision.h"

typedef struct {
  const char *image;      /* for messages */
  const char *deck_dir;   /* NULL: the built-in demo deck */
  const char *calib_file; /* NULL: calibrate from the photo's markers */
  const char *players;    /* NULL: each colour its own player */
  const ft_rules *rules;  /* NULL: the built-in rules; what "lies on"
                             means comes from here (ft_rules_contact_mm) */
  int threads; /* analysis workers 1..16; 0: AN_DEFAULT_THREADS (the
                  results are the same for any number) */
  /* Photos of one still camera (watch): while a photo's markers lie
   * where the held calibration's did, it is mapped by that one, not by
   * its own fit (see AN_STILL_MARKER_PX). */
  bool hold_still_map;
} an_options;

/* How far (pixels) a marker corner may lie from where the held
 * calibration puts it and the camera still counts as unmoved: detection
 * noise is a fraction of a pixel, a bumped camera moves them further. */
#define AN_STILL_MARKER_PX 1.5

/* One worker per online core, at most 4 (the Pi 5's cores): more workers
 * than cores only add switching. */
enum { AN_DEFAULT_MAX_THREADS = 4 };
int an_default_threads(void);

typedef struct an_session an_session;

tp_status an_session_create(const an_options *o, an_session **out,
                            tp_error *err);
void an_session_destroy(an_session *s); /* NULL-safe */
const vis_deck *an_session_deck(const an_session *s);

typedef struct {
  vis_result vis;
  ft_resolution rules;
  char players[VIS_MAX_CARPETS][FT_NAME_MAX]; /* per carpet of vis */
  tp_image photo; /* the analysed RGB photo (kept for --annotate) */
  bool has_map;   /* drawn through map instead of vis.homography */
  vis_table_map map;
  struct cal_calib *own_calib; /* the photo's own calibration, if made */
} an_report;

void an_report_free(an_report *r); /* NULL-safe, resets */

/* Decodes the file (timed as decode_ms) and analyses it. */
tp_status an_run_file(an_session *s, const char *path, an_report *out,
                      tp_error *err);
/* Analyses a photo already in memory (copied into the report). map NULL:
 * the session's calibration or the photo's markers. */
tp_status an_run_image(an_session *s, const tp_image *rgb,
                       const vis_table_map *map, an_report *out, tp_error *err);
/* The same, knowing the layout cards (vis_analyze_with_reference; ref
 * NULL: plain vis_analyze): out->vis.cards are the reference's, in its
 * order. */
tp_status an_run_image_ref(an_session *s, const vis_reference *ref,
                           const tp_image *rgb, const vis_table_map *map,
                           an_report *out, tp_error *err);
/* The session's analyzer (for vis_reference_add_cards). */
vis_analyzer *an_session_analyzer(an_session *s);

/* Spec section 4 JSON and the readable summary (malloc'd, NULL on OOM). */
char *an_report_json(const an_session *s, const an_report *r);
char *an_report_summary(const an_session *s, const an_report *r);

/* Writes the photo with outlines, labels, stacking and claims (atomic). */
tp_status an_annotate(const an_session *s, const an_report *r,
                      const char *path, tp_error *err);


/* ---- rendered scenes for eval and bench (scenes.c) ---- */
#include "render.h"

/* A renderer of the demo deck with marker bits from vision/cvw. */
typedef struct an_scenes an_scenes;
tp_status an_scenes_create(an_scenes **out, tp_error *err);
/* The same with a deck folder (spec section 2; NULL: the demo deck), for
 * scenes of a user's own deck (eval --scene --deck). */
tp_status an_scenes_create_deck(const char *deck_dir, an_scenes **out,
                                tp_error *err);
/* The deck's card and carpet sizes (deck.json), the scene defaults. */
void an_scenes_sizes(const an_scenes *s, double card_mm[2], double carpet_mm[2]);
void an_scenes_destroy(an_scenes *s); /* NULL-safe */
/* Renders a scene into *img (allocated; free with tp_image_free). */
tp_status an_scenes_render(an_scenes *s, const rnd_scene *scene, tp_image *img,
                           tp_error *err);
/* The photo as the camera path sees it: rendered, then through JPEG at
 * the scene's quality (90 where it sets none). */
tp_status an_scenes_photo(an_scenes *s, const rnd_scene *scene, tp_image *img,
                          tp_error *err);
/* The renderer's own camera as the table mapping, to tell the vision's
 * errors from the calibration's; area NULL: the whole game area. The map
 * points into *scene, which must outlive it. */
vis_table_map an_scenes_true_map(const rnd_scene *scene, const double *area);

/* How one analysis compares with the truth of its scene. */
typedef struct {
  int truth_cards, found_cards, matched_cards, right_types;
  int truth_carpets, found_carpets, matched_carpets;
  int stack_decisions, stack_right; /* carpet/card overlaps: on top or not */
  double pos_err_sum, pos_err_max;  /* mm, matched cards and carpets */
  int pos_n;
  int uncertain; /* cards and carpets marked uncertain */
  /* The wrong decisions a player would act on, and how many of them the
   * analysis marked uncertain (issue 5: never a guess presented as
   * certain). A missed card or carpet has nothing to carry a mark. */
  int wrong_types, wrong_types_marked;   /* matched cards of another type */
  int wrong_stacks, wrong_stacks_marked; /* on-top decisions, both found */
  int phantoms, phantoms_marked;         /* cards and carpets not there */
  bool exact;    /* everything right */
  char first_error[160];
  char errors[1024]; /* every error, "; "-separated (cut when long) */
} an_score;

/* The truth's "lies on" by the default rules, or by contact_mm
 * (ft_rules_contact_mm of the rules the truth is read with). */
void an_score_scene(const rnd_scene *scene, const an_report *r, an_score *out);
void an_score_scene_contact(const rnd_scene *scene, const an_report *r, double contact_mm,
                            an_score *out);

/* Truth card i -> our card index in ours_of[i] (the nearest centre within
 * 15 mm, each of ours taken once), or -1. */
void an_match_truth_cards(const rnd_scene *scene, const rnd_truth *t, const vis_result *v,
                          int *ours_of);
/* Our carpet of truth carpet j's colour within 20 mm of it, or NULL. */
const vis_carpet *an_match_truth_carpet(const rnd_scene *scene, const rnd_truth *t,
                                        const vis_result *v, int j);

/* The signed pose errors of every matched card and carpet, for finding a
 * bias (eval --pose-errors; pose_errors.c): one tab-separated line each,
 * and one per carpet/card pair the truth puts within 2 mm of contact with
 * both depths. an_pose_errors_header writes the column names. */
void an_pose_errors_header(FILE *f);
void an_pose_errors_write(FILE *f, const char *level, unsigned long seed,
                          const rnd_scene *scene, const an_report *r, double contact_mm);

#endif
