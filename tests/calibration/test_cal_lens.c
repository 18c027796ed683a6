/* Lens calibration end to end: photos of the printed ChArUco board are
 * rendered through a distorting lens from several angles; the lens model
 * fitted from them must match the lens, and the table calibration that
 * uses it must meet the accuracy goal. */
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

enum { PX_PER_MM = 8 };

typedef struct {
  tp_image board; /* the board as printed, PX_PER_MM */
} board_scene;

static uint8_t board_shade(const void *ctx, double x, double y) {
  const board_scene *b = ctx;
  int u = (int)floor(x * PX_PER_MM), v = (int)floor(y * PX_PER_MM);
  if (u >= 0 && v >= 0 && u < b->board.width && v < b->board.height)
    return tp_image_row(&b->board, v)[u] ? 225 : 25;
  return 228; /* the paper around it */
}

static void test_lens_from_rendered_board(void **state) {
  (void)state;
  cal_board board;
  cal_board_default(&board);
  tp_error err;
  cvw_dict *dict;
  cvw_charuco *charuco;
  assert_int_equal(cvw_dict_create(board.dict, &dict, &err), TP_OK);
  assert_int_equal(cvw_charuco_create(dict, board.squares_x, board.squares_y, board.square_mm,
                                      board.marker_mm, &charuco, &err), TP_OK);
  board_scene scene;
  double w_mm = board.squares_x * board.square_mm, h_mm = board.squares_y * board.square_mm;
  assert_int_equal(tp_image_alloc(&scene.board, (int)(w_mm * PX_PER_MM), (int)(h_mm * PX_PER_MM), 1),
                   TP_OK);
  assert_int_equal(cvw_charuco_draw(charuco, &scene.board, &err), TP_OK);

  cal_lens_session *s;
  assert_int_equal(cal_lens_session_create(&board, &s, &err), TP_OK);
  const double views[][3] = {{0, 0, 0},    {25, 0, 10},  {25, 90, -5}, {30, 180, 0},
                             {25, 270, 5}, {35, 45, 20}, {20, 225, -15}};
  synth_camera cam;
  for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
    memset(&cam, 0, sizeof cam);
    cam.width = 960;
    cam.height = 540;
    cam.f_px = 740;
    cam.k1 = -0.12;
    cam.k2 = 0.05;
    /* Board in different parts of the image, as the docs ask. */
    cam.target[0] = w_mm / 2 + 45 * cos(i * 1.3);
    cam.target[1] = h_mm / 2 + 30 * sin(i * 1.7);
    cam.distance = 220;
    cam.tilt_deg = views[i][0];
    cam.azimuth_deg = views[i][1];
    cam.roll_deg = views[i][2];
    synth_camera_init(&cam);
    tp_image img;
    assert_int_equal(synth_render(&cam, board_shade, &scene, 2, 0.6, 1.5, i + 1, &img), TP_OK);
    int corners;
    assert_int_equal(cal_lens_session_add(s, &img, "view", &corners, &err), TP_OK);
    assert_true(corners >= 12);
    tp_image_free(&img);
  }
  cal_lens lens;
  assert_int_equal(cal_lens_session_solve(s, &lens, &err), TP_OK);
  printf("lens: fx %.1f fy %.1f cx %.1f cy %.1f k1 %.4f k2 %.4f rms %.3f px (true f 740, "
         "centre 479.5 269.5, k1 -0.12, k2 0.05)\n",
         lens.fx, lens.fy, lens.cx, lens.cy, lens.k1, lens.k2, lens.rms_px);
  assert_true(fabs(lens.fx - 740) < 15 && fabs(lens.fy - 740) < 15);
  assert_true(fabs(lens.cx - 479.5) < 10 && fabs(lens.cy - 269.5) < 10);
  assert_true(lens.rms_px < 0.5);
  /* The model must undo the true lens where the table is seen. */
  cal_lens truth;
  synth_lens(&cam, &truth);
  double worst = 0;
  for (int y = 20; y < 540; y += 50)
    for (int x = 20; x < 960; x += 50) {
      double px[2] = {x, y}, ideal[2], back[2];
      cal_lens_undistort(&truth, px, ideal);
      cal_lens_distort(&lens, ideal, back);
      /* Same ideal ray through both models (focal lengths differ a bit):
       * compare the distorted pixels they predict. */
      double ideal2[2] = {(ideal[0] - truth.cx) / truth.fx * lens.fx + lens.cx,
                          (ideal[1] - truth.cy) / truth.fy * lens.fy + lens.cy};
      cal_lens_distort(&lens, ideal2, back);
      worst = fmax(worst, hypot(back[0] - x, back[1] - y));
    }
  printf("lens model vs true lens: worst %.3f px over the image\n", worst);
  assert_true(worst < 2.0); /* at the very image corners; ~0.1 px where the board was */
  cal_lens_session_destroy(s);
  tp_image_free(&scene.board);
  cvw_charuco_destroy(charuco);
  cvw_dict_destroy(dict);
}

static void test_lens_needs_three_views(void **state) {
  (void)state;
  cal_board board;
  cal_board_default(&board);
  cal_lens_session *s;
  tp_error err;
  assert_int_equal(cal_lens_session_create(&board, &s, &err), TP_OK);
  tp_image blank;
  assert_int_equal(tp_image_alloc(&blank, 320, 240, 1), TP_OK);
  memset(blank.data, 128, (size_t)blank.stride * 240);
  int corners = -1;
  assert_int_equal(cal_lens_session_add(s, &blank, "blank", &corners, &err), TP_OK);
  assert_int_equal(corners, 0);
  cal_lens lens;
  assert_int_equal(cal_lens_session_solve(s, &lens, &err), TP_ERR_NOTFOUND);
  assert_non_null(strstr(err.text, "at least 3"));
  cal_lens_session_destroy(s);
  board.squares_x = 2;
  assert_int_equal(cal_lens_session_create(&board, &s, &err), TP_ERR_INVALID);
  tp_image_free(&blank);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lens_from_rendered_board),
      cmocka_unit_test(test_lens_needs_three_views),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
