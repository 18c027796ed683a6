/* label_place: where the annotation's labels go. A label at an object's
 * centre lands on whatever lies on top of it (a card half under a carpet
 * got the carpet's middle) and on the labels of its neighbours; players
 * then read "palace" on a red carpet. Each label goes instead to the first
 * free spot on the visible part of its own object. */
#include <math.h>

#include "analysis_internal.h"

static bool covered(vis_pt p, const vis_rect *covers, int n_covers) {
  for (int i = 0; i < n_covers; i++)
    if (vis_rect_contains(&covers[i], p)) return true;
  return false;
}

int an__label_spots(const vis_rect *r, const vis_rect *covers, int n_covers,
                    vis_pt *out, int max) {
  /* offsets as fractions of the long (along) and short (across) side,
   * nearest the middle first; the ends stay clear of the outline */
  static const double along[] = {0, -0.2, 0.2, -0.35, 0.35, -0.42, 0.42};
  static const double across[] = {0, -0.25, 0.25};
  double a = r->angle_deg * 3.14159265358979323846 / 180.0;
  double lx = cos(a), ly = sin(a), ax = -ly, ay = lx;
  int n = 0;
  for (size_t i = 0; i < sizeof along / sizeof *along; i++)
    for (size_t j = 0; j < sizeof across / sizeof *across && n < max; j++) {
      double dl = along[i] * r->h, da = across[j] * r->w;
      vis_pt p = {r->center.x + dl * lx + da * ax, r->center.y + dl * ly + da * ay};
      if (!covered(p, covers, n_covers)) out[n++] = p;
    }
  return n;
}

static double overlap(const an__box *a, const an__box *b) {
  double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0);
  double h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
  return w > 0 && h > 0 ? w * h : 0;
}

static an__box box_at(vis_pt c, double w, double h) {
  return (an__box){c.x - w / 2, c.y - h / 2, c.x + w / 2, c.y + h / 2};
}

void an__reserve(an__labels *l, an__box b) {
  if (l->n < AN__MAX_LABELS) l->placed[l->n++] = b;
}

int an__place_label(an__labels *l, const vis_pt *cand, int n_cand, double w,
                    double h, vis_pt *out) {
  int best = -1;
  double best_overlap = INFINITY;
  for (int i = 0; i < n_cand && best_overlap > 0; i++) {
    an__box b = box_at(cand[i], w, h);
    double sum = 0;
    for (int k = 0; k < l->n; k++) sum += overlap(&b, &l->placed[k]);
    if (sum < best_overlap) best = i, best_overlap = sum;
  }
  if (best < 0) return -1;
  *out = cand[best];
  an__reserve(l, box_at(cand[best], w, h));
  return best;
}
