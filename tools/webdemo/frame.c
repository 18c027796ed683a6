/* webdemo frame: a drawn top view of the demo table, marked the way the
 * live page's frames are (claimed cards outlined in the taker's colour,
 * the contested card in white), encoded as JPEG. */
#define _POSIX_C_SOURCE 200809L
#include <cairo.h>
#include <stdio.h> /* before jpeglib.h, which needs FILE and size_t */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "webdemo_internal.h"

enum { FRAME_W = 800, FRAME_H = 560 };
static const double PI = 3.14159265358979323846;
static const double MM = 1.45; /* pixels per mm */
static const double X0 = 24, Y0 = 60; /* mm at the picture's corner */
static const double CARD_W = 63, CARD_H = 88, CARPET_W = 70, CARPET_H = 110;

static void rgb_of(const char *colour, double rgb[3]) {
  static const struct { const char *name; double r, g, b; } table[] = {
      {"red", 0.78, 0.16, 0.16},   {"blue", 0.12, 0.36, 0.72},
      {"green", 0.18, 0.49, 0.20}, {"yellow", 0.95, 0.76, 0.0},
      {"white", 1, 1, 1}};
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
    if (!strcmp(colour, table[k].name)) {
      rgb[0] = table[k].r, rgb[1] = table[k].g, rgb[2] = table[k].b;
      return;
    }
  rgb[0] = rgb[1] = rgb[2] = 0.5;
}

static void rect(cairo_t *cr, double x, double y, double w, double h,
                 double angle) {
  cairo_save(cr);
  cairo_translate(cr, (x - X0) * MM, (y - Y0) * MM);
  cairo_rotate(cr, angle * PI / 180);
  cairo_rectangle(cr, -w * MM / 2, -h * MM / 2, w * MM, h * MM);
  cairo_restore(cr);
}

static void draw_card(cairo_t *cr, const wdemo *d, int k) {
  const wdemo__card *c = &d->cards[k];
  rect(cr, c->x_mm, c->y_mm, CARD_W, CARD_H, c->angle_deg);
  cairo_set_source_rgb(cr, 0.96, 0.91, 0.78);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.35, 0.25, 0.15);
  cairo_set_line_width(cr, 1.5);
  cairo_stroke(cr);
  cairo_save(cr);
  cairo_translate(cr, (c->x_mm - X0) * MM, (c->y_mm - Y0) * MM);
  cairo_rotate(cr, c->angle_deg * PI / 180);
  cairo_set_font_size(cr, 11);
  cairo_text_extents_t te;
  cairo_text_extents(cr, c->type, &te);
  cairo_move_to(cr, -te.width / 2, -CARD_H * MM / 2 + 16);
  cairo_show_text(cr, c->type);
  char id[16];
  snprintf(id, sizeof id, "#%d", c->id);
  cairo_set_font_size(cr, 18);
  cairo_text_extents(cr, id, &te);
  cairo_move_to(cr, -te.width / 2, 6);
  cairo_show_text(cr, id);
  cairo_restore(cr);
}

static void mark_card(cairo_t *cr, const wdemo *d, int k) {
  const wdemo__card *c = &d->cards[k];
  bool open = k == d->contest_card && d->winner < 0;
  if (c->owner < 0 && !open) return;
  double rgb[3];
  rgb_of(open ? "white" : d->players[c->owner].colour, rgb);
  rect(cr, c->x_mm, c->y_mm, CARD_W + 8, CARD_H + 8, c->angle_deg);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, 5);
  if (open) {
    double dash[] = {10, 6};
    cairo_set_dash(cr, dash, 2, 0);
  }
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

static void draw(cairo_t *cr, const wdemo *d) {
  cairo_set_source_rgb(cr, 0.16, 0.30, 0.21); /* the felt */
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         CAIRO_FONT_WEIGHT_BOLD);
  for (int k = 0; k < WDEMO_CARDS; k++) draw_card(cr, d, k);
  for (int k = 0; k < WDEMO_PLAYERS; k++) {
    const wdemo__carpet *c = &d->carpets[k];
    double rgb[3];
    rgb_of(c->colour, rgb);
    rect(cr, c->x_mm, c->y_mm, CARPET_W, CARPET_H, c->angle_deg);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.92);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.1, 0.05, 0.0);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
  }
  for (int k = 0; k < WDEMO_CARDS; k++) mark_card(cr, d, k);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, 12, FRAME_H - 14);
  cairo_show_text(cr, "teppich demo: round 2, flight 3");
}

/* cairo's xRGB rows to a JPEG in memory. */
static tp_status encode(cairo_surface_t *surf, uint8_t **jpeg, size_t *len,
                        tp_error *err) {
  const unsigned char *px = cairo_image_surface_get_data(surf);
  int stride = cairo_image_surface_get_stride(surf);
  unsigned char *row = malloc((size_t)FRAME_W * 3);
  if (!row) return tp_error_set(err, TP_ERR_NOMEM, "demo: out of memory");
  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char *mem = NULL;
  unsigned long mem_len = 0;
  jpeg_mem_dest(&cinfo, &mem, &mem_len);
  cinfo.image_width = FRAME_W;
  cinfo.image_height = FRAME_H;
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 82, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  for (int y = 0; y < FRAME_H; y++) {
    const uint32_t *src = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
    for (int x = 0; x < FRAME_W; x++) {
      row[3 * x] = (unsigned char)(src[x] >> 16);
      row[3 * x + 1] = (unsigned char)(src[x] >> 8);
      row[3 * x + 2] = (unsigned char)src[x];
    }
    JSAMPROW rows[1] = {row};
    jpeg_write_scanlines(&cinfo, rows, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  free(row);
  *jpeg = mem;
  *len = mem_len;
  return TP_OK;
}

tp_status wdemo_frame_jpeg(const wdemo *d, uint8_t **jpeg, size_t *len,
                           tp_error *err) {
  cairo_surface_t *surf =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, FRAME_W, FRAME_H);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    return tp_error_set(err, TP_ERR_NOMEM, "demo: out of memory");
  }
  cairo_t *cr = cairo_create(surf);
  draw(cr, d);
  cairo_destroy(cr);
  cairo_surface_flush(surf);
  tp_status st = encode(surf, jpeg, len, err);
  cairo_surface_destroy(surf);
  return st;
}
