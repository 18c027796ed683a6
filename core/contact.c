/* core: how deep one convex outline reaches into another (the contact
 * depth that decides "lies on" versus "touches", shared by the renderer's
 * truth and the vision). */
#include <float.h>
#include <math.h>

#include "core.h"

/* The overlap of a and b projected onto the normal of edge (p, q): how far
 * one must move along it to clear the other (negative: a gap). */
static double overlap_along(double nx, double ny, const double (*a)[2], int na,
                            const double (*b)[2], int nb) {
  double a_lo = DBL_MAX, a_hi = -DBL_MAX, b_lo = DBL_MAX, b_hi = -DBL_MAX;
  for (int i = 0; i < na; i++) {
    double d = nx * a[i][0] + ny * a[i][1];
    a_lo = fmin(a_lo, d), a_hi = fmax(a_hi, d);
  }
  for (int i = 0; i < nb; i++) {
    double d = nx * b[i][0] + ny * b[i][1];
    b_lo = fmin(b_lo, d), b_hi = fmax(b_hi, d);
  }
  return fmin(a_hi - b_lo, b_hi - a_lo);
}

/* The smallest overlap over the edge normals of `edges` (a polygon). */
static double min_over_normals(const double (*edges)[2], int ne,
                               const double (*a)[2], int na,
                               const double (*b)[2], int nb) {
  double depth = DBL_MAX;
  for (int i = 0; i < ne; i++) {
    const double *p = edges[i], *q = edges[(i + 1) % ne];
    double ex = q[0] - p[0], ey = q[1] - p[1], len = hypot(ex, ey);
    if (len <= 0) continue; /* a repeated corner has no edge */
    depth = fmin(depth, overlap_along(-ey / len, ex / len, a, na, b, nb));
  }
  return depth;
}

/* Separating axes: two convex polygons overlap exactly when their
 * projections overlap on every edge normal of both, and the shortest move
 * that separates them is along one of those normals. */
double tp_convex_contact_depth(const double (*a)[2], int na,
                               const double (*b)[2], int nb) {
  if (na < 3 || nb < 3) return -DBL_MAX;
  double depth = fmin(min_over_normals(a, na, a, na, b, nb),
                      min_over_normals(b, nb, a, na, b, nb));
  return depth == DBL_MAX ? -DBL_MAX : depth;
}

/* Distance from point p to the segment (a, b). */
static double point_segment_distance(const double p[2], const double a[2],
                                     const double b[2]) {
  double ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
  double t = len2 > 0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / len2 : 0;
  t = fmin(1, fmax(0, t));
  return hypot(p[0] - (a[0] + t * ex), p[1] - (a[1] + t * ey));
}

/* Of two convex polygons that do not overlap, the nearest pair of points
 * always has a corner of one of them: the smallest corner-edge distance. */
static double corner_edge_distance(const double (*a)[2], int na,
                                   const double (*b)[2], int nb) {
  double d = DBL_MAX;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      d = fmin(d, point_segment_distance(a[i], b[j], b[(j + 1) % nb]));
  return d;
}

/* The core of a rounded rectangle: each corner moved r along both of its
 * edges toward the centre (the rectangle shrunk by r on every side). */
static void rect_core(const double rect[4][2], double r, double core[4][2]) {
  for (int i = 0; i < 4; i++) {
    const double *p = rect[i], *prev = rect[(i + 3) % 4], *next = rect[(i + 1) % 4];
    double lp = hypot(prev[0] - p[0], prev[1] - p[1]);
    double ln = hypot(next[0] - p[0], next[1] - p[1]);
    core[i][0] = p[0], core[i][1] = p[1];
    if (lp > 0) core[i][0] += r * (prev[0] - p[0]) / lp, core[i][1] += r * (prev[1] - p[1]) / lp;
    if (ln > 0) core[i][0] += r * (next[0] - p[0]) / ln, core[i][1] += r * (next[1] - p[1]) / ln;
  }
}

/* The corner radius a rectangle can have: at most half its short side. */
static double usable_radius(const double rect[4][2], double r) {
  double s1 = hypot(rect[1][0] - rect[0][0], rect[1][1] - rect[0][1]);
  double s2 = hypot(rect[2][0] - rect[1][0], rect[2][1] - rect[1][1]);
  return fmax(0, fmin(r, 0.5 * fmin(s1, s2)));
}

/* A rounded rectangle is its core with a disk of its radius swept around
 * it, so two of them meet where their cores come within ra + rb: the
 * depth is ra + rb plus the cores' own depth (when the cores overlap) or
 * minus the cores' distance (when they do not). The separating axes are
 * taken from the sharp rectangles, which stay rectangles when a core
 * shrinks to a segment or a point. */
double tp_rounded_rect_contact_depth(const double a[4][2], double ra,
                                     const double b[4][2], double rb) {
  ra = usable_radius(a, ra), rb = usable_radius(b, rb);
  double ca[4][2], cb[4][2];
  rect_core(a, ra, ca);
  rect_core(b, rb, cb);
  const double (*pa)[2] = (const double(*)[2])ca, (*pb)[2] = (const double(*)[2])cb;
  double sharp = fmin(min_over_normals(a, 4, pa, 4, pb, 4), min_over_normals(b, 4, pa, 4, pb, 4));
  if (sharp <= 0)
    sharp = -fmin(corner_edge_distance(pa, 4, pb, 4), corner_edge_distance(pb, 4, pa, 4));
  return ra + rb + sharp;
}

bool tp_contact_lies_on(double depth_mm, double min_depth_mm) {
  return depth_mm > min_depth_mm;
}
