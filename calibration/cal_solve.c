/* calibration: fitting the table frame to the marker corners.
 *
 * Unknowns: one homography G (table plane -> image, 8 numbers) and the pose
 * (angle, centre) of every marker but the origin marker on the plane. Each
 * detected corner gives two equations: G maps the corner of a square of
 * the known printed size, placed at the marker's pose, onto the detected
 * pixel. Levenberg-Marquardt minimises the pixel error over all corners
 * of all frames at once, so far-apart markers pin down the perspective
 * that a single 40 mm marker cannot. Finally the frame is turned so that
 * +x points from marker 0 to marker 1 (spec section 1). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_internal.h"

enum { WORLD_SCALE = 1000 }; /* mm per world unit inside the solver */

typedef struct {
  const cal__obs *obs;
  size_t n_obs;
  int ids[CAL_MAX_MARKERS]; /* markers in parameter order; ids[0] = origin */
  int n_markers;
  int *slot; /* marker slot of each observation */
  double square[4][2];
  double img_cx, img_cy, img_scale;
  int n_dist; /* radial distortion terms estimated (0..2) */
} problem;

/* Parameter layout: homography (8), radial terms (n_dist), then angle and
 * centre of every marker but the origin one. */
static int pose_base(const problem *pb) { return 8 + pb->n_dist; }
static int n_params(const problem *pb) { return pose_base(pb) + 3 * (pb->n_markers - 1); }

/* Radial distortion about the image centre in normalised units, the
 * OpenCV model with focal length img_scale. */
static void distort(const problem *pb, const double *p, double u[2]) {
  if (!pb->n_dist) return;
  double r2 = u[0] * u[0] + u[1] * u[1];
  double k = 1 + p[8] * r2 + (pb->n_dist > 1 ? p[9] * r2 * r2 : 0);
  u[0] *= k;
  u[1] *= k;
}

/* Pose (angle, centre in world units) of marker slot k under params p. */
static void marker_pose(const problem *pb, const double *p, int k, double *angle,
                        double t[2]) {
  if (k == 0) {
    *angle = 0;
    t[0] = t[1] = 0;
    return;
  }
  const double *q = p + pose_base(pb) + 3 * (k - 1);
  *angle = q[0];
  t[0] = q[1];
  t[1] = q[2];
}

/* World point (units of WORLD_SCALE mm) of corner c of marker slot k. */
static void corner_world(const problem *pb, const double *p, int k, int c, double w[2]) {
  double a, t[2];
  marker_pose(pb, p, k, &a, t);
  double x = pb->square[c][0] / WORLD_SCALE, y = pb->square[c][1] / WORLD_SCALE;
  w[0] = cos(a) * x - sin(a) * y + t[0];
  w[1] = sin(a) * x + cos(a) * y + t[1];
}

/* Residuals (normalised image units) of all observations; false if some
 * corner maps to infinity. */
static bool residuals(const problem *pb, const double *p, double *r) {
  double g[9];
  memcpy(g, p, 8 * sizeof *g);
  g[8] = 1;
  for (size_t o = 0; o < pb->n_obs; o++) {
    for (int c = 0; c < 4; c++) {
      double w[2], u[2];
      corner_world(pb, p, pb->slot[o], c, w);
      if (!cal__hom_apply(g, w, u)) return false;
      distort(pb, p, u);
      double ox = (pb->obs[o].corners[c][0] - pb->img_cx) / pb->img_scale;
      double oy = (pb->obs[o].corners[c][1] - pb->img_cy) / pb->img_scale;
      r[8 * o + 2 * c] = u[0] - ox;
      r[8 * o + 2 * c + 1] = u[1] - oy;
    }
  }
  return true;
}

static double sum_sq(const double *r, size_t m) {
  double s = 0;
  for (size_t i = 0; i < m; i++) s += r[i] * r[i];
  return s;
}

/* Levenberg-Marquardt with a forward-difference Jacobian (the problem is
 * small: 8 + 3 per marker unknowns). Returns the final sum of squares, or
 * -1 if the start point is invalid. */
static double levenberg_marquardt(const problem *pb, double *p, int max_iter) {
  int np = n_params(pb);
  size_t m = 8 * pb->n_obs;
  double *r = malloc(m * sizeof *r), *r2 = malloc(m * sizeof *r2);
  double *jac = malloc(m * (size_t)np * sizeof *jac);
  double *a = malloc((size_t)np * np * sizeof *a), *a2 = malloc((size_t)np * np * sizeof *a2);
  double *g = malloc((size_t)np * sizeof *g), *d = malloc((size_t)np * sizeof *d);
  double *p2 = malloc((size_t)np * sizeof *p2);
  double cost = -1;
  if (!r || !r2 || !jac || !a || !a2 || !g || !d || !p2 || !residuals(pb, p, r)) goto done;
  cost = sum_sq(r, m);
  double lambda = 1e-3;
  for (int iter = 0; iter < max_iter && cost > 0; iter++) {
    for (int j = 0; j < np; j++) {
      double h = 1e-7 * fmax(1.0, fabs(p[j]));
      memcpy(p2, p, (size_t)np * sizeof *p2);
      p2[j] += h;
      if (!residuals(pb, p2, r2)) goto done;
      for (size_t i = 0; i < m; i++) jac[i * np + j] = (r2[i] - r[i]) / h;
    }
    for (int i = 0; i < np; i++) {
      g[i] = 0;
      for (size_t k = 0; k < m; k++) g[i] += jac[k * np + i] * r[k];
      for (int j = i; j < np; j++) {
        double s = 0;
        for (size_t k = 0; k < m; k++) s += jac[k * np + i] * jac[k * np + j];
        a[i * np + j] = a[j * np + i] = s;
      }
    }
    bool improved = false;
    while (lambda < 1e12) {
      memcpy(a2, a, (size_t)np * np * sizeof *a2);
      for (int i = 0; i < np; i++) {
        a2[i * np + i] += lambda * a[i * np + i] + 1e-15;
        d[i] = -g[i];
      }
      if (cal__solve(a2, d, np)) {
        for (int i = 0; i < np; i++) p2[i] = p[i] + d[i];
        double c2;
        if (residuals(pb, p2, r2) && (c2 = sum_sq(r2, m)) < cost) {
          double gain = cost - c2;
          memcpy(p, p2, (size_t)np * sizeof *p);
          memcpy(r, r2, m * sizeof *r);
          cost = c2;
          lambda = fmax(lambda / 3, 1e-9);
          improved = gain > 1e-14 * cost;
          break;
        }
      }
      lambda *= 4;
    }
    if (!improved) break;
  }
done:
  free(r); free(r2); free(jac); free(a); free(a2); free(g); free(d); free(p2);
  return cost;
}

/* Start values: the origin marker's own homography gives G; every other
 * marker's detected corners, taken back through G, give its pose. */
static bool initial_guess(const problem *pb, double *p) {
  size_t o0 = 0;
  while (pb->slot[o0] != 0) o0++;
  double local[4][2], img[4][2];
  for (int c = 0; c < 4; c++) {
    local[c][0] = pb->square[c][0] / WORLD_SCALE;
    local[c][1] = pb->square[c][1] / WORLD_SCALE;
    img[c][0] = (pb->obs[o0].corners[c][0] - pb->img_cx) / pb->img_scale;
    img[c][1] = (pb->obs[o0].corners[c][1] - pb->img_cy) / pb->img_scale;
  }
  double g[9], ginv[9];
  if (!cal__hom_from_4(local, img, g) || !cal__mat3_inv(g, ginv)) return false;
  memcpy(p, g, 8 * sizeof *p);
  for (int i = 0; i < pb->n_dist; i++) p[8 + i] = 0;
  for (int k = 1; k < pb->n_markers; k++) {
    size_t o = 0;
    while (pb->slot[o] != k) o++;
    double w[4][2], mean[2] = {0, 0};
    for (int c = 0; c < 4; c++) {
      double u[2] = {(pb->obs[o].corners[c][0] - pb->img_cx) / pb->img_scale,
                     (pb->obs[o].corners[c][1] - pb->img_cy) / pb->img_scale};
      if (!cal__hom_apply(ginv, u, w[c])) return false;
      mean[0] += w[c][0] / 4;
      mean[1] += w[c][1] / 4;
    }
    double sdot = 0, scross = 0;
    for (int c = 0; c < 4; c++) {
      double lx = local[c][0], ly = local[c][1];
      double wx = w[c][0] - mean[0], wy = w[c][1] - mean[1];
      sdot += lx * wx + ly * wy;
      scross += lx * wy - ly * wx;
    }
    double *q = p + pose_base(pb) + 3 * (k - 1);
    q[0] = atan2(scross, sdot);
    q[1] = mean[0];
    q[2] = mean[1];
  }
  return true;
}

static int slot_of(const problem *pb, int id) {
  for (int k = 0; k < pb->n_markers; k++)
    if (pb->ids[k] == id) return k;
  return -1;
}

/* The frame of spec section 1 from the solved marker centres: rotation
 * angle phi of +x and whether +y is mirrored. */
static void frame_axes(const problem *pb, const double *p, const int frame_ids[4],
                       double *phi, bool *mirror) {
  double a, t1[2];
  marker_pose(pb, p, slot_of(pb, frame_ids[1]), &a, t1);
  *phi = atan2(t1[1], t1[0]);
  double side = 0;
  for (int i = 2; i < 4; i++) {
    int k = slot_of(pb, frame_ids[i]);
    if (k < 0) continue;
    double t[2];
    marker_pose(pb, p, k, &a, t);
    side += -sin(*phi) * t[0] + cos(*phi) * t[1];
  }
  *mirror = side < 0;
}

/* Table mm (spec frame) -> world units of the solver: the inverse of
 * "rotate by -phi, mirror y". */
static void table_to_world_matrix(double phi, bool mirror, double m[9]) {
  double s = mirror ? -1 : 1, c = cos(phi), sn = sin(phi);
  double k = 1.0 / WORLD_SCALE;
  double t[9] = {c * k, -sn * s * k, 0, sn * k, c * s * k, 0, 0, 0, 1};
  memcpy(m, t, sizeof t);
}

/* Homography table mm -> image px for params p. */
static void table_homography(const problem *pb, const double *p, const int frame_ids[4],
                             double h[9], double *phi, bool *mirror) {
  frame_axes(pb, p, frame_ids, phi, mirror);
  double g[9], t2w[9], unnorm[9] = {pb->img_scale, 0, pb->img_cx, 0, pb->img_scale,
                                    pb->img_cy, 0, 0, 1};
  memcpy(g, p, 8 * sizeof *g);
  g[8] = 1;
  table_to_world_matrix(*phi, *mirror, t2w);
  cal__mat3_mul(g, t2w, h);
  cal__mat3_mul(unnorm, h, h);
  for (int i = 0; i < 9; i++) h[i] /= h[8];
}

/* The mapping of params p into c: homography, inverse, and the radial
 * distortion estimated from the markers (as a lens model with a nominal
 * focal length of img_scale). */
static bool params_to_calib(const problem *pb, const double *p, const int frame_ids[4],
                            cal_calib *c, double *phi, bool *mirror) {
  table_homography(pb, p, frame_ids, c->h, phi, mirror);
  if (pb->n_dist) {
    memset(&c->lens, 0, sizeof c->lens);
    c->has_lens = true;
    c->lens.width = c->width;
    c->lens.height = c->height;
    c->lens.fx = c->lens.fy = pb->img_scale;
    c->lens.cx = pb->img_cx;
    c->lens.cy = pb->img_cy;
    c->lens.k1 = p[8];
    c->lens.k2 = pb->n_dist > 1 ? p[9] : 0;
    c->lens.from_markers = true;
  }
  c->has_table = true;
  return cal__mat3_inv(c->h, c->hinv);
}

static void fill_markers(const problem *pb, const double *p, double phi, bool mirror,
                         const double *r, cal_calib *c) {
  double s = mirror ? -1 : 1;
  c->n_markers = (size_t)pb->n_markers;
  for (int k = 0; k < pb->n_markers; k++) {
    cal_marker_pose *mp = &c->markers[k];
    memset(mp, 0, sizeof *mp);
    mp->id = pb->ids[k];
    double a, t[2];
    marker_pose(pb, p, k, &a, t);
    double rot[2] = {cos(phi) * t[0] + sin(phi) * t[1], -sin(phi) * t[0] + cos(phi) * t[1]};
    mp->center_mm[0] = rot[0] * WORLD_SCALE;
    mp->center_mm[1] = s * rot[1] * WORLD_SCALE;
    double ang = s * (a - phi) * 180 / CAL__PI;
    ang = fmod(ang, 360);
    if (ang <= -180) ang += 360;
    if (ang > 180) ang -= 360;
    mp->angle_deg = ang;
    for (int q = 0; q < 4; q++) {
      double w[2];
      corner_world(pb, p, k, q, w);
      mp->corners_mm[q][0] = (cos(phi) * w[0] + sin(phi) * w[1]) * WORLD_SCALE;
      mp->corners_mm[q][1] = s * (-sin(phi) * w[0] + cos(phi) * w[1]) * WORLD_SCALE;
    }
    double ss = 0;
    int n = 0;
    for (size_t o = 0; o < pb->n_obs; o++) {
      if (pb->slot[o] != k) continue;
      n++;
      for (int i = 0; i < 8; i++) ss += r[8 * o + i] * r[8 * o + i];
    }
    mp->observations = n;
    mp->residual_px = n ? sqrt(ss / (4.0 * n)) * pb->img_scale : 0;
  }
}

/* Corner residual statistics in pixels. */
static void residual_stats(const problem *pb, const double *r, double *rms, double *max) {
  double ss = 0, mx = 0;
  for (size_t i = 0; i < 4 * pb->n_obs; i++) {
    double d2 = r[2 * i] * r[2 * i] + r[2 * i + 1] * r[2 * i + 1];
    ss += d2;
    if (d2 > mx) mx = d2;
  }
  *rms = sqrt(ss / (4.0 * (double)pb->n_obs)) * pb->img_scale;
  *max = sqrt(mx) * pb->img_scale;
}

/* Deterministic normal noise (Box-Muller on a 64-bit LCG). */
static double gauss(uint64_t *state) {
  double u[2];
  for (int i = 0; i < 2; i++) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    u[i] = ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
  }
  return sqrt(-2 * log(u[0])) * cos(2 * CAL__PI * u[1]);
}

/* Propagates corner noise of sigma_px through the fit by refitting
 * perturbed corners (Monte Carlo, fixed seed): the 95 % position error of
 * points spread over the marker area, in mm. */
static double accuracy_mm(problem *pb, const double *p, const int frame_ids[4],
                          const cal_calib *c, double sigma_px) {
  enum { RUNS = 12, GRID = 8 };
  int np = n_params(pb);
  cal__obs *noisy = malloc(pb->n_obs * sizeof *noisy);
  double *pp = malloc((size_t)np * sizeof *pp);
  if (!noisy || !pp) { free(noisy); free(pp); return NAN; }
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (size_t k = 0; k < c->n_markers; k++)
    for (int i = 0; i < 2; i++) {
      lo[i] = fmin(lo[i], c->markers[k].center_mm[i]);
      hi[i] = fmax(hi[i], c->markers[k].center_mm[i]);
    }
  const cal__obs *orig = pb->obs;
  uint64_t seed = 42;
  double ss = 0;
  long n = 0;
  cal_calib *tmp = malloc(sizeof *tmp);
  for (int run = 0; tmp && run < RUNS; run++) {
    for (size_t o = 0; o < pb->n_obs; o++) {
      noisy[o] = orig[o];
      for (int q = 0; q < 4; q++)
        for (int i = 0; i < 2; i++) noisy[o].corners[q][i] += sigma_px * gauss(&seed);
    }
    pb->obs = noisy;
    memcpy(pp, p, (size_t)np * sizeof *pp);
    double phi;
    bool mirror;
    *tmp = *c;
    if (levenberg_marquardt(pb, pp, 50) < 0 ||
        !params_to_calib(pb, pp, frame_ids, tmp, &phi, &mirror))
      continue;
    for (int gy = 0; gy <= GRID; gy++)
      for (int gx = 0; gx <= GRID; gx++) {
        double t[2] = {lo[0] + (hi[0] - lo[0]) * gx / GRID, lo[1] + (hi[1] - lo[1]) * gy / GRID};
        double u[2], back[2];
        if (!cal_table_to_image(c, t, u) || !cal_image_to_table(tmp, u, back)) continue;
        ss += (back[0] - t[0]) * (back[0] - t[0]) + (back[1] - t[1]) * (back[1] - t[1]);
        n++;
      }
  }
  free(tmp);
  pb->obs = orig;
  free(noisy);
  free(pp);
  /* 95 % radius of a 2D normal error is 2.45 sigma = 1.73 x its RMS. */
  return n ? 1.73 * sqrt(ss / (double)n) : NAN;
}

static tp_status build_problem(const cal_options *opt, const cal__obs *obs, size_t n,
                               int width, int height, problem *pb, tp_error *err) {
  memset(pb, 0, sizeof *pb);
  pb->obs = obs;
  pb->n_obs = n;
  pb->slot = malloc((n ? n : 1) * sizeof *pb->slot);
  if (!pb->slot) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  pb->ids[0] = opt->frame_ids[0];
  pb->n_markers = 1;
  for (size_t o = 0; o < n; o++) {
    int k = slot_of(pb, obs[o].id);
    if (k < 0) {
      if (pb->n_markers == CAL_MAX_MARKERS)
        return tp_error_set(err, TP_ERR_INVALID,
                            "calibration: more than %d different markers", CAL_MAX_MARKERS);
      k = pb->n_markers++;
      pb->ids[k] = obs[o].id;
    }
    pb->slot[o] = k;
  }
  cal__square(opt->marker_mm, pb->square);
  /* Pixel centres are integers: the image centre is at (w-1)/2. */
  pb->img_cx = (width - 1) / 2.0;
  pb->img_cy = (height - 1) / 2.0;
  pb->img_scale = width > height ? width : height;
  /* Radial distortion is estimated from the markers only without a lens
   * model and with markers spread enough to see it. */
  if (!opt->has_lens && pb->n_markers >= 3) pb->n_dist = opt->radial_terms;
  return TP_OK;
}

tp_status cal__fit(const cal_options *opt, const cal__obs *obs, size_t n, int frames,
                   int width, int height, cal_calib *c, tp_error *err) {
  problem pb;
  tp_status st = build_problem(opt, obs, n, width, height, &pb, err);
  int np = n_params(&pb);
  double *p = malloc((size_t)np * sizeof *p), *r = malloc(8 * (n ? n : 1) * sizeof *r);
  if (st == TP_OK && (!p || !r)) st = tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  if (st == TP_OK && (!initial_guess(&pb, p) || levenberg_marquardt(&pb, p, 200) < 0 ||
                      !residuals(&pb, p, r)))
    st = tp_error_set(err, TP_ERR_NOTFOUND,
                      "calibration: the markers do not fit a flat table; check that all "
                      "markers are flat and printed at the same size");
  if (st == TP_OK) {
    double phi;
    bool mirror;
    c->width = width;
    c->height = height;
    if (!params_to_calib(&pb, p, opt->frame_ids, c, &phi, &mirror))
      st = tp_error_set(err, TP_ERR_NOTFOUND, "calibration: degenerate table plane");
    fill_markers(&pb, p, phi, mirror, r, c);
    c->marker_mm = opt->marker_mm;
    memcpy(c->frame_ids, opt->frame_ids, sizeof c->frame_ids);
    snprintf(c->dict, sizeof c->dict, "%s", opt->dict);
    memset(&c->q, 0, sizeof c->q);
    c->q.frames = frames;
    c->q.markers = pb.n_markers;
    residual_stats(&pb, r, &c->q.rms_px, &c->q.max_px);
    if (mirror) c->q.warnings |= CAL_WARN_ORDER;
    /* Corner noise: the residual scatter, corrected for the fitted
     * unknowns, but never below what the detector achieves (0.03 px). */
    long dof = (long)(8 * n) - np;
    double sigma = dof > 0 ? c->q.rms_px * sqrt(8.0 * (double)n / (double)dof) / sqrt(2.0) : 0.3;
    c->q.accuracy_mm = accuracy_mm(&pb, p, opt->frame_ids, c, fmax(sigma, 0.03));
  }
  free(p);
  free(r);
  free(pb.slot);
  return st;
}
