/* calibration: the marker detector, OpenCV's ArUco detector (vision/cvw) or
 * libapriltag (cal_apriltag.c), chosen per dictionary. */
#include <stdlib.h>
#include <string.h>

#include "cal_internal.h"

struct cal_detector {
  cal_backend backend; /* OPENCV or APRILTAG */
  bool fallback;       /* APRILTAG chosen by AUTO: OpenCV adds what it missed */
  cvw_detector *cv;    /* OPENCV, or the fallback */
  cal__april *april;
  cvw_marker *scratch; /* fallback's markers */
  size_t scratch_cap;
};

static const char *const kBackendNames[] = {"auto", "opencv", "apriltag"};

const char *cal_backend_name(cal_backend backend) {
  return backend >= CAL_BACKEND_AUTO && backend <= CAL_BACKEND_APRILTAG ? kBackendNames[backend]
                                                                         : "?";
}

bool cal_backend_parse(const char *text, cal_backend *backend) {
  for (int i = 0; text && i < 3; i++)
    if (!strcmp(text, kBackendNames[i])) {
      *backend = (cal_backend)i;
      return true;
    }
  return false;
}

void cal_detector_params_default(cal_detector_params *p) {
  memset(p, 0, sizeof *p);
  p->backend = CAL_BACKEND_AUTO;
  cvw_detector_params_default(&p->opencv);
  /* Measured (docs/calibration.md, marker_bench): full resolution finds
   * the small tags on small frames; libapriltag's edge snapping rescues
   * decimated quads; teppich's edge fit makes the corners as good as the
   * OpenCV path's. */
  p->april_decimate = 0;
  p->april_sigma = 0;
  p->april_refine_edges = true;
  p->april_teppich_edges = true;
  p->april_max_bits = -1;
}

void cal_detector_destroy(cal_detector *det) {
  if (!det) return;
  cvw_detector_destroy(det->cv);
  cal__april_destroy(det->april);
  free(det->scratch);
  free(det);
}

cal_backend cal_detector_backend(const cal_detector *det) {
  return det ? det->backend : CAL_BACKEND_OPENCV;
}

tp_status cal_detector_create(const cvw_dict *dict, const cal_detector_params *params,
                              cal_detector **out, tp_error *err) {
  *out = NULL;
  cal_detector_params p;
  if (params) p = *params;
  else cal_detector_params_default(&p);
  if (!dict) return tp_error_set(err, TP_ERR_INVALID, "marker detector: no dictionary");
  if (p.backend < CAL_BACKEND_AUTO || p.backend > CAL_BACKEND_APRILTAG)
    return tp_error_set(err, TP_ERR_INVALID, "marker detector: unknown backend %d", p.backend);
  cal_detector *d = calloc(1, sizeof *d);
  if (!d) return tp_error_set(err, TP_ERR_NOMEM, "marker detector: out of memory");
  bool april = p.backend == CAL_BACKEND_APRILTAG ||
               (p.backend == CAL_BACKEND_AUTO && cal__april_supports(dict));
  d->backend = april ? CAL_BACKEND_APRILTAG : CAL_BACKEND_OPENCV;
  d->fallback = april && p.backend == CAL_BACKEND_AUTO;
  tp_status st = TP_OK;
  if (april) st = cal__april_create(dict, &p, &d->april, err);
  if (st == TP_OK && (!april || d->fallback))
    st = cvw_detector_create(dict, &p.opencv, &d->cv, err);
  if (st != TP_OK) {
    cal_detector_destroy(d);
    return st;
  }
  *out = d;
  return TP_OK;
}

static int by_id_then_position(const void *pa, const void *pb) {
  const cvw_marker *a = pa, *b = pb;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  if (a->corners[0][1] != b->corners[0][1]) return a->corners[0][1] < b->corners[0][1] ? -1 : 1;
  if (a->corners[0][0] != b->corners[0][0]) return a->corners[0][0] < b->corners[0][0] ? -1 : 1;
  return 0;
}

/* All of libapriltag's markers into det->scratch (grown as needed). */
static tp_status detect_april(cal_detector *det, const tp_image *img, size_t *n, tp_error *err) {
  for (;;) {
    tp_status st = cal__april_detect(det->april, img, det->scratch, det->scratch_cap, n, err);
    if (st != TP_OK || *n <= det->scratch_cap) return st;
    cvw_marker *grown = realloc(det->scratch, *n * 2 * sizeof *grown);
    if (!grown) return tp_error_set(err, TP_ERR_NOMEM, "detect markers: out of memory");
    det->scratch = grown;
    det->scratch_cap = *n * 2;
  }
}

/* The fallback: OpenCV's markers whose id libapriltag did not report are
 * appended to det->scratch[0..*n). */
static tp_status add_opencv_misses(cal_detector *det, const tp_image *img, size_t *n,
                                   tp_error *err) {
  size_t n_cv = 0;
  tp_status st = cvw_detect_markers(det->cv, img, NULL, 0, &n_cv, err);
  if (st != TP_OK || !n_cv) return st;
  cvw_marker *cv = malloc(n_cv * sizeof *cv);
  if (!cv) return tp_error_set(err, TP_ERR_NOMEM, "detect markers: out of memory");
  st = cvw_detect_markers(det->cv, img, cv, n_cv, &n_cv, err);
  size_t need = *n + n_cv;
  if (st == TP_OK && need > det->scratch_cap) {
    cvw_marker *grown = realloc(det->scratch, need * sizeof *grown);
    if (grown) {
      det->scratch = grown;
      det->scratch_cap = need;
    } else {
      st = tp_error_set(err, TP_ERR_NOMEM, "detect markers: out of memory");
    }
  }
  size_t had = *n;
  for (size_t i = 0; st == TP_OK && i < n_cv; i++) {
    bool known = false;
    for (size_t k = 0; k < had; k++) known |= det->scratch[k].id == cv[i].id;
    if (!known) det->scratch[(*n)++] = cv[i];
  }
  free(cv);
  return st;
}

tp_status cal_detect_markers(cal_detector *det, const tp_image *img, cvw_marker *out, size_t cap,
                             size_t *found, tp_error *err) {
  if (found) *found = 0;
  if (!det || !found || (cap && !out) || !img || !img->data || img->width <= 0 ||
      img->height <= 0)
    return tp_error_set(err, TP_ERR_INVALID, "detect markers: no image");
  if (det->backend == CAL_BACKEND_OPENCV)
    return cvw_detect_markers(det->cv, img, out, cap, found, err);
  size_t n = 0;
  tp_status st = detect_april(det, img, &n, err);
  if (st == TP_OK && det->fallback) st = add_opencv_misses(det, img, &n, err);
  if (st != TP_OK) return st;
  if (n > 1) qsort(det->scratch, n, sizeof *det->scratch, by_id_then_position);
  if (n && cap) memcpy(out, det->scratch, (cap < n ? cap : n) * sizeof *out);
  *found = n;
  return TP_OK;
}
