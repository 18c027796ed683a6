/* Source strings: the accepted forms, clear errors, and a fuzz run of
 * random and mutated strings (no crash, OK or a one-line error). Also the
 * shared command-line options. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"

static void accepted_forms(void **state) {
  (void)state;
  cap_spec s;
  tp_error err;
  assert_int_equal(cap_parse_source("libcamera", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_LIBCAMERA);
  assert_int_equal(s.index, -1);
  assert_string_equal(s.path, "");
  assert_int_equal(cap_parse_source("libcamera:2", &s, &err), TP_OK);
  assert_int_equal(s.index, 2);
  assert_int_equal(cap_parse_source("libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a",
                                    &s, &err), TP_OK);
  assert_int_equal(s.index, -1);
  assert_string_equal(s.path, "/base/soc/i2c0mux/i2c@1/imx708@1a");
  assert_int_equal(cap_parse_source("v4l2:/dev/video0", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_V4L2);
  assert_string_equal(s.path, "/dev/video0");
  assert_int_equal(cap_parse_source("v4l2:1", &s, &err), TP_OK);
  assert_string_equal(s.path, "/dev/video1");
  assert_int_equal(cap_parse_source("file:a/b.jpg", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_FILE);
  assert_string_equal(s.path, "a/b.jpg");
  assert_int_equal(cap_parse_source("dir:games/one@12.5", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_DIR);
  assert_string_equal(s.path, "games/one");
  assert_true(s.fps == 12.5);
  assert_int_equal(cap_parse_source("dir:games/one", &s, &err), TP_OK);
  assert_true(s.fps == 0);
  assert_int_equal(cap_parse_source("video:clip.avi", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_VIDEO);
  /* bare paths: a folder is dir:, anything else file: */
  assert_int_equal(cap_parse_source("/tmp", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_DIR);
  assert_int_equal(cap_parse_source("photo.jpg", &s, &err), TP_OK);
  assert_int_equal(s.kind, CAP_KIND_FILE);
  assert_int_equal(cap_parse_source("./odd:name.jpg", &s, &err), TP_OK);
}

static void rejected_forms(void **state) {
  (void)state;
  static const char *bad[] = {"", "libcamera:", "libcameraX", "v4l2:",
                              "file:", "video:", "dir:", "dir:x@", "dir:x@0",
                              "dir:x@-3", "dir:x@1e3", "dir:x@nan",
                              "dir:x@2000", "dir:x@.5", "webcam:0",
                              "http://cam/stream", "dir:a\nb"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cap_spec s;
    tp_error err = {{0}};
    assert_int_equal(cap_parse_source(bad[i], &s, &err), TP_ERR_INVALID);
    assert_true(strlen(err.text) > 10);
    assert_null(strchr(err.text, '\n'));
  }
  cap_spec s;
  assert_int_equal(cap_parse_source(NULL, &s, NULL), TP_ERR_INVALID);
  char longer[CAP_PATH_MAX + 40];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  memcpy(longer, "dir:", 4);
  assert_int_equal(cap_parse_source(longer, &s, NULL), TP_ERR_INVALID);
}

static uint32_t next_random(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

static void check_one(const char *text) {
  cap_spec s;
  tp_error err = {{0}};
  tp_status st = cap_parse_source(text, &s, &err);
  if (st == TP_OK) {
    assert_true(s.kind <= CAP_KIND_VIDEO);
    assert_true(strlen(s.path) < CAP_PATH_MAX);
    assert_true(s.fps >= 0 && s.fps <= 1000);
  } else {
    assert_int_equal(st, TP_ERR_INVALID);
    assert_true(err.text[0] != '\0');
    assert_null(strchr(err.text, '\n'));
  }
}

static void fuzz_random_and_mutated(void **state) {
  (void)state;
  static const char *seeds[] = {"libcamera:0", "libcamera:/base/x@1a",
                                "v4l2:/dev/video0", "dir:frames@10",
                                "file:x.png", "video:a.mp4", "dir:a@b@3"};
  static const char alphabet[] = "libcamerav4l2:dirfilevideo/@.0123456789x\\ \t";
  uint32_t rng = 0x12345678u;
  char buf[CAP_PATH_MAX + 64];
  for (int n = 0; n < 20000; n++) {
    size_t len;
    if (n % 2) { /* mutate a seed */
      const char *seed = seeds[next_random(&rng) % 7];
      len = strlen(seed);
      memcpy(buf, seed, len);
      for (int k = 0, m = 1 + (int)(next_random(&rng) % 4); k < m; k++) {
        size_t at = len ? next_random(&rng) % len : 0;
        buf[at] = (char)(next_random(&rng) % 3 ? alphabet[next_random(&rng) % (sizeof alphabet - 1)]
                                              : (char)(1 + next_random(&rng) % 255));
      }
    } else { /* random text, sometimes very long */
      len = next_random(&rng) % (n % 100 == 0 ? sizeof buf - 1 : 40);
      for (size_t k = 0; k < len; k++)
        buf[k] = next_random(&rng) % 8 ? alphabet[next_random(&rng) % (sizeof alphabet - 1)]
                                       : (char)(1 + next_random(&rng) % 255);
    }
    buf[len] = '\0';
    check_one(buf);
  }
}

static void shared_command_line_options(void **state) {
  (void)state;
  cap_options o;
  cap_options_init(&o);
  tp_error err;
  char *argv[] = {"x", "--size", "640x480", "--fps", "12.5", "--fast",
                  "--no-lock", "--color", "--timeout", "300", "--reconnect",
                  "0", "--other"};
  int argc = 13;
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 1, &err), 2);
  assert_int_equal(o.width, 640);
  assert_int_equal(o.height, 480);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 3, &err), 2);
  assert_true(o.fps == 12.5);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 5, &err), 1);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 6, &err), 1);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 7, &err), 1);
  assert_true(o.fast && !o.lock && o.color);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 8, &err), 2);
  assert_int_equal(o.timeout_ms, 300);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 10, &err), 2);
  assert_int_equal(o.reconnect_ms, 0);
  assert_int_equal(cap_options_parse_arg(&o, argc, argv, 12, &err), 0);
  static const char *bad[][2] = {{"--size", "640"}, {"--size", "x480"},
                                 {"--size", "640x"}, {"--size", "9x9"},
                                 {"--size", "640x480x2"}, {"--fps", "0"},
                                 {"--fps", "inf"}, {"--timeout", "-1"},
                                 {"--size", "99999999999x1"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *args[] = {(char *)bad[i][0], (char *)bad[i][1]};
    assert_int_equal(cap_options_parse_arg(&o, 2, args, 0, &err), -1);
    assert_non_null(strstr(err.text, bad[i][0]));
  }
  char *lonely[] = {"--fps"};
  assert_int_equal(cap_options_parse_arg(&o, 1, lonely, 0, &err), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accepted_forms),
      cmocka_unit_test(rejected_forms),
      cmocka_unit_test(fuzz_random_and_mutated),
      cmocka_unit_test(shared_command_line_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
