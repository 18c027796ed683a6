/* render: small geometry and noise helpers. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <time.h>

#include "render_internal.h"

double rnd__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double rnd__gauss(rnd__rng *g) {
  double u = rnd__unit(g), v = rnd__unit(g);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static float fade(float t) { return t * t * (3.0f - 2.0f * t); }

float rnd__value_noise(float x, float y, uint32_t seed) {
  float fx = floorf(x), fy = floorf(y);
  int32_t ix = (int32_t)fx, iy = (int32_t)fy;
  float tx = fade(x - fx), ty = fade(y - fy);
  const float s = 1.0f / 4294967295.0f;
  float a = (float)rnd__hash2(ix, iy, seed) * s;
  float b = (float)rnd__hash2(ix + 1, iy, seed) * s;
  float c = (float)rnd__hash2(ix, iy + 1, seed) * s;
  float d = (float)rnd__hash2(ix + 1, iy + 1, seed) * s;
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

void rnd__poly_from_corners(const double corners[4][2], rnd__poly *out) {
  out->n = 4;
  for (int i = 0; i < 4; i++) out->p[i][0] = corners[i][0], out->p[i][1] = corners[i][1];
}

double rnd__poly_area(const rnd__poly *p) {
  double a = 0;
  for (int i = 0; i < p->n; i++) {
    int j = (i + 1) % p->n;
    a += p->p[i][0] * p->p[j][1] - p->p[j][0] * p->p[i][1];
  }
  return 0.5 * a;
}

/* Sutherland-Hodgman: clip subject by one half-plane of the clip polygon. */
static void clip_edge(const rnd__poly *in, const double a[2], const double b[2],
                      double sign, rnd__poly *out) {
  out->n = 0;
  for (int i = 0; i < in->n; i++) {
    const double *p = in->p[i], *q = in->p[(i + 1) % in->n];
    double dp = sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]));
    double dq = sign * ((b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]));
    if (dp >= 0 && out->n < 16) {
      out->p[out->n][0] = p[0], out->p[out->n][1] = p[1], out->n++;
    }
    if ((dp >= 0) != (dq >= 0) && out->n < 16) {
      double t = dp / (dp - dq);
      out->p[out->n][0] = p[0] + t * (q[0] - p[0]);
      out->p[out->n][1] = p[1] + t * (q[1] - p[1]);
      out->n++;
    }
  }
}

double rnd__convex_overlap(const rnd__poly *a, const rnd__poly *b) {
  double sign = rnd__poly_area(b) >= 0 ? 1.0 : -1.0;
  rnd__poly cur = *a, next;
  for (int i = 0; i < b->n && cur.n > 0; i++) {
    clip_edge(&cur, b->p[i], b->p[(i + 1) % b->n], sign, &next);
    cur = next;
  }
  return cur.n < 3 ? 0.0 : fabs(rnd__poly_area(&cur));
}

static double point_segment(const double p[2], const double a[2], const double b[2]) {
  double dx = b[0] - a[0], dy = b[1] - a[1];
  double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double ex = a[0] + t * dx - p[0], ey = a[1] + t * dy - p[1];
  return sqrt(ex * ex + ey * ey);
}

double rnd__poly_distance(const rnd__poly *a, const rnd__poly *b) {
  if (rnd__convex_overlap(a, b) > 0) return 0;
  double best = DBL_MAX;
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++) {
      double d1 = point_segment(a->p[i], b->p[j], b->p[(j + 1) % b->n]);
      double d2 = point_segment(b->p[j], a->p[i], a->p[(i + 1) % a->n]);
      if (d1 < best) best = d1;
      if (d2 < best) best = d2;
    }
  return best;
}

/* Insertion sort by z; cards before carpets and list order break ties, so
 * the order is total and deterministic. */
int rnd__stacking(const rnd_scene *scene, int *stack) {
  int n = 0;
  for (int i = 0; i < scene->n_cards; i++) stack[n++] = i;
  for (int i = 0; i < scene->n_carpets; i++) stack[n++] = -1 - i;
  for (int i = 1; i < n; i++) {
    int item = stack[i];
    double z = item >= 0 ? scene->cards[item].pose.z : scene->carpets[-1 - item].pose.z;
    int j = i - 1;
    while (j >= 0) {
      int o = stack[j];
      double oz = o >= 0 ? scene->cards[o].pose.z : scene->carpets[-1 - o].pose.z;
      if (oz <= z) break;
      stack[j + 1] = o;
      j--;
    }
    stack[j + 1] = item;
  }
  return n;
}

static double capsule(double px, double py, double ax, double ay, double bx, double by, double r) {
  double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double ex = px - ax - t * dx, ey = py - ay - t * dy;
  return sqrt(ex * ex + ey * ey) - r;
}

/* A hand seen from above: palm, four fingers, thumb and a sleeved forearm
 * that runs off in direction (ax, ay). Coordinates along the arm (l) and
 * across it (w), in units of the palm radius r. */
double rnd__hand_sd(double cx, double cy, double r, double ax, double ay, double x,
                    double y, int *sleeve) {
  double dx = x - cx, dy = y - cy;
  double l = (dx * ax + dy * ay) / r, w = (-dx * ay + dy * ax) / r;
  if (sleeve) *sleeve = 0;
  /* quick reject far from the hand: a lower bound of the true distance
   * (fingers end at l = -1.65, the thumb at |w| = 1.32), so soft shadows
   * that look a little way out see no seam */
  if (l < -3 || fabs(w) > 2.5) return (fmax(-3 - l, fabs(w) - 2.5) + 1.0) * r;
  double qx = fabs(l) - 0.35, qy = fabs(w) - 0.45;
  double ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
  double d = sqrt(ox * ox + oy * oy) + fmin(fmax(qx, qy), 0) - 0.35; /* palm */
  static const double off[4] = {-0.48, -0.16, 0.16, 0.47}, len[4] = {0.75, 0.95, 0.9, 0.7};
  for (int i = 0; i < 4; i++)
    d = fmin(d, capsule(l, w, -0.55, off[i], -0.55 - len[i], off[i] * 1.15, 0.15));
  d = fmin(d, capsule(l, w, -0.05, 0.7, -0.55, 1.15, 0.17)); /* thumb */
  double arm = capsule(l, w, 0.4, 0, 40, 0, 0.55);
  if (arm < d) {
    d = arm;
    if (sleeve && l > 2.6) *sleeve = 1;
  }
  return d * r;
}
