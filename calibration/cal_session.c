/* calibration: collecting markers from frames and solving the frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal_internal.h"

struct cal_session {
  cal_options opt;
  cvw_dict *dict;
  cal_detector *detector;
  int width, height;
  int frames;
  cal__obs *obs;
  size_t n_obs, cap_obs;
  /* When no frame has shown a marker yet: markers of another dictionary
   * seen instead, to tell the player which --dict to use. */
  char other_dict[32];
  int other_count;
  int frames_probed;
  /* Markers of the dictionary seen but not used (not frame ids). */
  int ignored_ids[8];
  int n_ignored;
};

void cal_options_default(cal_options *opt) {
  memset(opt, 0, sizeof *opt);
  snprintf(opt->dict, sizeof opt->dict, "4X4_50");
  opt->marker_mm = 40;
  for (int i = 0; i < 4; i++) opt->frame_ids[i] = i;
  opt->use_other_markers = false;
  opt->radial_terms = 2;
  opt->backend = CAL_BACKEND_AUTO;
}

static bool lens_valid(const cal_lens *l) {
  double v[] = {l->fx, l->fy, l->cx, l->cy, l->k1, l->k2, l->p1, l->p2, l->k3};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i])) return false;
  return l->width > 0 && l->height > 0 && l->fx > 0 && l->fy > 0;
}

tp_status cal_options_check(const cal_options *opt, tp_error *err) {
  cvw_dict *d;
  tp_status st = cvw_dict_create(opt->dict, &d, err);
  if (st != TP_OK) return st;
  int count = cvw_dict_marker_count(d);
  cvw_dict_destroy(d);
  if (!(opt->marker_mm >= 5 && opt->marker_mm <= 1000))
    return tp_error_set(err, TP_ERR_INVALID,
                        "marker size %g mm is not in 5..1000 (the side of the black square)",
                        opt->marker_mm);
  for (int i = 0; i < 4; i++) {
    if (opt->frame_ids[i] < 0 || opt->frame_ids[i] >= count)
      return tp_error_set(err, TP_ERR_INVALID, "marker id %d is not in %s (0..%d)",
                          opt->frame_ids[i], opt->dict, count - 1);
    for (int j = 0; j < i; j++)
      if (opt->frame_ids[i] == opt->frame_ids[j])
        return tp_error_set(err, TP_ERR_INVALID, "marker id %d is listed twice",
                            opt->frame_ids[i]);
  }
  if (opt->backend < CAL_BACKEND_AUTO || opt->backend > CAL_BACKEND_APRILTAG)
    return tp_error_set(err, TP_ERR_INVALID, "marker detector backend %d is unknown",
                        (int)opt->backend);
  if (opt->radial_terms < 0 || opt->radial_terms > 2)
    return tp_error_set(err, TP_ERR_INVALID, "radial terms %d is not 0, 1 or 2",
                        opt->radial_terms);
  if (opt->has_lens && !lens_valid(&opt->lens))
    return tp_error_set(err, TP_ERR_INVALID, "lens model is invalid");
  return TP_OK;
}

tp_status cal_session_create(const cal_options *opt, cal_session **out, tp_error *err) {
  *out = NULL;
  tp_status st = cal_options_check(opt, err);
  if (st != TP_OK) return st;
  cal_session *s = calloc(1, sizeof *s);
  if (!s) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  s->opt = *opt;
  st = cvw_dict_create(opt->dict, &s->dict, err);
  cal_detector_params dp;
  cal_detector_params_default(&dp);
  dp.backend = opt->backend;
  if (!opt->use_other_markers) { /* only the frame markers count (wanted) */
    memcpy(dp.opencv.needed_ids, opt->frame_ids, sizeof dp.opencv.needed_ids);
    dp.opencv.n_needed = 4;
  }
  if (st == TP_OK) st = cal_detector_create(s->dict, &dp, &s->detector, err);
  if (st != TP_OK) {
    cal_session_destroy(s);
    return st;
  }
  *out = s;
  return TP_OK;
}

void cal_session_destroy(cal_session *s) {
  if (!s) return;
  cal_detector_destroy(s->detector);
  cvw_dict_destroy(s->dict);
  free(s->obs);
  free(s);
}

static bool wanted(const cal_session *s, int id) {
  if (s->opt.use_other_markers) return true;
  for (int i = 0; i < 4; i++)
    if (s->opt.frame_ids[i] == id) return true;
  return false;
}

/* The lens model at this frame size: scaled if it was fitted at another
 * resolution of the same aspect ratio (the sensor mode changes scale). */
static tp_status lens_for_size(const cal_lens *l, int w, int h, cal_lens *out, tp_error *err) {
  *out = *l;
  if (l->width == w && l->height == h) return TP_OK;
  double sx = (double)w / l->width, sy = (double)h / l->height;
  if (fabs(sx - sy) > 0.01 * sx)
    return tp_error_set(err, TP_ERR_INVALID,
                        "the lens model is for %dx%d images, this one is %dx%d; calibrate "
                        "the lens at this resolution",
                        l->width, l->height, w, h);
  out->fx *= sx;
  out->cx = (l->cx + 0.5) * sx - 0.5;
  out->fy *= sy;
  out->cy = (l->cy + 0.5) * sy - 0.5;
  out->width = w;
  out->height = h;
  return TP_OK;
}

static void note_ignored(cal_session *s, int id) {
  for (int k = 0; k < s->n_ignored; k++)
    if (s->ignored_ids[k] == id) return;
  if (s->n_ignored < 8) s->ignored_ids[s->n_ignored++] = id;
}

tp_status cal_session_add_markers(cal_session *s, const cvw_marker *m, size_t n, int width,
                                  int height, const char *name, tp_error *err) {
  if (!name) name = "frame";
  if (s->frames && (width != s->width || height != s->height))
    return tp_error_set(err, TP_ERR_INVALID,
                        "%s: image is %dx%d but the first one was %dx%d; use one camera "
                        "resolution",
                        name, width, height, s->width, s->height);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (m[i].id == m[j].id && wanted(s, m[i].id))
        return tp_error_set(err, TP_ERR_INVALID,
                            "%s: marker %d appears twice; remove the duplicate from the table",
                            name, m[i].id);
  cal_lens lens;
  if (s->opt.has_lens) {
    tp_status st = lens_for_size(&s->opt.lens, width, height, &lens, err);
    if (st != TP_OK) return st;
  }
  if (s->n_obs + n > s->cap_obs) {
    size_t cap = (s->n_obs + n) * 2 + 16;
    cal__obs *grown = realloc(s->obs, cap * sizeof *grown);
    if (!grown) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
    s->obs = grown;
    s->cap_obs = cap;
  }
  for (size_t i = 0; i < n; i++) {
    if (!wanted(s, m[i].id)) {
      note_ignored(s, m[i].id);
      continue;
    }
    cal__obs *o = &s->obs[s->n_obs++];
    o->id = m[i].id;
    o->frame = s->frames;
    for (int c = 0; c < 4; c++) {
      if (s->opt.has_lens) cal_lens_undistort(&lens, m[i].corners[c], o->corners[c]);
      else memcpy(o->corners[c], m[i].corners[c], sizeof o->corners[c]);
    }
  }
  s->width = width;
  s->height = height;
  s->frames++;
  return TP_OK;
}

/* Looks for markers of every other dictionary (only while no frame has
 * shown any marker, and only in the first frames: it is slow). */
static void probe_other_dicts(cal_session *s, const tp_image *frame) {
  if (s->n_obs || s->other_count || s->frames_probed >= 2) return;
  s->frames_probed++;
  for (int i = 0; cvw_dict_name_at(i); i++) {
    const char *name = cvw_dict_name_at(i);
    if (!strcmp(name, s->opt.dict)) continue;
    cvw_dict *d = NULL;
    cvw_detector *det = NULL;
    size_t found = 0;
    if (cvw_dict_create(name, &d, NULL) == TP_OK &&
        cvw_detector_create(d, NULL, &det, NULL) == TP_OK &&
        cvw_detect_markers(det, frame, NULL, 0, &found, NULL) == TP_OK &&
        (int)found > s->other_count) {
      s->other_count = (int)found;
      snprintf(s->other_dict, sizeof s->other_dict, "%s", name);
    }
    cvw_detector_destroy(det);
    cvw_dict_destroy(d);
  }
}

tp_status cal_session_add_frame(cal_session *s, const tp_image *frame, const char *name,
                                size_t *seen, tp_error *err) {
  cvw_marker m[CAL_MAX_MARKERS];
  size_t found = 0;
  if (seen) *seen = 0;
  tp_status st = cal_detect_markers(s->detector, frame, m, CAL_MAX_MARKERS, &found, err);
  if (st != TP_OK) return st;
  if (found > CAL_MAX_MARKERS) found = CAL_MAX_MARKERS;
  if (seen) *seen = found;
  if (!found) probe_other_dicts(s, frame);
  return cal_session_add_markers(s, m, found, frame->width, frame->height, name, err);
}

size_t cal_session_markers(const cal_session *s, cvw_marker *out, size_t cap) {
  for (size_t i = 0; i < s->n_obs && i < cap; i++) {
    out[i].id = s->obs[i].id;
    memcpy(out[i].corners, s->obs[i].corners, sizeof out[i].corners);
  }
  return s->n_obs;
}

static const cvw_marker *marker_of(const cvw_marker *m, size_t n, int id) {
  for (size_t i = 0; i < n; i++)
    if (m[i].id == id) return &m[i];
  return NULL;
}

static bool corners_within(const cvw_marker *a, const cvw_marker *b, double tol_px) {
  for (int k = 0; k < 4; k++)
    if (hypot(a->corners[k][0] - b->corners[k][0], a->corners[k][1] - b->corners[k][1]) >
        tol_px)
      return false;
  return true;
}

bool cal_markers_in_place(const cvw_marker *a, size_t na, const cvw_marker *b, size_t nb,
                          double tol_px) {
  int in_place = 0, moved = 0;
  for (size_t i = 0; i < na; i++) {
    const cvw_marker *other = marker_of(b, nb, a[i].id);
    if (other) corners_within(&a[i], other, tol_px) ? in_place++ : moved++;
  }
  return in_place >= 2 && in_place > moved;
}

static bool seen_id(const cal_session *s, int id) {
  for (size_t i = 0; i < s->n_obs; i++)
    if (s->obs[i].id == id) return true;
  return false;
}

static tp_status check_solvable(const cal_session *s, tp_error *err) {
  const int *ids = s->opt.frame_ids;
  if (!s->frames)
    return tp_error_set(err, TP_ERR_NOTFOUND, "calibration: no image given");
  if (!s->n_obs && s->other_count)
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "no %s markers found, but %d marker%s of %s: use --dict %s",
                        s->opt.dict, s->other_count, s->other_count > 1 ? "s" : "",
                        s->other_dict, s->other_dict);
  if (!s->n_obs && s->n_ignored) {
    char list[64] = "";
    for (int k = 0; k < s->n_ignored; k++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%d", k ? " " : "", s->ignored_ids[k]);
    }
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "found %s markers %s but none of the frame markers %d %d %d %d; lay "
                        "those out or pick others with --ids",
                        s->opt.dict, list, ids[0], ids[1], ids[2], ids[3]);
  }
  if (!s->n_obs)
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "no %s markers found in %d image%s: print them with `teppich markers "
                        "sheet` and lay them flat at the corners of the play area",
                        s->opt.dict, s->frames, s->frames > 1 ? "s" : "");
  for (int i = 0; i < 2; i++)
    if (!seen_id(s, ids[i]))
      return tp_error_set(err, TP_ERR_NOTFOUND,
                          "marker %d (the %s corner) not seen; the table frame needs markers "
                          "%d and %d fully visible",
                          ids[i], i ? "top-right" : "top-left", ids[0], ids[1]);
  return TP_OK;
}

tp_status cal_session_solve(cal_session *s, cal_calib **out, tp_error *err) {
  *out = NULL;
  tp_status st = check_solvable(s, err);
  if (st != TP_OK) return st;
  cal_calib *c = calloc(1, sizeof *c);
  if (!c) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  st = cal__fit(&s->opt, s->obs, s->n_obs, s->frames, s->width, s->height, c, err);
  if (st != TP_OK) {
    free(c);
    return st;
  }
  if (s->opt.has_lens) {
    c->has_lens = true;
    lens_for_size(&s->opt.lens, s->width, s->height, &c->lens, NULL);
  }
  cal__assess(c, s->obs, s->n_obs);
  *out = c;
  return TP_OK;
}

bool cal_parse_ids(const char *text, int *ids, int *n, int max) {
  *n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    if (*p < '0' || *p > '9') return false;
    long lo = strtol(p, &end, 10), hi = lo;
    if (*end == '-') {
      p = end + 1;
      if (*p < '0' || *p > '9') return false;
      hi = strtol(p, &end, 10);
    }
    if (lo > 99999 || hi > 99999 || hi < lo || (*end && *end != ',')) return false;
    for (long id = lo; id <= hi; id++) {
      if (*n >= max) return false;
      for (int k = 0; k < *n; k++)
        if (ids[k] == id) return false;
      ids[(*n)++] = (int)id;
    }
    p = *end ? end + 1 : end;
    if (*end == ',' && !*p) return false;
  }
  return *n > 0;
}
