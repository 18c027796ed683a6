/* Unit tests for the table fit: exact corners, rendered photos against
 * the accuracy goal, warnings, and every kind of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

#define PI 3.14159265358979323846

/* Projected corners of the markers (as a perfect detector would see). */
static size_t exact_markers(const synth_camera *cam, const synth_marker *m, int n,
                            cvw_marker *out) {
  for (int i = 0; i < n; i++) {
    double h = m[i].side_mm / 2, a = m[i].angle_deg * PI / 180;
    const double loc[4][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
    out[i].id = m[i].id;
    for (int c = 0; c < 4; c++) {
      double t[2] = {m[i].center[0] + cos(a) * loc[c][0] - sin(a) * loc[c][1],
                     m[i].center[1] + sin(a) * loc[c][0] + cos(a) * loc[c][1]};
      assert_true(synth_project(cam, t, out[i].corners[c]));
    }
  }
  return (size_t)n;
}

static cal_calib *solve_markers(const cal_options *opt, const cvw_marker *m, size_t n,
                                int w, int h, tp_status want, tp_error *err) {
  cal_session *s;
  cal_calib *c = NULL;
  assert_int_equal(cal_session_create(opt, &s, err), TP_OK);
  tp_status st = cal_session_add_markers(s, m, n, w, h, "test", err);
  if (st == TP_OK) st = cal_session_solve(s, &c, err);
  assert_int_equal(st, want);
  cal_session_destroy(s);
  return c;
}

/* Largest distance between true table points of the play area and what
 * the calibration maps their pixels to. */
static double max_grid_error(const synth_camera *cam, const cal_calib *c, double *mean) {
  double mx = 0, sum = 0;
  int n = 0;
  for (int y = 0; y <= 600; y += 25)
    for (int x = 0; x <= 900; x += 25) {
      double t[2] = {x, y}, px[2], back[2], again[2];
      assert_true(synth_project(cam, t, px));
      assert_true(cal_image_to_table(c, px, back));
      assert_true(cal_table_to_image(c, back, again));
      assert_true(hypot(again[0] - px[0], again[1] - px[1]) < 1e-6);
      double d = hypot(back[0] - x, back[1] - y);
      mx = fmax(mx, d);
      sum += d;
      n++;
    }
  if (mean) *mean = sum / n;
  return mx;
}

static void test_exact_corners_give_exact_frame(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  const double dists[2] = {0, -0.06};
  for (int k = 0; k < 2; k++) {
    synth_camera cam;
    scene_camera(&cam, 12, 70, dists[k]);
    cvw_marker obs[4];
    size_t n = exact_markers(&cam, m, 4, obs);
    cal_options opt;
    cal_options_default(&opt);
    tp_error err;
    cal_calib *c = solve_markers(&opt, obs, n, cam.width, cam.height, TP_OK, &err);
    assert_true(max_grid_error(&cam, c, NULL) < 0.02);
    cal_marker_pose poses[8];
    assert_int_equal(cal_calib_markers(c, poses, 8), 4);
    for (int i = 0; i < 4; i++) {
      assert_int_equal(poses[i].id, i);
      assert_true(hypot(poses[i].center_mm[0] - m[i].center[0],
                        poses[i].center_mm[1] - m[i].center[1]) < 0.01);
      double da = fmod(poses[i].angle_deg - m[i].angle_deg + 540, 360) - 180;
      assert_true(fabs(da) < 0.01);
    }
    const cal_quality *q = cal_calib_quality(c);
    assert_true(q->rms_px < 0.01);
    assert_true(fabs(q->tilt_deg - 12) < 1.5);
    assert_true(q->accuracy_mm > 0 && q->accuracy_mm < 1);
    assert_int_equal(q->warnings, 0);
    assert_true(fabs(q->area_mm[0] - 917) < 1 && fabs(q->area_mm[1] - 610) < 1);
    cal_calib_destroy(c);
  }
}

static void test_rendered_photo_meets_accuracy_goal(void **state) {
  (void)state;
  cvw_dict *dict;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &dict, &err), TP_OK);
  synth_marker m[4];
  scene_markers(m, 40);
  synth_table table = {dict, m, 4, 0, {{0}}};
  assert_int_equal(synth_table_init(&table), TP_OK);
  synth_camera cam;
  scene_camera(&cam, 15, 200, -0.04);
  tp_image img;
  assert_int_equal(synth_render(&cam, synth_table_shade, &table, 2, 0.7, 2, 3, &img), TP_OK);
  for (int with_lens = 0; with_lens < 2; with_lens++) {
    cal_options opt;
    cal_options_default(&opt);
    opt.has_lens = with_lens;
    synth_lens(&cam, &opt.lens);
    cal_session *s;
    cal_calib *c;
    size_t seen;
    assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
    assert_int_equal(cal_session_add_frame(s, &img, "render", &seen, &err), TP_OK);
    assert_int_equal(seen, 4);
    assert_int_equal(cal_session_solve(s, &c, &err), TP_OK);
    double mean, mx = max_grid_error(&cam, c, &mean);
    printf("rendered 1920x1080 tilt 15 k1 -0.04, %s lens model: mean %.3f mm, max %.3f mm\n",
           with_lens ? "with" : "without", mean, mx);
    assert_true(mean < 1.0);
    assert_true(mx < 3.0);
    cal_calib_destroy(c);
    cal_session_destroy(s);
  }
  tp_image_free(&img);
  cvw_dict_destroy(dict);
}

static void test_missing_marker_is_a_warning(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 5, 0, 0);
  cvw_marker obs[4];
  size_t n = exact_markers(&cam, m, 3, obs);
  cal_options opt;
  cal_options_default(&opt);
  tp_error err;
  cal_calib *c = solve_markers(&opt, obs, n, cam.width, cam.height, TP_OK, &err);
  const cal_quality *q = cal_calib_quality(c);
  assert_true(q->warnings & CAL_WARN_MISSING);
  assert_int_equal(q->missing_ids[0], 3);
  assert_int_equal(q->missing_ids[1], -1);
  char text[256];
  cal_warning_text(c, CAL_WARN_MISSING, text, sizeof text);
  assert_non_null(strstr(text, "marker 3 not seen"));
  assert_non_null(strstr(text, "bottom-left"));
  assert_true(max_grid_error(&cam, c, NULL) < 0.05);
  cal_calib_destroy(c);
}

static void test_counter_clockwise_markers_warn(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  m[2].center[1] = -m[2].center[1];
  m[3].center[1] = -m[3].center[1];
  synth_camera cam;
  scene_camera(&cam, 0, 0, 0);
  cam.target[1] = -300;
  synth_camera_init(&cam);
  cvw_marker obs[4];
  size_t n = exact_markers(&cam, m, 4, obs);
  cal_options opt;
  cal_options_default(&opt);
  tp_error err;
  cal_calib *c = solve_markers(&opt, obs, n, cam.width, cam.height, TP_OK, &err);
  assert_true(cal_calib_quality(c)->warnings & CAL_WARN_ORDER);
  cal_marker_pose p[4];
  cal_calib_markers(c, p, 4);
  assert_true(p[2].center_mm[1] > 500); /* +y points toward markers 2 and 3 */
  cal_calib_destroy(c);
}

static void test_far_and_oblique_camera_warn(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 40, 90, 0);
  cam.width = 640;
  cam.height = 360;
  cam.f_px = 493;
  cam.distance = 1500;
  synth_camera_init(&cam);
  cvw_marker obs[4];
  size_t n = exact_markers(&cam, m, 4, obs);
  cal_options opt;
  cal_options_default(&opt);
  tp_error err;
  cal_calib *c = solve_markers(&opt, obs, n, cam.width, cam.height, TP_OK, &err);
  unsigned w = cal_calib_quality(c)->warnings;
  assert_true(w & CAL_WARN_FAR);
  assert_true(w & CAL_WARN_OBLIQUE);
  cal_calib_destroy(c);
}

static void test_bad_options(void **state) {
  (void)state;
  cal_options opt;
  tp_error err;
  const double sizes[] = {0, -40, 4.9, 1001, NAN};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    cal_options_default(&opt);
    opt.marker_mm = sizes[i];
    assert_int_equal(cal_options_check(&opt, &err), TP_ERR_INVALID);
    assert_non_null(strstr(err.text, "marker size"));
  }
  cal_options_default(&opt);
  opt.frame_ids[2] = 1;
  assert_int_equal(cal_options_check(&opt, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "twice"));
  cal_options_default(&opt);
  opt.frame_ids[3] = 50;
  assert_int_equal(cal_options_check(&opt, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "50"));
  cal_options_default(&opt);
  snprintf(opt.dict, sizeof opt.dict, "4X4_49");
  cal_session *s;
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_ERR_INVALID);
  assert_null(s);
}

static void test_too_few_or_duplicated_markers(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 5, 0, 0);
  cvw_marker obs[5];
  exact_markers(&cam, m, 4, obs);
  cal_options opt;
  cal_options_default(&opt);
  tp_error err;
  /* Only marker 0. */
  assert_null(solve_markers(&opt, obs, 1, 1920, 1080, TP_ERR_NOTFOUND, &err));
  assert_non_null(strstr(err.text, "marker 1"));
  /* Markers 1..3 but not the origin. */
  assert_null(solve_markers(&opt, obs + 1, 3, 1920, 1080, TP_ERR_NOTFOUND, &err));
  assert_non_null(strstr(err.text, "marker 0"));
  /* Nothing. */
  assert_null(solve_markers(&opt, obs, 0, 1920, 1080, TP_ERR_NOTFOUND, &err));
  assert_non_null(strstr(err.text, "no 4X4_50 markers"));
  /* Marker 2 twice. */
  obs[4] = obs[2];
  obs[4].corners[0][0] += 300;
  cal_session *s;
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
  assert_int_equal(cal_session_add_markers(s, obs, 5, 1920, 1080, "dup.png", &err),
                   TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "dup.png: marker 2 appears twice"));
  /* Frames of different sizes. */
  assert_int_equal(cal_session_add_markers(s, obs, 4, 1920, 1080, "a", &err), TP_OK);
  assert_int_equal(cal_session_add_markers(s, obs, 4, 1280, 720, "b", &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "1280x720"));
  cal_session_destroy(s);
  cal_session_destroy(NULL);
}

/* A photo with markers of another dictionary: the error says which. */
static void test_other_dictionary_is_named(void **state) {
  (void)state;
  cvw_dict *dict;
  tp_error err;
  assert_int_equal(cvw_dict_create("6X6_250", &dict, &err), TP_OK);
  synth_marker m[4];
  scene_markers(m, 60);
  synth_table table = {dict, m, 4, 0, {{0}}};
  assert_int_equal(synth_table_init(&table), TP_OK);
  synth_camera cam;
  scene_camera(&cam, 0, 0, 0);
  cam.width = 960;
  cam.height = 540;
  cam.f_px = 740;
  synth_camera_init(&cam);
  tp_image img;
  assert_int_equal(synth_render(&cam, synth_table_shade, &table, 1, 0, 0, 1, &img), TP_OK);
  cal_options opt;
  cal_options_default(&opt);
  cal_session *s;
  cal_calib *c;
  size_t seen = 9;
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
  assert_int_equal(cal_session_add_frame(s, &img, "x.png", &seen, &err), TP_OK);
  assert_int_equal(seen, 0);
  assert_int_equal(cal_session_solve(s, &c, &err), TP_ERR_NOTFOUND);
  /* 6X6_50 holds the same first codes as 6X6_250: either is right. */
  assert_non_null(strstr(err.text, "use --dict 6X6_"));
  cal_session_destroy(s);
  /* A blank photo: no hint, the plain message. */
  memset(img.data, 200, (size_t)img.stride * img.height);
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
  assert_int_equal(cal_session_add_frame(s, &img, "blank.png", &seen, &err), TP_OK);
  assert_int_equal(cal_session_solve(s, &c, &err), TP_ERR_NOTFOUND);
  assert_non_null(strstr(err.text, "no 4X4_50 markers found in 1 image"));
  cal_session_destroy(s);
  tp_image_free(&img);
  cvw_dict_destroy(dict);
}

static void test_lens_round_trip(void **state) {
  (void)state;
  cal_lens l = {1920, 1080, 1400, 1410, 955, 545, -0.08, 0.03, 0.001, -0.0005, -0.01, 0, 0, false};
  for (int y = 0; y < 1080; y += 60)
    for (int x = 0; x < 1920; x += 60) {
      double px[2] = {x, y}, ideal[2], back[2];
      cal_lens_undistort(&l, px, ideal);
      cal_lens_distort(&l, ideal, back);
      assert_true(hypot(back[0] - x, back[1] - y) < 1e-6);
    }
}

/* Shifts the corners of every marker by (dx, dy) pixels, the ones of
 * marker 2 by (dx2, dy2) more. */
static void shift_corners(cvw_marker *m, size_t n, double dx, double dy, double dx2,
                          double dy2) {
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 4; c++) {
      m[i].corners[c][0] += dx + (m[i].id == 2 ? dx2 : 0);
      m[i].corners[c][1] += dy + (m[i].id == 2 ? dy2 : 0);
    }
}

/* A still camera (corners jittered by a fraction of a pixel, a marker
 * hidden, one marker's corners off) keeps its markers in place; a camera
 * moved by 3 pixels or half the markers moved does not, nor can one
 * marker in common tell. */
static void test_markers_in_place(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 15, 20, 0);
  cvw_marker base[4], obs[4];
  exact_markers(&cam, m, 4, base);
  memcpy(obs, base, sizeof obs);
  shift_corners(obs, 4, 0.3, -0.2, 0.4, 0);
  assert_true(cal_markers_in_place(base, 4, obs, 4, 1.5));
  assert_true(cal_markers_in_place(base, 4, obs, 3, 1.5)); /* marker 3 under a hand */
  assert_false(cal_markers_in_place(base, 4, obs, 1, 1.5));
  assert_false(cal_markers_in_place(base, 0, obs, 4, 1.5));
  memcpy(obs, base, sizeof obs);
  shift_corners(obs, 4, 3, 0, 0, 0);
  assert_false(cal_markers_in_place(base, 4, obs, 4, 1.5));
  memcpy(obs, base, sizeof obs);
  shift_corners(obs, 4, 0, 0, 0, 4);
  assert_true(cal_markers_in_place(base, 4, obs, 4, 1.5));
  assert_false(cal_markers_in_place(base, 4, obs + 1, 2, 1.5)); /* 1 : 1 */
  obs[1].corners[2][0] += 2;
  assert_false(cal_markers_in_place(base, 4, obs, 4, 1.5)); /* 2 : 2 */
}

/* A session gives back the corners it was given (no lens model), and a
 * copy of its fit maps as the fit does. */
static void test_session_markers_and_copy(void **state) {
  (void)state;
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 15, 20, 0);
  cvw_marker base[4], back[4];
  exact_markers(&cam, m, 4, base);
  cal_options opt;
  cal_options_default(&opt);
  cal_session *s;
  cal_calib *c = NULL;
  tp_error err;
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
  assert_int_equal(cal_session_add_markers(s, base, 4, cam.width, cam.height, "t", &err), TP_OK);
  assert_int_equal(cal_session_markers(s, back, 2), 4); /* more than the room given */
  assert_int_equal(cal_session_markers(s, back, 4), 4);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(back[i].id, base[i].id);
    assert_memory_equal(back[i].corners, base[i].corners, sizeof base[i].corners);
  }
  assert_int_equal(cal_session_solve(s, &c, &err), TP_OK);
  cal_session_destroy(s);
  cal_calib *copy = cal_calib_copy(c);
  assert_non_null(copy);
  for (int y = 0; y <= 600; y += 100)
    for (int x = 0; x <= 900; x += 100) {
      double t[2] = {x, y}, pa[2], pb[2];
      assert_true(cal_table_to_image(c, t, pa));
      assert_true(cal_table_to_image(copy, t, pb));
      assert_true(pa[0] == pb[0] && pa[1] == pb[1]);
    }
  assert_null(cal_calib_copy(NULL));
  cal_calib_destroy(copy);
  cal_calib_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_corners_give_exact_frame),
      cmocka_unit_test(test_rendered_photo_meets_accuracy_goal),
      cmocka_unit_test(test_missing_marker_is_a_warning),
      cmocka_unit_test(test_counter_clockwise_markers_warn),
      cmocka_unit_test(test_far_and_oblique_camera_warn),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_too_few_or_duplicated_markers),
      cmocka_unit_test(test_other_dictionary_is_named),
      cmocka_unit_test(test_lens_round_trip),
      cmocka_unit_test(test_markers_in_place),
      cmocka_unit_test(test_session_markers_and_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
