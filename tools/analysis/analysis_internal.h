/* analysis internals shared between its files and its tests (not for
 * other modules: they use analysis.h). Prefix an__. */
#ifndef TEPPICH_ANALYSIS_INTERNAL_H
#define TEPPICH_ANALYSIS_INTERNAL_H

#include "vision.h"

/* ---- where the annotation's labels go (label_place.c) ---- */

enum { AN__MAX_LABELS = 256, AN__MAX_SPOTS = 24 };

typedef struct {
  double x0, y0, x1, y1;
} an__box;

/* The labels placed so far on one picture (caller-owned, zero it). */
typedef struct {
  an__box placed[AN__MAX_LABELS];
  int n;
} an__labels;

/* Candidate label centres on rectangle r (table mm), the middle first and
 * then further out along its long axis, leaving out the points under any
 * of `covers` (what lies on top of r: a label there would name the wrong
 * object). Returns how many it wrote to out (at most max); 0 when r is
 * wholly covered. */
int an__label_spots(const vis_rect *r, const vis_rect *covers, int n_covers,
                    vis_pt *out, int max);

/* Puts a w x h label (pixels) at the first of the candidate centres where
 * it overlaps no label placed before, or where it overlaps least if all
 * do; records it (while there is room) and writes its centre to out.
 * Returns the candidate's index, or -1 when there is no candidate. */
int an__place_label(an__labels *l, const vis_pt *cand, int n_cand, double w,
                    double h, vis_pt *out);

/* Records a box that labels must keep clear of (the summary's lines). */
void an__reserve(an__labels *l, an__box b);

#endif
