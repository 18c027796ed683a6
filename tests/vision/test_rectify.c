/* vis__rectify: the top-down table image from a photo and the table
 * mapping (coarse grid, strips, worker threads). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cvw.h"
#include "vision_internal.h"

/* A photo whose red channel is x and green channel is y (both < 256):
 * bilinear sampling of it returns the sampled position itself. */
static void ramp_photo(tp_image *img) {
  assert_int_equal(tp_image_alloc(img, 250, 200, 3), TP_OK);
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++) {
      uint8_t *p = tp_image_row(img, y) + 3 * x;
      p[0] = (uint8_t)x, p[1] = (uint8_t)y, p[2] = 100;
    }
}

/* Table mm -> photo px: a mild projective-looking map (bilinear in x, y,
 * so the grid interpolation is exact), undefined beyond y = 100 mm. */
static bool test_map(void *user, const double mm[2], double px[2]) {
  (void)user;
  if (mm[1] > 100) return false;
  px[0] = 3 + 0.9 * mm[0] + 0.0005 * mm[0] * mm[1];
  px[1] = 5 + 0.8 * mm[1];
  return true;
}

static void table_alloc(vis__table *t, int w, int h) {
  memset(t, 0, sizeof *t);
  t->px_per_mm = 2;
  t->x0_mm = 0;
  t->y0_mm = 0;
  assert_int_equal(tp_image_alloc(&t->rgb, w, h, 3), TP_OK);
  assert_int_equal(tp_image_alloc(&t->lab, w, h, 3), TP_OK);
}

static void table_free(vis__table *t) {
  tp_image_free(&t->rgb);
  tp_image_free(&t->lab);
  free(t->camera_mm);
}

static void test_positions_follow_the_map(void **state) {
  (void)state;
  tp_image photo;
  ramp_photo(&photo);
  vis__table t;
  table_alloc(&t, 301, 219); /* not a multiple of the grid or the strip */
  vis_table_map map = {test_map, NULL, {0, 0, 150, 109}};
  tp_error err;
  assert_int_equal(vis__rectify(&photo, &map, 1, &t, &err), TP_OK);
  int checked = 0, black = 0;
  for (int y = 0; y < t.rgb.height; y++)
    for (int x = 0; x < t.rgb.width; x++) {
      const uint8_t *p = tp_image_row(&t.rgb, y) + 3 * x;
      double mm[2] = {x / 2.0, y / 2.0}, px[2] = {0, 0};
      if (mm[1] > 100 + 4) { /* beyond the map's end (a grid cell of slack) */
        assert_true(p[0] == 0 && p[1] == 0 && p[2] == 0);
        black++;
        continue;
      }
      if (mm[1] > 100 - 4) continue; /* the cell across the map's end */
      assert_true(test_map(NULL, mm, px));
      assert_true(fabs(p[0] - px[0]) <= 1.0);
      assert_true(fabs(p[1] - px[1]) <= 1.0);
      assert_int_equal(p[2], 100);
      checked++;
    }
  assert_true(checked > 250 * 180);
  assert_true(black > 0);
  /* the Lab image was written too: lightness of a lit pixel, 0 where black */
  assert_true(tp_image_row(&t.lab, 10)[3 * 10] > 0);
  assert_int_equal(tp_image_row(&t.lab, t.lab.height - 1)[0], 0);
  table_free(&t);
  tp_image_free(&photo);
}

/* The photo's pixel size in table mm follows the map: at table pixel
 * (96, 96), 48 mm each way, the map's steps are 0.924 photo pixels per mm
 * along x and hypot(0.024, 0.8) along y; their geometric mean's inverse.
 * Where the map ends, and in a table not rectified, it is unknown (0). */
static void test_photo_pixel_size_follows_the_map(void **state) {
  (void)state;
  tp_image photo;
  ramp_photo(&photo);
  vis__table t;
  table_alloc(&t, 301, 219);
  assert_true(vis__camera_mm(&t, 96, 96) == 0);
  vis_table_map map = {test_map, NULL, {0, 0, 150, 109}};
  tp_error err;
  assert_int_equal(vis__rectify(&photo, &map, 2, &t, &err), TP_OK);
  double expected = 1 / sqrt(0.924 * hypot(0.024, 0.8));
  assert_true(fabs(vis__camera_mm(&t, 96, 96) - expected) < 1e-3);
  assert_true(fabs(vis__camera_mm(&t, 97, 95) - expected) < 1e-3); /* the nearest node */
  assert_true(vis__camera_mm(&t, 96, 216) == 0); /* 108 mm: beyond the map */
  assert_true(vis__camera_mm(&t, -50, 96) == 0); /* off the table image */
  table_free(&t);
  tp_image_free(&photo);
}

static void test_threads_give_the_same_image(void **state) {
  (void)state;
  tp_image photo;
  ramp_photo(&photo);
  vis_table_map map = {test_map, NULL, {0, 0, 150, 109}};
  vis__table a, b;
  table_alloc(&a, 290, 230);
  table_alloc(&b, 290, 230);
  tp_error err;
  assert_int_equal(vis__rectify(&photo, &map, 1, &a, &err), TP_OK);
  assert_int_equal(vis__rectify(&photo, &map, 3, &b, &err), TP_OK);
  for (int y = 0; y < a.rgb.height; y++) {
    assert_memory_equal(tp_image_row(&a.rgb, y), tp_image_row(&b.rgb, y), (size_t)a.rgb.width * 3);
    assert_memory_equal(tp_image_row(&a.lab, y), tp_image_row(&b.lab, y), (size_t)a.lab.width * 3);
  }
  table_free(&a);
  table_free(&b);
  tp_image_free(&photo);
}

/* The analyzer refuses thread counts it cannot honour. */
static void test_thread_setting_checked(void **state) {
  (void)state;
  vis_deck *deck = NULL;
  tp_error err;
  assert_int_equal(vis_deck_create(&deck, &err), TP_OK);
  vis_settings s;
  vis_settings_default(&s);
  assert_int_equal(s.threads, 1);
  s.threads = 0;
  vis_analyzer *an = NULL;
  assert_int_not_equal(vis_analyzer_create(deck, &s, &an, &err), TP_OK);
  assert_null(an);
  assert_non_null(strstr(err.text, "threads"));
  vis_deck_destroy(deck);
}

/* cvw_box_blur_rows: bands of rows (any split, one row each too) give
 * the whole image's blur byte for byte, the rows at the image's edges
 * included; bad arguments are refused. */
static void test_blur_bands_equal_whole(void **state) {
  (void)state;
  tp_image src = {0}, whole = {0}, bands = {0};
  assert_int_equal(tp_image_alloc(&src, 203, 157, 3), TP_OK);
  assert_int_equal(tp_image_alloc(&whole, 203, 157, 3), TP_OK);
  assert_int_equal(tp_image_alloc(&bands, 203, 157, 3), TP_OK);
  unsigned v = 12345;
  for (int y = 0; y < src.height; y++)
    for (int x = 0; x < 3 * src.width; x++) {
      v = v * 1103515245u + 12345u;
      tp_image_row(&src, y)[x] = (uint8_t)(v >> 16);
    }
  for (int radius = 1; radius <= 3; radius++) {
    for (int y = 0; y < src.height; y++)
      memcpy(tp_image_row(&whole, y), tp_image_row(&src, y), (size_t)src.width * 3);
    assert_int_equal(cvw_box_blur(&whole, radius, NULL), TP_OK);
    const int cuts[][5] = {{0, 1, 2, 156, 157}, {0, 13, 40, 100, 157}, {0, 78, 79, 80, 157}};
    for (int c = 0; c < 3; c++) {
      memset(bands.data, 0, (size_t)bands.stride * (size_t)bands.height);
      for (int k = 0; k < 4; k++)
        assert_int_equal(cvw_box_blur_rows(&src, &bands, radius, cuts[c][k], cuts[c][k + 1], NULL),
                         TP_OK);
      for (int y = 0; y < src.height; y++)
        assert_memory_equal(tp_image_row(&whole, y), tp_image_row(&bands, y), (size_t)src.width * 3);
    }
    for (int y = 0; y < src.height; y++) /* row by row */
      assert_int_equal(cvw_box_blur_rows(&src, &bands, radius, y, y + 1, NULL), TP_OK);
    for (int y = 0; y < src.height; y++)
      assert_memory_equal(tp_image_row(&whole, y), tp_image_row(&bands, y), (size_t)src.width * 3);
  }
  tp_error err;
  assert_int_not_equal(cvw_box_blur_rows(&src, &src, 2, 0, 10, &err), TP_OK);
  assert_int_not_equal(cvw_box_blur_rows(&src, &bands, 2, 10, 10, &err), TP_OK);
  assert_int_not_equal(cvw_box_blur_rows(&src, &bands, 2, -1, 10, &err), TP_OK);
  assert_int_not_equal(cvw_box_blur_rows(&src, &bands, 2, 0, 158, &err), TP_OK);
  tp_image_free(&src);
  tp_image_free(&whole);
  tp_image_free(&bands);
}

/* vis__box_blur_rows (plain C) is OpenCV's box filter byte for byte:
 * every radius up to 8 (9 and more go to OpenCV), random and saturated
 * images, images narrower and lower than the window, bands and single
 * rows. */
static void fill_random(tp_image *img, unsigned *v, int lo) {
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width * img->channels; x++) {
      *v = *v * 1103515245u + 12345u;
      tp_image_row(img, y)[x] = (uint8_t)(lo + (int)((*v >> 16) % (unsigned)(256 - lo)));
    }
}

static void blur_case(int w, int h, int cn, int radius, int lo, unsigned *v) {
  tp_image src = {0}, whole = {0}, mine = {0};
  assert_int_equal(tp_image_alloc(&src, w, h, cn), TP_OK);
  assert_int_equal(tp_image_alloc(&whole, w, h, cn), TP_OK);
  assert_int_equal(tp_image_alloc(&mine, w, h, cn), TP_OK);
  fill_random(&src, v, lo);
  for (int y = 0; y < h; y++)
    memcpy(tp_image_row(&whole, y), tp_image_row(&src, y), (size_t)w * cn);
  assert_int_equal(cvw_box_blur(&whole, radius, NULL), TP_OK);
  int cut = h / 3;
  if (cut > 0) assert_int_equal(vis__box_blur_rows(&src, &mine, radius, 0, cut, NULL), TP_OK);
  assert_int_equal(vis__box_blur_rows(&src, &mine, radius, cut, h, NULL), TP_OK);
  for (int y = 0; y < h; y++)
    assert_memory_equal(tp_image_row(&whole, y), tp_image_row(&mine, y), (size_t)w * cn);
  memset(mine.data, 0, (size_t)mine.stride * (size_t)h);
  for (int y = 0; y < h; y++)
    assert_int_equal(vis__box_blur_rows(&src, &mine, radius, y, y + 1, NULL), TP_OK);
  for (int y = 0; y < h; y++)
    assert_memory_equal(tp_image_row(&whole, y), tp_image_row(&mine, y), (size_t)w * cn);
  tp_image_free(&src);
  tp_image_free(&whole);
  tp_image_free(&mine);
}

/* An image (2r+1 rows, one channel) whose middle row's windows sum to
 * every value from 0 to 255 (2r+1)^2 in turn: each column sums to one
 * more than the column 2r+1 to its left. */
static void every_window_sum(int radius, tp_image *img) {
  int k = 2 * radius + 1, w = 255 * k * k + 2 * k;
  assert_int_equal(tp_image_alloc(img, w, k, 1), TP_OK);
  int *col = calloc((size_t)w, sizeof *col);
  assert_non_null(col);
  for (int x = k; x < w; x++) col[x] = col[x - k] + 1 > 255 * k ? 255 * k : col[x - k] + 1;
  for (int y = 0; y < k; y++)
    for (int x = 0; x < w; x++) {
      int v = col[x] - 255 * y;
      tp_image_row(img, y)[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  free(col);
}

static void test_blur_equals_opencv(void **state) {
  (void)state;
  for (int radius = 1; radius <= 7; radius++) { /* the division of every sum */
    tp_image src = {0}, whole = {0}, mine = {0};
    every_window_sum(radius, &src);
    assert_int_equal(tp_image_alloc(&whole, src.width, src.height, 1), TP_OK);
    assert_int_equal(tp_image_alloc(&mine, src.width, src.height, 1), TP_OK);
    for (int y = 0; y < src.height; y++)
      memcpy(tp_image_row(&whole, y), tp_image_row(&src, y), (size_t)src.width);
    assert_int_equal(cvw_box_blur(&whole, radius, NULL), TP_OK);
    assert_int_equal(vis__box_blur_rows(&src, &mine, radius, 0, src.height, NULL), TP_OK);
    for (int y = 0; y < src.height; y++)
      assert_memory_equal(tp_image_row(&whole, y), tp_image_row(&mine, y), (size_t)src.width);
    tp_image_free(&src);
    tp_image_free(&whole);
    tp_image_free(&mine);
  }
  unsigned v = 777;
  for (int radius = 0; radius <= 8; radius++) {
    blur_case(211, 67, 3, radius, 0, &v);
    blur_case(97, 41, 3, radius, 200, &v); /* bright: the sums where rounding differs */
    blur_case(5, 3, 3, radius, 0, &v);     /* smaller than the window */
    blur_case(1, 1, 3, radius, 0, &v);
    blur_case(33, 29, 1, radius, 0, &v);
  }
  tp_image a = {0}, b = {0};
  assert_int_equal(tp_image_alloc(&a, 20, 20, 3), TP_OK);
  assert_int_equal(tp_image_alloc(&b, 20, 20, 3), TP_OK);
  tp_error err;
  assert_int_not_equal(vis__box_blur_rows(&a, &a, 2, 0, 10, &err), TP_OK);
  assert_int_not_equal(vis__box_blur_rows(&a, &b, 2, 5, 5, &err), TP_OK);
  assert_int_not_equal(vis__box_blur_rows(&a, &b, -1, 0, 10, &err), TP_OK);
  assert_int_not_equal(vis__box_blur_rows(&a, &b, 2, 0, 21, &err), TP_OK);
  tp_image_free(&a);
  tp_image_free(&b);
}

/* The object mask's log odds blurred in bands of columns (on the workers)
 * equal the whole plane's blur bit for bit for radius 1 and 2: values of
 * every magnitude and sign, where a different order of the double sums
 * would round differently. */
static void test_blur_f32_cols_equal_whole(void **state) {
  (void)state;
  enum { W = 173, H = 61, STRIDE = 180 };
  float *src = malloc(sizeof(float) * STRIDE * H), *whole = malloc(sizeof(float) * STRIDE * H);
  float *cols = malloc(sizeof(float) * STRIDE * H);
  assert_non_null(src);
  assert_non_null(whole);
  assert_non_null(cols);
  unsigned v = 12345;
  for (int i = 0; i < STRIDE * H; i++) {
    v = v * 1103515245u + 12345u;
    int e = (int)(v >> 8) % 48 - 36; /* 2^-36 .. 2^11 */
    double m = 1 + (double)((v >> 3) & 1023) / 1024;
    src[i] = (v >> 20) % 7 == 0 ? 0.0f : (float)((v & 1 ? -1 : 1) * ldexp(m, e));
  }
  const int edges[] = {0, 1, 2, 5, 60, 61, 172, W};
  for (int radius = 1; radius <= 2; radius++) {
    memcpy(whole, src, sizeof(float) * STRIDE * H);
    assert_int_equal(cvw_box_blur_f32(whole, W, H, STRIDE, radius, NULL), TP_OK);
    memset(cols, 0, sizeof(float) * STRIDE * H);
    for (int b = 0; b + 1 < (int)(sizeof edges / sizeof *edges); b++)
      assert_int_equal(
          cvw_box_blur_f32_cols(src, cols, W, H, STRIDE, radius, edges[b], edges[b + 1], NULL),
          TP_OK);
    for (int y = 0; y < H; y++)
      assert_memory_equal(whole + y * STRIDE, cols + y * STRIDE, sizeof(float) * W);
  }
  tp_error err;
  assert_int_not_equal(cvw_box_blur_f32_cols(src, src, W, H, STRIDE, 1, 0, W, &err), TP_OK);
  assert_int_not_equal(cvw_box_blur_f32_cols(src, cols, W, H, STRIDE, 1, 5, 5, &err), TP_OK);
  assert_int_not_equal(cvw_box_blur_f32_cols(src, cols, W, H, STRIDE, 1, 0, W + 1, &err), TP_OK);
  free(src);
  free(whole);
  free(cols);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_positions_follow_the_map),
      cmocka_unit_test(test_photo_pixel_size_follows_the_map),
      cmocka_unit_test(test_threads_give_the_same_image),
      cmocka_unit_test(test_thread_setting_checked),
      cmocka_unit_test(test_blur_bands_equal_whole),
      cmocka_unit_test(test_blur_equals_opencv),
      cmocka_unit_test(test_blur_f32_cols_equal_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
