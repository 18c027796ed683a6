/* synth: see synth.h. */
#include "synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SYNTH_PI 3.14159265358979323846

static void normalize(double v[3]) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int i = 0; i < 3; i++) v[i] /= l;
}

void synth_camera_init(synth_camera *cam) {
  double t = cam->tilt_deg * SYNTH_PI / 180, a = cam->azimuth_deg * SYNTH_PI / 180;
  /* Viewing direction: straight down is +z (table frame: x right, y down). */
  double z[3] = {sin(t) * cos(a), sin(t) * sin(a), cos(t)};
  double r = cam->roll_deg * SYNTH_PI / 180;
  double ref[3] = {cos(r), sin(r), 0};
  double dot = ref[0] * z[0] + ref[1] * z[1] + ref[2] * z[2];
  double x[3] = {ref[0] - dot * z[0], ref[1] - dot * z[1], ref[2] - dot * z[2]};
  normalize(x);
  double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]};
  for (int i = 0; i < 3; i++) {
    cam->rot[i] = x[i];
    cam->rot[3 + i] = y[i];
    cam->rot[6 + i] = z[i];
  }
  cam->centre[0] = cam->target[0] - cam->distance * z[0];
  cam->centre[1] = cam->target[1] - cam->distance * z[1];
  cam->centre[2] = -cam->distance * z[2];
}

void synth_lens(const synth_camera *cam, cal_lens *lens) {
  memset(lens, 0, sizeof *lens);
  lens->width = cam->width;
  lens->height = cam->height;
  lens->fx = lens->fy = cam->f_px;
  lens->cx = (cam->width - 1) / 2.0;
  lens->cy = (cam->height - 1) / 2.0;
  lens->k1 = cam->k1;
  lens->k2 = cam->k2;
}

bool synth_project(const synth_camera *cam, const double mm[2], double px[2]) {
  double d[3] = {mm[0] - cam->centre[0], mm[1] - cam->centre[1], -cam->centre[2]};
  double c[3];
  for (int i = 0; i < 3; i++)
    c[i] = cam->rot[3 * i] * d[0] + cam->rot[3 * i + 1] * d[1] + cam->rot[3 * i + 2] * d[2];
  if (c[2] <= 1e-9) return false;
  cal_lens lens;
  synth_lens(cam, &lens);
  double ideal[2] = {cam->f_px * c[0] / c[2] + lens.cx, cam->f_px * c[1] / c[2] + lens.cy};
  cal_lens_distort(&lens, ideal, px);
  return true;
}

/* Ray through recorded pixel (u, v) onto the table plane. */
static bool unproject(const synth_camera *cam, const cal_lens *lens, double u, double v,
                      double mm[2]) {
  double px[2] = {u, v}, ideal[2];
  cal_lens_undistort(lens, px, ideal);
  double c[3] = {(ideal[0] - lens->cx) / cam->f_px, (ideal[1] - lens->cy) / cam->f_px, 1};
  double w[3];
  for (int i = 0; i < 3; i++)
    w[i] = cam->rot[i] * c[0] + cam->rot[3 + i] * c[1] + cam->rot[6 + i] * c[2];
  if (w[2] <= 1e-12) return false;
  double t = -cam->centre[2] / w[2];
  mm[0] = cam->centre[0] + t * w[0];
  mm[1] = cam->centre[1] + t * w[1];
  return true;
}

tp_status synth_table_init(synth_table *t) {
  int bits = cvw_dict_marker_bits(t->dict) + 2;
  if (bits > 16 || t->n_markers > SYNTH_MAX_MARKERS) return TP_ERR_INVALID;
  t->cells_per_side = bits;
  for (int i = 0; i < t->n_markers; i++) {
    tp_image img = {t->cells[i], bits, bits, bits, 1};
    tp_status st = cvw_marker_draw(t->dict, t->markers[i].id, &img, NULL);
    if (st != TP_OK) return st;
  }
  return TP_OK;
}

uint8_t synth_table_shade(const void *ctx, double x, double y) {
  const synth_table *t = ctx;
  for (int i = 0; i < t->n_markers; i++) {
    const synth_marker *m = &t->markers[i];
    double a = m->angle_deg * SYNTH_PI / 180;
    double dx = x - m->center[0], dy = y - m->center[1];
    double lx = cos(a) * dx + sin(a) * dy, ly = -sin(a) * dx + cos(a) * dy;
    double h = m->side_mm / 2;
    if (fabs(lx) < h && fabs(ly) < h) {
      int bits = t->cells_per_side;
      int cx = (int)((lx + h) / m->side_mm * bits), cy = (int)((ly + h) / m->side_mm * bits);
      if (cx < 0 || cy < 0 || cx >= bits || cy >= bits) return 25;
      return t->cells[i][cy * bits + cx] ? 225 : 25;
    }
    if (fabs(lx) < h * 1.6 && fabs(ly) < h * 1.6) return 232; /* paper */
  }
  /* Table top: mid gray with a soft wood-like grain. */
  return (uint8_t)(110 + 18 * sin(x * 0.05 + 0.3 * sin(y * 0.01)) + 6 * sin(y * 0.2));
}

static void gaussian_blur(tp_image *img, double sigma) {
  int r = (int)ceil(3 * sigma);
  double *k = malloc((size_t)(2 * r + 1) * sizeof *k), sum = 0;
  float *tmp = malloc((size_t)img->width * img->height * sizeof *tmp);
  if (!k || !tmp) { free(k); free(tmp); return; }
  for (int i = -r; i <= r; i++) sum += k[i + r] = exp(-0.5 * i * i / (sigma * sigma));
  for (int i = 0; i <= 2 * r; i++) k[i] /= sum;
  int w = img->width, h = img->height;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double s = 0;
      for (int i = -r; i <= r; i++) {
        int xx = x + i < 0 ? 0 : x + i >= w ? w - 1 : x + i;
        s += k[i + r] * tp_image_row(img, y)[xx];
      }
      tmp[(size_t)y * w + x] = (float)s;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double s = 0;
      for (int i = -r; i <= r; i++) {
        int yy = y + i < 0 ? 0 : y + i >= h ? h - 1 : y + i;
        s += k[i + r] * tmp[(size_t)yy * w + x];
      }
      tp_image_row(img, y)[x] = (uint8_t)fmin(255, fmax(0, s + 0.5));
    }
  free(k);
  free(tmp);
}

static double gauss(uint64_t *s) {
  double u[2];
  for (int i = 0; i < 2; i++) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
  }
  return sqrt(-2 * log(u[0])) * cos(2 * SYNTH_PI * u[1]);
}

tp_status synth_render(const synth_camera *cam, synth_shade shade, const void *ctx,
                       int samples, double blur_px, double noise, uint64_t seed,
                       tp_image *out) {
  tp_status st = tp_image_alloc(out, cam->width, cam->height, 1);
  if (st != TP_OK) return st;
  cal_lens lens;
  synth_lens(cam, &lens);
  for (int y = 0; y < cam->height; y++)
    for (int x = 0; x < cam->width; x++) {
      int sum = 0;
      for (int sy = 0; sy < samples; sy++)
        for (int sx = 0; sx < samples; sx++) {
          double mm[2];
          double u = x - 0.5 + (sx + 0.5) / samples, v = y - 0.5 + (sy + 0.5) / samples;
          sum += unproject(cam, &lens, u, v, mm) ? shade(ctx, mm[0], mm[1]) : 0;
        }
      tp_image_row(out, y)[x] = (uint8_t)(sum / (samples * samples));
    }
  if (blur_px > 0) gaussian_blur(out, blur_px);
  if (noise > 0)
    for (int y = 0; y < cam->height; y++)
      for (int x = 0; x < cam->width; x++) {
        uint8_t *p = tp_image_row(out, y) + x;
        *p = (uint8_t)fmin(255, fmax(0, *p + noise * gauss(&seed) + 0.5));
      }
  return TP_OK;
}
