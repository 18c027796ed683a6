/* calib_accuracy: how well does calibration map image pixels to table mm?
 *
 * Renders photos of a 900 x 600 mm play area with four 40 mm markers at
 * odd positions and angles, for several camera tilts, lens distortions,
 * blur and noise; calibrates from each photo; then compares the table
 * position of points across the play area (true) with what the
 * calibration says for their pixels. Prints mean and max error in mm,
 * without and with the lens model (the camera's true lens).
 *
 *   calib_accuracy [--quick]      (--quick: three cases only) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene.h"

typedef struct {
  double tilt, azimuth, k1, blur, noise;
} test_case;

typedef struct {
  double mean, max;
  bool ok;
} errors;

/* Errors over a 10 mm grid of the play area [0,900] x [0,600]. */
static errors grid_errors(const synth_camera *cam, const cal_calib *c) {
  errors e = {0, 0, true};
  int n = 0;
  for (int y = 0; y <= 600; y += 10)
    for (int x = 0; x <= 900; x += 10) {
      double t[2] = {x, y}, px[2], back[2];
      if (!synth_project(cam, t, px) || !cal_image_to_table(c, px, back)) {
        e.ok = false;
        continue;
      }
      double d = hypot(back[0] - t[0], back[1] - t[1]);
      e.mean += d;
      e.max = fmax(e.max, d);
      n++;
    }
  e.mean /= n ? n : 1;
  return e;
}

static int run(const test_case *tc, const cvw_dict *dict) {
  synth_marker m[4];
  scene_markers(m, 40);
  synth_table table = {dict, m, 4, 0, {{0}}};
  synth_camera cam;
  scene_camera(&cam, tc->tilt, tc->azimuth, tc->k1);
  tp_image img;
  tp_error err;
  if (synth_table_init(&table) != TP_OK ||
      synth_render(&cam, synth_table_shade, &table, 3, tc->blur, tc->noise, 7, &img) != TP_OK)
    return 1;
  printf("%5.0f %5.0f %6.3f %4.1f %4.1f |", tc->tilt, tc->azimuth, tc->k1, tc->blur, tc->noise);
  /* Configurations: no lens model with 0, 1, 2 radial terms estimated
   * from the markers; then the camera's true lens model. */
  for (int config = 0; config < 4; config++) {
    cal_options opt;
    cal_options_default(&opt);
    opt.radial_terms = config < 3 ? config : 0;
    if (config == 3) {
      opt.has_lens = true;
      synth_lens(&cam, &opt.lens);
    }
    cal_session *s;
    cal_calib *c = NULL;
    size_t seen = 0;
    tp_status st = cal_session_create(&opt, &s, &err);
    if (st == TP_OK) st = cal_session_add_frame(s, &img, "render", &seen, &err);
    if (st == TP_OK) st = cal_session_solve(s, &c, &err);
    if (st != TP_OK) {
      printf(" failed: %s\n", err.text);
      cal_session_destroy(s);
      tp_image_free(&img);
      return 1;
    }
    errors e = grid_errors(&cam, c);
    const cal_quality *q = cal_calib_quality(c);
    printf(" %5.2f %6.3f %6.3f %5.2f |", q->rms_px, e.mean, e.max, q->accuracy_mm);
    cal_calib_destroy(c);
    cal_session_destroy(s);
  }
  printf("\n");
  tp_image_free(&img);
  return 0;
}

/* Corner error of each detector refinement on one rendered photo: mean
 * signed error along the outward diagonal (bias: it scales the whole
 * table frame) and RMS, in pixels. */
static void corner_study(const cvw_dict *dict, double tilt, double blur, double noise) {
  synth_marker m[4];
  scene_markers(m, 40);
  synth_table table = {dict, m, 4, 0, {{0}}};
  synth_camera cam;
  scene_camera(&cam, tilt, 40, 0);
  tp_image img;
  if (synth_table_init(&table) != TP_OK ||
      synth_render(&cam, synth_table_shade, &table, 3, blur, noise, 7, &img) != TP_OK)
    return;
  const char *names[] = {"none", "subpix", "contour", "apriltag", "edges"};
  printf("corners, tilt %.0f blur %.1f noise %.1f:", tilt, blur, noise);
  for (int r = 0; r <= 4; r++) {
    cvw_detector_params p;
    cvw_detector_params_default(&p);
    p.refine = (cvw_refine)r;
    cvw_detector *det;
    cvw_marker found[8];
    size_t n = 0;
    if (cvw_detector_create(dict, &p, &det, NULL) != TP_OK) continue;
    cvw_detect_markers(det, &img, found, 8, &n, NULL);
    double bias = 0, ss = 0;
    int k = 0;
    for (size_t i = 0; i < n && i < 8; i++) {
      const synth_marker *sm = &m[found[i].id];
      double h = sm->side_mm / 2, a = sm->angle_deg * 3.14159265358979 / 180;
      const double loc[4][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
      double ctr[2];
      if (!synth_project(&cam, sm->center, ctr)) continue;
      for (int c = 0; c < 4; c++) {
        double t[2] = {sm->center[0] + cos(a) * loc[c][0] - sin(a) * loc[c][1],
                       sm->center[1] + sin(a) * loc[c][0] + cos(a) * loc[c][1]};
        double px[2];
        synth_project(&cam, t, px);
        double dx = found[i].corners[c][0] - px[0], dy = found[i].corners[c][1] - px[1];
        double ox = px[0] - ctr[0], oy = px[1] - ctr[1], ol = hypot(ox, oy);
        bias += (dx * ox + dy * oy) / ol;
        ss += dx * dx + dy * dy;
        k++;
      }
    }
    printf("  %s %zu bias %+.3f rms %.3f", names[r], n, k ? bias / k : NAN, k ? sqrt(ss / k) : NAN);
    cvw_detector_destroy(det);
  }
  printf("\n");
  tp_image_free(&img);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--corners")) {
    cvw_dict *d;
    if (cvw_dict_create("4X4_50", &d, NULL) != TP_OK) return 1;
    corner_study(d, 0, 0, 0);
    corner_study(d, 10, 0.7, 2);
    corner_study(d, 20, 1.5, 3);
    cvw_dict_destroy(d);
    return 0;
  }
  bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  const test_case cases[] = {
      {0, 0, 0, 0, 0},        {0, 0, 0, 0.7, 2},       {10, 30, 0, 0.7, 2},
      {15, 120, 0, 0.7, 2},   {15, 200, -0.03, 0.7, 2}, {15, 300, -0.06, 0.7, 2},
      {25, 60, 0, 0.7, 2},    {25, 250, -0.06, 1.0, 3}, {5, 90, 0.04, 1.2, 3},
      {10, 0, -0.1, 0.7, 2},
  };
  int n = quick ? 3 : (int)(sizeof cases / sizeof cases[0]);
  cvw_dict *dict;
  tp_error err;
  if (cvw_dict_create("4X4_50", &dict, &err) != TP_OK) return 1;
  printf("1920x1080, 900x600 mm play area, 40 mm markers, camera 1150 mm from the centre\n");
  printf("columns per configuration: corner rms px | mean mm | max mm | estimated accuracy mm\n");
  printf("                             |   no lens model, radial 0   |   no lens model, radial 1   |   no lens model, radial 2   |   true lens model\n");
  int fails = 0;
  for (int i = 0; i < n; i++) fails += run(&cases[i], dict);
  cvw_dict_destroy(dict);
  return fails ? 1 : 0;
}
