/* calibration: the annotated photo of `calibrate --annotate`: markers as
 * fitted, the table axes and a 10 cm grid, drawn through the calibration
 * (grid lines follow the lens distortion, so a good calibration shows
 * them lying exactly on the table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "cal_internal.h"

/* Moves to or lines to the image point of table point (x, y). */
static bool path_point(cairo_t *cr, const cal_calib *c, double x, double y, bool first) {
  double mm[2] = {x, y}, px[2];
  if (!cal_table_to_image(c, mm, px)) return false;
  if (first) cairo_move_to(cr, px[0] + 0.5, px[1] + 0.5); /* pixel centres */
  else cairo_line_to(cr, px[0] + 0.5, px[1] + 0.5);
  return true;
}

/* A straight table line from a to b, sampled every 10 mm. */
static void table_line(cairo_t *cr, const cal_calib *c, const double a[2], const double b[2]) {
  double len = hypot(b[0] - a[0], b[1] - a[1]);
  int steps = (int)ceil(len / 10) + 1;
  bool first = true;
  for (int i = 0; i <= steps; i++) {
    double t = (double)i / steps;
    first = !path_point(cr, c, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), first) &&
            first;
  }
  cairo_stroke(cr);
}

static void grid(cairo_t *cr, const cal_calib *c) {
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (size_t k = 0; k < c->n_markers; k++)
    for (int i = 0; i < 2; i++) {
      lo[i] = fmin(lo[i], c->markers[k].center_mm[i]);
      hi[i] = fmax(hi[i], c->markers[k].center_mm[i]);
    }
  for (int i = 0; i < 2; i++) {
    lo[i] = floor(lo[i] / 100) * 100;
    hi[i] = ceil(hi[i] / 100) * 100;
  }
  cairo_set_source_rgba(cr, 1, 1, 0.2, 0.8);
  for (double x = lo[0]; x <= hi[0] + 1e-9; x += 100) {
    double a[2] = {x, lo[1]}, b[2] = {x, hi[1]};
    table_line(cr, c, a, b);
  }
  for (double y = lo[1]; y <= hi[1] + 1e-9; y += 100) {
    double a[2] = {lo[0], y}, b[2] = {hi[0], y};
    table_line(cr, c, a, b);
  }
}

static void label(cairo_t *cr, const cal_calib *c, double x, double y, double size,
                  const char *text) {
  double mm[2] = {x, y}, px[2];
  if (!cal_table_to_image(c, mm, px)) return;
  cairo_set_font_size(cr, size);
  cairo_move_to(cr, px[0], px[1]);
  cairo_text_path(cr, text);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, size / 6);
  cairo_stroke_preserve(cr);
  cairo_fill(cr);
}

static void axes_and_markers(cairo_t *cr, const cal_calib *c, double font) {
  const double o[2] = {0, 0}, ex[2] = {100, 0}, ey[2] = {0, 100};
  cairo_set_line_width(cr, font / 5);
  cairo_set_source_rgb(cr, 1, 0.1, 0.1);
  table_line(cr, c, o, ex);
  cairo_set_source_rgb(cr, 1, 0.1, 0.1);
  label(cr, c, 105, 5, font, "x");
  cairo_set_source_rgb(cr, 0.1, 0.6, 1);
  cairo_set_line_width(cr, font / 5);
  table_line(cr, c, o, ey);
  label(cr, c, 5, 110, font, "y");
  for (size_t k = 0; k < c->n_markers; k++) {
    const cal_marker_pose *m = &c->markers[k];
    cairo_set_source_rgb(cr, 0.1, 1, 0.3);
    cairo_set_line_width(cr, font / 6);
    bool first = true;
    for (int i = 0; i <= 4; i++)
      first = !path_point(cr, c, m->corners_mm[i % 4][0], m->corners_mm[i % 4][1], first) &&
              first;
    cairo_stroke(cr);
    char text[16];
    snprintf(text, sizeof text, "%d", m->id);
    cairo_set_source_rgb(cr, 0.1, 1, 0.3);
    label(cr, c, m->corners_mm[0][0], m->corners_mm[0][1] - c->marker_mm * 0.2, font, text);
  }
}

tp_status cal_annotate_write(const cal_calib *c, const tp_image *photo, const char *path,
                             tp_error *err) {
  if (!c || !c->has_table || !photo || !photo->data)
    return tp_error_set(err, TP_ERR_INVALID, "annotate: no calibration or photo");
  int w = photo->width, h = photo->height;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
  }
  unsigned char *px = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  cairo_surface_flush(s);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = tp_image_row(photo, y) + x * photo->channels;
      uint32_t v = photo->channels >= 3 ? (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]
                                        : (uint32_t)p[0] * 0x010101u;
      memcpy(px + (size_t)y * stride + 4 * x, &v, 4);
    }
  cairo_surface_mark_dirty(s);
  cairo_t *cr = cairo_create(s);
  double font = fmax(12, w / 80.0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_line_width(cr, fmax(1, w / 900.0));
  grid(cr, c);
  axes_and_markers(cr, c, font);
  cairo_destroy(cr);
  cairo_surface_flush(s);
  tp_image out;
  tp_status st = tp_image_alloc(&out, w, h, 3);
  if (st == TP_OK) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        uint32_t v;
        memcpy(&v, px + (size_t)y * stride + 4 * x, 4);
        uint8_t *o = tp_image_row(&out, y) + 3 * x;
        o[0] = (uint8_t)(v >> 16);
        o[1] = (uint8_t)(v >> 8);
        o[2] = (uint8_t)v;
      }
    st = cvw_image_write(path, &out, 90, err);
    tp_image_free(&out);
  } else {
    tp_error_set(err, st, "%s: out of memory", path);
  }
  cairo_surface_destroy(s);
  cal__release_text_caches();
  return st;
}
