/* calibration: the lens model from photos of a printed ChArUco board. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_internal.h"

enum { MIN_CORNERS = 6, MIN_VIEWS = 3 };

struct cal_lens_session {
  cal_board board;
  cvw_dict *dict;
  cvw_charuco *charuco;
  int width, height;
  size_t n_views;
  size_t *counts;
  double (*obj)[2], (*img)[2];
  size_t n_points, cap_points;
};

void cal_board_default(cal_board *b) {
  memset(b, 0, sizeof *b);
  snprintf(b->dict, sizeof b->dict, "5X5_100");
  b->squares_x = 7;
  b->squares_y = 5;
  b->square_mm = 25;
  b->marker_mm = 18;
}

tp_status cal_lens_session_create(const cal_board *board, cal_lens_session **out,
                                  tp_error *err) {
  *out = NULL;
  cal_lens_session *s = calloc(1, sizeof *s);
  if (!s) return tp_error_set(err, TP_ERR_NOMEM, "lens: out of memory");
  s->board = *board;
  tp_status st = cvw_dict_create(board->dict, &s->dict, err);
  if (st == TP_OK)
    st = cvw_charuco_create(s->dict, board->squares_x, board->squares_y, board->square_mm,
                            board->marker_mm, &s->charuco, err);
  if (st != TP_OK) {
    cal_lens_session_destroy(s);
    return st;
  }
  *out = s;
  return TP_OK;
}

void cal_lens_session_destroy(cal_lens_session *s) {
  if (!s) return;
  cvw_charuco_destroy(s->charuco);
  cvw_dict_destroy(s->dict);
  free(s->counts);
  free(s->obj);
  free(s->img);
  free(s);
}

static tp_status grow(cal_lens_session *s, size_t more, tp_error *err) {
  size_t *counts = realloc(s->counts, (s->n_views + 1) * sizeof *counts);
  if (counts) s->counts = counts;
  if (s->n_points + more > s->cap_points) {
    size_t cap = (s->n_points + more) * 2;
    double(*obj)[2] = realloc(s->obj, cap * sizeof *obj);
    if (obj) s->obj = obj;
    double(*img)[2] = realloc(s->img, cap * sizeof *img);
    if (img) s->img = img;
    if (!obj || !img) return tp_error_set(err, TP_ERR_NOMEM, "lens: out of memory");
    s->cap_points = cap;
  }
  return counts ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "lens: out of memory");
}

tp_status cal_lens_session_add(cal_lens_session *s, const tp_image *frame, const char *name,
                               int *corners, tp_error *err) {
  if (corners) *corners = 0;
  if (s->n_views && (frame->width != s->width || frame->height != s->height))
    return tp_error_set(err, TP_ERR_INVALID,
                        "%s: image is %dx%d but the first one was %dx%d; use one resolution",
                        name, frame->width, frame->height, s->width, s->height);
  int total = cvw_charuco_corner_count(s->charuco);
  int *ids = malloc((size_t)total * sizeof *ids);
  double(*px)[2] = malloc((size_t)total * sizeof *px);
  size_t found = 0;
  tp_status st = ids && px ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "lens: out of memory");
  if (st == TP_OK) st = cvw_charuco_detect(s->charuco, frame, ids, px, (size_t)total, &found, err);
  if (found > (size_t)total) found = (size_t)total;
  if (st == TP_OK && found >= MIN_CORNERS) st = grow(s, found, err);
  if (st == TP_OK && found >= MIN_CORNERS) {
    for (size_t i = 0; i < found; i++) {
      cvw_charuco_corner_position(s->charuco, ids[i], s->obj[s->n_points]);
      memcpy(s->img[s->n_points], px[i], sizeof px[i]);
      s->n_points++;
    }
    s->counts[s->n_views++] = found;
    s->width = frame->width;
    s->height = frame->height;
  }
  if (corners) *corners = (int)found;
  free(ids);
  free(px);
  return st;
}

tp_status cal_lens_session_solve(cal_lens_session *s, cal_lens *out, tp_error *err) {
  if (s->n_views < MIN_VIEWS)
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "the board was found in %zu photo%s; the lens model needs at least %d "
                        "(10 or more from different angles is better)",
                        s->n_views, s->n_views == 1 ? "" : "s", MIN_VIEWS);
  cvw_camera cam;
  tp_status st = cvw_calibrate_camera((const double(*)[2])s->obj, (const double(*)[2])s->img,
                                      s->counts, s->n_views, s->width, s->height, &cam, err);
  if (st != TP_OK) return st;
  memset(out, 0, sizeof *out);
  out->width = s->width;
  out->height = s->height;
  out->fx = cam.fx;
  out->fy = cam.fy;
  out->cx = cam.cx;
  out->cy = cam.cy;
  out->k1 = cam.k1;
  out->k2 = cam.k2;
  out->p1 = cam.p1;
  out->p2 = cam.p2;
  out->k3 = cam.k3;
  out->rms_px = cam.rms_px;
  out->images = (int)s->n_views;
  if (!(cam.fx > 0 && cam.fy > 0 && isfinite(cam.rms_px)))
    return tp_error_set(err, TP_ERR_NOTFOUND, "lens calibration failed; take sharper photos");
  return TP_OK;
}
