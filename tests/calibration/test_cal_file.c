/* Unit tests for the calibration file: round trips, every kind of
 * corrupt file, and a fuzz loop over mutated files. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene.h"

#define PI 3.14159265358979323846

/* A calibration from exact corners of the standard scene. */
static cal_calib *make_calib(bool with_lens) {
  synth_marker m[4];
  scene_markers(m, 40);
  synth_camera cam;
  scene_camera(&cam, 10, 30, with_lens ? -0.05 : 0);
  cvw_marker obs[4];
  for (int i = 0; i < 4; i++) {
    double h = 20, a = m[i].angle_deg * PI / 180;
    const double loc[4][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
    obs[i].id = i;
    for (int c = 0; c < 4; c++) {
      double t[2] = {m[i].center[0] + cos(a) * loc[c][0] - sin(a) * loc[c][1],
                     m[i].center[1] + sin(a) * loc[c][0] + cos(a) * loc[c][1]};
      assert_true(synth_project(&cam, t, obs[i].corners[c]));
    }
  }
  cal_options opt;
  cal_options_default(&opt);
  opt.has_lens = with_lens;
  synth_lens(&cam, &opt.lens);
  cal_session *s;
  cal_calib *c;
  tp_error err;
  assert_int_equal(cal_session_create(&opt, &s, &err), TP_OK);
  assert_int_equal(cal_session_add_markers(s, obs, 4, cam.width, cam.height, "t", &err), TP_OK);
  assert_int_equal(cal_session_solve(s, &c, &err), TP_OK);
  cal_session_destroy(s);
  return c;
}

static void assert_same_mapping(const cal_calib *a, const cal_calib *b) {
  for (int y = -100; y <= 700; y += 100)
    for (int x = -100; x <= 1000; x += 100) {
      double t[2] = {x, y}, pa[2], pb[2];
      assert_true(cal_table_to_image(a, t, pa));
      assert_true(cal_table_to_image(b, t, pb));
      assert_true(hypot(pa[0] - pb[0], pa[1] - pb[1]) < 1e-6);
    }
}

static void test_round_trip(void **state) {
  (void)state;
  char path[] = "/tmp/tp_calfile_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  for (int with_lens = 0; with_lens < 2; with_lens++) {
    cal_calib *c = make_calib(with_lens), *back;
    tp_error err;
    assert_int_equal(cal_calib_save(c, path, &err), TP_OK);
    assert_int_equal(cal_calib_load(path, &back, &err), TP_OK);
    assert_true(cal_calib_has_table(back));
    assert_same_mapping(c, back);
    assert_int_equal(cal_calib_lens(back, NULL), true); /* estimated or given */
    cal_marker_pose pa[4], pb[4];
    assert_int_equal(cal_calib_markers(back, pb, 4), 4);
    cal_calib_markers(c, pa, 4);
    for (int i = 0; i < 4; i++) {
      assert_int_equal(pa[i].id, pb[i].id);
      assert_true(fabs(pa[i].center_mm[0] - pb[i].center_mm[0]) < 1e-3);
    }
    assert_string_equal(cal_calib_dict(back), "4X4_50");
    assert_true(cal_calib_marker_mm(back) == 40);
    cal_calib_destroy(back);
    cal_calib_destroy(c);
  }
  unlink(path);
}

static void test_lens_only_file(void **state) {
  (void)state;
  cal_lens l = {1920, 1080, 1400, 1400, 960, 540, -0.1, 0.02, 0, 0, 0, 0.3, 12, false};
  cal_calib *c, *back;
  tp_error err;
  char *text;
  assert_int_equal(cal_calib_from_lens(&l, &c, &err), TP_OK);
  assert_int_equal(cal_calib_to_json(c, &text, &err), TP_OK);
  assert_int_equal(cal_calib_parse(text, strlen(text), "lens.json", &back, &err), TP_OK);
  assert_false(cal_calib_has_table(back));
  cal_lens lb;
  assert_true(cal_calib_lens(back, &lb));
  assert_true(lb.fx == 1400 && lb.k1 == -0.1 && lb.images == 12);
  double px[2] = {100, 100}, mm[2];
  assert_false(cal_image_to_table(back, px, mm));
  free(text);
  cal_calib_destroy(c);
  cal_calib_destroy(back);
}

static void expect_format_error(const char *text, const char *needle) {
  cal_calib *c = (cal_calib *)1;
  tp_error err;
  assert_int_equal(cal_calib_parse(text, strlen(text), "bad.json", &c, &err), TP_ERR_FORMAT);
  assert_null(c);
  if (!strstr(err.text, needle)) fail_msg("message '%s' lacks '%s'", err.text, needle);
  assert_non_null(strstr(err.text, "bad.json"));
  assert_null(strchr(err.text, '\n'));
}

static void test_corrupt_files(void **state) {
  (void)state;
  expect_format_error("", "not valid JSON");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1,", "not valid JSON");
  expect_format_error("[1,2,3]", "top level");
  expect_format_error("{\"format\": \"other\", \"version\": 1}", "format");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 7,"
                      " \"image_size\": [10, 10]}", "newer");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1.5}", "version");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1,"
                      " \"image_size\": [10]}", "image_size");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1,"
                      " \"image_size\": [10, 10]}", "table");
  const char *head = "{\"format\": \"teppich-calibration\", \"version\": 1, \"image_size\": "
                     "[1920, 1080], \"table\": {\"dictionary\": \"4X4_50\", \"marker_mm\": 40, "
                     "\"frame_ids\": [0,1,2,3], \"homography_table_to_image\": ";
  char buf[1024];
  snprintf(buf, sizeof buf, "%s[[1,0,0],[0,1,0],[0,0,1]]}}", head);
  expect_format_error(buf, "table.markers");
  snprintf(buf, sizeof buf, "%s[[1,2,0],[2,4,0],[0,0,1]], \"markers\": []}}", head);
  expect_format_error(buf, "not invertible");
  snprintf(buf, sizeof buf, "%s[[1,0,0],[0,1,0],[0,0,-1]], \"markers\": []}}", head);
  expect_format_error(buf, "h33");
  snprintf(buf, sizeof buf, "%s[[1,0,0],[0,1e999,0],[0,0,1]], \"markers\": []}}", head);
  expect_format_error(buf, "homography");
  snprintf(buf, sizeof buf, "%s[[1,0,0],[0,1,0],[0,0,1]], \"markers\": [{\"id\": -1}]}}", head);
  expect_format_error(buf, "table.markers[].id");
  snprintf(buf, sizeof buf, "%s[[1,0,0],[0,\"1\",0],[0,0,1]], \"markers\": []}}", head);
  expect_format_error(buf, "homography");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1, \"image_size\": "
                      "[1920, 1080], \"table\": {\"dictionary\": \"4X4_51\"}}", "dictionary");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1, \"image_size\": "
                      "[1920, 1080], \"table\": {\"dictionary\": \"4X4_50\", \"marker_mm\": 0}}",
                      "marker_mm");
  expect_format_error("{\"format\": \"teppich-calibration\", \"version\": 1, \"image_size\": "
                      "[1920, 1080], \"lens\": {\"model\": \"fisheye\"}}", "lens.model");
  /* Missing file: an I/O error, not a crash. */
  cal_calib *c;
  tp_error err;
  assert_int_equal(cal_calib_load("/nonexistent/calib.json", &c, &err), TP_ERR_IO);
}

static uint64_t next(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 17;
}

/* Mutations of a real file: flipped bytes, cut ends, duplicated spans,
 * JSON tokens dropped in. Every input is either read (then mapping works
 * without crashing) or refused with one line naming the file. */
static void test_fuzz_parser(void **state) {
  (void)state;
  cal_calib *c = make_calib(true);
  char *orig;
  tp_error err;
  assert_int_equal(cal_calib_to_json(c, &orig, &err), TP_OK);
  cal_calib_destroy(c);
  size_t len = strlen(orig);
  char *buf = malloc(2 * len + 64);
  static const char *tokens[] = {"null", "[]", "{}", "-1", "1e400", "\"x\"", "0", ",", "]", "}",
                                 "true", "-0", "1e-320", "[[[[", "\"\\u0000\""};
  uint64_t seed = 99;
  int ok = 0, refused = 0;
  for (int iter = 0; iter < 6000; iter++) {
    memcpy(buf, orig, len + 1);
    size_t n = len;
    int kind = (int)(next(&seed) % 4);
    int edits = 1 + (int)(next(&seed) % 4);
    for (int e = 0; e < edits && n > 0; e++) {
      size_t at = next(&seed) % n;
      if (kind == 0) {
        buf[at] = (char)(next(&seed) & 0xFF);
      } else if (kind == 1) {
        n = at;
      } else if (kind == 2) {
        const char *t = tokens[next(&seed) % (sizeof tokens / sizeof tokens[0])];
        size_t tl = strlen(t), cut = next(&seed) % 8;
        if (at + cut > n) cut = n - at;
        memmove(buf + at + tl, buf + at + cut, n - at - cut);
        memcpy(buf + at, t, tl);
        n = n + tl - cut;
        if (n > len + 32) n = len + 32;
      } else {
        size_t span = next(&seed) % 40;
        if (at + span > n) span = n - at;
        if (n + span < 2 * len + 32) {
          memmove(buf + at + span, buf + at, n - at);
          n += span;
        }
      }
    }
    buf[n] = 0;
    cal_calib *out = NULL;
    err.text[0] = 0;
    tp_status st = cal_calib_parse(buf, n, "fuzz.json", &out, &err);
    if (st == TP_OK) {
      ok++;
      double px[2] = {500, 500}, mm[2], back[2];
      if (cal_image_to_table(out, px, mm)) cal_table_to_image(out, mm, back);
      cal_marker_pose p[CAL_MAX_MARKERS];
      cal_calib_markers(out, p, CAL_MAX_MARKERS);
      char *text;
      assert_int_equal(cal_calib_to_json(out, &text, &err), TP_OK);
      free(text);
      cal_calib_destroy(out);
    } else {
      refused++;
      assert_int_equal(st, TP_ERR_FORMAT);
      assert_null(out);
      assert_non_null(strstr(err.text, "fuzz.json"));
      assert_null(strchr(err.text, '\n'));
    }
  }
  printf("fuzz: %d read, %d refused\n", ok, refused);
  assert_true(refused > 1000);
  assert_true(ok > 10);
  free(buf);
  free(orig);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_lens_only_file),
      cmocka_unit_test(test_corrupt_files),
      cmocka_unit_test(test_fuzz_parser),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
