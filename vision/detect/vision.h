/* vision: the deck, table geometry and the analysis of one photo of the
 * table (cards, carpets, who lies on top). Prefix vis_.
 *
 * Everything is in table millimetres (spec section 1) unless a name says
 * _px. Images are core tp_image views (RGB, 8 bit). OpenCV stays behind
 * vision/cvw; this header needs only core.h.
 *
 * Typical use:
 *     vis_deck *deck; vis_deck_load("mydeck", &deck, &err);
 *     vis_analyzer *an; vis_analyzer_create(deck, NULL, &an, &err);
 *     vis_result res; vis_analyze(an, &rgb, &map, &res, &err);
 *     ... res.cards / res.carpets / res.profile ...
 *     vis_result_free(&res); vis_analyzer_destroy(an); vis_deck_destroy(deck);
 */
#ifndef TEPPICH_VISION_H
#define TEPPICH_VISION_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- deck */

/* The twelve destination card types of spec section 2, in this order. */
enum { VIS_TYPE_COUNT = 12 };
const char *vis_type_name(int type); /* NULL outside 0..11 */
int vis_type_from_name(const char *name); /* -1 if unknown */

enum { VIS_MAX_CARPETS = 16, VIS_COLOUR_MAX = 32 };

typedef struct vis_deck vis_deck;

/* An empty deck with the default sizes (59 x 91 mm for both kinds). */
tp_status vis_deck_create(vis_deck **out, tp_error *err);
void vis_deck_destroy(vis_deck *deck); /* NULL-safe */

/* Loads a deck folder (spec section 2): deck.json (optional), one image per
 * type, carpet-<colour>[-back].png|jpg. Unknown stems, unreadable images,
 * bad JSON: an error naming the file. Other files (README, .txt) are
 * ignored. */
tp_status vis_deck_load(const char *dir, vis_deck **out, tp_error *err);

/* Parses deck.json text into the deck's sizes (exposed for tests/fuzzing).
 * `name` is only used in error messages. */
tp_status vis_deck_parse_json(vis_deck *deck, const char *text, size_t len,
                              const char *name, tp_error *err);

/* Adds (copies) one upright face image, RGB or RGBA. kind: a type stem
 * ("palace"), "carpet-<colour>" or "carpet-<colour>-back". */
tp_status vis_deck_add_face(vis_deck *deck, const char *stem,
                            const tp_image *face, tp_error *err);

void vis_deck_set_sizes(vis_deck *deck, const double card_mm[2],
                        const double carpet_mm[2]);
void vis_deck_card_mm(const vis_deck *deck, double out[2]);
void vis_deck_carpet_mm(const vis_deck *deck, double out[2]);
/* Cards as printed (and as the renderer draws them) have corners rounded
 * by about 3 mm; a deck.json without "corner_mm" means this. */
#define VIS_DECK_CORNER_MM 3.0
/* The radius of the cards' rounded corners, mm (deck.json "corner_mm",
 * default 3): where a carpet's corner meets a card's, it decides whether
 * they touch at all (vis_rect_contact_depth). */
double vis_deck_corner_mm(const vis_deck *deck);
bool vis_deck_has_type(const vis_deck *deck, int type);
const tp_image *vis_deck_type_face(const vis_deck *deck, int type);
int vis_deck_carpet_count(const vis_deck *deck);
const char *vis_deck_carpet_colour(const vis_deck *deck, int i);
const tp_image *vis_deck_carpet_face(const vis_deck *deck, int i);
const tp_image *vis_deck_carpet_back(const vis_deck *deck, int i); /* or NULL */

/* ------------------------------------------------------------ geometry */

typedef struct {
  double x, y;
} vis_pt;

/* An oriented rectangle: centre, width (short side) and height (long
 * side, the card's long axis), angle of the long axis from +x toward +y
 * in degrees, normalised to [0, 180). */
typedef struct {
  vis_pt center;
  double w, h;
  double angle_deg;
} vis_rect;

/* Corners in order: the two ends of one short side, then the other, going
 * around (a closed convex polygon, consistent winding). */
void vis_rect_corners(const vis_rect *r, vis_pt out[4]);
double vis_normalize_angle180(double deg);
/* Area of a simple polygon (absolute value). */
double vis_polygon_area(const vis_pt *p, int n);
/* Area of the intersection of two convex polygons (any winding). */
double vis_convex_overlap_area(const vis_pt *a, int na, const vis_pt *b,
                               int nb);
double vis_rect_overlap_area(const vis_rect *a, const vis_rect *b);
/* How deep a reaches into b (mm), both with corners rounded by corner_mm
 * (the deck's, vis_deck_corner_mm): tp_rounded_rect_contact_depth
 * (negative: the gap between them). */
double vis_rect_contact_depth(const vis_rect *a, const vis_rect *b, double corner_mm);
/* vis_rect_contact_depth of a and b drawn `scale` times their size (and
 * corner radius) about their centres, in mm of the table as it is: the
 * depth the analysis decides by, at a carpet's contact_scale. */
double vis_rect_contact_depth_at(const vis_rect *a, const vis_rect *b, double corner_mm,
                                 double scale);
/* True if the point lies inside the rectangle (on the edge counts). */
bool vis_rect_contains(const vis_rect *r, vis_pt p);

/* ------------------------------------------------------------ analysis */

/* Tunables. vis_settings_default fills them; each says its trade-off. */
typedef struct {
  /* Rectified table image scale. More: better positions, slower. */
  double px_per_mm;
  /* Minimum normalised face match score for a card type to be certain;
   * lower: fewer "uncertain" cards, more wrong types. */
  double type_min_score;
  /* Required margin between the best and second-best type score. */
  double type_min_margin;
  /* A card must show at least this fraction to be reported at all. */
  double card_min_visible;
  /* Carpet-on-carpet overlaps smaller than this (mm^2) count as touching
   * (which carpet lies on top is not asked there); about the pose error. */
  double min_overlap_mm2;
  /* A carpet lies on a card when it reaches more than this (mm) into it
   * (tp_contact_lies_on): the rules' contact depth, ft_rules_contact_mm
   * (default a hair above 0: any overlap; negative: touching counts). */
  double contact_depth_mm;
  /* A depth within this (mm) of contact_depth_mm is about the pose error:
   * the carpet is reported uncertain, with which card and how deep. */
  double contact_doubt_mm;
  /* Worker threads for the stages that split into independent parts
   * (the rectification's strips), 1..16. 1 (the default) runs everything
   * in the calling thread; more: faster on a multi-core Pi. */
  int threads;
  /* If set, intermediate images (rectified table, object mask) and a log
   * of the hypotheses go to this folder: slow, for looking at failures. */
  const char *debug_dir;
} vis_settings;

void vis_settings_default(vis_settings *s);

/* Per-stage wall time of the last analysis, milliseconds (like AprilTag's
 * timeprofile): what `teppich bench` prints. */
typedef struct {
  double decode_ms; /* filled by callers that decode (analyze/bench) */
  double markers_ms; /* filled by callers: markers and the table fit */
  double mapping_ms; /* rectification of the table */
  double detect_ms;  /* carpets and cards found */
  double identify_ms;
  double stacking_ms;
  double rules_ms; /* filled by callers that resolve claims */
  double total_ms;
} vis_profile;

enum { VIS_REASON_MAX = 160 };

typedef struct {
  int type; /* 0..11, or -1 when no type could be given */
  vis_rect rect;
  double visible_fraction;
  double type_score;  /* best normalised match, 0..1 */
  double type_margin; /* best minus second best */
  bool upside_down;   /* face turned by 180 degrees */
  bool uncertain;
  /* vis_analyze: the type whose face came second (the look-alike it was
   * told from), if any; a caller that knows the type cannot be (all
   * cards of it used up) can take this one */
  bool has_second_type;
  int second_type;
  double second_type_score; /* its match, as type_score */
  /* Only vis_analyze_with_reference sets it: the card's place shows the
   * table now (neither the card as it was at layout nor a carpet) and its
   * patch is not found within a bump's reach: it was taken away. Then
   * visible_fraction is 0, uncertain false, type the reference type,
   * rect the last pose and reason "taken away: ...". */
  bool gone;
  char reason[VIS_REASON_MAX];
} vis_card;

typedef struct {
  int carpet;   /* index into the deck's carpets */
  char colour[VIS_COLOUR_MAX];
  bool face_down;
  vis_rect rect;
  double visible_fraction;
  int on_cards[64]; /* cards this carpet lies on from above */
  int n_on_cards;
  int under_cards[64]; /* cards lying on top of this carpet */
  int n_under_cards;
  bool uncertain;
  char reason[VIS_REASON_MAX];
  /* The uncertainty is about its contact with one card: its depth into
   * card contact_doubt_card lies within the pose error of the rules'
   * contact depth (it barely touches it, or barely lies on it). */
  bool contact_doubt;
  int contact_doubt_card;
  /* The table's scale its depths into cards are measured at
   * (vis_rect_contact_depth_at; 1.004: the table looks 0.4 % larger there
   * than the markers' mapping says), read from its own face when
   * contact_scale_own, else the mean of the carpets' that were (or 1). */
  double contact_scale;
  bool contact_scale_own;
} vis_carpet;

/* One overlap between a carpet and a card or another carpet, and which is
 * on top. */
typedef struct {
  int carpet;
  int other;          /* card index, or carpet index if other_is_carpet */
  bool other_is_carpet;
  bool carpet_on_top;
  double area_mm2;
  double depth_mm;   /* how deep the carpet reaches into the other */
  double confidence; /* 0..1 */
  bool uncertain;
  /* What its own pixels showed (samples of the carpet's face, the other's,
   * a third object's; 0 when it was decided in an earlier frame). */
  int votes_on, votes_under, votes_hidden;
} vis_overlap;

typedef struct {
  int markers_seen[4]; /* filled by callers (calibration) */
  int n_markers_seen;
  vis_card *cards;
  int n_cards;
  vis_carpet *carpets;
  int n_carpets;
  vis_overlap *overlaps;
  int n_overlaps;
  vis_profile profile;
} vis_result;

void vis_result_free(vis_result *res); /* NULL-safe, resets */

/* Where the table lies in the photo: the calibration's table mm -> image
 * pixel mapping (with its lens model) as a function, and the part of the
 * table to look at. table_to_image may be called from several of the
 * analysis's worker threads at once (vis_settings.threads): it must only
 * read what user points to (cal_table_to_image does). */
typedef struct {
  /* false where the point does not map (beyond the horizon) */
  bool (*table_to_image)(void *user, const double mm[2], double px[2]);
  void *user;
  double area_mm[4]; /* x0, y0, x1, y1 */
} vis_table_map;

typedef struct vis_analyzer vis_analyzer;

/* The analyzer keeps the deck's prepared face models and scratch memory;
 * `deck` must outlive it. settings NULL = defaults. */
tp_status vis_analyzer_create(const vis_deck *deck, const vis_settings *s,
                              vis_analyzer **out, tp_error *err);
void vis_analyzer_destroy(vis_analyzer *an); /* NULL-safe */

/* Analyses one RGB photo whose table mapping (from calibration/, a file
 * or the photo's own markers) is `map`. */
tp_status vis_analyze(vis_analyzer *an, const tp_image *rgb,
                      const vis_table_map *map, vis_result *out,
                      tp_error *err);


/* ------------------------------------------- analysis against a layout */

/* What the layout cards looked like before any carpet flew (issue 8): a
 * flight frame is then analysed knowing the cards, their types and poses;
 * only the carpets and who lies on top are found, and on-top is decided
 * by comparing the overlap's pixels with the card as it was at layout and
 * with the carpet's deck face. */
typedef struct vis_reference vis_reference;

/* An empty reference (no cards yet). */
tp_status vis_reference_create(vis_reference **out, tp_error *err);
void vis_reference_destroy(vis_reference *ref); /* NULL-safe */

/* Remembers these cards (type, rect in table mm) and what each looks like
 * in this photo (its rectified patch). Call with the layout frame; later
 * again with cards first seen later (a card dealt after the first carpet
 * flew). Cards keep the index order they were added in. A card with type
 * -1 or a rect outside the table image is an error naming it. */
tp_status vis_reference_add_cards(vis_reference *ref, vis_analyzer *an,
                                  const tp_image *rgb, const vis_table_map *map,
                                  const vis_card *cards, int n, tp_error *err);
int vis_reference_card_count(const vis_reference *ref); /* 0 for NULL */

/* Optional, for speed: the table with no carpet on it (the layout
 * frame, or a later frame with no carpet and no hand in view). Flight
 * frames are then searched for carpets only where they differ from it (5
 * mm cells, after the frame's overall light change is taken out); without
 * it the whole table is searched. Calling again replaces it (cards taken
 * since then only cost time until then: their place shows as changed). */
tp_status vis_reference_set_table(vis_reference *ref, vis_analyzer *an,
                                  const tp_image *rgb, const vis_table_map *map,
                                  tp_error *err);

/* Optional, for speed in a live game, where the landings are decided one
 * after another (issue 8's half second): makes the frame just analysed
 * and decided the starting point of the next analysis. `decided` is the
 * result of vis_analyze_with_reference on `rgb` (exactly
 * vis_reference_card_count cards), possibly corrected by the caller (an
 * overlap turned by the throw order): its carpets, their poses and the
 * overlaps as decided are remembered, and the frame's cells replace the
 * bare table's for the change test. The next vis_analyze_with_reference
 * then looks for carpets only where the frame changed since (the new
 * carpet, a card or carpet it bumped), keeps each remembered carpet that
 * still lies where it lay (same pose, and whatever changed on it is
 * under a new carpet) with its overlaps as decided, and decides again
 * only the overlaps of what is new or moved. A remembered carpet whose
 * place changed otherwise (bumped, taken away) is searched for again.
 * It costs a rectification (about what vis_reference_set_table costs),
 * best spent while the next carpet flies. vis_reference_set_table
 * (a carpet-free frame) forgets it; so does vis_reference_forget_decided. */
tp_status vis_reference_set_decided(vis_reference *ref, vis_analyzer *an,
                                    const tp_image *rgb,
                                    const vis_table_map *map,
                                    const vis_result *decided, tp_error *err);
/* Forgets the decided frame (set_decided): back to the bare table or, if
 * none was set, to searching the whole table. NULL-safe. */
void vis_reference_forget_decided(vis_reference *ref);

/* Forgets card i (taken away); indices of the others stay stable (the
 * slot is marked empty). Out of range: nothing happens. */
void vis_reference_remove_card(vis_reference *ref, int i);

/* Analyses a photo of the same table, knowing the reference cards:
 * out->cards has exactly vis_reference_card_count entries in reference
 * order (a removed slot: type -1, visible_fraction 0, reason "removed"),
 * each with the reference type, its rect (updated if the card was bumped
 * or shifted: tracked), its visible fraction now, `gone` when the table
 * shows where it lay (taken away); carpets and overlaps as
 * in vis_analyze. Cards not in the reference that appear in the photo are
 * NOT reported (the controller adds them through add_cards). */
tp_status vis_analyze_with_reference(vis_analyzer *an, const vis_reference *ref,
                                     const tp_image *rgb, const vis_table_map *map,
                                     vis_result *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
