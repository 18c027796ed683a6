/* Unit tests for cvw images: round trips, refusals of non-images,
 * truncated and oversized files, and a fuzz loop over mutated files. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cvw.h"

static char dir[64];

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/tp_cvw_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}

static const char *path_in(const char *name) {
  static char buf[128];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

/* A 40x30 RGB gradient with a colour patch, to see channel order. */
static void make_rgb(tp_image *img) {
  assert_int_equal(tp_image_alloc(img, 40, 30, 3), TP_OK);
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 40; x++) {
      uint8_t *p = tp_image_row(img, y) + 3 * x;
      p[0] = (uint8_t)(x * 6);
      p[1] = (uint8_t)(y * 8);
      p[2] = x < 10 ? 200 : 20;
    }
}

static void test_png_round_trip_is_exact(void **state) {
  (void)state;
  tp_image img, back;
  tp_error err;
  make_rgb(&img);
  assert_int_equal(cvw_image_write(path_in("a.PNG"), &img, 0, &err), TP_OK);
  assert_int_equal(cvw_image_read(path_in("a.PNG"), 3, &back, &err), TP_OK);
  assert_int_equal(back.width, 40);
  assert_int_equal(back.height, 30);
  for (int y = 0; y < 30; y++)
    assert_memory_equal(tp_image_row(&img, y), tp_image_row(&back, y), 120);
  tp_image_free(&back);
  assert_int_equal(cvw_image_read(path_in("a.PNG"), 1, &back, &err), TP_OK);
  assert_int_equal(back.channels, 1);
  tp_image_free(&back);
  tp_image_free(&img);
}

static void test_jpeg_round_trip_is_close(void **state) {
  (void)state;
  tp_image img, back;
  tp_error err;
  make_rgb(&img);
  assert_int_equal(cvw_image_write(path_in("a.jpg"), &img, 95, &err), TP_OK);
  assert_int_equal(cvw_image_read(path_in("a.jpg"), 3, &back, &err), TP_OK);
  /* Channel order survives: the red patch on the left stays red. */
  uint8_t *p = tp_image_row(&back, 15) + 3 * 3;
  assert_true(p[2] > 150);
  p = tp_image_row(&back, 15) + 3 * 30;
  assert_true(p[2] < 60);
  tp_image_free(&back);
  assert_int_equal(cvw_image_write(path_in("b.jpeg"), &img, 101, &err), TP_ERR_INVALID);
  tp_image_free(&img);
}

static void test_write_rejects_unknown_extension(void **state) {
  (void)state;
  tp_image img;
  tp_error err;
  make_rgb(&img);
  assert_int_equal(cvw_image_write(path_in("a.gif"), &img, 0, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "a.gif"));
  assert_int_equal(access(path_in("a.gif"), F_OK), -1);
  tp_image_free(&img);
}

static void write_bytes(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void test_read_refuses_non_images(void **state) {
  (void)state;
  tp_image img;
  tp_error err;
  write_bytes(path_in("text.png"), "hello, this is text\n", 20);
  assert_int_equal(cvw_image_read(path_in("text.png"), 1, &img, &err), TP_ERR_FORMAT);
  assert_non_null(strstr(err.text, "not an image"));
  assert_null(img.data);
  write_bytes(path_in("empty.png"), "", 0);
  assert_int_equal(cvw_image_read(path_in("empty.png"), 1, &img, &err), TP_ERR_FORMAT);
  assert_int_equal(cvw_image_read(path_in("missing.png"), 1, &img, &err), TP_ERR_IO);
  assert_non_null(strstr(err.text, "missing.png"));
}

static void test_read_refuses_truncated_files(void **state) {
  (void)state;
  tp_image img;
  tp_error err;
  make_rgb(&img);
  const char *exts[] = {"t.png", "t.jpg"};
  for (int k = 0; k < 2; k++) {
    uint8_t *data;
    size_t len;
    assert_int_equal(cvw_image_encode(&img, exts[k], 90, &data, &len, &err), TP_OK);
    write_bytes(path_in(exts[k]), data, len * 2 / 3);
    tp_image back;
    assert_int_equal(cvw_image_read(path_in(exts[k]), 3, &back, &err), TP_ERR_FORMAT);
    assert_non_null(strstr(err.text, "truncated"));
    free(data);
  }
  tp_image_free(&img);
}

static void test_read_refuses_huge_header(void **state) {
  (void)state;
  tp_image img;
  tp_error err;
  uint8_t *data;
  size_t len;
  tp_image small;
  make_rgb(&small);
  assert_int_equal(cvw_image_encode(&small, ".png", 0, &data, &len, &err), TP_OK);
  /* Claim 100000 x 100000 pixels in IHDR (CRC now wrong, but the size
   * check comes first and must refuse it). */
  const uint8_t big[4] = {0x00, 0x01, 0x86, 0xA0};
  memcpy(data + 16, big, 4);
  memcpy(data + 20, big, 4);
  assert_int_equal(cvw_image_decode(data, len, 1, "big.png", &img, &err), TP_ERR_FORMAT);
  assert_non_null(strstr(err.text, "megapixels"));
  free(data);
  tp_image_free(&small);
}

/* Thousands of mutated PNG/JPEG files: every one either decodes or fails
 * with a status and a message; none crashes or leaks (ASan build). */
static void test_fuzz_decode(void **state) {
  (void)state;
  tp_image small;
  tp_error err;
  make_rgb(&small);
  uint64_t seed = 12345;
  const char *exts[] = {".png", ".jpg"};
  int decoded = 0, refused = 0;
  for (int k = 0; k < 2; k++) {
    uint8_t *orig;
    size_t len;
    assert_int_equal(cvw_image_encode(&small, exts[k], 80, &orig, &len, &err), TP_OK);
    uint8_t *buf = malloc(len);
    for (int iter = 0; iter < 1500; iter++) {
      memcpy(buf, orig, len);
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      int flips = 1 + (int)((seed >> 33) % 8);
      for (int f = 0; f < flips; f++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[(seed >> 20) % len] = (uint8_t)(seed >> 45);
      }
      size_t cut = (iter % 7 == 0) ? (size_t)((seed >> 11) % len) : len;
      tp_image out;
      err.text[0] = 0;
      tp_status st = cvw_image_decode(buf, cut, 1 + 2 * (iter & 1), "fuzz", &out, &err);
      if (st == TP_OK) {
        decoded++;
        assert_true(out.width > 0 && out.height > 0);
        tp_image_free(&out);
      } else {
        refused++;
        assert_null(out.data);
        assert_true(strlen(err.text) > 0);
        assert_null(strchr(err.text, '\n'));
      }
    }
    free(buf);
    free(orig);
  }
  assert_true(refused > 0);
  assert_true(decoded + refused == 3000);
  tp_image_free(&small);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_png_round_trip_is_exact),
      cmocka_unit_test(test_jpeg_round_trip_is_close),
      cmocka_unit_test(test_write_rejects_unknown_extension),
      cmocka_unit_test(test_read_refuses_non_images),
      cmocka_unit_test(test_read_refuses_truncated_files),
      cmocka_unit_test(test_read_refuses_huge_header),
      cmocka_unit_test(test_fuzz_decode),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
