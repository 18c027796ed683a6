/* Unit tests for the marker detector backends (cal_detect.c,
 * cal_apriltag.c): libapriltag must report OpenCV's ids and corners (same
 * order, same pixel convention) for every AprilTag dictionary, find small
 * tags, and be chosen only where it applies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

static const char *const kAprilDicts[] = {"APRILTAG_16h5", "APRILTAG_25h9", "APRILTAG_36h10",
                                          "APRILTAG_36h11"};

static cal_detector *make_detector(const cvw_dict *d, cal_backend backend) {
  cal_detector_params p;
  cal_detector_params_default(&p);
  p.backend = backend;
  cal_detector *det = NULL;
  tp_error err;
  assert_int_equal(cal_detector_create(d, &p, &det, &err), TP_OK);
  assert_int_equal(cal_detector_backend(det),
                   backend == CAL_BACKEND_AUTO ? CAL_BACKEND_APRILTAG : backend);
  return det;
}

static size_t detect(cal_detector *det, const tp_image *img, cvw_marker *m, size_t cap) {
  size_t n = 0;
  tp_error err;
  assert_int_equal(cal_detect_markers(det, img, m, cap, &n, &err), TP_OK);
  assert_true(n <= cap);
  return n;
}

/* The two backends agree marker by marker: same ids, corners within 1 px. */
static void assert_same_markers(const cvw_marker *a, size_t na, const cvw_marker *b, size_t nb) {
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(a[i].id, b[i].id);
    for (int c = 0; c < 4; c++)
      assert_true(hypot(a[i].corners[c][0] - b[i].corners[c][0],
                        a[i].corners[c][1] - b[i].corners[c][1]) < 1.0);
  }
}

/* Drawn markers (no perspective), ids spread over the whole family: both
 * backends must say the same, at the drawn corners. */
static void test_ids_and_corners_match_opencv(void **state) {
  (void)state;
  enum { COLS = 8, ROWS = 5, SIDE = 40, CELL = 64 };
  for (size_t k = 0; k < sizeof kAprilDicts / sizeof kAprilDicts[0]; k++) {
    cvw_dict *d;
    assert_int_equal(cvw_dict_create(kAprilDicts[k], &d, NULL), TP_OK);
    tp_image img;
    assert_int_equal(tp_image_alloc(&img, COLS * CELL, ROWS * CELL, 1), TP_OK);
    for (int y = 0; y < img.height; y++) memset(tp_image_row(&img, y), 255, (size_t)img.width);
    int count = cvw_dict_marker_count(d), n = count < COLS * ROWS ? count : COLS * ROWS;
    for (int i = 0; i < n; i++) { /* distinct ids from 0 to the last */
      int id = (int)((long)i * (count - 1) / (n - 1));
      tp_image cell = {tp_image_row(&img, (i / COLS) * CELL + 12) + (i % COLS) * CELL + 12, SIDE,
                       SIDE, img.stride, 1};
      assert_int_equal(cvw_marker_draw(d, id, &cell, NULL), TP_OK);
    }
    cal_detector *cv = make_detector(d, CAL_BACKEND_OPENCV);
    cal_detector *at = make_detector(d, CAL_BACKEND_APRILTAG);
    cvw_marker a[COLS * ROWS + 4], b[COLS * ROWS + 4];
    size_t na = detect(cv, &img, a, COLS * ROWS + 4), nb = detect(at, &img, b, COLS * ROWS + 4);
    assert_int_equal(na, n);
    assert_same_markers(a, na, b, nb);
    /* Exact geometry: the black square spans [12 - 0.5, 12 + 40 - 0.5]. */
    for (size_t i = 0; i < nb; i++) {
      double x0 = b[i].corners[0][0], y0 = b[i].corners[0][1];
      assert_true(fabs(fmod(x0 + 0.5, CELL) - 12) < 0.3);
      assert_true(fabs(fmod(y0 + 0.5, CELL) - 12) < 0.3);
      assert_true(fabs(b[i].corners[2][0] - x0 - SIDE) < 0.3);
    }
    cal_detector_destroy(cv);
    cal_detector_destroy(at);
    tp_image_free(&img);
    cvw_dict_destroy(d);
  }
}

enum { GRID = 4, N_MARKERS = GRID * GRID };

static void grid(synth_marker *m) {
  for (int i = 0; i < N_MARKERS; i++)
    m[i] = (synth_marker){i, {(i % GRID) * 104.0, (i / GRID) * 104.0}, (i * 47) % 360 + 3.5, 40};
}

/* A 640x480 photo of 16 markers of about side_px pixels, camera tilted. */
static void render_grid(const cvw_dict *d, double side_px, double blur, tp_image *img) {
  synth_marker m[N_MARKERS];
  grid(m);
  synth_camera cam = {.width = 640, .height = 480, .f_px = 1000, .target = {156, 156},
                      .distance = 1000 * 40 / side_px, .tilt_deg = 20, .azimuth_deg = 30,
                      .roll_deg = 5};
  synth_camera_init(&cam);
  synth_table table = {d, m, N_MARKERS, 0, {{0}}};
  assert_int_equal(synth_table_init(&table), TP_OK);
  assert_int_equal(synth_render(&cam, synth_table_shade, &table, 2, blur, 1, 3, img), TP_OK);
}

/* Clear perspective renders: same ids and corners within 1 px. */
static void test_clear_render_matches_opencv(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof kAprilDicts / sizeof kAprilDicts[0]; k++) {
    cvw_dict *d;
    assert_int_equal(cvw_dict_create(kAprilDicts[k], &d, NULL), TP_OK);
    tp_image img;
    render_grid(d, 36, 0.5, &img);
    cal_detector *cv = make_detector(d, CAL_BACKEND_OPENCV);
    cal_detector *at = make_detector(d, CAL_BACKEND_APRILTAG);
    cvw_marker a[24], b[24];
    size_t na = detect(cv, &img, a, 24), nb = detect(at, &img, b, 24);
    assert_int_equal(na, N_MARKERS);
    assert_same_markers(a, na, b, nb);
    cal_detector_destroy(cv);
    cal_detector_destroy(at);
    tp_image_free(&img);
    cvw_dict_destroy(d);
  }
}

/* Markers of ~12 px: libapriltag (and so the default, AUTO) finds nearly
 * all; OpenCV without its 2x pass (as on 1920x1080 frames) finds few. */
static void test_small_tags_found(void **state) {
  (void)state;
  cvw_dict *d;
  assert_int_equal(cvw_dict_create("APRILTAG_36h11", &d, NULL), TP_OK);
  tp_image img;
  render_grid(d, 12, 0, &img);
  cal_detector *at = make_detector(d, CAL_BACKEND_AUTO);
  cvw_marker m[24];
  size_t n = detect(at, &img, m, 24);
  assert_true(n >= 14);
  for (size_t i = 0; i < n; i++) assert_true(m[i].id >= 0 && m[i].id < N_MARKERS);
  cal_detector_params p;
  cal_detector_params_default(&p);
  p.backend = CAL_BACKEND_OPENCV;
  p.opencv.small_marker_pass = false;
  cal_detector *cv;
  assert_int_equal(cal_detector_create(d, &p, &cv, NULL), TP_OK);
  assert_true(detect(cv, &img, m, 24) < n);
  cal_detector_destroy(cv);
  cal_detector_destroy(at);
  tp_image_free(&img);
  cvw_dict_destroy(d);
}

/* RGB in gives what gray in gives; a short output buffer still counts. */
static void test_rgb_and_capacity(void **state) {
  (void)state;
  cvw_dict *d;
  assert_int_equal(cvw_dict_create("APRILTAG_25h9", &d, NULL), TP_OK);
  tp_image gray, rgb;
  render_grid(d, 30, 0.5, &gray);
  assert_int_equal(tp_image_alloc(&rgb, gray.width, gray.height, 3), TP_OK);
  for (int y = 0; y < gray.height; y++)
    for (int x = 0; x < gray.width; x++)
      memset(tp_image_row(&rgb, y) + 3 * x, tp_image_row(&gray, y)[x], 3);
  cal_detector *at = make_detector(d, CAL_BACKEND_APRILTAG);
  cvw_marker a[24], b[24];
  size_t na = detect(at, &gray, a, 24), nb = detect(at, &rgb, b, 24);
  assert_int_equal(na, N_MARKERS);
  assert_same_markers(a, na, b, nb);
  size_t n = 0;
  assert_int_equal(cal_detect_markers(at, &gray, a, 3, &n, NULL), TP_OK);
  assert_int_equal(n, N_MARKERS);
  assert_int_equal(a[0].id, 0);
  assert_int_equal(cal_detect_markers(at, &gray, NULL, 0, &n, NULL), TP_OK);
  assert_int_equal(n, N_MARKERS);
  cal_detector_destroy(at);
  tp_image_free(&rgb);
  tp_image_free(&gray);
  cvw_dict_destroy(d);
}

static void test_backend_choice_and_errors(void **state) {
  (void)state;
  cal_backend b;
  assert_true(cal_backend_parse("apriltag", &b) && b == CAL_BACKEND_APRILTAG);
  assert_true(cal_backend_parse("opencv", &b) && b == CAL_BACKEND_OPENCV);
  assert_true(cal_backend_parse("auto", &b) && b == CAL_BACKEND_AUTO);
  assert_false(cal_backend_parse("AprilTag2", &b));
  assert_false(cal_backend_parse(NULL, &b));
  assert_string_equal(cal_backend_name(CAL_BACKEND_APRILTAG), "apriltag");
  cvw_dict *aruco;
  assert_int_equal(cvw_dict_create("4X4_50", &aruco, NULL), TP_OK);
  cal_detector *det = NULL;
  assert_int_equal(cal_detector_create(aruco, NULL, &det, NULL), TP_OK);
  assert_int_equal(cal_detector_backend(det), CAL_BACKEND_OPENCV);
  cal_detector_destroy(det);
  cal_detector_params p;
  cal_detector_params_default(&p);
  p.backend = CAL_BACKEND_APRILTAG;
  tp_error err;
  assert_int_equal(cal_detector_create(aruco, &p, &det, &err), TP_ERR_UNSUPPORTED);
  assert_null(det);
  assert_non_null(strstr(err.text, "4X4_50"));
  cvw_dict *tag;
  assert_int_equal(cvw_dict_create("APRILTAG_16h5", &tag, NULL), TP_OK);
  p.april_decimate = 7;
  assert_int_equal(cal_detector_create(tag, &p, &det, &err), TP_ERR_INVALID);
  cal_detector_params_default(&p);
  p.backend = (cal_backend)9;
  assert_int_equal(cal_detector_create(tag, &p, &det, &err), TP_ERR_INVALID);
  assert_int_equal(cal_detector_create(tag, NULL, &det, &err), TP_OK);
  tp_image blank;
  assert_int_equal(tp_image_alloc(&blank, 64, 48, 1), TP_OK);
  for (int y = 0; y < blank.height; y++) memset(tp_image_row(&blank, y), 200, 64);
  size_t n = 5;
  assert_int_equal(cal_detect_markers(det, &blank, NULL, 0, &n, &err), TP_OK);
  assert_int_equal(n, 0);
  assert_int_equal(cal_detect_markers(det, NULL, NULL, 0, &n, &err), TP_ERR_INVALID);
  tp_image_free(&blank);
  cal_detector_destroy(det);
  cal_detector_destroy(NULL);
  cal_options opt;
  cal_options_default(&opt);
  assert_int_equal(opt.backend, CAL_BACKEND_AUTO);
  opt.backend = (cal_backend)-1;
  assert_int_equal(cal_options_check(&opt, &err), TP_ERR_INVALID);
  cvw_dict_destroy(tag);
  cvw_dict_destroy(aruco);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ids_and_corners_match_opencv),
      cmocka_unit_test(test_clear_render_matches_opencv),
      cmocka_unit_test(test_small_tags_found),
      cmocka_unit_test(test_rgb_and_capacity),
      cmocka_unit_test(test_backend_choice_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
