/* calibration: AprilTag markers found by Debian's libapriltag (AprilTag 3,
 * plain C), reported exactly as OpenCV's ArUco path reports them (ids of
 * OpenCV's DICT_APRILTAG_* dictionaries, corners TL TR BR BL of the printed
 * marker, (0,0) the centre of the top-left pixel). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>

#include "cal_internal.h"

typedef struct {
  const char *dict; /* OpenCV's name (cvw_dict_name) */
  apriltag_family_t *(*create)(void);
  void (*destroy)(apriltag_family_t *);
  int opencv_bits; /* bits OpenCV corrects: (hamming - 1) / 2 * 0.6 */
} family_entry;

static const family_entry kFamilies[] = {
    {"APRILTAG_16h5", tag16h5_create, tag16h5_destroy, 1},
    {"APRILTAG_25h9", tag25h9_create, tag25h9_destroy, 2},
    {"APRILTAG_36h10", tag36h10_create, tag36h10_destroy, 2},
    {"APRILTAG_36h11", tag36h11_create, tag36h11_destroy, 2},
};

struct cal__april {
  const family_entry *family;
  apriltag_family_t *fam;
  apriltag_detector_t *td;
  int cells; /* black square side in cells: bits + 2 */
  bool teppich_edges;
  bool refine_edges; /* libapriltag's, when decimating */
  double decimate; /* 0: by image size */
  tp_image gray; /* conversion buffer for RGB input */
};

static const family_entry *find_family(const char *dict) {
  for (size_t i = 0; i < sizeof kFamilies / sizeof kFamilies[0]; i++)
    if (!strcmp(kFamilies[i].dict, dict)) return &kFamilies[i];
  return NULL;
}

bool cal__april_supports(const cvw_dict *dict) {
  return dict && find_family(cvw_dict_name(dict)) != NULL;
}

void cal__april_destroy(cal__april *a) {
  if (!a) return;
  if (a->td) apriltag_detector_destroy(a->td);
  if (a->fam) a->family->destroy(a->fam);
  tp_image_free(&a->gray);
  free(a);
}

tp_status cal__april_create(const cvw_dict *dict, const cal_detector_params *p,
                            cal__april **out, tp_error *err) {
  *out = NULL;
  const family_entry *f = dict ? find_family(cvw_dict_name(dict)) : NULL;
  if (!f)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "libapriltag reads the APRILTAG_* dictionaries only, not %s; use "
                        "--backend opencv",
                        dict ? cvw_dict_name(dict) : "(none)");
  if (!(p->april_decimate == 0 || (p->april_decimate >= 1 && p->april_decimate <= 4)) ||
      !(p->april_sigma >= 0 && p->april_sigma <= 4) || p->april_max_bits < -1 ||
      p->april_max_bits > 3)
    return tp_error_set(err, TP_ERR_INVALID, "libapriltag: parameter out of range");
  cal__april *a = calloc(1, sizeof *a);
  if (!a) return tp_error_set(err, TP_ERR_NOMEM, "libapriltag: out of memory");
  a->family = f;
  a->cells = cvw_dict_marker_bits(dict) + 2;
  a->teppich_edges = p->april_teppich_edges;
  a->decimate = p->april_decimate;
  a->refine_edges = p->april_refine_edges;
  a->fam = f->create();
  a->td = a->fam ? apriltag_detector_create() : NULL;
  if (!a->td) {
    cal__april_destroy(a);
    return tp_error_set(err, TP_ERR_NOMEM, "libapriltag: out of memory");
  }
  a->td->nthreads = 1; /* teppich runs single-threaded; the caller decides */
  a->td->quad_sigma = (float)p->april_sigma;
  a->td->decode_sharpening = 0.25;
  int bits = p->april_max_bits >= 0 ? p->april_max_bits : f->opencv_bits;
  /* add_family_bits builds its quick-decode table with malloc and does not
   * report failure; the table for 2 bits of 36h10 is ~25 MB. */
  apriltag_detector_add_family_bits(a->td, a->fam, bits);
  *out = a;
  return TP_OK;
}

/* RGB -> gray with OpenCV's weights (what the OpenCV path sees). */
static tp_status to_gray(cal__april *a, const tp_image *img, const tp_image **gray,
                         tp_error *err) {
  if (img->channels == 1) {
    *gray = img;
    return TP_OK;
  }
  if (img->channels != 3 && img->channels != 4)
    return tp_error_set(err, TP_ERR_INVALID, "detect markers: %d channels", img->channels);
  if (a->gray.width != img->width || a->gray.height != img->height) {
    tp_image_free(&a->gray);
    if (tp_image_alloc(&a->gray, img->width, img->height, 1) != TP_OK)
      return tp_error_set(err, TP_ERR_NOMEM, "detect markers: out of memory");
  }
  for (int y = 0; y < img->height; y++) {
    const uint8_t *s = tp_image_row(img, y);
    uint8_t *d = tp_image_row(&a->gray, y);
    for (int x = 0; x < img->width; x++, s += img->channels)
      d[x] = (uint8_t)((4899 * s[0] + 9617 * s[1] + 1868 * s[2] + 8192) >> 14);
  }
  *gray = &a->gray;
  return TP_OK;
}

/* libapriltag's corners wrap counter-clockwise in the image starting at
 * the printed marker's top-right (OpenCV's bit layout of its AprilTag
 * dictionaries), in coordinates with (0,0) at the outer corner of the
 * top-left pixel; ours run TL TR BR BL from pixel centres. */
static void to_marker(const apriltag_detection_t *d, cvw_marker *m) {
  static const int kOrder[4] = {1, 0, 3, 2};
  m->id = d->id;
  for (int c = 0; c < 4; c++) {
    m->corners[c][0] = d->p[kOrder[c]][0] - 0.5;
    m->corners[c][1] = d->p[kOrder[c]][1] - 0.5;
  }
}

tp_status cal__april_detect(cal__april *a, const tp_image *img, cvw_marker *out, size_t cap,
                            size_t *found, tp_error *err) {
  *found = 0;
  const tp_image *gray = img;
  tp_status st = to_gray(a, img, &gray, err);
  if (st != TP_OK) return st;
  int side = gray->width > gray->height ? gray->width : gray->height;
  double decimate = a->decimate > 0 ? a->decimate : side <= 1280 ? 1 : 2;
  a->td->quad_decimate = (float)decimate;
  a->td->refine_edges = a->refine_edges && decimate > 1;
  image_u8_t im = {.width = gray->width, .height = gray->height, .stride = gray->stride,
                   .buf = gray->data};
  zarray_t *dets = apriltag_detector_detect(a->td, &im);
  if (!dets) return tp_error_set(err, TP_ERR_NOMEM, "libapriltag: detection failed");
  size_t n = 0;
  for (int i = 0; i < zarray_size(dets); i++) {
    apriltag_detection_t *d;
    zarray_get(dets, i, &d);
    if (n >= cap) {
      n++;
      continue;
    }
    to_marker(d, &out[n]);
    if (a->teppich_edges) cvw_marker_refine_edges(gray, a->cells, out[n].corners);
    n++;
  }
  apriltag_detections_destroy(dets);
  *found = n;
  return TP_OK;
}
