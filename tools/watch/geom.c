/* watch geometry: oriented rectangles on the table and their overlap. */
#include <math.h>

#include "watch_internal.h"

enum { MAX_POLY = 16 };

typedef struct {
  double x, y;
} pt;

double wch__dist(double ax, double ay, double bx, double by) {
  return hypot(ax - bx, ay - by);
}

/* Corners of a card: size[0] across, size[1] along the long axis. */
static void corners(double cx, double cy, double angle_deg,
                    const double size[2], pt out[4]) {
  double a = angle_deg * 3.14159265358979323846 / 180.0;
  double ux = cos(a), uy = sin(a);          /* long axis */
  double vx = -uy, vy = ux;                 /* short axis */
  double hl = size[1] / 2, hw = size[0] / 2;
  const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int i = 0; i < 4; i++) {
    out[i].x = cx + s[i][0] * hl * ux + s[i][1] * hw * vx;
    out[i].y = cy + s[i][0] * hl * uy + s[i][1] * hw * vy;
  }
}

static double cross(pt o, pt a, pt b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Sutherland-Hodgman: clips poly by the half-plane left of edge a->b
 * (both polygons are counter-clockwise in the (x, y) sense used here). */
static int clip(const pt *in, int n, pt a, pt b, pt *out) {
  int m = 0;
  for (int i = 0; i < n && m < MAX_POLY - 1; i++) {
    pt p = in[i], q = in[(i + 1) % n];
    double cp = cross(a, b, p), cq = cross(a, b, q);
    if (cp >= 0) out[m++] = p;
    if ((cp >= 0) != (cq >= 0) && m < MAX_POLY) {
      double t = cp / (cp - cq);
      out[m++] = (pt){p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)};
    }
  }
  return m;
}

static double area(const pt *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i].x * p[(i + 1) % n].y - p[(i + 1) % n].x * p[i].y;
  return s / 2;
}

static void make_ccw(pt *p) {
  if (area(p, 4) < 0) {
    pt t = p[1];
    p[1] = p[3];
    p[3] = t;
  }
}

double wch__rect_overlap(double ax, double ay, double aang, const double asz[2],
                         double bx, double by, double bang,
                         const double bsz[2]) {
  pt a[4], b[4], poly[MAX_POLY], tmp[MAX_POLY];
  corners(ax, ay, aang, asz, a);
  corners(bx, by, bang, bsz, b);
  make_ccw(a);
  make_ccw(b);
  int n = 4;
  for (int i = 0; i < 4; i++) poly[i] = a[i];
  for (int e = 0; e < 4 && n > 0; e++) {
    n = clip(poly, n, b[e], b[(e + 1) % 4], tmp);
    for (int i = 0; i < n; i++) poly[i] = tmp[i];
  }
  return n >= 3 ? fabs(area(poly, n)) : 0.0;
}
