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
#include "analysis_internal.h"
#include "calibration.h"
#include "cvw.h"

static const double PI = 3.14159265358979323846;

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

/* Text with a dark halo so it reads on any background, centred at (x, y). */
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

/* Text on a w x h tag of colour rgb centred at (x, y), in black or white,
 * whichever stands out from it: a carpet's name in red halo letters on
 * its own red face could hardly be read. */
static void tag(cairo_t *cr, double x, double y, double w, double h, double size,
                const char *text, const double rgb[3]) {
  double r = h / 4;
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + w / 2 - r, y - h / 2 + r, r, -PI / 2, 0);
  cairo_arc(cr, x + w / 2 - r, y + h / 2 - r, r, 0, PI / 2);
  cairo_arc(cr, x - w / 2 + r, y + h / 2 - r, r, PI / 2, PI);
  cairo_arc(cr, x - w / 2 + r, y - h / 2 + r, r, PI, 3 * PI / 2);
  cairo_close_path(cr);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_fill_preserve(cr);
  cairo_set_source_rgba(cr, 0, 0, 0, 0.85);
  cairo_set_line_width(cr, size / 12);
  cairo_stroke(cr);
  double luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
  double ink = luma > 0.5 ? 0 : 1;
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  cairo_move_to(cr, x - e.width / 2 - e.x_bearing, y - e.height / 2 - e.y_bearing);
  cairo_set_source_rgb(cr, ink, ink, ink);
  cairo_show_text(cr, text);
}

/* The label's leader line: from the box's nearest edge to a dot on its
 * object, with the same dark halo as the text. */
static void leader(cairo_t *cr, const an__placement *at, double w, double h, double size,
                   const double rgb[3]) {
  vis_pt from = {fmin(fmax(at->anchor.x, at->at.x - w / 2), at->at.x + w / 2),
                 fmin(fmax(at->anchor.y, at->at.y - h / 2), at->at.y + h / 2)};
  for (int pass = 0; pass < 2; pass++) {
    cairo_move_to(cr, from.x, from.y);
    cairo_line_to(cr, at->anchor.x, at->anchor.y);
    cairo_new_sub_path(cr);
    cairo_arc(cr, at->anchor.x, at->anchor.y, size / 6, 0, 2 * PI);
    if (pass == 0)
      cairo_set_source_rgba(cr, 0, 0, 0, 0.85), cairo_set_line_width(cr, size / 4);
    else
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]), cairo_set_line_width(cr, size / 10);
    cairo_stroke(cr);
  }
}

/* A label at the first free spot among `spots` (table mm) on its object,
 * or beside the object's outline with a leader line when none is free. */
typedef enum { HALO_TEXT, COLOUR_TAG } label_style;

static void place_label(cairo_t *cr, const mapper *m, an__labels *placed,
                        const vis_pt *spots, int n_spots, const an__quad *outline, int self,
                        double size, const char *text, const double rgb[3], label_style style) {
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  vis_pt px[AN__MAX_SPOTS];
  int n = n_spots < AN__MAX_SPOTS ? n_spots : AN__MAX_SPOTS;
  for (int i = 0; i < n; i++) px[i] = to_px(m, spots[i]);
  double halo = size / 5, w = e.width + 2 * halo, h = e.height + 2 * halo;
  an__target t = {.spots = px, .n_spots = n, .outline = outline, .self = self};
  an__placement at;
  if (an__place_label(placed, &t, w, h, &at) < 0) return;
  if (at.moved) leader(cr, &at, w, h, size, rgb);
  if (style == COLOUR_TAG)
    tag(cr, at.at.x, at.at.y, w, h, size, text, rgb);
  else
    label(cr, at.at.x, at.at.y, size, text, rgb);
}

/* Spots on r outside the rectangles lying on it; all spots on r if none
 * is free (a wholly covered object still gets its name, placed clear of
 * the label of what covers it). */
static int spots_on(const vis_rect *r, const vis_rect *covers, int n_covers,
                    vis_pt spots[AN__MAX_SPOTS]) {
  int n = an__label_spots(r, covers, n_covers, spots, AN__MAX_SPOTS);
  return n ? n : an__label_spots(r, NULL, 0, spots, AN__MAX_SPOTS);
}

static an__quad outline_px(const mapper *m, const vis_rect *r) {
  vis_pt c[4];
  vis_rect_corners(r, c);
  an__quad q;
  for (int i = 0; i < 4; i++) q.p[i] = to_px(m, c[i]);
  return q;
}

static void stroke_rect(cairo_t *cr, const mapper *m, const vis_rect *r,
                        const double rgb[3], double width, bool dashed) {
  rect_path(cr, m, r);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, width);
  if (dashed) {
    double dash[2] = {width * 3, width * 2};
    cairo_set_dash(cr, dash, 2, 0);
  }
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

static const double white[3] = {1, 1, 1}, warn[3] = {1, 0.6, 0};

static void outline_cards(cairo_t *cr, const mapper *m, const vis_result *v, double fs) {
  for (int i = 0; i < v->n_cards; i++) {
    const vis_card *c = &v->cards[i];
    stroke_rect(cr, m, &c->rect, c->uncertain ? warn : white, fs / 6, c->uncertain);
  }
}

static void outline_carpets(cairo_t *cr, const mapper *m, const vis_result *v, double fs) {
  for (int i = 0; i < v->n_carpets; i++) {
    double rgb[3];
    colour_rgb(v->carpets[i].colour, rgb);
    stroke_rect(cr, m, &v->carpets[i].rect, rgb, fs / 3, false);
  }
}

/* The carpets lying on card i. */
static int carpets_on_card(const vis_result *v, int card, vis_rect *out, int max) {
  int n = 0;
  for (int k = 0; k < v->n_carpets; k++)
    for (int j = 0; j < v->carpets[k].n_on_cards && n < max; j++)
      if (v->carpets[k].on_cards[j] == card) out[n++] = v->carpets[k].rect;
  return n;
}

/* The cards and carpets lying on carpet i. */
static int objects_on_carpet(const vis_result *v, int carpet, vis_rect *out, int max) {
  const vis_carpet *c = &v->carpets[carpet];
  int n = 0;
  for (int j = 0; j < c->n_under_cards && n < max; j++)
    if (c->under_cards[j] >= 0 && c->under_cards[j] < v->n_cards)
      out[n++] = v->cards[c->under_cards[j]].rect;
  for (int k = 0; k < v->n_overlaps && n < max; k++) {
    const vis_overlap *o = &v->overlaps[k];
    if (o->other_is_carpet && o->carpet == carpet && !o->carpet_on_top)
      out[n++] = v->carpets[o->other].rect;
    if (o->other_is_carpet && o->other == carpet && o->carpet_on_top)
      out[n++] = v->carpets[o->carpet].rect;
  }
  return n;
}

static void label_cards(cairo_t *cr, const mapper *m, const vis_result *v,
                        an__labels *placed, double fs) {
  for (int i = 0; i < v->n_cards; i++) {
    const vis_card *c = &v->cards[i];
    vis_rect covers[VIS_MAX_CARPETS];
    vis_pt spots[AN__MAX_SPOTS];
    int n = spots_on(&c->rect, covers, carpets_on_card(v, i, covers, VIS_MAX_CARPETS), spots);
    char text[64];
    snprintf(text, sizeof text, "%d %s%s", i, c->type >= 0 ? vis_type_name(c->type) : "?",
             c->uncertain ? " ?" : "");
    an__quad outline = outline_px(m, &c->rect);
    place_label(cr, m, placed, spots, n, &outline, i, fs, text, c->uncertain ? warn : white,
                HALO_TEXT);
  }
}

static void label_carpets(cairo_t *cr, const mapper *m, const vis_result *v,
                          const an_report *r, an__labels *placed, double fs) {
  for (int i = 0; i < v->n_carpets; i++) {
    const vis_carpet *c = &v->carpets[i];
    vis_rect covers[128];
    vis_pt spots[AN__MAX_SPOTS];
    int n = spots_on(&c->rect, covers, objects_on_carpet(v, i, covers, 128), spots);
    double rgb[3];
    colour_rgb(c->colour, rgb);
    char text[96];
    if (strcmp(c->colour, r->players[i])) /* "red (anna)"; "red" is red's own */
      snprintf(text, sizeof text, "%s (%s)%s", c->colour, r->players[i], c->uncertain ? " ?" : "");
    else
      snprintf(text, sizeof text, "%s%s", c->colour, c->uncertain ? " ?" : "");
    an__quad outline = outline_px(m, &c->rect);
    place_label(cr, m, placed, spots, n, &outline, v->n_cards + i, fs, text, rgb, COLOUR_TAG);
  }
}

/* Middle of the overlap of a and b: the mean of the corners of each that
 * lie inside the other, or halfway between their centres. */
static vis_pt overlap_middle(const vis_rect *a, const vis_rect *b) {
  vis_pt ca[4], cb[4], sum = {0, 0};
  int n = 0;
  vis_rect_corners(a, ca);
  vis_rect_corners(b, cb);
  for (int k = 0; k < 4; k++) {
    if (vis_rect_contains(b, ca[k])) sum.x += ca[k].x, sum.y += ca[k].y, n++;
    if (vis_rect_contains(a, cb[k])) sum.x += cb[k].x, sum.y += cb[k].y, n++;
  }
  return n ? (vis_pt){sum.x / n, sum.y / n}
           : (vis_pt){(a->center.x + b->center.x) / 2, (a->center.y + b->center.y) / 2};
}

/* At every overlap: "ON" where the carpet lies on top, "UNDER" where the
 * other lies on it, in the carpet's colour, near the overlap's middle. */
static void label_overlaps(cairo_t *cr, const mapper *m, const vis_result *v,
                           an__labels *placed, double fs) {
  for (int i = 0; i < v->n_overlaps; i++) {
    const vis_overlap *o = &v->overlaps[i];
    const vis_carpet *c = &v->carpets[o->carpet];
    const vis_rect *other = o->other_is_carpet ? &v->carpets[o->other].rect
                                               : &v->cards[o->other].rect;
    vis_pt mid = overlap_middle(&c->rect, other);
    /* the middle, then a little to each side (mm) */
    vis_pt spots[5] = {mid, {mid.x, mid.y - 12}, {mid.x, mid.y + 12},
                       {mid.x - 18, mid.y}, {mid.x + 18, mid.y}};
    /* ... or beside it with a leader line (a tag is opaque: on another
     * tag it would hide it) */
    vis_rect around_mid = {mid, 6, 6, 0};
    an__quad outline = outline_px(m, &around_mid);
    double rgb[3];
    colour_rgb(c->colour, rgb);
    place_label(cr, m, placed, spots, 5, &outline, -1, fs * 0.8,
                o->carpet_on_top ? (o->uncertain ? "on?" : "ON")
                                 : (o->uncertain ? "under?" : "UNDER"), rgb, COLOUR_TAG);
  }
}

/* The summary's lines, measured, and where they go. */
enum { SUMMARY_LINES = 48 }; /* the longest summary: 4 claims, 12 contests, 4 returned, ... */
typedef struct {
  char line[SUMMARY_LINES][256];
  int n;
  double fs, line_h, pad, w, h; /* pixels; w, h: the whole block */
} summary_block;

static void measure_summary(const char *summary, double fs, summary_block *b) {
  cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t *cr = cairo_create(scratch);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, fs);
  b->n = 0, b->fs = fs, b->line_h = fs * 1.4, b->pad = fs * 0.6, b->w = 0;
  for (const char *line = summary; line && *line && b->n < SUMMARY_LINES; b->n++) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    snprintf(b->line[b->n], sizeof b->line[b->n], "%.*s", (int)(n < 255 ? n : 255), line);
    cairo_text_extents_t e;
    cairo_text_extents(cr, b->line[b->n], &e);
    b->w = fmax(b->w, e.x_advance);
    line = end ? end + 1 : NULL;
  }
  b->w += 2 * b->pad, b->h = b->n * b->line_h + 2 * b->pad - (b->line_h - fs);
  cairo_destroy(cr);
  cairo_surface_destroy(scratch);
}

/* The summary on a dark panel in box `at`, which labels then keep clear of. */
static void draw_summary(cairo_t *cr, const summary_block *b, an__box at, an__labels *placed) {
  cairo_rectangle(cr, at.x0, at.y0, at.x1 - at.x0, at.y1 - at.y0);
  cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
  cairo_fill(cr);
  cairo_set_font_size(cr, b->fs);
  cairo_set_source_rgb(cr, 1, 1, 1);
  for (int i = 0; i < b->n; i++) {
    cairo_move_to(cr, at.x0 + b->pad, at.y0 + b->pad + b->fs * 0.8 + i * b->line_h);
    cairo_show_text(cr, b->line[i]);
  }
  an__reserve(placed, at);
}

/* The markers (with their white border, a quarter side wide) and every
 * card and carpet, in pixels: what labels and the summary keep clear of. */
static void add_obstacles(const an_session *s, const an_report *r, const mapper *m,
                          an__labels *l) {
  const struct cal_calib *c = an__report_calib(s, r);
  cal_marker_pose mk[AN__MAX_MARKERS];
  size_t n = c ? cal_calib_markers(c, mk, AN__MAX_MARKERS) : 0;
  for (size_t i = 0; i < n && i < AN__MAX_MARKERS; i++) {
    an__quad q;
    for (int k = 0; k < 4; k++) {
      vis_pt mid = {mk[i].center_mm[0], mk[i].center_mm[1]};
      vis_pt corner = {mid.x + 1.5 * (mk[i].corners_mm[k][0] - mid.x),
                       mid.y + 1.5 * (mk[i].corners_mm[k][1] - mid.y)};
      q.p[k] = to_px(m, corner);
    }
    an__add_marker(l, &q);
  }
  for (int i = 0; i < r->vis.n_cards; i++) {
    an__quad q = outline_px(m, &r->vis.cards[i].rect);
    an__add_object(l, &q);
  }
  for (int i = 0; i < r->vis.n_carpets; i++) {
    an__quad q = outline_px(m, &r->vis.carpets[i].rect);
    an__add_object(l, &q);
  }
}

/* The photo on a surface, with a dark band of band_h pixels below it. */
static cairo_surface_t *photo_surface(const tp_image *ph, int band_h) {
  cairo_surface_t *surf =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, ph->width, ph->height + band_h);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    return NULL;
  }
  uint8_t *dst = cairo_image_surface_get_data(surf);
  int stride = cairo_image_surface_get_stride(surf);
  for (int y = 0; y < ph->height + band_h; y++) {
    uint32_t *q = (uint32_t *)(void *)(dst + (size_t)y * (size_t)stride);
    const uint8_t *p = y < ph->height ? tp_image_row(ph, y) : NULL;
    for (int x = 0; x < ph->width; x++)
      q[x] = p ? (uint32_t)p[3 * x] << 16 | (uint32_t)p[3 * x + 1] << 8 | p[3 * x + 2]
               : 0x202020u;
  }
  cairo_surface_mark_dirty(surf);
  return surf;
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
  double fs = fmax(10, ph->width / 110.0);
  an__labels placed;
  an__labels_init(&placed, ph->width, ph->height);
  add_obstacles(s, r, &m, &placed);
  char *summary = an_report_summary(s, r);
  summary_block block;
  measure_summary(summary, fs, &block);
  free(summary);
  /* the summary goes where it covers nothing, or below the photo */
  an__box at;
  int band_h = 0;
  if (!an__place_block(&placed, block.w, block.h, &at)) {
    band_h = (int)ceil(block.h);
    at = (an__box){0, ph->height, block.w, ph->height + block.h};
  }
  cairo_surface_t *surf = photo_surface(ph, band_h);
  if (!surf) return tp_error_set(err, TP_ERR_NOMEM, "annotate: out of memory");
  cairo_t *cr = cairo_create(surf);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  outline_cards(cr, &m, &r->vis, fs);
  outline_carpets(cr, &m, &r->vis, fs);
  draw_summary(cr, &block, at, &placed);
  label_cards(cr, &m, &r->vis, &placed, fs);
  label_carpets(cr, &m, &r->vis, r, &placed, fs);
  label_overlaps(cr, &m, &r->vis, &placed, fs);
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
