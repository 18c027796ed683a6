/* cvw internal: corner refinement by edge-line fitting (cvw_refine.h). */
#include "cvw_refine.h"

#include "cvw.h"

#include <math.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  int width, height;
  size_t stride;
} gray_view;

/* Bilinear sample with (0,0) the centre of the top-left pixel; -1 outside. */
static double sample(const gray_view *g, double x, double y) {
  if (!(x >= 0 && y >= 0 && x <= g->width - 1 && y <= g->height - 1)) return -1;
  int x0 = (int)x, y0 = (int)y;
  int x1 = x0 + 1 < g->width ? x0 + 1 : x0, y1 = y0 + 1 < g->height ? y0 + 1 : y0;
  double fx = x - x0, fy = y - y0;
  const uint8_t *r0 = g->data + (size_t)y0 * g->stride, *r1 = g->data + (size_t)y1 * g->stride;
  double top = r0[x0] + fx * (r0[x1] - r0[x0]);
  double bottom = r1[x0] + fx * (r1[x1] - r1[x0]);
  return top + fy * (bottom - top);
}

enum { MAX_STEPS = 64, MAX_POINTS = 512 };

/* Offset along `normal` (outward) from p where the profile crosses halfway
 * from dark (inside) to bright (outside); false if there is no clear edge. */
static bool edge_crossing(const gray_view *g, const double p[2], const double n[2],
                          double reach, double *offset) {
  const double step = 0.25;
  int steps = (int)(2 * reach / step) + 1;
  if (steps > MAX_STEPS) steps = MAX_STEPS;
  double v[MAX_STEPS], lo = 1e9, hi = -1e9;
  for (int i = 0; i < steps; i++) {
    double s = -reach + i * step;
    v[i] = sample(g, p[0] + s * n[0], p[1] + s * n[1]);
    if (v[i] < 0) return false;
    lo = fmin(lo, v[i]);
    hi = fmax(hi, v[i]);
  }
  if (hi - lo < 20) return false; /* no contrast */
  double mid = (lo + hi) / 2;
  /* The crossing nearest to the expected edge (offset 0). */
  double best = 1e9;
  for (int i = 0; i + 1 < steps; i++) {
    if (v[i] < mid && v[i + 1] >= mid) {
      double s = -reach + (i + (mid - v[i]) / (v[i + 1] - v[i])) * step;
      if (fabs(s) < fabs(best)) best = s;
    }
  }
  if (best > 1e8) return false;
  *offset = best;
  return true;
}

/* Total-least-squares line through pts: point c and unit direction d. */
static void fit_line(double (*pts)[2], int n, double c[2], double d[2]) {
  c[0] = c[1] = 0;
  for (int i = 0; i < n; i++) {
    c[0] += pts[i][0] / n;
    c[1] += pts[i][1] / n;
  }
  double sxx = 0, sxy = 0, syy = 0;
  for (int i = 0; i < n; i++) {
    double x = pts[i][0] - c[0], y = pts[i][1] - c[1];
    sxx += x * x;
    sxy += x * y;
    syy += y * y;
  }
  double angle = 0.5 * atan2(2 * sxy, sxx - syy);
  d[0] = cos(angle);
  d[1] = sin(angle);
}

/* Fits the line of one edge from a to b; false if too few points. */
static bool edge_line(const gray_view *g, const double a[2], const double b[2], double cell,
                      double c[2], double d[2]) {
  double len = hypot(b[0] - a[0], b[1] - a[1]);
  if (len < 8) return false;
  double dir[2] = {(b[0] - a[0]) / len, (b[1] - a[1]) / len};
  double n[2] = {dir[1], -dir[0]}; /* outward for clockwise corners */
  /* Stay inside the one-cell black border and clear of the corners,
   * where the neighbouring edge bends the profile. */
  double reach = fmin(fmax(0.6 * cell, 1.5), 6.0);
  double margin = fmax(reach + 1, 0.1 * len);
  static const int kMax = MAX_POINTS;
  double pts[MAX_POINTS][2];
  int np = 0;
  for (double t = margin; t <= len - margin && np < kMax; t += 0.5) {
    double p[2] = {a[0] + t * dir[0], a[1] + t * dir[1]}, off;
    if (!edge_crossing(g, p, n, reach, &off)) continue;
    pts[np][0] = p[0] + off * n[0];
    pts[np][1] = p[1] + off * n[1];
    np++;
  }
  if (np < 6) return false;
  fit_line(pts, np, c, d);
  /* One pass of outlier removal (glare, dust, a card edge). */
  int keep = 0;
  for (int i = 0; i < np; i++) {
    double r = (pts[i][0] - c[0]) * -d[1] + (pts[i][1] - c[1]) * d[0];
    if (fabs(r) < 0.5) {
      pts[keep][0] = pts[i][0];
      pts[keep][1] = pts[i][1];
      keep++;
    }
  }
  if (keep < np / 2 || keep < 6) return false;
  fit_line(pts, keep, c, d);
  return true;
}

static bool intersect(const double c1[2], const double d1[2], const double c2[2],
                      const double d2[2], double out[2]) {
  double det = d1[0] * -d2[1] + d2[0] * d1[1];
  if (fabs(det) < 1e-6) return false;
  double rx = c2[0] - c1[0], ry = c2[1] - c1[1];
  double t = (rx * -d2[1] + d2[0] * ry) / det;
  out[0] = c1[0] + t * d1[0];
  out[1] = c1[1] + t * d1[1];
  return true;
}

bool cvw__refine_edges(const uint8_t *gray, int width, int height, size_t stride,
                       int cells, double corners[4][2]) {
  gray_view g = {gray, width, height, stride};
  double side = 0;
  for (int i = 0; i < 4; i++) {
    const double *a = corners[i], *b = corners[(i + 1) % 4];
    side += hypot(b[0] - a[0], b[1] - a[1]) / 4;
  }
  double cell = side / (cells > 2 ? cells : 6);
  double c[4][2], d[4][2], out[4][2];
  for (int i = 0; i < 4; i++)
    if (!edge_line(&g, corners[i], corners[(i + 1) % 4], cell, c[i], d[i])) return false;
  for (int i = 0; i < 4; i++) {
    int prev = (i + 3) % 4;
    if (!intersect(c[prev], d[prev], c[i], d[i], out[i])) return false;
    /* A refinement that moves a corner far is a failure, not a fix. */
    if (hypot(out[i][0] - corners[i][0], out[i][1] - corners[i][1]) > fmax(2.0, 0.5 * cell))
      return false;
  }
  memcpy(corners, out, sizeof out);
  return true;
}

bool cvw_marker_refine_edges(const tp_image *gray, int cells, double corners[4][2]) {
  if (!gray || !gray->data || gray->channels != 1 || !corners) return false;
  return cvw__refine_edges(gray->data, gray->width, gray->height, (size_t)gray->stride, cells,
                           corners);
}
