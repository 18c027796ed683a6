/* label_place: where the annotation's labels go. A label at an object's
 * centre lands on whatever lies on top of it (a card half under a carpet
 * got the carpet's middle), on the labels of its neighbours and on the
 * markers; players then read "palace" on a red carpet. Each label goes
 * instead to the first free spot on the visible part of its own object,
 * or beside the object (with a leader line) when none is free. */
#include <math.h>

#include "analysis_internal.h"

static bool covered(vis_pt p, const vis_rect *covers, int n_covers) {
  for (int i = 0; i < n_covers; i++)
    if (vis_rect_contains(&covers[i], p)) return true;
  return false;
}

int an__label_spots(const vis_rect *r, const vis_rect *covers, int n_covers,
                    vis_pt *out, int max) {
  /* offsets as fractions of the long (along) and short (across) side:
   * inside, nearest the middle first; then the middles of the four edges
   * and the corners (just inside, so that the spot is on the object) */
  static const double spot[][2] = {
      {0, 0},       {0, -0.25},     {0, 0.25},     {-0.2, 0},     {-0.2, -0.25},
      {-0.2, 0.25}, {0.2, 0},       {0.2, -0.25},  {0.2, 0.25},   {-0.35, 0},
      {-0.35, -0.25}, {-0.35, 0.25}, {0.35, 0},    {0.35, -0.25}, {0.35, 0.25},
      {-0.42, 0},   {-0.42, -0.25}, {-0.42, 0.25}, {0.42, 0},     {0.42, -0.25},
      {0.42, 0.25}, {-0.48, 0},     {0.48, 0},     {0, -0.48},    {0, 0.48},
      {-0.48, -0.48}, {-0.48, 0.48}, {0.48, -0.48}, {0.48, 0.48}};
  double a = r->angle_deg * 3.14159265358979323846 / 180.0;
  double lx = cos(a), ly = sin(a), ax = -ly, ay = lx;
  int n = 0;
  for (size_t i = 0; i < sizeof spot / sizeof *spot && n < max; i++) {
    double dl = spot[i][0] * r->h, da = spot[i][1] * r->w;
    vis_pt p = {r->center.x + dl * lx + da * ax, r->center.y + dl * ly + da * ay};
    if (!covered(p, covers, n_covers)) out[n++] = p;
  }
  return n;
}

void an__labels_init(an__labels *l, double width, double height) {
  l->bounds = (an__box){0, 0, width, height};
  l->n = l->n_markers = l->n_objects = 0;
}

void an__add_marker(an__labels *l, const an__quad *q) {
  if (l->n_markers < AN__MAX_MARKERS) l->markers[l->n_markers++] = *q;
}

void an__add_object(an__labels *l, const an__quad *q) {
  if (l->n_objects < AN__MAX_OBJECTS) l->objects[l->n_objects++] = *q;
}

void an__reserve(an__labels *l, an__box b) {
  if (l->n < AN__MAX_LABELS) l->placed[l->n++] = b;
}

static double box_overlap(const an__box *a, const an__box *b) {
  double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0);
  double h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
  return w > 0 && h > 0 ? w * h : 0;
}

static double quad_overlap(const an__box *b, const an__quad *q) {
  vis_pt corners[4] = {{b->x0, b->y0}, {b->x1, b->y0}, {b->x1, b->y1}, {b->x0, b->y1}};
  return vis_convex_overlap_area(corners, 4, q->p, 4);
}

static an__box box_at(vis_pt c, double w, double h) {
  return (an__box){c.x - w / 2, c.y - h / 2, c.x + w / 2, c.y + h / 2};
}

/* What a box at b would cover that nothing may cover: labels, reserved
 * boxes, markers and the world outside the picture (pixels^2). */
static double hard_cost(const an__labels *l, const an__box *b) {
  double sum = (b->x1 - b->x0) * (b->y1 - b->y0) - box_overlap(b, &l->bounds);
  for (int k = 0; k < l->n; k++) sum += box_overlap(b, &l->placed[k]);
  for (int k = 0; k < l->n_markers; k++) sum += quad_overlap(b, &l->markers[k]);
  return sum;
}

/* ... and the objects it would cover, but for object `self`. */
static double objects_cost(const an__labels *l, const an__box *b, int self) {
  double sum = 0;
  for (int k = 0; k < l->n_objects; k++)
    if (k != self) sum += quad_overlap(b, &l->objects[k]);
  return sum;
}

static an__box quad_bounds(const an__quad *q) {
  an__box b = {q->p[0].x, q->p[0].y, q->p[0].x, q->p[0].y};
  for (int i = 1; i < 4; i++) {
    b.x0 = fmin(b.x0, q->p[i].x), b.x1 = fmax(b.x1, q->p[i].x);
    b.y0 = fmin(b.y0, q->p[i].y), b.y1 = fmax(b.y1, q->p[i].y);
  }
  return b;
}

enum { RINGS = 3, AROUND = 8 * RINGS };

/* Label centres around the outline's bounding box: above, below, right,
 * left, the four corners, then the same again further out (gaps of half
 * a label's height, 2.5 and 5 heights). */
static void around(const an__quad *q, double w, double h, vis_pt out[AROUND]) {
  an__box o = quad_bounds(q);
  double cx = (o.x0 + o.x1) / 2, cy = (o.y0 + o.y1) / 2;
  static const double gaps[RINGS] = {0.5, 2.5, 5};
  for (int ring = 0; ring < RINGS; ring++) {
    double gap = h * gaps[ring];
    double up = o.y0 - gap - h / 2, down = o.y1 + gap + h / 2;
    double left = o.x0 - gap - w / 2, right = o.x1 + gap + w / 2;
    vis_pt *p = out + 8 * ring;
    p[0] = (vis_pt){cx, up}, p[1] = (vis_pt){cx, down};
    p[2] = (vis_pt){right, cy}, p[3] = (vis_pt){left, cy};
    p[4] = (vis_pt){right, up}, p[5] = (vis_pt){left, up};
    p[6] = (vis_pt){right, down}, p[7] = (vis_pt){left, down};
  }
}

static vis_pt quad_centre(const an__quad *q) {
  return (vis_pt){(q->p[0].x + q->p[1].x + q->p[2].x + q->p[3].x) / 4,
                  (q->p[0].y + q->p[1].y + q->p[2].y + q->p[3].y) / 4};
}

int an__place_label(an__labels *l, const an__target *t, double w, double h,
                    an__placement *out) {
  vis_pt off[AROUND];
  int n_off = t->outline ? AROUND : 0;
  if (t->outline) around(t->outline, w, h, off);
  int best = -1;
  double best_hard = INFINITY, best_soft = INFINITY;
  for (int i = 0; i < t->n_spots + n_off && (best_hard > 0 || best_soft > 0); i++) {
    bool moved = i >= t->n_spots;
    an__box b = box_at(moved ? off[i - t->n_spots] : t->spots[i], w, h);
    double hard = hard_cost(l, &b), soft = moved ? objects_cost(l, &b, t->self) : 0;
    if (hard < best_hard || (hard == best_hard && soft < best_soft))
      best = i, best_hard = hard, best_soft = soft;
  }
  if (best < 0) return -1;
  out->moved = best >= t->n_spots;
  out->at = out->moved ? off[best - t->n_spots] : t->spots[best];
  out->anchor = t->n_spots ? t->spots[0] : t->outline ? quad_centre(t->outline) : out->at;
  an__reserve(l, box_at(out->at, w, h));
  return best;
}

/* What a block at b would cover: anything at all on the picture. */
static double block_cost(const an__labels *l, const an__box *b) {
  return hard_cost(l, b) + objects_cost(l, b, -1);
}

bool an__place_block(const an__labels *l, double w, double h, an__box *out) {
  /* top-left corner positions on a grid of 8 x 8 steps: the top and
   * bottom rows first, then the left and right columns, then the rest */
  enum { STEPS = 8 };
  double free_w = l->bounds.x1 - l->bounds.x0 - w, free_h = l->bounds.y1 - l->bounds.y0 - h;
  *out = (an__box){l->bounds.x0, l->bounds.y0, l->bounds.x0 + w, l->bounds.y0 + h};
  if (free_w < 0 || free_h < 0) return false;
  for (int pass = 0; pass < 3; pass++)
    for (int j = 0; j <= STEPS; j++)
      for (int i = 0; i <= STEPS; i++) {
        bool row_edge = j == 0 || j == STEPS, col_edge = i == 0 || i == STEPS;
        bool in_pass = pass == 0 ? row_edge : pass == 1 ? !row_edge && col_edge
                                                        : !row_edge && !col_edge;
        if (!in_pass) continue;
        double x = l->bounds.x0 + free_w * i / STEPS, y = l->bounds.y0 + free_h * j / STEPS;
        an__box b = {x, y, x + w, y + h};
        if (block_cost(l, &b) == 0) {
          *out = b;
          return true;
        }
      }
  return false;
}
