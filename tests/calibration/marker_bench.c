/* marker_bench: OpenCV's ArUco detector against libapriltag on the AprilTag
 * dictionaries. Prints, never checks (docs/calibration.md has the numbers).
 *
 * For each AprilTag dictionary, marker size in pixels and image condition
 * (blur, noise), renders 16 markers in a 4 x 4 grid on a textured table
 * (640x480, camera tilted 20 degrees, markers at odd angles: synth.c) and
 * reports per detector: markers found of 16 with the right id, wrong ids
 * (false markers), and the mean corner error in pixels against the truth
 * (over the markers found). A last part times each detector on a
 * 1920x1080 render.
 *
 *   marker_bench [--quick]     (--quick: one dictionary, fewer sizes) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "synth.h"

enum { GRID = 4, N_MARKERS = GRID * GRID };

typedef struct {
  const char *name;
  cal_detector_params p;
} detector_cfg;

typedef struct {
  int found, wrong;
  double err_sum, err_max;
  int err_n;
  double ms;
} tally;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int make_detectors(detector_cfg *d) {
  int n = 0;
  cal_detector_params base;
  cal_detector_params_default(&base);
  d[n] = (detector_cfg){"opencv", base}; /* teppich's: edges + 2x pass */
  d[n].p.backend = CAL_BACKEND_OPENCV;
  n++;
  d[n] = d[n - 1]; /* as on frames over 1280 px: no 2x pass */
  d[n].name = "opencv-1x";
  d[n].p.opencv.small_marker_pass = false;
  n++;
  d[n] = d[n - 1];
  d[n].name = "opencv-defaults";
  cvw_detector_params_opencv(&d[n].p.opencv);
  n++;
  static const struct {
    const char *name;
    double decimate;
    bool refine, teppich;
  } april[] = {{"april-d1", 1, false, false},
               {"april-d2", 2, false, false},
               {"april-d2-refine", 2, true, false},
               {"april-d1-edges", 1, false, true}};
  for (size_t i = 0; i < sizeof april / sizeof april[0]; i++) {
    d[n] = (detector_cfg){april[i].name, base};
    d[n].p.backend = CAL_BACKEND_APRILTAG;
    d[n].p.april_decimate = april[i].decimate;
    d[n].p.april_refine_edges = april[i].refine;
    d[n].p.april_teppich_edges = april[i].teppich;
    n++;
  }
  d[n] = (detector_cfg){"auto", base}; /* what teppich uses */
  n++;
  return n;
}

/* The grid scene: markers of side_mm 40 with 2.6 sides between centres. */
static void grid_scene(synth_marker *m, int n_ids) {
  for (int i = 0; i < N_MARKERS; i++) {
    m[i].id = i % n_ids;
    m[i].center[0] = (i % GRID) * 104.0;
    m[i].center[1] = (i / GRID) * 104.0;
    m[i].angle_deg = (i * 47) % 360 + 3.5;
    m[i].side_mm = 40;
  }
}

/* Camera looking at the grid's centre so that a marker there is side_px. */
static void grid_camera(synth_camera *cam, int w, int h, double side_px) {
  memset(cam, 0, sizeof *cam);
  cam->width = w;
  cam->height = h;
  cam->f_px = 1000;
  cam->target[0] = cam->target[1] = 1.5 * 104.0;
  cam->distance = cam->f_px * 40 / side_px;
  cam->tilt_deg = 20;
  cam->azimuth_deg = 30;
  cam->roll_deg = 5;
  synth_camera_init(cam);
}

static void truth_corners(const synth_camera *cam, const synth_marker *sm, double out[4][2]) {
  double h = sm->side_mm / 2, a = sm->angle_deg * 3.14159265358979 / 180;
  const double loc[4][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
  for (int c = 0; c < 4; c++) {
    double t[2] = {sm->center[0] + cos(a) * loc[c][0] - sin(a) * loc[c][1],
                   sm->center[1] + sin(a) * loc[c][0] + cos(a) * loc[c][1]};
    synth_project(cam, t, out[c]);
  }
}

static void score(const synth_camera *cam, const synth_marker *sm, int n_sm,
                  const cvw_marker *found, size_t n, tally *t) {
  bool used[N_MARKERS] = {false};
  for (size_t i = 0; i < n; i++) {
    int k = -1;
    for (int j = 0; j < n_sm && k < 0; j++)
      if (!used[j] && sm[j].id == found[i].id) {
        double truth[4][2], ctr[2] = {0, 0};
        truth_corners(cam, &sm[j], truth);
        for (int c = 0; c < 4; c++) ctr[0] += truth[c][0] / 4, ctr[1] += truth[c][1] / 4;
        double fx = 0, fy = 0;
        for (int c = 0; c < 4; c++) fx += found[i].corners[c][0] / 4, fy += found[i].corners[c][1] / 4;
        if (hypot(fx - ctr[0], fy - ctr[1]) > 5) continue; /* another marker, same id */
        k = j;
        double e = 0;
        for (int c = 0; c < 4; c++)
          e += hypot(found[i].corners[c][0] - truth[c][0], found[i].corners[c][1] - truth[c][1]) / 4;
        t->err_sum += e;
        t->err_max = fmax(t->err_max, e);
        t->err_n++;
      }
    if (k < 0) {
      t->wrong++;
      continue;
    }
    used[k] = true;
    t->found++;
  }
}

static tp_status run_one(const detector_cfg *cfg, const cvw_dict *dict, const tp_image *img,
                         const synth_camera *cam, const synth_marker *sm, tally *t) {
  cal_detector *det;
  tp_error err;
  tp_status st = cal_detector_create(dict, &cfg->p, &det, &err);
  if (st != TP_OK) {
    fprintf(stderr, "%s: %s\n", cfg->name, err.text);
    return st;
  }
  cvw_marker found[64];
  size_t n = 0;
  double t0 = now_ms();
  st = cal_detect_markers(det, img, found, 64, &n, &err);
  t->ms += now_ms() - t0;
  cal_detector_destroy(det);
  if (st == TP_OK) score(cam, sm, N_MARKERS, found, n < 64 ? n : 64, t);
  return st;
}

typedef struct {
  double blur, noise;
} condition;

static void sweep(const char *dict_name, const detector_cfg *dets, int n_dets,
                  const condition *cond, const int *sizes, int n_sizes) {
  cvw_dict *dict;
  if (cvw_dict_create(dict_name, &dict, NULL) != TP_OK) return;
  synth_marker sm[N_MARKERS];
  int n_ids = cvw_dict_marker_count(dict);
  grid_scene(sm, n_ids < N_MARKERS ? n_ids : N_MARKERS);
  printf("\n%s, blur %.1f px, noise %.0f: found of %d (wrong ids) mean corner error px\n",
         dict_name, cond->blur, cond->noise, N_MARKERS);
  printf("%7s", "side px");
  for (int d = 0; d < n_dets; d++) printf(" | %-17s", dets[d].name);
  printf("\n");
  for (int s = 0; s < n_sizes; s++) {
    synth_camera cam;
    grid_camera(&cam, 640, 480, sizes[s]);
    synth_table table = {dict, sm, N_MARKERS, 0, {{0}}};
    tp_image img;
    if (synth_table_init(&table) != TP_OK ||
        synth_render(&cam, synth_table_shade, &table, 3, cond->blur, cond->noise, 11 + s, &img) !=
            TP_OK)
      break;
    printf("%7d", sizes[s]);
    for (int d = 0; d < n_dets; d++) {
      tally t = {0};
      run_one(&dets[d], dict, &img, &cam, sm, &t);
      char err[16] = "   -";
      if (t.err_n) snprintf(err, sizeof err, "%.2f", t.err_sum / t.err_n);
      printf(" | %2d (%d) %-9s", t.found, t.wrong, err);
    }
    printf("\n");
    tp_image_free(&img);
  }
  cvw_dict_destroy(dict);
}

/* Milliseconds per 1920x1080 frame with 16 markers of ~side_px. */
static void timing(const detector_cfg *dets, int n_dets, double side_px) {
  cvw_dict *dict;
  if (cvw_dict_create("APRILTAG_36h11", &dict, NULL) != TP_OK) return;
  synth_marker sm[N_MARKERS];
  grid_scene(sm, N_MARKERS);
  synth_camera cam;
  grid_camera(&cam, 1920, 1080, side_px);
  synth_table table = {dict, sm, N_MARKERS, 0, {{0}}};
  tp_image img;
  if (synth_table_init(&table) == TP_OK &&
      synth_render(&cam, synth_table_shade, &table, 2, 0.8, 2, 5, &img) == TP_OK) {
    printf("\nAPRILTAG_36h11 at 1920x1080, 16 markers of ~%.0f px, blur 0.8, noise 2: "
           "found (wrong) error px, ms per frame (best of 3)\n", side_px);
    for (int d = 0; d < n_dets; d++) {
      double best = 1e9;
      tally t = {0};
      for (int r = 0; r < 3; r++) {
        tally one = {0};
        run_one(&dets[d], dict, &img, &cam, sm, &one);
        best = fmin(best, one.ms);
        t = one;
      }
      printf("  %-17s %2d (%d) %.2f  %6.1f ms\n", dets[d].name, t.found, t.wrong,
             t.err_n ? t.err_sum / t.err_n : NAN, best);
    }
    tp_image_free(&img);
  }
  cvw_dict_destroy(dict);
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  detector_cfg dets[16];
  int n_dets = make_detectors(dets);
  static const char *const dicts[] = {"APRILTAG_36h11", "APRILTAG_36h10", "APRILTAG_25h9",
                                      "APRILTAG_16h5"};
  static const condition conds[] = {{0, 0}, {1.0, 3}, {1.8, 3}, {0.6, 10}};
  static const int sizes[] = {8, 10, 12, 14, 16, 20, 24, 32, 40};
  static const int quick_sizes[] = {10, 14, 20, 32};
  int n_dicts = quick ? 1 : 4, n_conds = quick ? 2 : 4;
  printf("16 markers per 640x480 render, camera tilt 20 deg; columns: found of 16 "
         "(wrong ids) mean corner error px\n");
  for (int k = 0; k < n_dicts; k++)
    for (int c = 0; c < n_conds; c++)
      sweep(dicts[k], dets, n_dets, &conds[c], quick ? quick_sizes : sizes,
            quick ? 4 : (int)(sizeof sizes / sizeof sizes[0]));
  timing(dets, n_dets, 24);
  return 0;
}
