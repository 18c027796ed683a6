/* calibration: the calibration file (JSON, documented in
 * docs/calibration.md). Everything read is checked: type, range, finite,
 * and the homography must be invertible; any problem is one line that
 * names the file and the field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cal_internal.h"

#define CAL_FORMAT_NAME "teppich-calibration"
/* A calibration file is small; anything bigger is not one. */
#define CAL_FILE_MAX_BYTES (1024 * 1024)

static const char *const warning_names[] = {"marker_missing", "oblique", "far",
                                            "residual", "counter_clockwise", "small_area"};
enum { N_WARNINGS = sizeof warning_names / sizeof warning_names[0] };

/* ---- writing ---- */

static double round_to(double v, double step) { return round(v / step) * step; }

static cJSON *number_array(const double *v, int n, double step) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(step > 0 ? round_to(v[i], step) : v[i]));
  return a;
}

static cJSON *point_array(const double (*p)[2], int n, double step) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, number_array(p[i], 2, step));
  return a;
}

static cJSON *lens_json(const cal_lens *l) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "model", "opencv-radtan5");
  double size[2] = {l->width, l->height};
  cJSON_AddItemToObject(o, "image_size", number_array(size, 2, 0));
  cJSON_AddNumberToObject(o, "fx", l->fx);
  cJSON_AddNumberToObject(o, "fy", l->fy);
  cJSON_AddNumberToObject(o, "cx", l->cx);
  cJSON_AddNumberToObject(o, "cy", l->cy);
  double d[5] = {l->k1, l->k2, l->p1, l->p2, l->k3};
  cJSON_AddItemToObject(o, "distortion", number_array(d, 5, 0));
  cJSON_AddNumberToObject(o, "rms_px", round_to(l->rms_px, 1e-4));
  cJSON_AddNumberToObject(o, "images", l->images);
  return o;
}

static cJSON *quality_json(const cal_quality *q) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "frames", q->frames);
  cJSON_AddNumberToObject(o, "markers", q->markers);
  cJSON_AddNumberToObject(o, "rms_px", round_to(q->rms_px, 1e-4));
  cJSON_AddNumberToObject(o, "max_px", round_to(q->max_px, 1e-4));
  cJSON_AddNumberToObject(o, "accuracy_mm", round_to(q->accuracy_mm, 1e-3));
  cJSON_AddNumberToObject(o, "mm_per_px", round_to(q->mm_per_px, 1e-4));
  cJSON_AddNumberToObject(o, "min_marker_px", round_to(q->min_marker_px, 0.1));
  cJSON_AddNumberToObject(o, "tilt_deg", round_to(q->tilt_deg, 0.1));
  cJSON_AddItemToObject(o, "area_mm", number_array(q->area_mm, 2, 0.1));
  cJSON_AddNumberToObject(o, "image_fraction", round_to(q->image_fraction, 1e-3));
  cJSON *w = cJSON_AddArrayToObject(o, "warnings");
  for (int i = 0; i < N_WARNINGS; i++)
    if (q->warnings & (1u << i)) cJSON_AddItemToArray(w, cJSON_CreateString(warning_names[i]));
  return o;
}

static cJSON *table_json(const cal_calib *c) {
  cJSON *t = cJSON_CreateObject();
  cJSON_AddStringToObject(t, "dictionary", c->dict);
  cJSON_AddNumberToObject(t, "marker_mm", c->marker_mm);
  double ids[4];
  for (int i = 0; i < 4; i++) ids[i] = c->frame_ids[i];
  cJSON_AddItemToObject(t, "frame_ids", number_array(ids, 4, 0));
  cJSON *h = cJSON_AddArrayToObject(t, "homography_table_to_image");
  for (int r = 0; r < 3; r++) cJSON_AddItemToArray(h, number_array(c->h + 3 * r, 3, 0));
  cJSON *ms = cJSON_AddArrayToObject(t, "markers");
  for (size_t k = 0; k < c->n_markers; k++) {
    const cal_marker_pose *m = &c->markers[k];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", m->id);
    cJSON_AddItemToObject(o, "center_mm", number_array(m->center_mm, 2, 1e-3));
    cJSON_AddNumberToObject(o, "angle_deg", round_to(m->angle_deg, 1e-3));
    cJSON_AddItemToObject(o, "corners_mm", point_array(m->corners_mm, 4, 1e-3));
    cJSON_AddNumberToObject(o, "residual_px", round_to(m->residual_px, 1e-4));
    cJSON_AddNumberToObject(o, "observations", m->observations);
    cJSON_AddItemToArray(ms, o);
  }
  cJSON_AddItemToObject(t, "quality", quality_json(&c->q));
  return t;
}

tp_status cal_calib_to_json(const cal_calib *c, char **out, tp_error *err) {
  *out = NULL;
  cJSON *root = cJSON_CreateObject();
  if (!root) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  cJSON_AddStringToObject(root, "format", CAL_FORMAT_NAME);
  cJSON_AddNumberToObject(root, "version", CAL_FILE_VERSION);
  double size[2] = {c->width, c->height};
  cJSON_AddItemToObject(root, "image_size", number_array(size, 2, 0));
  if (c->has_table) cJSON_AddItemToObject(root, "table", table_json(c));
  if (c->has_lens) cJSON_AddItemToObject(root, "lens", lens_json(&c->lens));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  size_t len = strlen(text);
  char *withnl = realloc(text, len + 2);
  if (!withnl) {
    free(text);
    return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  }
  memcpy(withnl + len, "\n", 2);
  *out = withnl;
  return TP_OK;
}

tp_status cal_calib_save(const cal_calib *c, const char *path, tp_error *err) {
  char *text;
  tp_status st = cal_calib_to_json(c, &text, err);
  if (st != TP_OK) return st;
  st = tp_write_file_atomic(path, text, strlen(text), err);
  free(text);
  return st;
}

tp_status cal_calib_from_lens(const cal_lens *lens, cal_calib **out, tp_error *err) {
  cal_calib *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return tp_error_set(err, TP_ERR_NOMEM, "calibration: out of memory");
  c->has_lens = true;
  c->lens = *lens;
  c->width = lens->width;
  c->height = lens->height;
  *out = c;
  return TP_OK;
}

/* ---- reading ---- */

typedef struct {
  const char *file;
  tp_error *err;
} reader;

static tp_status bad(const reader *rd, const char *field, const char *what) {
  return tp_error_set(rd->err, TP_ERR_FORMAT, "%s: '%s' %s", rd->file, field, what);
}

static tp_status get_number(const reader *rd, const cJSON *obj, const char *key,
                            const char *field, double lo, double hi, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(v)) return bad(rd, field, "is missing or not a number");
  double d = v->valuedouble;
  if (!isfinite(d) || d < lo || d > hi) return bad(rd, field, "is out of range");
  *out = d;
  return TP_OK;
}

static tp_status get_int(const reader *rd, const cJSON *obj, const char *key,
                         const char *field, int lo, int hi, int *out) {
  double d = 0; /* -O3 cannot see that an error status leaves it unset */
  tp_status st = get_number(rd, obj, key, field, lo, hi, &d);
  if (st != TP_OK) return st;
  if (d != floor(d)) return bad(rd, field, "is not a whole number");
  *out = (int)d;
  return TP_OK;
}

/* Reads exactly n numbers in [lo, hi] from array item v. */
static tp_status numbers(const reader *rd, const cJSON *v, const char *field, int n,
                         double lo, double hi, double *out) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
    char what[64];
    snprintf(what, sizeof what, "must be an array of %d numbers", n);
    return bad(rd, field, what);
  }
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, v) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < lo ||
        e->valuedouble > hi)
      return bad(rd, field, "holds a value that is not a number in range");
    out[i++] = e->valuedouble;
  }
  return TP_OK;
}

static tp_status get_numbers(const reader *rd, const cJSON *obj, const char *key,
                             const char *field, int n, double lo, double hi, double *out) {
  return numbers(rd, cJSON_GetObjectItemCaseSensitive(obj, key), field, n, lo, hi, out);
}

enum { BIG = 1000000 }; /* generous bound for mm and px values */

static tp_status read_lens(const reader *rd, const cJSON *o, cal_lens *l) {
  if (!cJSON_IsObject(o)) return bad(rd, "lens", "must be an object");
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(o, "model");
  if (!cJSON_IsString(model) || strcmp(model->valuestring, "opencv-radtan5"))
    return bad(rd, "lens.model", "must be \"opencv-radtan5\"");
  double size[2], d[5];
  tp_status st = get_numbers(rd, o, "image_size", "lens.image_size", 2, 1, 100000, size);
  if (st == TP_OK) st = get_number(rd, o, "fx", "lens.fx", 1e-3, BIG, &l->fx);
  if (st == TP_OK) st = get_number(rd, o, "fy", "lens.fy", 1e-3, BIG, &l->fy);
  if (st == TP_OK) st = get_number(rd, o, "cx", "lens.cx", -BIG, BIG, &l->cx);
  if (st == TP_OK) st = get_number(rd, o, "cy", "lens.cy", -BIG, BIG, &l->cy);
  if (st == TP_OK) st = get_numbers(rd, o, "distortion", "lens.distortion", 5, -1000, 1000, d);
  if (st != TP_OK) return st;
  l->width = (int)size[0];
  l->height = (int)size[1];
  l->k1 = d[0];
  l->k2 = d[1];
  l->p1 = d[2];
  l->p2 = d[3];
  l->k3 = d[4];
  /* Informational; absent is fine. */
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "rms_px");
  l->rms_px = cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : 0;
  v = cJSON_GetObjectItemCaseSensitive(o, "images");
  l->images = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e6
                  ? (int)v->valuedouble : 0;
  return TP_OK;
}

static tp_status read_marker(const reader *rd, const cJSON *o, cal_marker_pose *m) {
  if (!cJSON_IsObject(o)) return bad(rd, "table.markers", "must hold objects");
  tp_status st = get_int(rd, o, "id", "table.markers[].id", 0, 100000, &m->id);
  if (st == TP_OK)
    st = get_numbers(rd, o, "center_mm", "table.markers[].center_mm", 2, -BIG, BIG, m->center_mm);
  if (st == TP_OK)
    st = get_number(rd, o, "angle_deg", "table.markers[].angle_deg", -360, 360, &m->angle_deg);
  const cJSON *corners = cJSON_GetObjectItemCaseSensitive(o, "corners_mm");
  if (st == TP_OK && (!cJSON_IsArray(corners) || cJSON_GetArraySize(corners) != 4))
    st = bad(rd, "table.markers[].corners_mm", "must hold 4 points");
  for (int i = 0; st == TP_OK && i < 4; i++)
    st = numbers(rd, cJSON_GetArrayItem(corners, i), "table.markers[].corners_mm", 2, -BIG,
                 BIG, m->corners_mm[i]);
  if (st != TP_OK) return st;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "residual_px");
  m->residual_px = cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : 0;
  v = cJSON_GetObjectItemCaseSensitive(o, "observations");
  m->observations = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e6
                        ? (int)v->valuedouble : 0;
  return TP_OK;
}

/* Quality figures are informational: read what is well-formed. */
static void read_quality(const cJSON *o, cal_quality *q) {
  struct { const char *key; double *dst; } fields[] = {
      {"rms_px", &q->rms_px},         {"max_px", &q->max_px},
      {"accuracy_mm", &q->accuracy_mm}, {"mm_per_px", &q->mm_per_px},
      {"min_marker_px", &q->min_marker_px}, {"tilt_deg", &q->tilt_deg},
      {"image_fraction", &q->image_fraction}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, fields[i].key);
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) *fields[i].dst = v->valuedouble;
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "frames");
  if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e6) q->frames = (int)v->valuedouble;
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "warnings"), *e;
  cJSON_ArrayForEach(e, w) {
    for (int i = 0; cJSON_IsString(e) && i < N_WARNINGS; i++)
      if (!strcmp(e->valuestring, warning_names[i])) q->warnings |= 1u << i;
  }
  q->missing_ids[0] = -1;
}

static tp_status read_table(const reader *rd, const cJSON *t, cal_calib *c) {
  if (!cJSON_IsObject(t)) return bad(rd, "table", "must be an object");
  const cJSON *dict = cJSON_GetObjectItemCaseSensitive(t, "dictionary");
  cvw_dict *d = NULL;
  if (!cJSON_IsString(dict) || strlen(dict->valuestring) >= sizeof c->dict ||
      cvw_dict_create(dict->valuestring, &d, NULL) != TP_OK)
    return bad(rd, "table.dictionary", "is not a marker dictionary name");
  snprintf(c->dict, sizeof c->dict, "%s", cvw_dict_name(d));
  cvw_dict_destroy(d);
  double ids[4], h[9];
  tp_status st = get_number(rd, t, "marker_mm", "table.marker_mm", 5, 1000, &c->marker_mm);
  if (st == TP_OK) st = get_numbers(rd, t, "frame_ids", "table.frame_ids", 4, 0, 100000, ids);
  const cJSON *hj = cJSON_GetObjectItemCaseSensitive(t, "homography_table_to_image");
  if (st == TP_OK && (!cJSON_IsArray(hj) || cJSON_GetArraySize(hj) != 3))
    st = bad(rd, "table.homography_table_to_image", "must be 3 rows of 3 numbers");
  for (int r = 0; st == TP_OK && r < 3; r++)
    st = numbers(rd, cJSON_GetArrayItem(hj, r), "table.homography_table_to_image", 3, -1e12,
                 1e12, h + 3 * r);
  if (st != TP_OK) return st;
  for (int i = 0; i < 4; i++) c->frame_ids[i] = (int)ids[i];
  if (!(h[8] > 0)) return bad(rd, "table.homography_table_to_image", "must have h33 > 0");
  for (int i = 0; i < 9; i++) c->h[i] = h[i] / h[8];
  if (!cal__mat3_inv(c->h, c->hinv))
    return bad(rd, "table.homography_table_to_image", "is not invertible");
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(t, "markers"), *e;
  if (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) > CAL_MAX_MARKERS)
    return bad(rd, "table.markers", "must be an array of at most 64 markers");
  cJSON_ArrayForEach(e, ms) {
    st = read_marker(rd, e, &c->markers[c->n_markers]);
    if (st != TP_OK) return st;
    c->n_markers++;
  }
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(t, "quality");
  if (cJSON_IsObject(q)) read_quality(q, &c->q);
  c->q.markers = (int)c->n_markers;
  c->has_table = true;
  return TP_OK;
}

static tp_status read_root(const reader *rd, const cJSON *root, cal_calib *c) {
  if (!cJSON_IsObject(root)) return bad(rd, "(top level)", "must be a JSON object");
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, CAL_FORMAT_NAME))
    return bad(rd, "format", "must be \"" CAL_FORMAT_NAME "\" (is this a calibration file?)");
  int version = 0;
  tp_status st = get_int(rd, root, "version", "version", 1, 1000000, &version);
  if (st != TP_OK) return st;
  if (version > CAL_FILE_VERSION)
    return tp_error_set(rd->err, TP_ERR_FORMAT,
                        "%s: calibration file version %d is newer than this teppich reads "
                        "(%d); update teppich",
                        rd->file, version, CAL_FILE_VERSION);
  double size[2];
  st = get_numbers(rd, root, "image_size", "image_size", 2, 1, 100000, size);
  if (st != TP_OK) return st;
  c->width = (int)size[0];
  c->height = (int)size[1];
  const cJSON *table = cJSON_GetObjectItemCaseSensitive(root, "table");
  const cJSON *lens = cJSON_GetObjectItemCaseSensitive(root, "lens");
  if (!table && !lens) return bad(rd, "table", "is missing (and there is no lens either)");
  if (table && (st = read_table(rd, table, c)) != TP_OK) return st;
  if (lens && !cJSON_IsNull(lens)) {
    if ((st = read_lens(rd, lens, &c->lens)) != TP_OK) return st;
    c->has_lens = true;
  }
  return TP_OK;
}

tp_status cal_calib_parse(const char *text, size_t len, const char *name, cal_calib **out,
                          tp_error *err) {
  *out = NULL;
  if (!name) name = "calibration";
  reader rd = {name, err};
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root)
    return tp_error_set(err, TP_ERR_FORMAT, "%s: not valid JSON (a calibration file from "
                        "`teppich calibrate` is expected)", name);
  cal_calib *c = calloc(1, sizeof *c);
  tp_status st = c ? read_root(&rd, root, c)
                   : tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", name);
  cJSON_Delete(root);
  if (st != TP_OK) {
    free(c);
    return st;
  }
  *out = c;
  return TP_OK;
}

tp_status cal_calib_load(const char *path, cal_calib **out, tp_error *err) {
  char *text;
  size_t len;
  *out = NULL;
  tp_status st = tp_read_file(path, CAL_FILE_MAX_BYTES, &text, &len, err);
  if (st != TP_OK) return st;
  st = cal_calib_parse(text, len, path, out, err);
  free(text);
  return st;
}
