/* calibration internals shared by the cal_*.c files. Names cal__*. */
#ifndef TEPPICH_CAL_INTERNAL_H
#define TEPPICH_CAL_INTERNAL_H

#include "calibration.h"

#define CAL__PI 3.14159265358979323846

struct cal_calib {
  bool has_table;
  char dict[32];
  double marker_mm;
  int frame_ids[4];
  int width, height;
  double h[9];    /* table mm -> undistorted image px */
  double hinv[9]; /* undistorted image px -> table mm */
  bool has_lens;
  cal_lens lens;
  cal_marker_pose markers[CAL_MAX_MARKERS];
  size_t n_markers;
  cal_quality q;
};

/* One marker seen in one frame (corners undistorted when a lens is set). */
typedef struct {
  int id;
  int frame;
  double corners[4][2];
} cal__obs;

/* ---- small linear algebra (cal_math.c) ---- */
void cal__mat3_mul(const double a[9], const double b[9], double out[9]);
bool cal__mat3_inv(const double a[9], double out[9]);
/* Applies homography h to (x, y); false if the point maps to infinity or
 * behind (w <= 0 when require_front). */
bool cal__hom_apply(const double h[9], const double in[2], double out[2]);
/* Solves a (n x n, row-major, destroyed) x = b (overwritten with x);
 * false if singular. */
bool cal__solve(double *a, double *b, int n);
/* Homography mapping the 4 points src onto dst exactly. */
bool cal__hom_from_4(const double src[4][2], const double dst[4][2], double h[9]);

/* ---- the fit (cal_solve.c) ---- */
/* Fits the table frame to obs (n of them); fills c (has_table, h, hinv,
 * markers, q except the warnings/quality parts done by cal__assess). */
tp_status cal__fit(const cal_options *opt, const cal__obs *obs, size_t n,
                   int frames, int width, int height, cal_calib *c,
                   tp_error *err);

/* Fills c->q from the fit (tilt, scale, area, warnings). */
void cal__assess(cal_calib *c, const cal__obs *obs, size_t n);

/* cairo's toy text keeps fontconfig's caches for the life of the process;
 * dropped after each drawing (every cairo object gone by then) so that
 * leak checkers see a clean exit. Both libraries set up again when used. */
void cal__release_text_caches(void);

/* Marker corner offsets from the centre in its own frame (TL TR BR BL,
 * y down), for a side of `side` mm. */
void cal__square(double side, double out[4][2]);

/* ---- libapriltag backend (cal_apriltag.c) ---- */
typedef struct cal__april cal__april;
/* True for the dictionaries libapriltag knows (APRILTAG_16h5 .. 36h11). */
bool cal__april_supports(const cvw_dict *dict);
tp_status cal__april_create(const cvw_dict *dict, const cal_detector_params *p,
                            cal__april **out, tp_error *err);
void cal__april_destroy(cal__april *a);
/* Markers as cvw_detect_markers reports them, unsorted; *found may exceed
 * cap (only cap written). */
tp_status cal__april_detect(cal__april *a, const tp_image *img, cvw_marker *out,
                            size_t cap, size_t *found, tp_error *err);

#endif
