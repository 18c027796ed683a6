/* calibration: printable marker sheets and the ChArUco board (cairo: PDF
 * in real millimetres, PNG at 300 dpi), written atomically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include "cal_internal.h"

#define PNG_DPI 300.0
#define MM_PER_INCH 25.4
#define PAGE_MARGIN_MM 12.0

void cal__release_text_caches(void) {
  cairo_debug_reset_static_data();
  FcFini();
}

void cal_sheet_default(cal_sheet *sheet) {
  memset(sheet, 0, sizeof *sheet);
  snprintf(sheet->dict, sizeof sheet->dict, "4X4_50");
  for (int i = 0; i < 4; i++) sheet->ids[i] = i;
  sheet->n_ids = 4;
  sheet->marker_mm = 40;
  sheet->paper = CAL_PAPER_A4;
  sheet->png_dpi = PNG_DPI;
}

static void paper_size(cal_paper paper, double *w, double *h) {
  *w = paper == CAL_PAPER_LETTER ? 215.9 : 210.0;
  *h = paper == CAL_PAPER_LETTER ? 279.4 : 297.0;
}

/* ---- output: a growing memory buffer, then one atomic write ---- */

typedef struct {
  unsigned char *data;
  size_t len, cap;
  bool failed;
} membuf;

static cairo_status_t membuf_write(void *closure, const unsigned char *data, unsigned int len) {
  membuf *b = closure;
  if (b->len + len > b->cap) {
    size_t cap = (b->len + len) * 2 + 4096;
    unsigned char *grown = realloc(b->data, cap);
    if (!grown) {
      b->failed = true;
      return CAIRO_STATUS_WRITE_ERROR;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return CAIRO_STATUS_SUCCESS;
}

typedef enum { OUT_PDF, OUT_PNG } out_kind;

static bool out_kind_of(const char *path, out_kind *kind) {
  const char *dot = strrchr(path, '.');
  if (dot && !strcasecmp(dot, ".pdf")) *kind = OUT_PDF;
  else if (dot && !strcasecmp(dot, ".png")) *kind = OUT_PNG;
  else return false;
  return true;
}

/* A page being drawn in millimetres, on a PDF or PNG surface. */
typedef struct {
  out_kind kind;
  cairo_surface_t *surface;
  cairo_t *cr;
  membuf buf;
  double page_w, page_h;
} page_doc;

static tp_status doc_open(page_doc *d, const char *path, cal_paper paper, double dpi,
                          tp_error *err) {
  memset(d, 0, sizeof *d);
  if (!out_kind_of(path, &d->kind))
    return tp_error_set(err, TP_ERR_INVALID, "%s: use a .pdf or .png file name", path);
  paper_size(paper, &d->page_w, &d->page_h);
  double scale;
  if (d->kind == OUT_PDF) {
    scale = 72.0 / MM_PER_INCH;
    d->surface = cairo_pdf_surface_create_for_stream(membuf_write, &d->buf, d->page_w * scale,
                                                     d->page_h * scale);
  } else {
    if (!(dpi >= 50 && dpi <= 1200))
      return tp_error_set(err, TP_ERR_INVALID, "%s: PNG resolution %g dpi is not in 50..1200",
                          path, dpi);
    scale = dpi / MM_PER_INCH;
    d->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(d->page_w * scale),
                                            (int)ceil(d->page_h * scale));
  }
  d->cr = cairo_create(d->surface);
  if (cairo_status(d->cr) != CAIRO_STATUS_SUCCESS)
    return tp_error_set(err, TP_ERR_NOMEM, "%s: cannot create the page", path);
  cairo_scale(d->cr, scale, scale);
  return TP_OK;
}

static void doc_clear_page(page_doc *d) {
  cairo_save(d->cr);
  cairo_set_source_rgb(d->cr, 1, 1, 1);
  cairo_paint(d->cr);
  cairo_restore(d->cr);
}

static tp_status doc_close(page_doc *d, const char *path, tp_error *err) {
  tp_status st = TP_OK;
  if (d->kind == OUT_PDF) {
    cairo_show_page(d->cr);
    cairo_destroy(d->cr);
    cairo_surface_finish(d->surface);
  } else {
    cairo_destroy(d->cr);
    cairo_surface_flush(d->surface);
    if (cairo_surface_write_to_png_stream(d->surface, membuf_write, &d->buf) !=
        CAIRO_STATUS_SUCCESS)
      st = tp_error_set(err, TP_ERR_IO, "%s: cannot encode PNG", path);
  }
  if (st == TP_OK && (d->buf.failed || cairo_surface_status(d->surface) != CAIRO_STATUS_SUCCESS))
    st = tp_error_set(err, TP_ERR_NOMEM, "%s: cannot render the page", path);
  cairo_surface_destroy(d->surface);
  if (st == TP_OK) st = tp_write_file_atomic(path, d->buf.data, d->buf.len, err);
  free(d->buf.data);
  cal__release_text_caches();
  return st;
}

/* ---- drawing helpers (all lengths in mm) ---- */

static void text_at(cairo_t *cr, double x, double y, double size, bool bold, const char *s) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, s);
}

/* One marker as vector cells: a black square, then all white cells as one
 * path (no hairline seams between neighbouring cells). */
static tp_status draw_marker(cairo_t *cr, const cvw_dict *dict, int id, double x, double y,
                             double side, tp_error *err) {
  int cells = cvw_dict_marker_bits(dict) + 2;
  uint8_t bits[16 * 16];
  tp_image img = {bits, cells, cells, cells, 1};
  if (cells > 16) return tp_error_set(err, TP_ERR_UNSUPPORTED, "marker too large to draw");
  tp_status st = cvw_marker_draw(dict, id, &img, err);
  if (st != TP_OK) return st;
  double cell = side / cells;
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, x, y, side, side);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  for (int r = 0; r < cells; r++)
    for (int c = 0; c < cells; c++)
      if (bits[r * cells + c]) cairo_rectangle(cr, x + c * cell, y + r * cell, cell, cell);
  cairo_fill(cr);
  return TP_OK;
}

/* A small filled arrow pointing up, its tip at (x, y). */
static void up_arrow(cairo_t *cr, double x, double y, double size) {
  cairo_move_to(cr, x, y);
  cairo_line_to(cr, x + size * 0.45, y + size * 0.5);
  cairo_line_to(cr, x + size * 0.15, y + size * 0.5);
  cairo_line_to(cr, x + size * 0.15, y + size);
  cairo_line_to(cr, x - size * 0.15, y + size);
  cairo_line_to(cr, x - size * 0.15, y + size * 0.5);
  cairo_line_to(cr, x - size * 0.45, y + size * 0.5);
  cairo_close_path(cr);
  cairo_fill(cr);
}

/* A ruler of `length` mm with 10 mm ticks and a label. */
static void ruler(cairo_t *cr, double x, double y, double length) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 0.3);
  cairo_move_to(cr, x, y);
  cairo_line_to(cr, x + length, y);
  for (double t = 0; t <= length + 1e-9; t += 10) {
    cairo_move_to(cr, x + t, y - 2);
    cairo_line_to(cr, x + t, y + 2);
  }
  cairo_move_to(cr, x + length, y - 3);
  cairo_line_to(cr, x + length, y + 3);
  cairo_stroke(cr);
  char label[160];
  snprintf(label, sizeof label,
           "This line must measure exactly %.0f mm. If not, print at 100%% (no \"fit to page\").",
           length);
  text_at(cr, x + length + 4, y + 1.2, 3.2, false, label);
}

static void cut_box(cairo_t *cr, double x, double y, double w, double h) {
  static const double dash[2] = {2.0, 1.5};
  cairo_save(cr);
  cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
  cairo_set_line_width(cr, 0.2);
  cairo_set_dash(cr, dash, 2, 0);
  cairo_rectangle(cr, x, y, w, h);
  cairo_stroke(cr);
  cairo_restore(cr);
}

static const char *frame_corner(const cal_sheet *s, int id) {
  static const char *names[4] = {"top-left", "top-right", "bottom-right", "bottom-left"};
  /* Only the default frame: ids 0..3 of the sheet are the four corners. */
  for (int i = 0; i < 4 && i < s->n_ids; i++)
    if (s->ids[i] == id && id == i) return names[i];
  return NULL;
}

static void sheet_header(cairo_t *cr, const cal_sheet *s, double x, double y) {
  char title[128];
  cairo_set_source_rgb(cr, 0, 0, 0);
  snprintf(title, sizeof title, "teppich calibration markers: %s, %.0f mm", s->dict,
           s->marker_mm);
  text_at(cr, x, y, 5, true, title);
  text_at(cr, x, y + 6, 3.2, false,
          "Cut along the dashed lines, keep the white border. Lay marker 0 at the top-left "
          "corner of the play area,");
  text_at(cr, x, y + 10.5, 3.2, false,
          "then 1, 2, 3 clockwise; arrows point away from you. Markers must lie flat.");
  ruler(cr, x, y + 17, s->marker_mm <= 120 ? s->marker_mm : 100);
}

/* One cell: quiet zone, marker, label band with the up arrow. */
static tp_status sheet_cell(cairo_t *cr, const cal_sheet *s, const cvw_dict *dict, int id,
                            double x, double y, double quiet, double band, tp_error *err) {
  double side = s->marker_mm;
  cut_box(cr, x, y, side + 2 * quiet, side + 2 * quiet + band);
  tp_status st = draw_marker(cr, dict, id, x + quiet, y + quiet, side, err);
  if (st != TP_OK) return st;
  double ly = y + 2 * quiet + side;
  cairo_set_source_rgb(cr, 0, 0, 0);
  up_arrow(cr, x + quiet + 3, ly - 1 + band * 0.1, band * 0.7);
  char label[16];
  snprintf(label, sizeof label, "%d", id);
  double size = fmin(band * 0.65, 6);
  text_at(cr, x + quiet + 8, ly + band * 0.62, size, true, label);
  const char *corner = frame_corner(s, id);
  if (corner) text_at(cr, x + quiet + 10 + size * 0.6 * (double)strlen(label), ly + band * 0.62,
                      3.2, false, corner);
  return TP_OK;
}

tp_status cal_sheet_write(const cal_sheet *s, const char *path, tp_error *err) {
  if (s->n_ids < 1 || s->n_ids > CAL_MAX_MARKERS)
    return tp_error_set(err, TP_ERR_INVALID, "sheet: give 1 to %d marker ids", CAL_MAX_MARKERS);
  if (!(s->marker_mm >= 5 && s->marker_mm <= 180))
    return tp_error_set(err, TP_ERR_INVALID,
                        "marker size %g mm does not fit a page (use 5..180)", s->marker_mm);
  cvw_dict *dict;
  tp_status st = cvw_dict_create(s->dict, &dict, err);
  if (st != TP_OK) return st;
  for (int i = 0; i < s->n_ids && st == TP_OK; i++)
    if (s->ids[i] < 0 || s->ids[i] >= cvw_dict_marker_count(dict))
      st = tp_error_set(err, TP_ERR_INVALID, "marker id %d is not in %s (0..%d)", s->ids[i],
                        s->dict, cvw_dict_marker_count(dict) - 1);
  page_doc d;
  if (st == TP_OK) st = doc_open(&d, path, s->paper, s->png_dpi, err);
  if (st != TP_OK) {
    cvw_dict_destroy(dict);
    return st;
  }
  /* Quiet zone: at least one marker cell, and room to cut. */
  double quiet = fmax(s->marker_mm / (cvw_dict_marker_bits(dict) + 2) * 1.5, 8);
  double band = 9, cell_w = s->marker_mm + 2 * quiet, cell_h = cell_w + band;
  double top = PAGE_MARGIN_MM + 26, usable_w = d.page_w - 2 * PAGE_MARGIN_MM;
  int per_row = (int)(usable_w / cell_w);
  int rows = (int)((d.page_h - top - PAGE_MARGIN_MM) / cell_h);
  if (per_row < 1 || rows < 1) per_row = rows = 1;
  int per_page = per_row * rows, pages = (s->n_ids + per_page - 1) / per_page;
  if (d.kind == OUT_PNG && pages > 1) {
    st = tp_error_set(err, TP_ERR_INVALID,
                      "%s: %d markers need %d pages; a PNG holds one, use a .pdf", path,
                      s->n_ids, pages);
  }
  for (int i = 0; st == TP_OK && i < s->n_ids; i++) {
    int on_page = i % per_page;
    if (on_page == 0) {
      if (i) cairo_show_page(d.cr);
      doc_clear_page(&d);
      sheet_header(d.cr, s, PAGE_MARGIN_MM, PAGE_MARGIN_MM + 4);
    }
    double x = PAGE_MARGIN_MM + (on_page % per_row) * cell_w;
    double y = top + (on_page / per_row) * cell_h;
    st = sheet_cell(d.cr, s, dict, s->ids[i], x, y, quiet, band, err);
  }
  cvw_dict_destroy(dict);
  if (st != TP_OK) {
    cairo_destroy(d.cr);
    cairo_surface_destroy(d.surface);
    free(d.buf.data);
    cal__release_text_caches();
    return st;
  }
  return doc_close(&d, path, err);
}

/* ---- the ChArUco board ---- */

tp_status cal_board_write(const cal_board *b, cal_paper paper, double png_dpi, const char *path,
                          tp_error *err) {
  cvw_dict *dict;
  cvw_charuco *board = NULL;
  tp_status st = cvw_dict_create(b->dict, &dict, err);
  if (st != TP_OK) return st;
  st = cvw_charuco_create(dict, b->squares_x, b->squares_y, b->square_mm, b->marker_mm, &board,
                          err);
  double w_mm = b->squares_x * b->square_mm, h_mm = b->squares_y * b->square_mm;
  page_doc d;
  double pw, ph;
  paper_size(paper, &pw, &ph);
  if (st == TP_OK && (w_mm > pw - 2 * PAGE_MARGIN_MM || h_mm > ph - 2 * PAGE_MARGIN_MM - 26))
    st = tp_error_set(err, TP_ERR_INVALID,
                      "board of %.0f x %.0f mm does not fit the page; use smaller squares",
                      w_mm, h_mm);
  /* Drawn by OpenCV at 10 pixels per mm and placed at exact size. */
  tp_image img = {0};
  if (st == TP_OK) st = tp_image_alloc(&img, (int)lround(w_mm * 10), (int)lround(h_mm * 10), 1);
  if (st == TP_OK) st = cvw_charuco_draw(board, &img, err);
  if (st == TP_OK) st = doc_open(&d, path, paper, png_dpi > 0 ? png_dpi : PNG_DPI, err);
  if (st == TP_OK) {
    doc_clear_page(&d);
    cairo_set_source_rgb(d.cr, 0, 0, 0);
    char title[160];
    snprintf(title, sizeof title, "teppich lens board: %s, %dx%d squares of %.1f mm, markers %.1f mm",
             b->dict, b->squares_x, b->squares_y, b->square_mm, b->marker_mm);
    text_at(d.cr, PAGE_MARGIN_MM, PAGE_MARGIN_MM + 4, 4.2, true, title);
    text_at(d.cr, PAGE_MARGIN_MM, PAGE_MARGIN_MM + 9.5, 3.2, false,
            "Tape it flat to a board. Take 10-20 photos with the table camera from different "
            "angles and distances.");
    ruler(d.cr, PAGE_MARGIN_MM, PAGE_MARGIN_MM + 16, b->square_mm * 2);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, img.width, img.height);
    unsigned char *px = cairo_image_surface_get_data(s);
    int sstride = cairo_image_surface_get_stride(s);
    cairo_surface_flush(s);
    for (int y = 0; y < img.height; y++)
      for (int x = 0; x < img.width; x++) {
        uint8_t v = tp_image_row(&img, y)[x];
        uint32_t rgb = (uint32_t)v << 16 | (uint32_t)v << 8 | v;
        memcpy(px + (size_t)y * sstride + 4 * x, &rgb, 4);
      }
    cairo_surface_mark_dirty(s);
    cairo_save(d.cr);
    cairo_translate(d.cr, PAGE_MARGIN_MM, PAGE_MARGIN_MM + 26);
    cairo_scale(d.cr, 0.1, 0.1);
    cairo_set_source_surface(d.cr, s, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(d.cr), CAIRO_FILTER_NEAREST);
    cairo_paint(d.cr);
    cairo_restore(d.cr);
    cairo_surface_destroy(s);
    st = doc_close(&d, path, err);
  }
  tp_image_free(&img);
  cvw_charuco_destroy(board);
  cvw_dict_destroy(dict);
  return st;
}
