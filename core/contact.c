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

bool tp_contact_lies_on(double depth_mm, double min_depth_mm) {
  return depth_mm > min_depth_mm;
}
