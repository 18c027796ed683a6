/* annotate: the photo with what analyze saw drawn on it, so that a person
 * can check it at a glance: cards outlined and labelled with their type,
 * carpets outlined in their colour, who lies on top where they overlap,
 * and the claims and contests. */
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cvw.h"

static void colour_rgb(const char *name, double rgb[3]) {
  static const struct {
    const char *name;
    double r, g, b;
  } known[] = {{"red", 0.9, 0.1, 0.1},    {"blue", 0.15, 0.35, 1.0},
               {"green", 0.1, 0.8, 0.2},  {"yellow", 1.0, 0.85, 0.0},
               {"black", 0.1, 0.1, 0.1},  {"white", 1, 1, 1},
               {"orange", 1.0, 0.55, 0.0}, {"purple", 0.6, 0.2, 0.8}};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (!strcmp(name, known[i].name)) {
      rgb[0] = known[i].r, rgb[1] = known[i].g, rgb[2] = known[i].b;
      return;
    }
  rgb[0] = 1, rgb[1] = 0, rgb[2] = 1; /* unknown colour name: magenta */
}

typedef struct {
  const vis_table_map *map; /* table mm -> image px (with the lens) */
} mapper;

static vis_pt to_px(const mapper *m, vis_pt p) {
  double mm[2] = {p.x, p.y}, px[2] = {-1e4, -1e4};
  m->map->table_to_image(m->map->user, mm, px);
  return (vis_pt){px[0], px[1]};
}

static void rect_path(cairo_t *cr, const mapper *m, const vis_rect *r) {
  vis_pt c[4];
  vis_rect_corners(r, c);
  for (int i = 0; i < 4; i++) {
    vis_pt p = to_px(m, c[i]);
    if (i == 0)
      cairo_move_to(cr, p.x + 0.5, p.y + 0.5);
    else
      cairo_line_to(cr, p.x + 0.5, p.y + 0.5);
  }
  cairo_close_path(cr);
}

/* Text with a dark halo so it reads on any background. */
static void label(cairo_t *cr, double x, double y, double size, const char *text,
                  const double rgb[3]) {
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  cairo_move_to(cr, x - e.width / 2 - e.x_bearing, y - e.height / 2 - e.y_bearing);
  cairo_text_path(cr, text);
  cairo_set_source_rgba(cr, 0, 0, 0, 0.85);
  cairo_set_line_width(cr, size / 5);
  cairo_stroke_preserve(cr);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_fill(cr);
}

static void draw_cards(cairo_t *cr, const mapper *m, const vis_result *v, double fs) {
  for (int i = 0; i < v->n_cards; i++) {
    const vis_card *c = &v->cards[i];
    rect_path(cr, m, &c->rect);
    double white[3] = {1, 1, 1}, warn[3] = {1, 0.6, 0};
    const double *col = c->uncertain ? warn : white;
    cairo_set_source_rgb(cr, col[0], col[1], col[2]);
    cairo_set_line_width(cr, fs / 6);
    if (c->uncertain) {
      double dash[2] = {fs / 2, fs / 3};
      cairo_set_dash(cr, dash, 2, 0);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    vis_pt p = to_px(m, c->rect.center);
    char text[64];
    snprintf(text, sizeof text, "%d %s%s", i, c->type >= 0 ? vis_type_name(c->type) : "?",
             c->uncertain ? " ?" : "");
    label(cr, p.x, p.y, fs, text, col);
  }
}

static void draw_carpets(cairo_t *cr, const mapper *m, const vis_result *v,
                         const an_report *r, double fs) {
  for (int i = 0; i < v->n_carpets; i++) {
    const vis_carpet *c = &v->carpets[i];
    double rgb[3];
    colour_rgb(c->colour, rgb);
    rect_path(cr, m, &c->rect);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, fs / 3);
    cairo_stroke(cr);
    vis_pt p = to_px(m, c->rect.center);
    char text[96];
    snprintf(text, sizeof text, "%s (%s)%s", c->colour, r->players[i], c->uncertain ? " ?" : "");
    label(cr, p.x, p.y + fs * 1.2, fs, text, rgb);
  }
}

/* At every overlap: "ON" where the carpet lies on top, "UNDER" where the
 * other lies on it, in the carpet's colour, at the overlap's middle. */
static void draw_overlaps(cairo_t *cr, const mapper *m, const vis_result *v, double fs) {
  for (int i = 0; i < v->n_overlaps; i++) {
    const vis_overlap *o = &v->overlaps[i];
    const vis_carpet *c = &v->carpets[o->carpet];
    const vis_rect *other = o->other_is_carpet ? &v->carpets[o->other].rect
                                               : &v->cards[o->other].rect;
    /* middle of the overlap: mean of the corners inside the other rect */
    vis_pt a[4], b[4], sum = {0, 0};
    int n = 0;
    vis_rect_corners(&c->rect, a);
    vis_rect_corners(other, b);
    for (int k = 0; k < 4; k++) {
      if (vis_rect_contains(other, a[k])) sum.x += a[k].x, sum.y += a[k].y, n++;
      if (vis_rect_contains(&c->rect, b[k])) sum.x += b[k].x, sum.y += b[k].y, n++;
    }
    vis_pt mid = n ? (vis_pt){sum.x / n, sum.y / n}
                   : (vis_pt){(c->rect.center.x + other->center.x) / 2,
                              (c->rect.center.y + other->center.y) / 2};
    vis_pt p = to_px(m, mid);
    double rgb[3];
    colour_rgb(c->colour, rgb);
    label(cr, p.x, p.y, fs * 0.8, o->carpet_on_top ? (o->uncertain ? "on?" : "ON")
                                                   : (o->uncertain ? "under?" : "UNDER"), rgb);
  }
}

static void draw_summary(cairo_t *cr, const char *summary, double fs) {
  double y = fs * 1.5, white[3] = {1, 1, 1};
  const char *line = summary;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)(n < 255 ? n : 255), line);
    cairo_set_font_size(cr, fs);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    label(cr, fs + e.width / 2, y, fs, text, white);
    y += fs * 1.4;
    line = end ? end + 1 : NULL;
  }
}

static tp_status surface_to_rgb(cairo_surface_t *s, tp_image *out, tp_error *err) {
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  if (tp_image_alloc(out, w, h, 3))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the annotated image");
  cairo_surface_flush(s);
  const uint8_t *src = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h; y++) {
    const uint32_t *row = (const uint32_t *)(const void *)(src + (size_t)y * (size_t)stride);
    uint8_t *d = tp_image_row(out, y);
    for (int x = 0; x < w; x++) {
      d[3 * x] = (uint8_t)(row[x] >> 16);
      d[3 * x + 1] = (uint8_t)(row[x] >> 8);
      d[3 * x + 2] = (uint8_t)row[x];
    }
  }
  return TP_OK;
}

tp_status an_annotate(const an_session *s, const an_report *r, const char *path,
                      tp_error *err) {
  const tp_image *ph = &r->photo;
  mapper m = {.map = r->has_map ? &r->map : NULL};
  if (!m.map)
    return tp_error_set(err, TP_ERR_INVALID, "annotate: no table mapping");
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, ph->width, ph->height);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    return tp_error_set(err, TP_ERR_NOMEM, "annotate: out of memory");
  }
  uint8_t *dst = cairo_image_surface_get_data(surf);
  int stride = cairo_image_surface_get_stride(surf);
  for (int y = 0; y < ph->height; y++) {
    const uint8_t *p = tp_image_row(ph, y);
    uint32_t *q = (uint32_t *)(void *)(dst + (size_t)y * (size_t)stride);
    for (int x = 0; x < ph->width; x++)
      q[x] = (uint32_t)p[3 * x] << 16 | (uint32_t)p[3 * x + 1] << 8 | p[3 * x + 2];
  }
  cairo_surface_mark_dirty(surf);
  cairo_t *cr = cairo_create(surf);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  double fs = fmax(10, ph->width / 110.0);
  draw_cards(cr, &m, &r->vis, fs);
  draw_carpets(cr, &m, &r->vis, r, fs);
  draw_overlaps(cr, &m, &r->vis, fs);
  char *summary = an_report_summary(s, r);
  draw_summary(cr, summary, fs);
  free(summary);
  cairo_destroy(cr);
  tp_image out = {0};
  tp_status st = surface_to_rgb(surf, &out, err);
  cairo_surface_destroy(surf);
  /* cairo's toy text keeps fontconfig caches for the process's life: drop
   * them (every cairo object is gone) so that leak checkers see a clean
   * exit; both set themselves up again on their next use */
  cairo_debug_reset_static_data();
  FcFini();
  if (!st) st = cvw_image_write(path, &out, 92, err);
  tp_image_free(&out);
  return st;
}
