/* capture: the numbers behind `teppich capture-bench`: per-frame cost of
 * each replay source, of the webcam conversions, and of the frame hand-off
 * (a view into the camera buffer against the copy it avoids). Timing is
 * printed, never asserted. */
#define _DEFAULT_SOURCE
#include "cap_internal.h"
#include "cvw.h"
#include "libcamera_shim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  int width, height;
  uint8_t *y, *u, *v;
  uint64_t sequence;
} bench_cam;

static int bench_open(void *ctx, const cap__lcam_config *cfg, void **cam,
                      char *msg, size_t len) {
  (void)cfg; (void)msg; (void)len;
  *cam = ctx;
  return CAP__LCAM_OK;
}
static void bench_describe(void *cam, char *model, size_t ml, char *format,
                           size_t fl, int *w, int *h, double *fps) {
  const bench_cam *c = cam;
  snprintf(model, ml, "bench");
  snprintf(format, fl, "YUV420");
  *w = c->width, *h = c->height, *fps = 0;
}
static int bench_next(void *cam, int timeout_ms, cap__lcam_frame *f,
                      char *msg, size_t len) {
  bench_cam *c = cam;
  (void)timeout_ms; (void)msg; (void)len;
  *f = (cap__lcam_frame){c->y, c->u, c->v, c->width, c->height, c->width,
                         c->width / 2, false, cap__now_ns(), c->sequence++,
                         true, 10000, 1, {1, 1}};
  return CAP__LCAM_OK;
}
static int bench_lock(void *cam, const cap__lcam_lock *l, char *m, size_t n) {
  (void)cam; (void)l; (void)m; (void)n;
  return CAP__LCAM_OK;
}
static void bench_close(void *cam) { (void)cam; }
static int bench_list(void *ctx, FILE *out, char *m, size_t n) {
  (void)ctx; (void)out; (void)m; (void)n;
  return 0;
}

static void row(FILE *out, const char *what, int64_t ns, int frames) {
  double ms = (double)ns / 1e6 / frames;
  fprintf(out, "  %-46s %9.4f ms %10.0f /s\n", what, ms, ms > 0 ? 1000 / ms : 0);
}

/* Reads every frame of a source as fast as possible. */
static tp_status time_source(FILE *out, const char *what, const char *source,
                             const cap_options *opt, const cap__hooks *hooks,
                             int frames, tp_error *err) {
  cap_source *src;
  int64_t t0 = cap__now_ns();
  tp_status st = cap__open_with(&src, source, opt, hooks, err);
  if (st != TP_OK) return st;
  cap_frame f;
  int n = 0;
  int rc = CAP_FRAME;
  while (n < frames && (rc = cap_next(src, &f, err)) == CAP_FRAME) n++;
  int64_t ns = cap__now_ns() - t0;
  cap_close(src);
  if (rc < 0) return (tp_status)rc;
  row(out, what, ns, n ? n : 1);
  return TP_OK;
}

static void bench_image(tp_image *img, int i) {
  for (int y = 0; y < img->height; y++) {
    uint8_t *r = tp_image_row(img, y);
    for (int x = 0; x < img->width * img->channels; x++)
      r[x] = (uint8_t)((x * 7 + y * 3 + i * 11) & 0xff);
  }
}

static tp_status write_raw(const char *path, const uint8_t *data, size_t len,
                           tp_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return tp_error_set(err, TP_ERR_IO, "cannot write %s: %s", path,
                              strerror(errno));
  size_t done = fwrite(data, 1, len, f);
  if (fclose(f) != 0 || done != len)
    return tp_error_set(err, TP_ERR_IO, "cannot write %s", path);
  return TP_OK;
}

/* frames copies of one encoded frame in folder/sub (the decoder's cost
 * does not depend on which frame it is). */
static tp_status make_frames(const char *folder, const char *sub,
                             const char *ext, const tp_image *img, int frames,
                             tp_error *err) {
  uint8_t *data;
  size_t len;
  tp_status st = cvw_image_encode(img, ext, 90, &data, &len, err);
  if (st != TP_OK) return st;
  char path[CAP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", folder, sub);
  mkdir(path, 0777);
  for (int i = 1; st == TP_OK && i <= frames; i++) {
    snprintf(path, sizeof path, "%s/%s/frame-%06d%s", folder, sub, i, ext);
    st = write_raw(path, data, len, err);
  }
  free(data);
  return st;
}

static tp_status make_video(const char *folder, tp_image *img, int frames,
                            tp_error *err) {
  char path[CAP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/clip.avi", folder);
  cvw_video_writer *w;
  tp_status st = cvw_video_writer_create(path, 30, img->width, img->height,
                                         &w, err);
  for (int i = 0; st == TP_OK && i < frames; i++) {
    bench_image(img, i);
    st = cvw_video_writer_write(w, img, err);
  }
  tp_status closed = cvw_video_writer_close(w, err);
  return st != TP_OK ? st : closed;
}

static tp_status replay_rows(FILE *out, const char *folder, int frames,
                             tp_error *err) {
  cap_options opt;
  cap_options_init(&opt);
  opt.fast = true;
  char src[CAP_PATH_MAX + 64];
  snprintf(src, sizeof src, "dir:%s/jpg", folder);
  tp_status st = time_source(out, "dir: JPEG, gray", src, &opt, NULL, frames, err);
  opt.color = true;
  if (st == TP_OK)
    st = time_source(out, "dir: JPEG, gray + colour", src, &opt, NULL, frames, err);
  opt.color = false;
  snprintf(src, sizeof src, "dir:%s/png", folder);
  if (st == TP_OK)
    st = time_source(out, "dir: PNG, gray", src, &opt, NULL, frames, err);
  snprintf(src, sizeof src, "video:%s/clip.avi", folder);
  if (st == TP_OK)
    st = time_source(out, "video: MJPEG .avi, gray", src, &opt, NULL, frames, err);
  if (st != TP_OK) return st;
  /* file: pays open and close for every frame */
  snprintf(src, sizeof src, "file:%s/jpg/frame-000001.jpg", folder);
  int64_t t0 = cap__now_ns();
  for (int i = 0; i < frames && st == TP_OK; i++) {
    cap_source *s;
    cap_frame f;
    st = cap_open(&s, src, &opt, err);
    if (st == TP_OK) cap_next(s, &f, err);
    cap_close(s);
  }
  if (st == TP_OK) row(out, "file: JPEG, open + frame + close", cap__now_ns() - t0, frames);
  return st;
}

/* What a webcam frame costs on top of the transfer. */
static tp_status conversion_rows(FILE *out, const tp_image *rgb, int frames,
                                 tp_error *err) {
  int w = rgb->width, h = rgb->height;
  uint8_t *jpeg;
  size_t len;
  tp_status st = cvw_image_encode(rgb, ".jpg", 85, &jpeg, &len, err);
  if (st != TP_OK) return st;
  tp_image gray = {0}, colour = {0};
  int64_t t0 = cap__now_ns();
  for (int i = 0; i < frames && st == TP_OK; i++)
    st = cap__jpeg_decode(jpeg, len, 1, &gray, err);
  if (st == TP_OK) row(out, "v4l2 MJPEG decode to gray (libjpeg)", cap__now_ns() - t0, frames);
  t0 = cap__now_ns();
  for (int i = 0; i < frames && st == TP_OK; i++)
    st = cap__jpeg_decode(jpeg, len, 3, &colour, err);
  if (st == TP_OK) row(out, "v4l2 MJPEG decode to RGB (libjpeg)", cap__now_ns() - t0, frames);
  free(jpeg);
  uint8_t *yuyv = malloc((size_t)w * 2 * (size_t)h);
  if (st == TP_OK && yuyv) {
    memset(yuyv, 100, (size_t)w * 2 * (size_t)h);
    t0 = cap__now_ns();
    for (int i = 0; i < frames; i++) cap__yuyv_to_gray(yuyv, w * 2, &gray);
    row(out, "v4l2 YUYV to gray", cap__now_ns() - t0, frames);
  }
  free(yuyv);
  tp_image_free(&gray);
  tp_image_free(&colour);
  return st;
}

/* A libcamera-like source on a fake camera: the hand-off is a view. */
static tp_status handoff_rows(FILE *out, int w, int h, int frames,
                              tp_error *err) {
  size_t luma = (size_t)w * (size_t)h;
  bench_cam cam = {w, h, calloc(luma, 1), calloc(luma / 4 + 1, 1),
                   calloc(luma / 4 + 1, 1), 0};
  tp_image copy = {0};
  tp_status st = cam.y && cam.u && cam.v ? tp_image_alloc(&copy, w, h, 1)
                                         : TP_ERR_NOMEM;
  cap__lcam_ops ops = {&cam, bench_open, bench_describe, bench_next,
                       bench_lock, bench_close, bench_list};
  cap__hooks hooks = {NULL, &ops};
  cap_options opt;
  cap_options_init(&opt);
  opt.lock = false;
  if (st == TP_OK)
    st = time_source(out, "hand-off: libcamera Y plane as view (no copy)",
                     "libcamera", &opt, &hooks, frames * 10, err);
  if (st == TP_OK) {
    int64_t t0 = cap__now_ns();
    for (int i = 0; i < frames * 10; i++) {
      for (int y = 0; y < h; y++)
        memcpy(tp_image_row(&copy, y), cam.y + (size_t)y * (size_t)w, (size_t)w);
    }
    row(out, "hand-off: the copy it avoids (memcpy Y plane)", cap__now_ns() - t0,
        frames * 10);
    opt.color = true;
    st = time_source(out, "hand-off: with colour (YUV420 to RGB)", "libcamera",
                     &opt, &hooks, frames, err);
  }
  tp_image_free(&copy);
  free(cam.y);
  free(cam.u);
  free(cam.v);
  return st == TP_ERR_NOMEM ? tp_error_set(err, st, "out of memory") : st;
}

tp_status cap_bench(FILE *out, const char *folder, int frames, int width,
                    int height, tp_error *err) {
  tp_image img;
  if (tp_image_alloc(&img, width, height, 3) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  bench_image(&img, 0);
  tp_status st = make_frames(folder, "jpg", ".jpg", &img, frames, err);
  if (st == TP_OK) st = make_frames(folder, "png", ".png", &img, frames, err);
  if (st == TP_OK) st = make_video(folder, &img, frames, err);
  fprintf(out, "capture-bench: %d frames of %dx%d per row (wall time per "
               "frame, lower is better)\n", frames, width, height);
  if (st == TP_OK) st = replay_rows(out, folder, frames, err);
  if (st == TP_OK) st = conversion_rows(out, &img, frames, err);
  if (st == TP_OK) st = handoff_rows(out, width, height, frames, err);
  tp_image_free(&img);
  return st;
}
