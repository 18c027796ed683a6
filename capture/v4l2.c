/* capture: USB webcams through V4L2 directly: format negotiation (MJPEG
 * preferred, YUYV otherwise), mmap streaming with a few buffers, poll with
 * a timeout, controls for locking exposure/gain/white balance, and
 * reconnecting when the camera is unplugged. All system calls go through
 * cap__v4l2_sys so that tests can fake the device. */
#define _DEFAULT_SOURCE /* POSIX clocks, strdup, V4L2 headers */
#include "cap_internal.h"
#include "v4l2_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

enum {
  CAP_V4L2_BUFFERS = 4,
  CAP_RECONNECT_STEP_MS = 500,
  CAP_MAX_RESTARTS = 3, /* frame waits in a row that fail before giving up */
  CAP_DEFAULT_FPS = 30
};

typedef struct {
  void *start;
  size_t length;
} v4l2_map;

typedef struct {
  int id;       /* V4L2_CID_* of the value */
  int auto_id;  /* the control that switches it to automatic */
  int value;
  bool have;
} v4l2_locked;

typedef struct {
  const cap__v4l2_sys *sys;
  int fd;
  uint32_t pixfmt;
  int width, height, bytesperline;
  v4l2_map maps[CAP_V4L2_BUFFERS];
  unsigned nmaps;
  bool streaming;
  tp_image gray, color; /* decoded frame handed out (owned) */
  v4l2_locked locks[3]; /* exposure, gain, white balance once locked */
  bool locked;
  int failures; /* frame waits in a row that got no frame */
  char card[32]; /* the camera's name from QUERYCAP */
} v4l2_state;

/* ---- the real system layer ---- */

static int real_open(void *ctx, const char *path, int flags) {
  (void)ctx;
  return open(path, flags);
}
static int real_close(void *ctx, int fd) { (void)ctx; return close(fd); }
static int real_ioctl(void *ctx, int fd, unsigned long req, void *arg) {
  (void)ctx;
  return ioctl(fd, req, arg);
}
static void *real_mmap(void *ctx, size_t len, int prot, int flags, int fd,
                       off_t off) {
  (void)ctx;
  return mmap(NULL, len, prot, flags, fd, off);
}
static int real_munmap(void *ctx, void *addr, size_t len) {
  (void)ctx;
  return munmap(addr, len);
}
static int real_poll(void *ctx, struct pollfd *fds, nfds_t n, int ms) {
  (void)ctx;
  return poll(fds, n, ms);
}
static void real_sleep_ms(void *ctx, int ms) {
  (void)ctx;
  cap__sleep_ns((int64_t)ms * 1000000);
}

const cap__v4l2_sys *cap__v4l2_real_sys(void) {
  static const cap__v4l2_sys real = {NULL,      real_open,   real_close,
                                     real_ioctl, real_mmap,  real_munmap,
                                     real_poll, real_sleep_ms};
  return &real;
}

static int xioctl(v4l2_state *st, unsigned long req, void *arg) {
  int rc;
  do rc = st->sys->ioctl(st->sys->ctx, st->fd, req, arg);
  while (rc == -1 && errno == EINTR);
  return rc;
}

/* ---- opening and closing the device ---- */

static void device_close(v4l2_state *st) {
  if (st->fd < 0) return;
  if (st->streaming) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(st, VIDIOC_STREAMOFF, &type);
    st->streaming = false;
  }
  for (unsigned i = 0; i < st->nmaps; i++)
    st->sys->munmap(st->sys->ctx, st->maps[i].start, st->maps[i].length);
  st->nmaps = 0;
  struct v4l2_requestbuffers req = {.count = 0,
                                    .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
                                    .memory = V4L2_MEMORY_MMAP};
  xioctl(st, VIDIOC_REQBUFS, &req);
  st->sys->close(st->sys->ctx, st->fd);
  st->fd = -1;
}

static tp_status open_node(v4l2_state *st, const char *path, tp_error *err) {
  st->fd = st->sys->open(st->sys->ctx, path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (st->fd >= 0) return TP_OK;
  int e = errno;
  if (e == ENOENT || e == ENODEV || e == ENXIO)
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "no camera at %s: is the webcam plugged in? "
                        "`teppich cameras` lists the cameras found", path);
  if (e == EACCES || e == EPERM)
    return tp_error_set(err, TP_ERR_IO,
                        "no permission to open %s: add your user to the "
                        "group 'video' and log in again", path);
  if (e == EBUSY)
    return tp_error_set(err, TP_ERR_IO,
                        "camera %s is busy: close the other program using it",
                        path);
  return tp_error_set(err, TP_ERR_IO, "cannot open camera %s: %s", path,
                      strerror(e));
}

static tp_status check_caps(v4l2_state *st, const char *path, tp_error *err) {
  struct v4l2_capability cap;
  memset(&cap, 0, sizeof cap);
  if (xioctl(st, VIDIOC_QUERYCAP, &cap) == -1)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "%s is not a V4L2 video device: %s", path,
                        strerror(errno));
  snprintf(st->card, sizeof st->card, "%.31s", (const char *)cap.card);
  uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps
                                                             : cap.capabilities;
  if (!(caps & V4L2_CAP_VIDEO_CAPTURE))
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "%s cannot capture video (a webcam's metadata node?); "
                        "try the other /dev/video* of the camera", path);
  if (!(caps & V4L2_CAP_STREAMING))
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "%s cannot stream through mmap buffers", path);
  return TP_OK;
}

/* MJPEG gives webcams their full frame rate over USB; YUYV is the usual
 * uncompressed fallback. */
static uint32_t pick_format(v4l2_state *st) {
  bool mjpeg = false, jpeg = false, yuyv = false;
  for (uint32_t i = 0; i < 64; i++) {
    struct v4l2_fmtdesc d = {.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    if (xioctl(st, VIDIOC_ENUM_FMT, &d) == -1) break;
    mjpeg |= d.pixelformat == V4L2_PIX_FMT_MJPEG;
    jpeg |= d.pixelformat == V4L2_PIX_FMT_JPEG;
    yuyv |= d.pixelformat == V4L2_PIX_FMT_YUYV;
  }
  return mjpeg ? V4L2_PIX_FMT_MJPEG
         : jpeg ? V4L2_PIX_FMT_JPEG
         : yuyv ? V4L2_PIX_FMT_YUYV
                : 0;
}

static tp_status set_format(cap_source *src, v4l2_state *st, tp_error *err) {
  uint32_t want = pick_format(st);
  if (!want)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "camera %s offers neither MJPEG nor YUYV",
                        src->spec.path);
  struct v4l2_format fmt;
  memset(&fmt, 0, sizeof fmt);
  fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  if (xioctl(st, VIDIOC_G_FMT, &fmt) == -1)
    return tp_error_set(err, TP_ERR_IO, "cannot read the format of %s: %s",
                        src->spec.path, strerror(errno));
  fmt.fmt.pix.pixelformat = want;
  fmt.fmt.pix.field = V4L2_FIELD_ANY;
  /* Without a size, ask for 720p: UVC drivers often start at 640x480,
   * and the driver picks the nearest size it has. */
  bool sized = src->opt.width > 0 && src->opt.height > 0;
  fmt.fmt.pix.width = (uint32_t)(sized ? src->opt.width : 1280);
  fmt.fmt.pix.height = (uint32_t)(sized ? src->opt.height : 720);
  if (xioctl(st, VIDIOC_S_FMT, &fmt) == -1)
    return tp_error_set(err, TP_ERR_IO, "camera %s refused its format: %s",
                        src->spec.path, strerror(errno));
  if (fmt.fmt.pix.pixelformat != want || fmt.fmt.pix.width == 0 ||
      fmt.fmt.pix.height == 0 || fmt.fmt.pix.width > 16384 ||
      fmt.fmt.pix.height > 16384)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "camera %s did not take the format it offered",
                        src->spec.path);
  st->pixfmt = want;
  st->width = (int)fmt.fmt.pix.width;
  st->height = (int)fmt.fmt.pix.height;
  st->bytesperline = (int)fmt.fmt.pix.bytesperline;
  if (st->bytesperline < st->width * 2) st->bytesperline = st->width * 2;
  return TP_OK;
}

static void set_rate(cap_source *src, v4l2_state *st) {
  struct v4l2_streamparm parm;
  memset(&parm, 0, sizeof parm);
  parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  double fps = src->opt.fps > 0 ? src->opt.fps : CAP_DEFAULT_FPS;
  if (xioctl(st, VIDIOC_G_PARM, &parm) == 0 &&
      (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
    parm.parm.capture.timeperframe.numerator = 1000;
    parm.parm.capture.timeperframe.denominator = (uint32_t)(fps * 1000);
    xioctl(st, VIDIOC_S_PARM, &parm); /* the driver picks the nearest */
  }
  const struct v4l2_fract *t = &parm.parm.capture.timeperframe;
  src->settings.fps = (t->numerator && t->denominator)
                          ? (double)t->denominator / t->numerator
                          : fps;
}

static tp_status map_buffers(cap_source *src, v4l2_state *st, tp_error *err) {
  struct v4l2_requestbuffers req = {.count = CAP_V4L2_BUFFERS,
                                    .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
                                    .memory = V4L2_MEMORY_MMAP};
  if (xioctl(st, VIDIOC_REQBUFS, &req) == -1)
    return tp_error_set(err, errno == EBUSY ? TP_ERR_IO : TP_ERR_UNSUPPORTED,
                        "camera %s gives no mmap buffers (%s); is another "
                        "program streaming from it?",
                        src->spec.path, strerror(errno));
  if (req.count < 2 || req.count > CAP_V4L2_BUFFERS)
    return tp_error_set(err, TP_ERR_IO, "camera %s gave %u buffers",
                        src->spec.path, req.count);
  for (unsigned i = 0; i < req.count; i++) {
    struct v4l2_buffer buf = {.index = i,
                              .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
                              .memory = V4L2_MEMORY_MMAP};
    if (xioctl(st, VIDIOC_QUERYBUF, &buf) == -1)
      return tp_error_set(err, TP_ERR_IO, "camera %s: buffer %u: %s",
                          src->spec.path, i, strerror(errno));
    void *p = st->sys->mmap(st->sys->ctx, buf.length, PROT_READ | PROT_WRITE,
                            MAP_SHARED, st->fd, (off_t)buf.m.offset);
    if (p == MAP_FAILED)
      return tp_error_set(err, TP_ERR_IO, "camera %s: cannot map buffer: %s",
                          src->spec.path, strerror(errno));
    st->maps[st->nmaps++] = (v4l2_map){p, buf.length};
  }
  return TP_OK;
}

static tp_status queue(v4l2_state *st, unsigned index) {
  struct v4l2_buffer buf = {.index = index,
                            .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
                            .memory = V4L2_MEMORY_MMAP};
  return xioctl(st, VIDIOC_QBUF, &buf) == -1 ? TP_ERR_IO : TP_OK;
}

static tp_status start_stream(cap_source *src, v4l2_state *st,
                              tp_error *err) {
  for (unsigned i = 0; i < st->nmaps; i++)
    if (queue(st, i) != TP_OK)
      return tp_error_set(err, TP_ERR_IO, "camera %s: cannot queue: %s",
                          src->spec.path, strerror(errno));
  int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  if (xioctl(st, VIDIOC_STREAMON, &type) == -1)
    return tp_error_set(err, TP_ERR_IO,
                        "camera %s does not start streaming (%s); is it in "
                        "use or short of USB bandwidth?",
                        src->spec.path, strerror(errno));
  st->streaming = true;
  return TP_OK;
}

static tp_status device_open(cap_source *src, v4l2_state *st, tp_error *err) {
  tp_status s = open_node(st, src->spec.path, err);
  if (s == TP_OK) s = check_caps(st, src->spec.path, err);
  if (s == TP_OK) s = set_format(src, st, err);
  if (s == TP_OK) {
    set_rate(src, st);
    s = map_buffers(src, st, err);
  }
  if (s == TP_OK) s = start_stream(src, st, err);
  if (s != TP_OK) device_close(st);
  return s;
}

/* ---- controls: auto first, then lock ---- */

static int get_ctrl(v4l2_state *st, int id, int *value) {
  struct v4l2_control c = {.id = (uint32_t)id};
  if (xioctl(st, VIDIOC_G_CTRL, &c) == -1) return -1;
  *value = c.value;
  return 0;
}

static int set_ctrl(v4l2_state *st, int id, int value) {
  struct v4l2_control c = {.id = (uint32_t)id, .value = value};
  return xioctl(st, VIDIOC_S_CTRL, &c);
}

/* Not every webcam has every control: whatever is missing stays as the
 * camera has it. */
static void set_auto(v4l2_state *st) {
  if (set_ctrl(st, V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_APERTURE_PRIORITY))
    set_ctrl(st, V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_AUTO);
  set_ctrl(st, V4L2_CID_AUTOGAIN, 1);
  set_ctrl(st, V4L2_CID_AUTO_WHITE_BALANCE, 1);
}

/* Switches the automatic off and writes the value it had found. */
static bool apply_lock(v4l2_state *st, const v4l2_locked *l) {
  int manual = l->auto_id == V4L2_CID_EXPOSURE_AUTO ? V4L2_EXPOSURE_MANUAL : 0;
  if (set_ctrl(st, l->auto_id, manual)) return false;
  return set_ctrl(st, l->id, l->value) == 0;
}

static void note_settings(cap_source *src, const v4l2_state *st) {
  if (st->locks[0].have) src->settings.exposure_us = st->locks[0].value * 100.0;
  if (st->locks[1].have) src->settings.gain = st->locks[1].value;
  if (st->locks[2].have) src->settings.white_balance_k = st->locks[2].value;
  src->settings.locked = st->locked;
}

static tp_status v4l2_lock(cap_source *src, tp_error *err) {
  v4l2_state *st = src->state;
  v4l2_locked wanted[3] = {
      {V4L2_CID_EXPOSURE_ABSOLUTE, V4L2_CID_EXPOSURE_AUTO, 0, false},
      {V4L2_CID_GAIN, V4L2_CID_AUTOGAIN, 0, false},
      {V4L2_CID_WHITE_BALANCE_TEMPERATURE, V4L2_CID_AUTO_WHITE_BALANCE, 0,
       false}};
  for (int i = 0; i < 3; i++) {
    v4l2_locked *l = &wanted[i];
    l->have = get_ctrl(st, l->id, &l->value) == 0 && apply_lock(st, l);
    st->locked |= l->have;
    st->locks[i] = *l;
  }
  note_settings(src, st);
  if (!st->locked)
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "camera %s has no exposure or white balance controls",
                        src->spec.path);
  return TP_OK;
}

static void reapply_locks(v4l2_state *st) {
  for (int i = 0; i < 3; i++)
    if (st->locks[i].have) apply_lock(st, &st->locks[i]);
}

/* ---- streaming ---- */

typedef enum { WAIT_FRAME, WAIT_TIMEOUT, WAIT_LOST } wait_result;

static wait_result dequeue(v4l2_state *st, struct v4l2_buffer *buf) {
  memset(buf, 0, sizeof *buf);
  buf->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  buf->memory = V4L2_MEMORY_MMAP;
  if (xioctl(st, VIDIOC_DQBUF, buf) == 0)
    return buf->index < st->nmaps ? WAIT_FRAME : WAIT_LOST;
  return errno == EAGAIN ? WAIT_TIMEOUT : WAIT_LOST;
}

static wait_result wait_ready(v4l2_state *st, int timeout_ms) {
  struct pollfd p = {.fd = st->fd, .events = POLLIN};
  int n;
  do n = st->sys->poll(st->sys->ctx, &p, 1, timeout_ms);
  while (n == -1 && errno == EINTR);
  if (n == 0) return WAIT_TIMEOUT;
  if (n < 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return WAIT_LOST;
  return WAIT_FRAME;
}

/* Waits for a frame and, when more are ready already, takes the newest:
 * a slow reader gets the present, and the skipped ones count as dropped
 * through the sequence gap. */
static wait_result wait_frame(cap_source *src, v4l2_state *st,
                              struct v4l2_buffer *buf) {
  wait_result w = wait_ready(st, src->opt.timeout_ms);
  if (w != WAIT_FRAME) return w;
  w = dequeue(st, buf);
  if (w != WAIT_FRAME) return w;
  struct v4l2_buffer newer;
  for (unsigned n = 0; n < st->nmaps && wait_ready(st, 0) == WAIT_FRAME &&
                       dequeue(st, &newer) == WAIT_FRAME;
       n++) {
    queue(st, buf->index);
    *buf = newer;
  }
  return WAIT_FRAME;
}

static tp_status decode_frame(cap_source *src, v4l2_state *st,
                              const struct v4l2_buffer *buf, tp_error *err) {
  const uint8_t *data = st->maps[buf->index].start;
  size_t used = buf->bytesused;
  if (used == 0 || used > st->maps[buf->index].length ||
      (buf->flags & V4L2_BUF_FLAG_ERROR))
    return tp_error_set(err, TP_ERR_FORMAT, "damaged frame");
  if (st->pixfmt != V4L2_PIX_FMT_YUYV) {
    tp_image *target = src->opt.color ? &st->color : &st->gray;
    tp_status s = cap__jpeg_decode(data, used, src->opt.color ? 3 : 1,
                                   target, err);
    if (s != TP_OK || !src->opt.color) return s;
    if (cap__ensure_image(&st->gray, st->color.width, st->color.height, 1))
      return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    cap__rgb_to_gray(&st->color, &st->gray);
    return TP_OK;
  }
  if (used < (size_t)st->bytesperline * (size_t)st->height)
    return tp_error_set(err, TP_ERR_FORMAT, "short YUYV frame");
  if (cap__ensure_image(&st->gray, st->width, st->height, 1))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  cap__yuyv_to_gray(data, st->bytesperline, &st->gray);
  if (!src->opt.color) return TP_OK;
  if (cap__ensure_image(&st->color, st->width, st->height, 3))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  cap__yuyv_to_rgb(data, st->bytesperline, &st->color);
  return TP_OK;
}

static void fill_frame(cap_source *src, v4l2_state *st,
                       const struct v4l2_buffer *buf, cap_frame *frame) {
  frame->gray = st->gray;
  if (src->opt.color) frame->color = st->color;
  frame->source_sequence = buf->sequence;
  bool monotonic = (buf->flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) ==
                   V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
  frame->timestamp_ns = monotonic ? (int64_t)buf->timestamp.tv_sec * 1000000000 +
                                        (int64_t)buf->timestamp.tv_usec * 1000
                                  : cap__now_ns();
}

/* Closes the device and opens it again, for up to reconnect_ms. */
static tp_status reconnect(cap_source *src, v4l2_state *st, const char *why,
                           tp_error *err) {
  device_close(st);
  int attempts = src->opt.reconnect_ms / CAP_RECONNECT_STEP_MS;
  if (src->opt.reconnect_ms > 0 && attempts == 0) attempts = 1;
  cap__log(src, TP_LOG_WARN, "camera %s %s; reconnecting (up to %d ms)",
           src->spec.path, why, src->opt.reconnect_ms);
  tp_error last = {{0}};
  for (int i = 0; i < attempts; i++) {
    st->sys->sleep_ms(st->sys->ctx, CAP_RECONNECT_STEP_MS);
    if (device_open(src, st, &last) != TP_OK) continue;
    reapply_locks(st);
    src->stats.reconnects++;
    cap__log(src, TP_LOG_INFO, "camera %s is back", src->spec.path);
    return TP_OK;
  }
  return tp_error_set(err, TP_ERR_IO,
                      "camera %s %s and did not come back within %d ms%s%s; "
                      "check the cable and `teppich cameras`",
                      src->spec.path, why, src->opt.reconnect_ms,
                      last.text[0] ? ": " : "", last.text);
}

static int v4l2_next(cap_source *src, cap_frame *frame, tp_error *err) {
  v4l2_state *st = src->state;
  for (;;) {
    struct v4l2_buffer buf;
    wait_result w = st->fd < 0 ? WAIT_LOST : wait_frame(src, st, &buf);
    if (w == WAIT_FRAME) {
      tp_error why;
      tp_status s = decode_frame(src, st, &buf, &why);
      queue(st, buf.index);
      if (s == TP_OK) {
        st->failures = 0;
        fill_frame(src, st, &buf, frame);
        return CAP_FRAME;
      }
      src->stats.dropped++;
      cap__log(src, TP_LOG_DEBUG, "camera %s: %s dropped", src->spec.path,
               why.text);
      continue;
    }
    if (w == WAIT_TIMEOUT) src->stats.timeouts++;
    if (++st->failures > CAP_MAX_RESTARTS)
      return tp_error_set(err, TP_ERR_IO,
                          "camera %s gave no frame after %d restarts; check "
                          "the cable and the light",
                          src->spec.path, CAP_MAX_RESTARTS);
    tp_status s = reconnect(src, st,
                            w == WAIT_TIMEOUT ? "sent no frame in time"
                                              : "was lost (unplugged?)",
                            err);
    if (s != TP_OK) return s;
  }
}

static void v4l2_close(void *state) {
  v4l2_state *st = state;
  if (!st) return;
  device_close(st);
  tp_image_free(&st->gray);
  tp_image_free(&st->color);
  free(st);
}

static const cap__backend cap__v4l2_backend = {"v4l2", v4l2_next, v4l2_close,
                                               v4l2_lock, NULL};

static void describe(cap_source *src, const v4l2_state *st) {
  snprintf(src->settings.camera, sizeof src->settings.camera, "%.31s (%.90s)",
           st->card[0] ? st->card : "webcam", src->spec.path);
  snprintf(src->settings.format, sizeof src->settings.format, "%s",
           st->pixfmt == V4L2_PIX_FMT_YUYV ? "YUYV" : "MJPEG");
  src->settings.width = st->width;
  src->settings.height = st->height;
}

tp_status cap__open_v4l2(cap_source *src, tp_error *err) {
  v4l2_state *st = calloc(1, sizeof *st);
  if (!st) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  st->fd = -1;
  st->sys = src->hooks.v4l2 ? src->hooks.v4l2 : cap__v4l2_real_sys();
  src->state = st;
  src->backend = &cap__v4l2_backend;
  tp_status s = device_open(src, st, err);
  if (s != TP_OK) return s;
  if (src->opt.lock) set_auto(st);
  describe(src, st);
  return TP_OK;
}

/* ---- listing ---- */

static void list_sizes(v4l2_state *st, uint32_t pixfmt, FILE *out) {
  int shown = 0;
  for (uint32_t i = 0; i < 64 && shown < 12; i++) {
    struct v4l2_frmsizeenum fs = {.index = i, .pixel_format = pixfmt};
    if (xioctl(st, VIDIOC_ENUM_FRAMESIZES, &fs) == -1) break;
    if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
      fprintf(out, " %ux%u", fs.discrete.width, fs.discrete.height);
      shown++;
    } else {
      fprintf(out, " %ux%u to %ux%u", fs.stepwise.min_width,
              fs.stepwise.min_height, fs.stepwise.max_width,
              fs.stepwise.max_height);
      break;
    }
  }
}

/* One device: a line with its name, then its formats and sizes. */
static bool list_device(v4l2_state *st, const char *path, FILE *out) {
  tp_error err;
  if (open_node(st, path, &err) != TP_OK) return false;
  bool ok = check_caps(st, path, &err) == TP_OK;
  if (ok) {
    fprintf(out, "v4l2:%s  %s\n", path, st->card);
    for (uint32_t i = 0; i < 64; i++) {
      struct v4l2_fmtdesc d = {.index = i,
                               .type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
      if (xioctl(st, VIDIOC_ENUM_FMT, &d) == -1) break;
      uint32_t f = d.pixelformat;
      fprintf(out, "    %c%c%c%c%s:", f & 0xff, (f >> 8) & 0xff,
              (f >> 16) & 0xff, (f >> 24) & 0xff,
              (f == V4L2_PIX_FMT_MJPEG || f == V4L2_PIX_FMT_JPEG ||
               f == V4L2_PIX_FMT_YUYV) ? "" : " (not used by teppich)");
      list_sizes(st, f, out);
      fputc('\n', out);
    }
  }
  st->sys->close(st->sys->ctx, st->fd);
  st->fd = -1;
  return ok;
}

int cap__v4l2_list(FILE *out, const cap__v4l2_sys *sys) {
  v4l2_state st;
  memset(&st, 0, sizeof st);
  st.sys = sys ? sys : cap__v4l2_real_sys();
  st.fd = -1;
  int found = 0;
  char path[32];
  for (int i = 0; i < 64; i++) {
    snprintf(path, sizeof path, "/dev/video%d", i);
    found += list_device(&st, path, out);
  }
  return found;
}
