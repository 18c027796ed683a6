/* calibration: mapping between image pixels and table millimetres, the
 * lens model, and the quality figures a player sees. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_internal.h"

void cal_lens_distort(const cal_lens *l, const double ideal[2], double px[2]) {
  double x = (ideal[0] - l->cx) / l->fx, y = (ideal[1] - l->cy) / l->fy;
  double r2 = x * x + y * y;
  double radial = 1 + r2 * (l->k1 + r2 * (l->k2 + r2 * l->k3));
  double xd = x * radial + 2 * l->p1 * x * y + l->p2 * (r2 + 2 * x * x);
  double yd = y * radial + l->p1 * (r2 + 2 * y * y) + 2 * l->p2 * x * y;
  px[0] = xd * l->fx + l->cx;
  px[1] = yd * l->fy + l->cy;
}

/* Fixed-point inversion as OpenCV's undistortPoints, run to convergence:
 * for the mild distortion of camera lenses it converges in a few steps. */
void cal_lens_undistort(const cal_lens *l, const double px[2], double ideal[2]) {
  double xd = (px[0] - l->cx) / l->fx, yd = (px[1] - l->cy) / l->fy;
  double x = xd, y = yd;
  for (int i = 0; i < 100; i++) {
    double r2 = x * x + y * y;
    double radial = 1 + r2 * (l->k1 + r2 * (l->k2 + r2 * l->k3));
    double dx = 2 * l->p1 * x * y + l->p2 * (r2 + 2 * x * x);
    double dy = l->p1 * (r2 + 2 * y * y) + 2 * l->p2 * x * y;
    if (!(radial > 0.05)) break;
    double nx = (xd - dx) / radial, ny = (yd - dy) / radial;
    double step = fabs(nx - x) + fabs(ny - y);
    x = nx;
    y = ny;
    if (step < 1e-12) break;
  }
  ideal[0] = x * l->fx + l->cx;
  ideal[1] = y * l->fy + l->cy;
}

bool cal_table_to_image(const cal_calib *c, const double mm[2], double px[2]) {
  if (!c || !c->has_table) return false;
  const double *h = c->h;
  if (h[6] * mm[0] + h[7] * mm[1] + h[8] <= 0) return false; /* behind camera */
  double ideal[2];
  if (!cal__hom_apply(h, mm, ideal)) return false;
  if (c->has_lens) cal_lens_distort(&c->lens, ideal, px);
  else memcpy(px, ideal, sizeof ideal);
  return isfinite(px[0]) && isfinite(px[1]);
}

bool cal_image_to_table(const cal_calib *c, const double px[2], double mm[2]) {
  if (!c || !c->has_table) return false;
  double ideal[2];
  if (c->has_lens) cal_lens_undistort(&c->lens, px, ideal);
  else memcpy(ideal, px, sizeof ideal);
  if (!cal__hom_apply(c->hinv, ideal, mm)) return false;
  const double *h = c->h;
  return h[6] * mm[0] + h[7] * mm[1] + h[8] > 0;
}

void cal_calib_homography(const cal_calib *c, double table_to_image[9]) {
  memcpy(table_to_image, c->h, sizeof c->h);
}

bool cal_calib_lens(const cal_calib *c, cal_lens *lens) {
  if (!c || !c->has_lens) return false;
  if (lens) *lens = c->lens;
  return true;
}

void cal_calib_image_size(const cal_calib *c, int *width, int *height) {
  if (width) *width = c ? c->width : 0;
  if (height) *height = c ? c->height : 0;
}

const cal_quality *cal_calib_quality(const cal_calib *c) { return c ? &c->q : NULL; }
const char *cal_calib_dict(const cal_calib *c) { return c ? c->dict : ""; }
double cal_calib_marker_mm(const cal_calib *c) { return c ? c->marker_mm : 0; }
bool cal_calib_has_table(const cal_calib *c) { return c && c->has_table; }

size_t cal_calib_markers(const cal_calib *c, cal_marker_pose *out, size_t cap) {
  if (!c) return 0;
  for (size_t i = 0; i < c->n_markers && i < cap; i++) out[i] = c->markers[i];
  return c->n_markers;
}

void cal_calib_destroy(cal_calib *c) { free(c); }

cal_calib *cal_calib_copy(const cal_calib *c) {
  cal_calib *copy = c ? malloc(sizeof *copy) : NULL;
  if (copy) *copy = *c;
  return copy;
}

/* ---- quality ---- */

/* Camera tilt from the table homography: with the principal point and
 * focal length (the lens model's, or the image centre and a focal length
 * solved from the homography's two orthonormality constraints), the
 * homography's first two columns are the table axes seen by the camera;
 * their cross product is the table normal in camera coordinates. */
static double tilt_deg(const cal_calib *c) {
  double cx = c->width / 2.0, cy = c->height / 2.0, fx, fy;
  const double *h = c->h;
  double hp[9];
  bool known_focal = c->has_lens && !c->lens.from_markers;
  if (known_focal) {
    cx = c->lens.cx;
    cy = c->lens.cy;
    fx = c->lens.fx;
    fy = c->lens.fy;
  }
  for (int j = 0; j < 3; j++) {
    hp[j] = h[j] - cx * h[6 + j];
    hp[3 + j] = h[3 + j] - cy * h[6 + j];
    hp[6 + j] = h[6 + j];
  }
  if (!known_focal) {
    double a1 = hp[0] * hp[1] + hp[3] * hp[4], b1 = hp[6] * hp[7];
    double a2 = hp[0] * hp[0] + hp[3] * hp[3] - hp[1] * hp[1] - hp[4] * hp[4];
    double b2 = hp[6] * hp[6] - hp[7] * hp[7];
    double w = -(a1 * b1 + a2 * b2) / (a1 * a1 + a2 * a2);
    double f = w > 0 ? 1 / sqrt(w) : 0;
    if (!(f > 0.3 * c->width && f < 5.0 * c->width)) f = 0.8 * c->width;
    fx = fy = f;
  }
  double r1[3] = {hp[0] / fx, hp[3] / fy, hp[6]}, r2[3] = {hp[1] / fx, hp[4] / fy, hp[7]};
  double n[3] = {r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2],
                 r1[0] * r2[1] - r1[1] * r2[0]};
  double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(len > 0)) return NAN;
  return acos(fmin(1.0, fabs(n[2]) / len)) * 180 / CAL__PI;
}

static double cross(const double o[2], const double a[2], const double b[2]) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Area of the convex hull of pts (monotone chain on a sorted copy). */
static double hull_area(double pts[][2], int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && (pts[j][0] < pts[j - 1][0] ||
                              (pts[j][0] == pts[j - 1][0] && pts[j][1] < pts[j - 1][1])); j--) {
      double t0 = pts[j][0], t1 = pts[j][1];
      pts[j][0] = pts[j - 1][0];
      pts[j][1] = pts[j - 1][1];
      pts[j - 1][0] = t0;
      pts[j - 1][1] = t1;
    }
  double hull[2 * CAL_MAX_MARKERS + 2][2];
  int k = 0;
  for (int pass = 0; pass < 2; pass++) {
    int start = k;
    for (int i = 0; i < n; i++) {
      const double *p = pts[pass ? n - 1 - i : i];
      while (k >= start + 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) k--;
      hull[k][0] = p[0];
      hull[k][1] = p[1];
      k++;
    }
    k--;
  }
  double area = 0;
  for (int i = 0; i < k; i++) {
    int j = (i + 1) % k;
    area += hull[i][0] * hull[j][1] - hull[j][0] * hull[i][1];
  }
  return fabs(area) / 2;
}

static double side_px(const cal__obs *o) {
  double s = 0;
  for (int i = 0; i < 4; i++) {
    const double *a = o->corners[i], *b = o->corners[(i + 1) % 4];
    s += hypot(a[0] - b[0], a[1] - b[1]) / 4;
  }
  return s;
}

void cal__assess(cal_calib *c, const cal__obs *obs, size_t n) {
  cal_quality *q = &c->q;
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  double img[CAL_MAX_MARKERS][2];
  int n_img = 0;
  for (size_t k = 0; k < c->n_markers; k++) {
    const double *m = c->markers[k].center_mm;
    for (int i = 0; i < 2; i++) {
      lo[i] = fmin(lo[i], m[i]);
      hi[i] = fmax(hi[i], m[i]);
    }
    if (cal__hom_apply(c->h, m, img[n_img])) n_img++;
  }
  q->area_mm[0] = hi[0] - lo[0];
  q->area_mm[1] = hi[1] - lo[1];
  q->image_fraction = n_img >= 3 ? hull_area(img, n_img) / ((double)c->width * c->height) : 0;
  double mid[2] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}, u0[2], ux[2], uy[2];
  double dx[2] = {mid[0] + 1, mid[1]}, dy[2] = {mid[0], mid[1] + 1};
  q->mm_per_px = NAN;
  if (cal__hom_apply(c->h, mid, u0) && cal__hom_apply(c->h, dx, ux) &&
      cal__hom_apply(c->h, dy, uy)) {
    double area_px = fabs((ux[0] - u0[0]) * (uy[1] - u0[1]) - (ux[1] - u0[1]) * (uy[0] - u0[0]));
    q->mm_per_px = 1 / sqrt(area_px);
  }
  q->min_marker_px = 1e300;
  for (size_t o = 0; o < n; o++) q->min_marker_px = fmin(q->min_marker_px, side_px(&obs[o]));
  q->tilt_deg = tilt_deg(c);
  int miss = 0;
  for (int i = 0; i < 4; i++) {
    bool seen = false;
    for (size_t k = 0; k < c->n_markers; k++) seen |= c->markers[k].id == c->frame_ids[i];
    if (!seen) q->missing_ids[miss++] = c->frame_ids[i];
  }
  if (miss < 4) q->missing_ids[miss] = -1;
  if (miss) q->warnings |= CAL_WARN_MISSING;
  if (q->tilt_deg > 30) q->warnings |= CAL_WARN_OBLIQUE;
  if (q->mm_per_px > 1.0 || q->min_marker_px < 20) q->warnings |= CAL_WARN_FAR;
  if (q->rms_px > 1.0) q->warnings |= CAL_WARN_RESIDUAL;
  if (n_img >= 3 && q->image_fraction < 0.15) q->warnings |= CAL_WARN_SMALL_AREA;
}

static const char *corner_name(int index) {
  static const char *names[4] = {"top-left", "top-right", "bottom-right", "bottom-left"};
  return names[index & 3];
}

void cal_warning_text(const cal_calib *c, unsigned warning, char *buf, size_t len) {
  const cal_quality *q = &c->q;
  switch (warning) {
    case CAL_WARN_MISSING: {
      char ids[64] = "";
      int first = -1;
      for (int i = 0; i < 4 && q->missing_ids[i] >= 0; i++) {
        size_t l = strlen(ids);
        snprintf(ids + l, sizeof ids - l, "%s%d", i ? ", " : "", q->missing_ids[i]);
        for (int k = 0; k < 4; k++)
          if (first < 0 && c->frame_ids[k] == q->missing_ids[i]) first = k;
      }
      snprintf(buf, len,
               "marker %s not seen (marker %d belongs at the %s corner): accuracy far "
               "from the seen markers is lower",
               ids, first >= 0 ? c->frame_ids[first] : -1, corner_name(first));
      break;
    }
    case CAL_WARN_OBLIQUE:
      snprintf(buf, len,
               "the camera looks %.0f degrees away from straight down (over 30): raise it or "
               "point it more downward",
               q->tilt_deg);
      break;
    case CAL_WARN_FAR:
      snprintf(buf, len,
               "camera too far: %.2f mm per pixel, markers %.0f px wide; move it closer or use "
               "a higher resolution (aim for under 1 mm per pixel)",
               q->mm_per_px, q->min_marker_px);
      break;
    case CAL_WARN_RESIDUAL:
      snprintf(buf, len,
               "marker corners miss the fit by %.1f px: are all markers flat and of the same "
               "printed size? strong lens distortion needs `teppich calibrate lens`",
               q->rms_px);
      break;
    case CAL_WARN_ORDER:
      snprintf(buf, len,
               "markers %d and %d lie counter-clockwise from %d and %d, so the table frame is "
               "mirrored; place %d top-left and the others clockwise",
               c->frame_ids[2], c->frame_ids[3], c->frame_ids[0], c->frame_ids[1],
               c->frame_ids[0]);
      break;
    case CAL_WARN_SMALL_AREA:
      snprintf(buf, len,
               "the markers span only %.0f%% of the image: place them at the corners of the "
               "play area",
               100 * q->image_fraction);
      break;
    default:
      snprintf(buf, len, "unknown warning");
  }
}
