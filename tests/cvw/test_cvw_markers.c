/* Unit tests for cvw markers: dictionary names, drawing, and detection of
 * drawn markers at known positions (corner error in pixels). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"

static void test_dictionary_names(void **state) {
  (void)state;
  cvw_dict *d;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d, &err), TP_OK);
  assert_string_equal(cvw_dict_name(d), "4X4_50");
  assert_int_equal(cvw_dict_marker_count(d), 50);
  assert_int_equal(cvw_dict_marker_bits(d), 4);
  assert_false(cvw_dict_is_apriltag(d));
  cvw_dict_destroy(d);
  assert_int_equal(cvw_dict_create("dict_apriltag_36H11", &d, &err), TP_OK);
  assert_string_equal(cvw_dict_name(d), "APRILTAG_36h11");
  assert_int_equal(cvw_dict_marker_count(d), 587);
  assert_true(cvw_dict_is_apriltag(d));
  cvw_dict_destroy(d);
  assert_int_equal(cvw_dict_create("5X5_51", &d, &err), TP_ERR_INVALID);
  assert_null(d);
  assert_non_null(strstr(err.text, "5X5_51"));
  assert_int_equal(cvw_dict_create(NULL, &d, &err), TP_ERR_INVALID);
  int n = 0;
  for (const char *name; (name = cvw_dict_name_at(n)); n++) {
    assert_int_equal(cvw_dict_create(name, &d, &err), TP_OK);
    assert_string_equal(cvw_dict_name(d), name);
    cvw_dict_destroy(d);
  }
  assert_true(n >= 21);
  cvw_dict_destroy(NULL);
}

static void test_draw_marker(void **state) {
  (void)state;
  cvw_dict *d;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d, &err), TP_OK);
  tp_image img;
  assert_int_equal(tp_image_alloc(&img, 61, 61, 1), TP_OK);
  memset(img.data, 128, (size_t)img.stride * 61);
  assert_int_equal(cvw_marker_draw(d, 7, &img, &err), TP_OK);
  int white = 0;
  for (int y = 0; y < 61; y++)
    for (int x = 0; x < 61; x++) {
      uint8_t v = tp_image_row(&img, y)[x];
      assert_true(v == 0 || v == 255);
      bool border = x < 6 || y < 6 || x > 54 || y > 54; /* 61/6 ~ 10 px cells */
      if (border) assert_int_equal(v, 0);
      white += v == 255;
    }
  assert_true(white > 0);
  assert_int_equal(cvw_marker_draw(d, 50, &img, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "50"));
  tp_image_free(&img);
  assert_int_equal(tp_image_alloc(&img, 5, 5, 1), TP_OK);
  assert_int_equal(cvw_marker_draw(d, 0, &img, &err), TP_ERR_INVALID);
  tp_image_free(&img);
  cvw_dict_destroy(d);
}

typedef struct {
  int id, x, y, side;
} placed;

static const placed scene[] = {
    {0, 40, 50, 60}, {1, 300, 40, 73}, {3, 500, 300, 101}, {2, 60, 330, 88}, {9, 250, 240, 41}};
enum { SCENE_N = sizeof scene / sizeof scene[0] };

/* White 640x480 with the markers of `scene` drawn into views of it. */
static void draw_scene(const cvw_dict *d, tp_image *img) {
  tp_error err;
  assert_int_equal(tp_image_alloc(img, 640, 480, 1), TP_OK);
  memset(img->data, 255, (size_t)img->stride * 480);
  for (int i = 0; i < SCENE_N; i++) {
    tp_image view = {tp_image_row(img, scene[i].y) + scene[i].x, scene[i].side,
                     scene[i].side, img->stride, 1};
    assert_int_equal(cvw_marker_draw(d, scene[i].id, &view, &err), TP_OK);
  }
}

/* 3x3 box blur, twice: a soft, symmetric edge as from a slightly
 * defocused lens; the geometric corner stays where it was. */
static void blur(tp_image *img) {
  tp_image tmp;
  assert_int_equal(tp_image_alloc(&tmp, img->width, img->height, 1), TP_OK);
  for (int pass = 0; pass < 2; pass++) {
    for (int y = 0; y < img->height; y++)
      for (int x = 0; x < img->width; x++) {
        int sum = 0;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int yy = y + dy < 0 ? 0 : y + dy >= img->height ? img->height - 1 : y + dy;
            int xx = x + dx < 0 ? 0 : x + dx >= img->width ? img->width - 1 : x + dx;
            sum += tp_image_row(img, yy)[xx];
          }
        tp_image_row(&tmp, y)[x] = (uint8_t)((sum + 4) / 9);
      }
    for (int y = 0; y < img->height; y++)
      memcpy(tp_image_row(img, y), tp_image_row(&tmp, y), (size_t)img->width);
  }
  tp_image_free(&tmp);
}

/* Detects the scene and returns the largest corner error in pixels. */
static double max_corner_error(const cvw_dict *d, const tp_image *img,
                               const cvw_detector_params *params) {
  cvw_detector *det;
  tp_error err;
  assert_int_equal(cvw_detector_create(d, params, &det, &err), TP_OK);
  cvw_marker found[16];
  size_t n;
  assert_int_equal(cvw_detect_markers(det, img, found, 16, &n, &err), TP_OK);
  assert_int_equal(n, SCENE_N);
  double worst = 0;
  for (int i = 0; i < SCENE_N; i++) {
    const cvw_marker *m = NULL;
    for (size_t k = 0; k < n; k++)
      if (found[k].id == scene[i].id) m = &found[k];
    assert_non_null(m);
    double x0 = scene[i].x - 0.5, y0 = scene[i].y - 0.5, s = scene[i].side;
    double want[4][2] = {{x0, y0}, {x0 + s, y0}, {x0 + s, y0 + s}, {x0, y0 + s}};
    for (int c = 0; c < 4; c++) {
      double e = hypot(m->corners[c][0] - want[c][0], m->corners[c][1] - want[c][1]);
      if (e > worst) worst = e;
    }
  }
  /* Sorted by id. */
  for (size_t k = 1; k < n; k++) assert_true(found[k - 1].id <= found[k].id);
  cvw_detector_destroy(det);
  return worst;
}

static void test_detect_sharp_and_blurred(void **state) {
  (void)state;
  cvw_dict *d;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d, &err), TP_OK);
  tp_image img;
  draw_scene(d, &img);
  cvw_detector_params opencv;
  cvw_detector_params_opencv(&opencv);
  double e_cv = max_corner_error(d, &img, &opencv);
  double e_tp = max_corner_error(d, &img, NULL);
  printf("sharp: max corner error opencv-default %.3f px, teppich %.3f px\n", e_cv, e_tp);
  assert_true(e_cv < 1.0);
  assert_true(e_tp < 0.25);
  blur(&img);
  e_cv = max_corner_error(d, &img, &opencv);
  e_tp = max_corner_error(d, &img, NULL);
  printf("blurred: max corner error opencv-default %.3f px, teppich %.3f px\n", e_cv, e_tp);
  assert_true(e_tp < 0.5);
  assert_true(e_tp <= e_cv);
  tp_image_free(&img);
  cvw_dict_destroy(d);
}

static void test_detect_reports_count_beyond_capacity(void **state) {
  (void)state;
  cvw_dict *d;
  cvw_detector *det;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d, &err), TP_OK);
  tp_image img;
  draw_scene(d, &img);
  assert_int_equal(cvw_detector_create(d, NULL, &det, &err), TP_OK);
  cvw_dict_destroy(d); /* the detector keeps its own copy */
  cvw_marker two[2];
  size_t n;
  assert_int_equal(cvw_detect_markers(det, &img, two, 2, &n, &err), TP_OK);
  assert_int_equal(n, SCENE_N);
  assert_int_equal(two[0].id, 0);
  assert_int_equal(two[1].id, 1);
  assert_int_equal(cvw_detect_markers(det, &img, NULL, 0, &n, &err), TP_OK);
  assert_int_equal(n, SCENE_N);
  cvw_detector_destroy(det);
  tp_image_free(&img);
}

static void test_other_dictionary_finds_nothing(void **state) {
  (void)state;
  cvw_dict *d4, *d6;
  cvw_detector *det;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d4, &err), TP_OK);
  assert_int_equal(cvw_dict_create("6X6_250", &d6, &err), TP_OK);
  tp_image img;
  draw_scene(d4, &img);
  assert_int_equal(cvw_detector_create(d6, NULL, &det, &err), TP_OK);
  size_t n;
  cvw_marker m[8];
  assert_int_equal(cvw_detect_markers(det, &img, m, 8, &n, &err), TP_OK);
  assert_int_equal(n, 0);
  cvw_detector_params bad;
  cvw_detector_params_default(&bad);
  bad.min_perimeter_rate = -1;
  cvw_detector *det2;
  assert_int_equal(cvw_detector_create(d6, &bad, &det2, &err), TP_ERR_INVALID);
  assert_null(det2);
  cvw_detector_destroy(det);
  cvw_detector_destroy(NULL);
  tp_image_free(&img);
  cvw_dict_destroy(d4);
  cvw_dict_destroy(d6);
}

/* Markers found with the given needed ids (none: n_needed 0), into out;
 * small_pass: cvw_detector_params.small_marker_pass. */
static size_t detect_needing(const cvw_dict *d, const tp_image *img, const int *needed,
                             int n_needed, bool small_pass, cvw_marker *out, size_t cap) {
  cvw_detector_params p;
  cvw_detector_params_default(&p);
  p.small_marker_pass = small_pass;
  for (int i = 0; i < n_needed; i++) p.needed_ids[i] = needed[i];
  p.n_needed = n_needed;
  cvw_detector *det;
  tp_error err;
  assert_int_equal(cvw_detector_create(d, &p, &det, &err), TP_OK);
  size_t n;
  assert_int_equal(cvw_detect_markers(det, img, out, cap, &n, &err), TP_OK);
  assert_true(n <= cap);
  cvw_detector_destroy(det);
  return n;
}

/* The same markers, in the same order, corner for corner. */
static void assert_same_markers(const cvw_marker *a, size_t n_a, const cvw_marker *b, size_t n_b) {
  assert_int_equal(n_a, n_b);
  for (size_t k = 0; k < n_a; k++) {
    assert_int_equal(a[k].id, b[k].id);
    assert_memory_equal(a[k].corners, b[k].corners, sizeof a[k].corners);
  }
}

static const cvw_marker *with_id(const cvw_marker *m, size_t n, int id) {
  for (size_t k = 0; k < n; k++)
    if (m[k].id == id) return &m[k];
  return NULL;
}

/* Once the first pass found every needed id, the 2x pass is skipped: the
 * markers are the first pass's alone, and the needed ones corner for
 * corner what the 2x pass leaves them (it only adds ids; here a blurred
 * 16 px marker, which with OpenCV 4.6 only the 2x pass finds). With a
 * needed id the first pass misses, the 2x pass runs as without needed ids. */
static void test_needed_ids_skip_the_small_marker_pass(void **state) {
  (void)state;
  cvw_dict *d;
  tp_error err;
  assert_int_equal(cvw_dict_create("4X4_50", &d, &err), TP_OK);
  tp_image img;
  draw_scene(d, &img);
  tp_image tiny = {tp_image_row(&img, 420) + 400, 16, 16, img.stride, 1};
  assert_int_equal(cvw_marker_draw(d, 7, &tiny, &err), TP_OK);
  blur(&img);
  cvw_marker all[16], first[16], frame[16], missing[16];
  const int ids[4] = {0, 1, 2, 3}, ids_missing[4] = {0, 1, 2, 44};
  size_t n_all = detect_needing(d, &img, NULL, 0, true, all, 16);
  size_t n_first = detect_needing(d, &img, NULL, 0, false, first, 16);
  size_t n_frame = detect_needing(d, &img, ids, 4, true, frame, 16);
  size_t n_missing = detect_needing(d, &img, ids_missing, 4, true, missing, 16);
  assert_same_markers(frame, n_frame, first, n_first);
  for (int i = 0; i < 4; i++) {
    const cvw_marker *a = with_id(all, n_all, ids[i]), *b = with_id(frame, n_frame, ids[i]);
    assert_non_null(a);
    assert_non_null(b);
    assert_memory_equal(a->corners, b->corners, sizeof a->corners);
  }
  assert_same_markers(missing, n_missing, all, n_all);
  printf("needed ids found first: %zu markers without the 2x pass, %zu with it\n", n_frame,
         n_all);
  cvw_detector_params bad;
  cvw_detector_params_default(&bad);
  bad.n_needed = 5;
  cvw_detector *det = NULL;
  assert_int_equal(cvw_detector_create(d, &bad, &det, &err), TP_ERR_INVALID);
  assert_null(det);
  tp_image_free(&img);
  cvw_dict_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dictionary_names),
      cmocka_unit_test(test_draw_marker),
      cmocka_unit_test(test_detect_sharp_and_blurred),
      cmocka_unit_test(test_detect_reports_count_beyond_capacity),
      cmocka_unit_test(test_other_dictionary_finds_nothing),
      cmocka_unit_test(test_needed_ids_skip_the_small_marker_pass),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
