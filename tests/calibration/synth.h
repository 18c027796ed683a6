/* synth: photo-like renders of a flat table with markers, for calibration
 * tests and the accuracy tool (until tools/render exists). Pure C: a
 * pinhole camera with radial distortion looks at the table plane; every
 * pixel is supersampled by casting rays, so marker edges land exactly
 * where the geometry puts them. Then blur and noise. */
#ifndef TEPPICH_SYNTH_H
#define TEPPICH_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "calibration.h"

/* The camera: looks at `target` (table mm) from `distance` mm, tilted
 * `tilt_deg` from straight down toward azimuth `azimuth_deg`. */
typedef struct {
  int width, height;
  double f_px;            /* focal length in pixels */
  double k1, k2;          /* radial distortion (OpenCV model) */
  double target[2];
  double distance;
  double tilt_deg, azimuth_deg, roll_deg;
  /* derived by synth_camera_init */
  double centre[3];
  double rot[9]; /* world -> camera rows */
} synth_camera;

void synth_camera_init(synth_camera *cam);
/* Table mm -> recorded pixel (distorted); false if behind the camera. */
bool synth_project(const synth_camera *cam, const double mm[2], double px[2]);
/* The camera's lens as a cal_lens (what a perfect lens calibration gives). */
void synth_lens(const synth_camera *cam, cal_lens *lens);

/* Marker placed on the table. */
typedef struct {
  int id;
  double center[2], angle_deg, side_mm;
} synth_marker;

/* Gray value of the scene at table point (x, y) mm. */
typedef uint8_t (*synth_shade)(const void *ctx, double x, double y);

enum { SYNTH_MAX_MARKERS = 16 };
typedef struct {
  const cvw_dict *dict;
  const synth_marker *markers;
  int n_markers;
  /* filled by synth_table_init: each marker's cells, one byte per bit */
  int cells_per_side;
  uint8_t cells[SYNTH_MAX_MARKERS][16 * 16];
} synth_table;
tp_status synth_table_init(synth_table *t);
/* Shade of a table with markers on white paper squares on a darker,
 * textured table top. ctx is a synth_table. */
uint8_t synth_table_shade(const void *ctx, double x, double y);

/* Renders into a new gray image (tp_image_alloc): `samples` x `samples`
 * rays per pixel, Gaussian blur sigma (px, 0 none), Gaussian noise sigma
 * (gray levels), deterministic for a seed. */
tp_status synth_render(const synth_camera *cam, synth_shade shade, const void *ctx,
                       int samples, double blur_px, double noise, uint64_t seed,
                       tp_image *out);

#endif
