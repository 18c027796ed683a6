/* The V4L2 backend against a fake webcam behind cap__v4l2_sys: format
 * negotiation, mmap buffer handling, exposure locking, dropped frames,
 * corrupt MJPEG, unplugging and reconnecting, timeouts, busy devices. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cmocka.h>
#include <linux/videodev2.h>

#include "cap_internal.h"
#include "cvw.h"
#include "v4l2_sys.h"

enum { FAKE_FD = 42, FAKE_BUFS = 4, FAKE_MAX_LEN = 1 << 20 };

typedef struct {
  /* what the fake camera is */
  uint32_t formats[4];
  int nformats;
  int max_w, max_h;     /* S_FMT clamps to this */
  bool capture_cap;     /* has V4L2_CAP_VIDEO_CAPTURE */
  int open_errno;       /* open fails with this (0: works) */
  uint8_t luma;         /* Y of every YUYV frame */
  uint8_t *jpeg;        /* MJPEG frame */
  size_t jpeg_len;
  /* scripted trouble */
  int unplug_after;     /* frames until unplugged (0: never) */
  int failed_reopens;   /* opens that fail with ENOENT after unplugging */
  bool never_back;
  int timeouts;         /* blocking polls that time out */
  int seq_step;         /* sequence increment (1: no drops) */
  int burst;            /* frames that arrive per blocking poll */
  int error_every;      /* every n-th frame has V4L2_BUF_FLAG_ERROR */
  int corrupt_every;    /* every n-th MJPEG frame is garbage */
  /* state */
  bool open, unplugged, streaming;
  int width, height;
  uint32_t pixfmt;
  unsigned nbufs;
  uint8_t *mem[FAKE_BUFS];
  bool queued[FAKE_BUFS];
  unsigned next_buf;
  int pending;          /* frames ready to dequeue */
  uint32_t sequence;
  int frames;
  /* controls */
  int exposure_auto, exposure, autogain, gain, awb, wb_temp;
  int exposure_sets;    /* S_CTRL of the absolute exposure */
  /* counters */
  int opens, closes, maps, unmaps;
} fake_cam;

static int f_open(void *ctx, const char *path, int flags) {
  fake_cam *c = ctx;
  (void)flags;
  if (strcmp(path, "/dev/video9")) return errno = ENOENT, -1;
  if (c->open_errno) return errno = c->open_errno, -1;
  if (c->unplugged) {
    if (c->never_back || c->failed_reopens-- > 0) return errno = ENOENT, -1;
    c->unplugged = false;
  }
  c->open = true;
  c->opens++;
  return FAKE_FD;
}

static int f_close(void *ctx, int fd) {
  fake_cam *c = ctx;
  assert_int_equal(fd, FAKE_FD);
  c->open = false;
  c->streaming = false;
  c->closes++;
  return 0;
}

static int ioctl_fmt(fake_cam *c, unsigned long req, void *arg) {
  if (req == VIDIOC_ENUM_FMT) {
    struct v4l2_fmtdesc *d = arg;
    if ((int)d->index >= c->nformats) return errno = EINVAL, -1;
    d->pixelformat = c->formats[d->index];
    return 0;
  }
  struct v4l2_format *f = arg;
  if (req == VIDIOC_S_FMT) {
    bool known = false;
    for (int i = 0; i < c->nformats; i++) known |= c->formats[i] == f->fmt.pix.pixelformat;
    if (!known) f->fmt.pix.pixelformat = c->formats[0];
    if ((int)f->fmt.pix.width > c->max_w) f->fmt.pix.width = (uint32_t)c->max_w;
    if ((int)f->fmt.pix.height > c->max_h) f->fmt.pix.height = (uint32_t)c->max_h;
    c->width = (int)f->fmt.pix.width;
    c->height = (int)f->fmt.pix.height;
    c->pixfmt = f->fmt.pix.pixelformat;
  }
  f->fmt.pix.width = (uint32_t)(c->width ? c->width : 64);
  f->fmt.pix.height = (uint32_t)(c->height ? c->height : 48);
  f->fmt.pix.pixelformat = c->pixfmt ? c->pixfmt : c->formats[0];
  f->fmt.pix.bytesperline =
      f->fmt.pix.pixelformat == V4L2_PIX_FMT_YUYV ? f->fmt.pix.width * 2 : 0;
  return 0;
}

static int ioctl_bufs(fake_cam *c, unsigned long req, void *arg) {
  if (req == VIDIOC_REQBUFS) {
    struct v4l2_requestbuffers *r = arg;
    if (r->count == 0) return c->nbufs = 0, 0;
    c->nbufs = r->count > FAKE_BUFS ? FAKE_BUFS : r->count;
    r->count = c->nbufs;
    return 0;
  }
  struct v4l2_buffer *b = arg;
  if (b->index >= c->nbufs) return errno = EINVAL, -1;
  if (req == VIDIOC_QUERYBUF) {
    b->length = FAKE_MAX_LEN;
    b->m.offset = b->index * FAKE_MAX_LEN;
    return 0;
  }
  c->queued[b->index] = true; /* QBUF */
  return 0;
}

static void fill_buffer(fake_cam *c, unsigned i, struct v4l2_buffer *b) {
  c->frames++;
  b->bytesused = 0;
  b->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
  if (c->error_every && c->frames % c->error_every == 0)
    b->flags |= V4L2_BUF_FLAG_ERROR;
  if (c->pixfmt == V4L2_PIX_FMT_YUYV) {
    size_t n = (size_t)c->width * 2 * (size_t)c->height;
    for (size_t k = 0; k < n; k += 2) c->mem[i][k] = c->luma, c->mem[i][k + 1] = 128;
    b->bytesused = (uint32_t)n;
  } else if (c->corrupt_every && c->frames % c->corrupt_every == 0) {
    memset(c->mem[i], 0x5a, 300);
    b->bytesused = 300;
  } else {
    memcpy(c->mem[i], c->jpeg, c->jpeg_len);
    b->bytesused = (uint32_t)c->jpeg_len;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  b->timestamp.tv_sec = ts.tv_sec;
  b->timestamp.tv_usec = ts.tv_nsec / 1000;
  b->sequence = c->sequence;
  c->sequence += (uint32_t)(c->seq_step ? c->seq_step : 1);
}

static int ioctl_dqbuf(fake_cam *c, struct v4l2_buffer *b) {
  if (c->unplugged) return errno = ENODEV, -1;
  if (!c->streaming || c->pending == 0) return errno = EAGAIN, -1;
  for (unsigned k = 0; k < c->nbufs; k++) {
    unsigned i = (c->next_buf + k) % c->nbufs;
    if (!c->queued[i]) continue;
    c->queued[i] = false;
    c->next_buf = i + 1;
    c->pending--;
    b->index = i;
    fill_buffer(c, i, b);
    if (c->unplug_after && c->frames == c->unplug_after) c->unplugged = true;
    return 0;
  }
  return errno = EAGAIN, -1;
}

static int ioctl_ctrl(fake_cam *c, unsigned long req, struct v4l2_control *k) {
  int *v = k->id == V4L2_CID_EXPOSURE_AUTO ? &c->exposure_auto
           : k->id == V4L2_CID_EXPOSURE_ABSOLUTE ? &c->exposure
           : k->id == V4L2_CID_AUTOGAIN ? &c->autogain
           : k->id == V4L2_CID_GAIN ? &c->gain
           : k->id == V4L2_CID_AUTO_WHITE_BALANCE ? &c->awb
           : k->id == V4L2_CID_WHITE_BALANCE_TEMPERATURE ? &c->wb_temp
           : NULL;
  if (!v) return errno = EINVAL, -1;
  if (req == VIDIOC_G_CTRL) k->value = *v;
  else {
    *v = k->value;
    if (k->id == V4L2_CID_EXPOSURE_ABSOLUTE) c->exposure_sets++;
  }
  return 0;
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg) {
  fake_cam *c = ctx;
  assert_int_equal(fd, FAKE_FD);
  assert_true(c->open);
  if (c->unplugged && req != VIDIOC_STREAMOFF && req != VIDIOC_REQBUFS)
    return errno = ENODEV, -1;
  switch (req) {
  case VIDIOC_QUERYCAP: {
    struct v4l2_capability *cap = arg;
    strcpy((char *)cap->card, "Fake Cam");
    cap->capabilities = V4L2_CAP_STREAMING |
                        (c->capture_cap ? V4L2_CAP_VIDEO_CAPTURE : 0);
    return 0;
  }
  case VIDIOC_ENUM_FMT: case VIDIOC_G_FMT: case VIDIOC_S_FMT:
    return ioctl_fmt(c, req, arg);
  case VIDIOC_G_PARM: case VIDIOC_S_PARM: {
    struct v4l2_streamparm *p = arg;
    p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    p->parm.capture.timeperframe = (struct v4l2_fract){1, 25};
    return 0;
  }
  case VIDIOC_REQBUFS: case VIDIOC_QUERYBUF: case VIDIOC_QBUF:
    return ioctl_bufs(c, req, arg);
  case VIDIOC_DQBUF:
    return ioctl_dqbuf(c, arg);
  case VIDIOC_STREAMON:
    c->streaming = true;
    return 0;
  case VIDIOC_STREAMOFF:
    c->streaming = false;
    return 0;
  case VIDIOC_G_CTRL: case VIDIOC_S_CTRL:
    return ioctl_ctrl(c, req, arg);
  default:
    return errno = ENOTTY, -1;
  }
}

static void *f_mmap(void *ctx, size_t len, int prot, int flags, int fd,
                    off_t off) {
  fake_cam *c = ctx;
  (void)prot; (void)flags; (void)fd;
  assert_int_equal(len, FAKE_MAX_LEN);
  unsigned i = (unsigned)(off / FAKE_MAX_LEN);
  assert_true(i < FAKE_BUFS);
  c->mem[i] = malloc(len);
  c->maps++;
  return c->mem[i];
}

static int f_munmap(void *ctx, void *addr, size_t len) {
  fake_cam *c = ctx;
  (void)len;
  for (int i = 0; i < FAKE_BUFS; i++)
    if (c->mem[i] == addr) c->mem[i] = NULL;
  free(addr);
  c->unmaps++;
  return 0;
}

static int f_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout) {
  fake_cam *c = ctx;
  (void)n;
  fds->revents = 0;
  if (c->unplugged) return fds->revents = POLLERR, 1;
  if (timeout > 0) {
    if (c->timeouts > 0) return c->timeouts--, 0;
    c->pending += c->burst ? c->burst : 1;
  }
  if (c->pending == 0) return 0;
  fds->revents = POLLIN;
  return 1;
}

static void f_sleep(void *ctx, int ms) { (void)ctx; (void)ms; }

static cap__v4l2_sys fake_sys(fake_cam *c) {
  return (cap__v4l2_sys){c, f_open, f_close, f_ioctl, f_mmap, f_munmap, f_poll,
                         f_sleep};
}

static void fake_init(fake_cam *c, uint32_t fmt) {
  memset(c, 0, sizeof *c);
  c->formats[0] = fmt;
  c->nformats = 1;
  c->max_w = 64;
  c->max_h = 48;
  c->capture_cap = true;
  c->luma = 100;
  c->exposure_auto = V4L2_EXPOSURE_MANUAL;
  c->exposure = 333;
  c->gain = 7;
  c->wb_temp = 4600;
}

static cap_options test_options(void) {
  cap_options opt;
  cap_options_init(&opt);
  opt.settle_ms = 5000;
  opt.reconnect_ms = 2000;
  opt.timeout_ms = 50;
  return opt;
}

static tp_status open_fake(fake_cam *c, cap__v4l2_sys *sys, cap_options *opt,
                           cap_source **src, tp_error *err) {
  *sys = fake_sys(c);
  cap__hooks hooks = {sys, NULL};
  return cap__open_with(src, "v4l2:/dev/video9", opt, &hooks, err);
}

static void close_and_check(fake_cam *c, cap_source *src) {
  cap_close(src);
  assert_int_equal(c->maps, c->unmaps);
  assert_int_equal(c->opens, c->closes);
  assert_false(c->open);
}

static void yuyv_stream_settles_locks_and_hands_out_frames(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.width = 640, opt.height = 480; /* the fake clamps to 64x48 */
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  /* auto first, then locked at what the automatic had found */
  assert_int_equal(c.exposure_auto, V4L2_EXPOSURE_MANUAL);
  assert_int_equal(c.autogain, 0);
  assert_int_equal(c.awb, 0);
  assert_int_equal(c.exposure, 333);
  assert_true(c.exposure_sets >= 1);
  assert_true(c.frames >= 8); /* settling read frames first */
  cap_settings set;
  cap_get_settings(src, &set);
  assert_true(set.locked);
  assert_string_equal(set.format, "YUYV");
  assert_int_equal(set.width, 64);
  assert_int_equal(set.height, 48);
  assert_int_equal(set.white_balance_k, 4600);
  assert_true(set.exposure_us == 33300.0);
  cap_frame f;
  for (int i = 0; i < 20; i++) {
    assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
    assert_int_equal(f.sequence, (uint64_t)i);
    assert_int_equal(f.gray.width, 64);
    assert_int_equal(f.gray.channels, 1);
    assert_int_equal(tp_image_row(&f.gray, 47)[63], 100);
    assert_null(f.color.data);
  }
  cap_stats st;
  cap_get_stats(src, &st);
  assert_int_equal(st.delivered, 20);
  assert_int_equal(st.dropped, 0);
  close_and_check(&c, src);
}

static uint8_t *make_jpeg(uint8_t value, size_t *len) {
  tp_image img;
  assert_int_equal(tp_image_alloc(&img, 64, 48, 3), TP_OK);
  memset(img.data, value, (size_t)img.stride * 48);
  uint8_t *out;
  assert_int_equal(cvw_image_encode(&img, ".jpg", 95, &out, len, NULL), TP_OK);
  tp_image_free(&img);
  return out;
}

static void mjpeg_is_preferred_and_decoded_in_colour(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  c.formats[1] = V4L2_PIX_FMT_MJPEG;
  c.nformats = 2;
  c.jpeg = make_jpeg(180, &c.jpeg_len);
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.color = true;
  opt.lock = false;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  assert_int_equal(c.pixfmt, V4L2_PIX_FMT_MJPEG);
  cap_frame f;
  assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
  assert_int_equal(f.color.channels, 3);
  assert_in_range(tp_image_row(&f.color, 10)[30], 175, 185);
  assert_in_range(tp_image_row(&f.gray, 10)[10], 175, 185);
  close_and_check(&c, src);
  free(c.jpeg);
}

static void corrupt_and_error_frames_are_dropped_not_fatal(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_MJPEG);
  c.jpeg = make_jpeg(60, &c.jpeg_len);
  c.corrupt_every = 3;
  c.error_every = 5;
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.lock = false;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  cap_frame f;
  for (int i = 0; i < 30; i++) {
    assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
    assert_in_range(tp_image_row(&f.gray, 5)[5], 55, 65);
  }
  cap_stats st;
  cap_get_stats(src, &st);
  assert_true(st.dropped >= 10);
  close_and_check(&c, src);
  free(c.jpeg);
}

static void sequence_gaps_and_bursts_count_as_dropped(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  c.seq_step = 2; /* the camera lost every other frame */
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.lock = false;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  cap_frame f;
  for (int i = 0; i < 10; i++) assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
  cap_stats st;
  cap_get_stats(src, &st);
  assert_int_equal(st.dropped, 9);
  /* a slow reader: three frames waiting, the newest is handed out */
  c.seq_step = 1;
  c.burst = 3;
  uint64_t before = f.source_sequence;
  assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
  assert_int_equal(f.source_sequence, before + 4); /* after the step of 2 */
  cap_get_stats(src, &st);
  assert_int_equal(st.dropped, 9 + 3);
  close_and_check(&c, src);
}

static void unplugged_camera_reconnects(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  int sets_before = c.exposure_sets;
  c.unplug_after = c.frames + 3;
  c.failed_reopens = 2;
  cap_frame f;
  for (int i = 0; i < 10; i++) assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
  cap_stats st;
  cap_get_stats(src, &st);
  assert_int_equal(st.reconnects, 1);
  assert_int_equal(c.opens, 2);
  /* the locked exposure is applied again on the new device */
  assert_true(c.exposure_sets > sets_before);
  assert_int_equal(c.exposure_auto, V4L2_EXPOSURE_MANUAL);
  assert_int_equal(c.exposure, 333);
  close_and_check(&c, src);
}

static void camera_that_stays_away_gives_a_clear_error(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.lock = false;
  opt.reconnect_ms = 1500;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  c.unplug_after = c.frames + 2;
  c.never_back = true;
  cap_frame f;
  int rc;
  int frames = 0;
  while ((rc = cap_next(src, &f, &err)) == CAP_FRAME) frames++;
  assert_int_equal(frames, 2);
  assert_int_equal(rc, TP_ERR_IO);
  assert_non_null(strstr(err.text, "did not come back within 1500 ms"));
  assert_non_null(strstr(err.text, "/dev/video9"));
  assert_int_equal(cap_exit_code("v4l2:/dev/video9", rc), TP_EXIT_JOB);
  /* asking again does not hang or crash either */
  assert_true(cap_next(src, &f, &err) < 0);
  close_and_check(&c, src);
}

static void timeouts_restart_then_give_up(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  opt.lock = false;
  cap_source *src;
  tp_error err;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_OK);
  cap_frame f;
  c.timeouts = 1; /* one hiccup: restarted, frames again */
  assert_int_equal(cap_next(src, &f, &err), CAP_FRAME);
  cap_stats st;
  cap_get_stats(src, &st);
  assert_int_equal(st.timeouts, 1);
  assert_int_equal(st.reconnects, 1);
  c.timeouts = 1000; /* a dead camera: a few restarts, then an error */
  assert_int_equal(cap_next(src, &f, &err), TP_ERR_IO);
  assert_non_null(strstr(err.text, "gave no frame"));
  close_and_check(&c, src);
}

static void open_errors_say_what_to_do(void **state) {
  (void)state;
  fake_cam c;
  cap__v4l2_sys sys;
  cap_options opt = test_options();
  cap_source *src;
  tp_error err;
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  c.open_errno = EBUSY;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_ERR_IO);
  assert_null(src);
  assert_non_null(strstr(err.text, "busy"));
  c.open_errno = EACCES;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_ERR_IO);
  assert_non_null(strstr(err.text, "group 'video'"));
  fake_init(&c, V4L2_PIX_FMT_YUYV);
  c.capture_cap = false;
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.text, "cannot capture"));
  assert_int_equal(c.opens, c.closes);
  fake_init(&c, V4L2_PIX_FMT_H264);
  assert_int_equal(open_fake(&c, &sys, &opt, &src, &err), TP_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.text, "neither MJPEG nor YUYV"));
  assert_int_equal(c.opens, c.closes);
  cap__hooks hooks = {&sys, NULL};
  assert_int_equal(cap__open_with(&src, "v4l2:/dev/video3", &opt, &hooks, &err),
                   TP_ERR_NOTFOUND);
  assert_non_null(strstr(err.text, "no camera at /dev/video3"));
}

static void listing_shows_formats_and_sizes(void **state) {
  (void)state;
  fake_cam c;
  fake_init(&c, V4L2_PIX_FMT_MJPEG);
  cap__v4l2_sys sys = fake_sys(&c);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_int_equal(cap__v4l2_list(out, &sys), 1);
  fclose(out);
  assert_non_null(strstr(text, "v4l2:/dev/video9  Fake Cam"));
  assert_non_null(strstr(text, "MJPG"));
  free(text);
  assert_int_equal(c.opens, c.closes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(yuyv_stream_settles_locks_and_hands_out_frames),
      cmocka_unit_test(mjpeg_is_preferred_and_decoded_in_colour),
      cmocka_unit_test(corrupt_and_error_frames_are_dropped_not_fatal),
      cmocka_unit_test(sequence_gaps_and_bursts_count_as_dropped),
      cmocka_unit_test(unplugged_camera_reconnects),
      cmocka_unit_test(camera_that_stays_away_gives_a_clear_error),
      cmocka_unit_test(timeouts_restart_then_give_up),
      cmocka_unit_test(open_errors_say_what_to_do),
      cmocka_unit_test(listing_shows_formats_and_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
