/* analysis internals shared between its files and its tests (not for
 * other modules: they use analysis.h). Prefix an__. */
#ifndef TEPPICH_ANALYSIS_INTERNAL_H
#define TEPPICH_ANALYSIS_INTERNAL_H

#include "analysis.h"
#include "vision.h"

/* The calibration whose markers the report's table mapping comes from
 * (the photo's own or the session's), or NULL when the mapping came from
 * elsewhere. */
const struct cal_calib *an__report_calib(const an_session *s, const an_report *r);

/* ---- where the annotation's labels go (label_place.c) ----
 * Everything here is in picture pixels except an__label_spots (table mm). */

enum {
  AN__MAX_LABELS = 256, /* labels and reserved boxes on one picture */
  AN__MAX_SPOTS = 32,   /* candidate spots on one object */
  AN__MAX_MARKERS = 16,
  AN__MAX_OBJECTS = 128 /* cards and carpets */
};

typedef struct {
  double x0, y0, x1, y1;
} an__box;

/* A convex quadrilateral: an object's or a marker's outline. */
typedef struct {
  vis_pt p[4];
} an__quad;

/* What labels must keep clear of, and the labels placed so far on one
 * picture (caller-owned; an__labels_init). */
typedef struct {
  an__box bounds; /* the picture: labels stay inside it */
  /* never covered: a covered marker cannot be checked on the picture */
  an__quad markers[AN__MAX_MARKERS];
  int n_markers;
  /* cards and carpets: a label moved off its own object keeps clear of
   * the others, where it would read as theirs */
  an__quad objects[AN__MAX_OBJECTS];
  int n_objects;
  an__box placed[AN__MAX_LABELS]; /* labels and the summary */
  int n;
} an__labels;

void an__labels_init(an__labels *l, double width, double height);
/* Record a marker or an object (ignored beyond the room there is). */
void an__add_marker(an__labels *l, const an__quad *q);
void an__add_object(an__labels *l, const an__quad *q);
/* Records a box that labels must keep clear of (the summary). */
void an__reserve(an__labels *l, an__box b);

/* Candidate label centres on rectangle r (table mm), the middle first,
 * then further out along its long axis, then on its edges, leaving out the
 * points under any of `covers` (what lies on top of r: a label there
 * would name the wrong object). Returns how many it wrote to out (at most
 * max); 0 when r is wholly covered. */
int an__label_spots(const vis_rect *r, const vis_rect *covers, int n_covers,
                    vis_pt *out, int max);

/* The object a label names. */
typedef struct {
  const vis_pt *spots; /* on its visible part, best first (pixels) */
  int n_spots;
  const an__quad *outline; /* NULL: the label may not leave the spots */
  int self;                /* its index among the objects, or -1 */
} an__target;

typedef struct {
  vis_pt at;     /* the label's centre */
  bool moved;    /* off its object: draw a leader line ... */
  vis_pt anchor; /* ... to here */
} an__placement;

/* Puts a w x h label at the first candidate where it covers no label,
 * marker or reserved box, stays in the picture and, when moved off its
 * object, covers no other object; where every candidate collides, at the
 * one that collides least. The candidates: the target's spots, then
 * around its outline, nearer first. Records the label (while there is
 * room). Returns the candidate's index, or -1 when there is none. */
int an__place_label(an__labels *l, const an__target *t, double w, double h,
                    an__placement *out);

/* Where a w x h block (the summary) covers no marker, object or reserved
 * box: along the picture's edges first, then anywhere. Returns false when
 * there is no such place (*out is then the top left corner). */
bool an__place_block(const an__labels *l, double w, double h, an__box *out);

#endif
