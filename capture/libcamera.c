/* capture: Pi cameras through libcamera. The C++ shim does the camera; this
 * side hands the Y plane out as the gray image without a copy, converts to
 * RGB only on request, decides when exposure has settled, locks it, and
 * reopens a camera that went away. It only talks to cap__lcam_ops, which
 * tests replace with a fake camera. */
#define _DEFAULT_SOURCE /* POSIX clocks, strdup, V4L2 headers */
#include "cap_internal.h"
#include "libcamera_shim.h"

#include <stdlib.h>
#include <string.h>

enum { CAP_LCAM_RECONNECT_STEP_MS = 500, CAP_LCAM_MAX_RESTARTS = 3 };

typedef struct {
  const cap__lcam_ops *ops;
  void *cam;
  cap__lcam_config config;
  cap__lcam_frame last; /* metadata of the frame handed out last */
  bool have_lock;
  cap__lcam_lock lock; /* the locked values, re-applied after a reconnect */
  int failures;
} lcam_state;

static tp_status status_of(int rc) {
  switch (rc) {
  case CAP__LCAM_OK: return TP_OK;
  case CAP__LCAM_NOTFOUND: return TP_ERR_NOTFOUND;
  case CAP__LCAM_UNSUPPORTED: return TP_ERR_UNSUPPORTED;
  default: return TP_ERR_IO;
  }
}

static void describe(cap_source *src, lcam_state *st) {
  cap_settings *s = &src->settings;
  st->ops->describe(st->cam, s->camera, sizeof s->camera, s->format,
                    sizeof s->format, &s->width, &s->height, &s->fps);
}

static tp_status camera_open(cap_source *src, lcam_state *st, tp_error *err) {
  char msg[400] = "";
  int rc = st->ops->open(st->ops->ctx, &st->config, &st->cam, msg, sizeof msg);
  if (rc != CAP__LCAM_OK) {
    st->cam = NULL;
    return tp_error_set(err, status_of(rc), "%s", msg);
  }
  describe(src, st);
  return TP_OK;
}

static void camera_close(lcam_state *st) {
  if (st->cam) st->ops->close(st->cam);
  st->cam = NULL;
}

static void fill_frame(cap_source *src, lcam_state *st,
                       const cap__lcam_frame *f, cap_frame *frame) {
  /* The camera's own buffer: no copy. */
  frame->gray = (tp_image){(uint8_t *)f->y, f->width, f->height, f->y_stride,
                           1};
  frame->timestamp_ns = f->timestamp_ns;
  frame->source_sequence = f->sequence;
  st->last = *f;
  if (!src->opt.color || f->nv12 || !f->u || !f->v) return;
  if (cap__ensure_image(&src->color_buf, f->width, f->height, 3) != TP_OK)
    return;
  cap__i420_to_rgb(&frame->gray, f->u, f->v, f->uv_stride, &src->color_buf);
  frame->color = src->color_buf;
}

static tp_status reconnect(cap_source *src, lcam_state *st, const char *why,
                           tp_error *err) {
  camera_close(st);
  int attempts = src->opt.reconnect_ms / CAP_LCAM_RECONNECT_STEP_MS;
  if (src->opt.reconnect_ms > 0 && attempts == 0) attempts = 1;
  cap__log(src, TP_LOG_WARN, "camera %s: %s; reconnecting (up to %d ms)",
           src->settings.camera, why, src->opt.reconnect_ms);
  tp_error last = {{0}};
  for (int i = 0; i < attempts; i++) {
    cap__sleep_ns((int64_t)CAP_LCAM_RECONNECT_STEP_MS * 1000000);
    if (camera_open(src, st, &last) != TP_OK) continue;
    if (st->have_lock) {
      char msg[200];
      st->ops->set_lock(st->cam, &st->lock, msg, sizeof msg);
    }
    src->stats.reconnects++;
    cap__log(src, TP_LOG_INFO, "camera %s is back", src->settings.camera);
    return TP_OK;
  }
  return tp_error_set(err, TP_ERR_IO,
                      "camera %s: %s and it did not come back within %d ms%s%s",
                      src->settings.camera, why, src->opt.reconnect_ms,
                      last.text[0] ? ": " : "", last.text);
}

static int lcam_next(cap_source *src, cap_frame *frame, tp_error *err) {
  lcam_state *st = src->state;
  for (;;) {
    char msg[400] = "";
    cap__lcam_frame f;
    int rc = st->cam ? st->ops->next(st->cam, src->opt.timeout_ms, &f, msg,
                                     sizeof msg)
                     : CAP__LCAM_DISCONNECTED;
    if (rc == CAP__LCAM_OK) {
      st->failures = 0;
      fill_frame(src, st, &f, frame);
      return CAP_FRAME;
    }
    if (rc == CAP__LCAM_TIMEOUT) src->stats.timeouts++;
    if (rc != CAP__LCAM_TIMEOUT && rc != CAP__LCAM_DISCONNECTED)
      return tp_error_set(err, status_of(rc), "%s", msg);
    if (++st->failures > CAP_LCAM_MAX_RESTARTS)
      return tp_error_set(err, TP_ERR_IO,
                          "camera %s gave no frame after %d restarts; check "
                          "the ribbon cable",
                          src->settings.camera, CAP_LCAM_MAX_RESTARTS);
    tp_status s = reconnect(src, st,
                            rc == CAP__LCAM_TIMEOUT ? "no frame in time"
                                                    : "camera lost",
                            err);
    if (s != TP_OK) return s;
  }
}

static bool lcam_converged(cap_source *src) {
  const lcam_state *st = src->state;
  return st->last.ae_converged;
}

/* Locks at the values the automatic found for the last frame. */
static tp_status lcam_lock(cap_source *src, tp_error *err) {
  lcam_state *st = src->state;
  st->lock = (cap__lcam_lock){st->last.exposure_us, st->last.gain,
                              {st->last.colour_gains[0],
                               st->last.colour_gains[1]}};
  if (st->lock.exposure_us <= 0 && st->lock.gain <= 0)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "camera %s reports no exposure to lock",
                        src->settings.camera);
  char msg[400] = "";
  int rc = st->ops->set_lock(st->cam, &st->lock, msg, sizeof msg);
  if (rc != CAP__LCAM_OK) return tp_error_set(err, status_of(rc), "%s", msg);
  st->have_lock = true;
  src->settings.locked = true;
  src->settings.exposure_us = st->lock.exposure_us;
  src->settings.gain = st->lock.gain;
  src->settings.colour_gains[0] = st->lock.colour_gains[0];
  src->settings.colour_gains[1] = st->lock.colour_gains[1];
  return TP_OK;
}

static void lcam_close(void *state) {
  lcam_state *st = state;
  if (!st) return;
  camera_close(st);
  free(st);
}

static const cap__backend cap__lcam_backend = {"libcamera", lcam_next,
                                               lcam_close, lcam_lock,
                                               lcam_converged};

tp_status cap__open_libcamera(cap_source *src, tp_error *err) {
  const cap__lcam_ops *ops =
      src->hooks.lcam ? src->hooks.lcam : cap__lcam_real_ops();
  if (!ops)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "this teppich was built without libcamera "
                        "(-DTEPPICH_WITH_LIBCAMERA=OFF); use a v4l2: or "
                        "replay source, or rebuild with libcamera-dev");
  lcam_state *st = calloc(1, sizeof *st);
  if (!st) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  st->ops = ops;
  /* The Viewfinder role defaults to a small preview size on the Pi; cards
   * a metre away need more pixels. The pipeline adjusts it to the
   * nearest size the camera can give. */
  bool sized = src->opt.width > 0 && src->opt.height > 0;
  st->config = (cap__lcam_config){src->spec.path, src->spec.index,
                                  sized ? src->opt.width : 1920,
                                  sized ? src->opt.height : 1080,
                                  src->opt.fps};
  src->state = st;
  src->backend = &cap__lcam_backend;
  return camera_open(src, st, err);
}

int cap__libcamera_list(FILE *out, const cap__lcam_ops *ops, tp_error *err) {
  if (!ops) ops = cap__lcam_real_ops();
  if (!ops) {
    tp_error_set(err, TP_ERR_UNSUPPORTED, "built without libcamera");
    return -1;
  }
  char msg[400] = "";
  int n = ops->list(ops->ctx, out, msg, sizeof msg);
  if (n < 0) tp_error_set(err, TP_ERR_IO, "%s", msg);
  return n;
}

#ifndef CAP_HAVE_LIBCAMERA
/* Built without libcamera: no table, and the open above says so. */
const cap__lcam_ops *cap__lcam_real_ops(void) { return NULL; }
const char *cap__lcam_built_version(void) { return "none"; }
#endif
