/* The libcamera backend's C side against a fake camera behind
 * cap__lcam_ops: settling until auto exposure converges, locking at the
 * values it found, handing out the Y plane without a copy, colour on
 * request, drops, timeouts, disconnects and reconnects, no camera. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cap_internal.h"
#include "libcamera_shim.h"

enum { W = 64, H = 48, STRIDE = 80 };

typedef struct {
  int open_rc;          /* what open returns */
  int converge_after;   /* frames until AE reports converged */
  int disconnect_at;    /* frame number that reports a disconnect (0: no) */
  int timeouts;         /* next calls that time out */
  int seq_step;
  uint8_t y[STRIDE * H], u[STRIDE / 2 * H / 2], v[STRIDE / 2 * H / 2];
  uint64_t sequence;
  int frames, opens, closes, locks, autos;
  bool is_open;
  cap__lcam_lock last_lock;
} fake_lcam;

static int f_open(void *ctx, const cap__lcam_config *cfg, void **cam,
                  char *msg, size_t len) {
  fake_lcam *f = ctx;
  assert_int_equal(cfg->index, 1);
  if (f->open_rc != CAP__LCAM_OK) {
    snprintf(msg, len, "fake: no camera");
    return f->open_rc;
  }
  assert_false(f->is_open); /* never two at once (one CameraManager) */
  f->is_open = true;
  f->opens++;
  *cam = f;
  return CAP__LCAM_OK;
}

static void f_describe(void *cam, char *model, size_t ml, char *format,
                       size_t fl, int *w, int *h, double *fps) {
  (void)cam;
  snprintf(model, ml, "imx708");
  snprintf(format, fl, "YUV420");
  *w = W, *h = H, *fps = 30;
}

static int f_next(void *cam, int timeout_ms, cap__lcam_frame *fr, char *msg,
                  size_t len) {
  fake_lcam *f = cam;
  (void)timeout_ms;
  if (f->timeouts > 0) {
    f->timeouts--;
    snprintf(msg, len, "fake: timeout");
    return CAP__LCAM_TIMEOUT;
  }
  f->frames++;
  if (f->disconnect_at && f->frames == f->disconnect_at) {
    snprintf(msg, len, "fake: gone");
    return CAP__LCAM_DISCONNECTED;
  }
  /* brightness creeps up until the automatic has converged */
  uint8_t level = (uint8_t)(f->frames < f->converge_after ? 40 + 5 * f->frames : 128);
  memset(f->y, level, sizeof f->y);
  memset(f->u, 128, sizeof f->u);
  memset(f->v, 128, sizeof f->v);
  *fr = (cap__lcam_frame){f->y, f->u, f->v, W, H, STRIDE, STRIDE / 2, false,
                          1000 + f->frames, f->sequence, f->frames >= f->converge_after,
                          10000 + f->frames, 2.5f, {1.8f, 1.4f}};
  f->sequence += (uint64_t)(f->seq_step ? f->seq_step : 1);
  return CAP__LCAM_OK;
}

static int f_set_lock(void *cam, const cap__lcam_lock *lock, char *msg,
                      size_t len) {
  fake_lcam *f = cam;
  (void)msg; (void)len;
  if (lock) f->locks++, f->last_lock = *lock;
  else f->autos++;
  return CAP__LCAM_OK;
}

static void f_close(void *cam) {
  fake_lcam *f = cam;
  f->is_open = false;
  f->closes++;
}

static int f_list(void *ctx, FILE *out, char *msg, size_t len) {
  (void)ctx; (void)msg; (void)len;
  fprintf(out, "libcamera:0  imx708\n");
  return 1;
}

static cap__lcam_ops fake_ops(fake_lcam *f) {
  return (cap__lcam_ops){f, f_open, f_describe, f_next, f_set_lock, f_close,
                         f_list};
}

static void fake_init(fake_lcam *f) {
  memset(f, 0, sizeof *f);
  f->converge_after = 12;
}

static tp_status open_fake(fake_lcam *f, cap__lcam_ops *ops, cap_options *opt,
                           cap_source **src, tp_error *err) {
  *ops = fake_ops(f);
  cap__hooks hooks = {NULL, ops};
  return cap__open_with(src, "libcamera:1", opt, &hooks, err);
}

static cap_options test_options(void) {
  cap_options opt;
  cap_options_init(&opt);
  opt.settle_ms = 10000;
  opt.reconnect_ms = 500; /* one attempt, 0.5 s */
  return opt;
}

static void settles_locks_and_hands_out_the_y_plane(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  cap__lcam_ops ops;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_OK);
  /* waited for convergence, then locked at the last frame's values */
  assert_int_equal(f.frames, f.converge_after);
  assert_int_equal(f.locks, 1);
  assert_int_equal(f.last_lock.exposure_us, 10000 + f.converge_after);
  assert_true(f.last_lock.gain == 2.5f);
  assert_true(f.last_lock.colour_gains[0] == 1.8f);
  cap_settings set;
  cap_get_settings(src, &set);
  assert_true(set.locked);
  assert_string_equal(set.camera, "imx708");
  assert_string_equal(set.format, "YUV420");
  cap_frame fr;
  assert_int_equal(cap_next(src, &fr, &err), CAP_FRAME);
  /* no copy: the gray image is the camera buffer's Y plane */
  assert_ptr_equal(fr.gray.data, f.y);
  assert_int_equal(fr.gray.stride, STRIDE);
  assert_int_equal(fr.gray.width, W);
  assert_null(fr.color.data);
  assert_int_equal(fr.sequence, 0);
  cap_close(src);
  assert_int_equal(f.closes, 1);
}

static void settling_gives_up_on_time_and_locks_anyway(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  f.converge_after = 1000000; /* never converges, brightness keeps moving */
  cap__lcam_ops ops;
  cap_options opt = test_options();
  opt.settle_ms = 100;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_OK);
  assert_int_equal(f.locks, 1);
  cap_close(src);
}

static void colour_is_converted_on_request(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  cap__lcam_ops ops;
  cap_options opt = test_options();
  opt.color = true;
  opt.lock = false;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_OK);
  cap_frame fr;
  for (int i = 0; i < 15; i++) assert_int_equal(cap_next(src, &fr, &err), CAP_FRAME);
  assert_int_equal(fr.color.channels, 3);
  /* Y=128, U=V=128 (BT.601 limited range) is a neutral grey of 130 */
  const uint8_t *px = tp_image_row(&fr.color, 20) + 3 * 30;
  assert_in_range(px[0], 128, 132);
  assert_in_range(px[1], 128, 132);
  assert_in_range(px[2], 128, 132);
  assert_int_equal(f.locks, 0);
  cap_close(src);
}

static void drops_timeouts_and_reconnects(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  f.converge_after = 1;
  cap__lcam_ops ops;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_OK);
  f.seq_step = 3;
  cap_frame fr;
  for (int i = 0; i < 5; i++) assert_int_equal(cap_next(src, &fr, &err), CAP_FRAME);
  cap_stats st;
  cap_get_stats(src, &st);
  assert_int_equal(st.dropped, 4 * 2 + 0);
  /* a disconnect: closed, reopened, the locked values applied again */
  f.seq_step = 1;
  f.disconnect_at = f.frames + 1;
  assert_int_equal(cap_next(src, &fr, &err), CAP_FRAME);
  cap_get_stats(src, &st);
  assert_int_equal(st.reconnects, 1);
  assert_int_equal(f.opens, 2);
  assert_int_equal(f.locks, 2);
  /* a timeout: counted and recovered */
  f.timeouts = 1;
  assert_int_equal(cap_next(src, &fr, &err), CAP_FRAME);
  cap_get_stats(src, &st);
  assert_int_equal(st.timeouts, 1);
  cap_close(src);
  assert_int_equal(f.opens, f.closes);
}

static void camera_gone_for_good_is_an_error(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  f.converge_after = 1;
  cap__lcam_ops ops;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_OK);
  f.timeouts = 1000;
  cap_frame fr;
  int rc = cap_next(src, &fr, &err);
  assert_true(rc < 0);
  assert_non_null(strstr(err.text, "imx708"));
  cap_close(src);
  assert_int_equal(f.opens, f.closes);
}

static void no_camera_and_busy_camera(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  cap__lcam_ops ops;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  f.open_rc = CAP__LCAM_NOTFOUND;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_ERR_NOTFOUND);
  assert_null(src);
  assert_int_equal(cap_exit_code("libcamera:1", TP_ERR_NOTFOUND), TP_EXIT_JOB);
  f.open_rc = CAP__LCAM_BUSY;
  assert_int_equal(open_fake(&f, &ops, &opt, &src, &err), TP_ERR_IO);
  assert_int_equal(f.opens, 0);
}

static void listing_goes_through_the_table(void **state) {
  (void)state;
  fake_lcam f;
  fake_init(&f);
  cap__lcam_ops ops = fake_ops(&f);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  tp_error err;
  assert_int_equal(cap__libcamera_list(out, &ops, &err), 1);
  fclose(out);
  assert_non_null(strstr(text, "imx708"));
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(settles_locks_and_hands_out_the_y_plane),
      cmocka_unit_test(settling_gives_up_on_time_and_locks_anyway),
      cmocka_unit_test(colour_is_converted_on_request),
      cmocka_unit_test(drops_timeouts_and_reconnects),
      cmocka_unit_test(camera_gone_for_good_is_an_error),
      cmocka_unit_test(no_camera_and_busy_camera),
      cmocka_unit_test(listing_goes_through_the_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
