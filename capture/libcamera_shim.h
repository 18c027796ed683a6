/* capture: the C face of the libcamera C++ shim (libcamera_shim.cpp).
 * Private to capture/ and its tests. No exception crosses it: every call
 * returns a code and writes a one-line message into msg.
 *
 * The C side (libcamera.c) only talks to this table, so tests drive its
 * state machine (settling, locking, timeouts, drops, reconnects) with a
 * fake camera, and a build without libcamera has no table at all. */
#ifndef TEPPICH_CAP_LIBCAMERA_SHIM_H
#define TEPPICH_CAP_LIBCAMERA_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CAP__LCAM_OK = 0,
  CAP__LCAM_NOTFOUND = -1,    /* no camera / no such index or id */
  CAP__LCAM_BUSY = -2,        /* acquired by another process */
  CAP__LCAM_TIMEOUT = -3,     /* no completed request within the timeout */
  CAP__LCAM_DISCONNECTED = -4,/* the camera went away */
  CAP__LCAM_UNSUPPORTED = -5, /* no YUV420/NV12 stream, bad size */
  CAP__LCAM_ERROR = -6        /* anything else (message says what) */
};

/* What the camera is asked for. */
typedef struct {
  const char *id; /* camera id, or NULL/"" for `index` */
  int index;      /* -1: the first camera */
  int width, height; /* 0: the pipeline's default */
  double fps;        /* 0: the camera's default */
} cap__lcam_config;

/* One completed frame: the mapped planes of the camera's own buffer, valid
 * until the next `next` or `close` (the buffer is queued again then). */
typedef struct {
  const uint8_t *y, *u, *v;
  int width, height, y_stride, uv_stride;
  bool nv12;             /* u points at interleaved UV, v is NULL */
  int64_t timestamp_ns;  /* sensor timestamp, CLOCK_MONOTONIC */
  uint64_t sequence;     /* the camera's frame counter */
  /* from the request's metadata; 0 when absent */
  bool ae_converged;
  int32_t exposure_us;
  float gain;
  float colour_gains[2];
} cap__lcam_frame;

/* Fixed exposure settings (all of them set together when locking). */
typedef struct {
  int32_t exposure_us;
  float gain;
  float colour_gains[2];
} cap__lcam_lock;

typedef struct cap__lcam_ops {
  void *ctx;
  int (*open)(void *ctx, const cap__lcam_config *cfg, void **cam, char *msg,
              size_t msg_len);
  /* Describes the camera for humans: model, format, size, fps. */
  void (*describe)(void *cam, char *model, size_t model_len, char *format,
                   size_t format_len, int *width, int *height, double *fps);
  int (*next)(void *cam, int timeout_ms, cap__lcam_frame *frame, char *msg,
              size_t msg_len);
  /* lock NULL: automatic exposure and white balance again */
  int (*set_lock)(void *cam, const cap__lcam_lock *lock, char *msg,
                  size_t msg_len);
  void (*close)(void *cam);
  /* Prints one line per camera (id, model, modes); returns the count, or a
   * negative code with msg set. */
  int (*list)(void *ctx, FILE *out, char *msg, size_t msg_len);
} cap__lcam_ops;

/* The real libcamera, or NULL when built without it. */
const cap__lcam_ops *cap__lcam_real_ops(void);

/* "0.4.0" etc.: the libcamera headers this was compiled against. */
const char *cap__lcam_built_version(void);

#ifdef __cplusplus
}
#endif
#endif
