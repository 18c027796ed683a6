/* capture: the common layer over the backends. It numbers frames, counts
 * drops and late frames, paces replays, and settles live cameras before
 * locking their exposure. */
#define _DEFAULT_SOURCE /* POSIX clocks, strdup, V4L2 headers */
#include "cap_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cap_options_init(cap_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->lock = true;
  opt->settle_ms = 3000;
  opt->timeout_ms = 2000;
  opt->reconnect_ms = 10000;
  opt->log_level = TP_LOG_INFO;
}

int64_t cap__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void cap__sleep_ns(int64_t ns) {
  if (ns <= 0) return;
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

void cap__log(const cap_source *src, tp_log_level level, const char *fmt,
              ...) {
  if (!src->opt.log || level < src->opt.log_level) return;
  char line[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  tp_log(src->opt.log, src->opt.log_level, level, "%s", line);
}

tp_status cap__source_new(cap_source **out, const cap_spec *spec,
                          const cap_options *opt, tp_error *err) {
  *out = NULL;
  cap_source *src = calloc(1, sizeof *src);
  if (!src) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  src->spec = *spec;
  if (opt) src->opt = *opt;
  else cap_options_init(&src->opt);
  if (src->opt.width < 0 || src->opt.height < 0 || src->opt.fps < 0 ||
      !isfinite(src->opt.fps)) {
    free(src);
    return tp_error_set(err, TP_ERR_INVALID,
                        "capture size and rate must not be negative");
  }
  src->last_source_sequence = -1;
  *out = src;
  return TP_OK;
}

static bool is_live(const cap_source *src) {
  return src->spec.kind == CAP_KIND_LIBCAMERA || src->spec.kind == CAP_KIND_V4L2;
}

static double frame_rate(const cap_source *src) {
  if (src->settings.fps > 0) return src->settings.fps;
  if (src->spec.fps > 0) return src->spec.fps;
  return src->opt.fps;
}

/* Replays wait until each frame is due; a reader slower than the rate
 * gets every frame anyway, and each one more than a period behind counts
 * as late. */
static void pace_replay(cap_source *src, const cap_frame *frame) {
  double fps = frame_rate(src);
  if (src->opt.fast || fps <= 0) return;
  int64_t period = (int64_t)(1e9 / fps);
  int64_t now = cap__now_ns();
  if (src->pace_start_ns == 0) src->pace_start_ns = now;
  int64_t due = src->pace_start_ns + (int64_t)frame->sequence * period;
  if (now < due) cap__sleep_ns(due - now);
  else if (now - due > period) src->stats.late++;
}

/* A live frame whose capture time lies more than a period back was waiting
 * for the reader: late. */
static void count_live_late(cap_source *src, const cap_frame *frame) {
  double fps = frame_rate(src);
  if (fps <= 0 || frame->timestamp_ns <= 0) return;
  int64_t age = cap__now_ns() - frame->timestamp_ns;
  if (age > (int64_t)(1e9 / fps) && age < (int64_t)3600 * 1000000000)
    src->stats.late++;
}

static void count_gap(cap_source *src, const cap_frame *frame) {
  int64_t seq = (int64_t)frame->source_sequence;
  if (src->last_source_sequence >= 0 && seq > src->last_source_sequence + 1)
    src->stats.dropped += (uint64_t)(seq - src->last_source_sequence - 1);
  src->last_source_sequence = seq;
}

/* One frame from the backend with bookkeeping, without pacing. */
static int next_counted(cap_source *src, cap_frame *frame, tp_error *err) {
  memset(frame, 0, sizeof *frame);
  int rc = src->backend->next(src, frame, err);
  if (rc != CAP_FRAME) return rc;
  frame->sequence = src->next_sequence++;
  count_gap(src, frame);
  src->stats.delivered++;
  return CAP_FRAME;
}

int cap_next(cap_source *src, cap_frame *frame, tp_error *err) {
  int rc = next_counted(src, frame, err);
  if (rc != CAP_FRAME) return rc;
  if (is_live(src)) count_live_late(src, frame);
  else pace_replay(src, frame);
  return CAP_FRAME;
}

/* Stable: the mean brightness moved by less than this many gray levels
 * over kStableFrames frames in a row. */
enum { CAP_STABLE_FRAMES = 5, CAP_MIN_SETTLE_FRAMES = 8 };
static const double cap__stable_levels = 1.5;

tp_status cap__settle(cap_source *src, tp_error *err) {
  if (!src->opt.lock || !src->backend->lock) return TP_OK;
  int64_t deadline = cap__now_ns() + (int64_t)src->opt.settle_ms * 1000000;
  double previous = -1;
  int stable = 0, frames = 0;
  cap_frame frame;
  while (cap__now_ns() < deadline) {
    int rc = next_counted(src, &frame, err);
    if (rc < 0) return (tp_status)rc;
    if (rc == CAP_END) break;
    double mean = cap__mean_gray(&frame.gray);
    stable = (previous >= 0 && fabs(mean - previous) < cap__stable_levels)
                 ? stable + 1 : 0;
    previous = mean;
    frames++;
    bool converged = src->backend->converged && src->backend->converged(src);
    if (frames >= CAP_MIN_SETTLE_FRAMES &&
        (converged || stable >= CAP_STABLE_FRAMES))
      break;
  }
  tp_error lock_err;
  if (src->backend->lock(src, &lock_err) != TP_OK)
    cap__log(src, TP_LOG_WARN, "exposure not locked: %s", lock_err.text);
  /* The settling frames were the camera's business, not the reader's. */
  uint64_t reconnects = src->stats.reconnects;
  memset(&src->stats, 0, sizeof src->stats);
  src->stats.reconnects = reconnects;
  src->next_sequence = 0;
  return TP_OK;
}

static tp_status open_backend(cap_source *src, tp_error *err) {
  switch (src->spec.kind) {
  case CAP_KIND_FILE:
  case CAP_KIND_DIR:
    return cap__open_replay(src, err);
  case CAP_KIND_VIDEO:
    return cap__open_video(src, err);
  case CAP_KIND_V4L2:
    return cap__open_v4l2(src, err);
  case CAP_KIND_LIBCAMERA:
    return cap__open_libcamera(src, err);
  }
  return tp_error_set(err, TP_ERR_INTERNAL, "unknown source kind");
}

tp_status cap__open_with(cap_source **out, const char *source,
                         const cap_options *opt, const cap__hooks *hooks,
                         tp_error *err) {
  *out = NULL;
  cap_spec spec;
  tp_status st = cap_parse_source(source, &spec, err);
  if (st != TP_OK) return st;
  cap_source *src;
  st = cap__source_new(&src, &spec, opt, err);
  if (st != TP_OK) return st;
  if (hooks) src->hooks = *hooks;
  st = open_backend(src, err);
  if (st == TP_OK && is_live(src)) st = cap__settle(src, err);
  if (st != TP_OK) {
    cap_close(src);
    return st;
  }
  *out = src;
  return TP_OK;
}

tp_status cap_open(cap_source **out, const char *source,
                   const cap_options *opt, tp_error *err) {
  return cap__open_with(out, source, opt, NULL, err);
}

void cap_close(cap_source *src) {
  if (!src) return;
  if (src->backend && src->backend->close) src->backend->close(src->state);
  tp_image_free(&src->color_buf);
  free(src);
}

void cap_get_stats(const cap_source *src, cap_stats *out) { *out = src->stats; }
void cap_get_settings(const cap_source *src, cap_settings *out) {
  *out = src->settings;
}
const cap_spec *cap_get_spec(const cap_source *src) { return &src->spec; }

const char cap_options_help[] =
    "  --size WxH      camera resolution (default 1920x1080 libcamera,\n"
    "                  1280x720 webcam, or the nearest the camera has)\n"
    "  --fps N         frame rate; replay: pace at N frames per second\n"
    "  --fast          replay as fast as frames are read (no pacing)\n"
    "  --no-lock       keep automatic exposure and white balance running\n"
    "  --timeout MS    a live frame that takes longer is a timeout (2000)\n"
    "  --reconnect MS  how long to retry a lost camera (10000; 0: never)\n";

static bool parse_int(const char *text, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static bool parse_size(const char *text, int *w, int *h) {
  const char *x = strchr(text, 'x');
  if (!x || x == text || strlen(x + 1) == 0 || strlen(text) > 11) return false;
  char left[12];
  memcpy(left, text, (size_t)(x - text));
  left[x - text] = '\0';
  return parse_int(left, 16, 16384, w) && parse_int(x + 1, 16, 16384, h);
}

static int parse_valued(cap_options *opt, const char *name, const char *value,
                        tp_error *err) {
  bool ok = false;
  if (!strcmp(name, "--size")) ok = parse_size(value, &opt->width, &opt->height);
  else if (!strcmp(name, "--timeout"))
    ok = parse_int(value, 10, 600000, &opt->timeout_ms);
  else if (!strcmp(name, "--reconnect"))
    ok = parse_int(value, 0, 3600000, &opt->reconnect_ms);
  else if (!strcmp(name, "--fps")) {
    char *end;
    double v = strtod(value, &end);
    ok = end != value && !*end && isfinite(v) && v > 0 && v <= 1000;
    if (ok) opt->fps = v;
  }
  if (!ok)
    tp_error_set(err, TP_ERR_INVALID, "bad value '%s' for %s (see --help)",
                 value, name);
  return ok ? 2 : -1;
}

int cap_options_parse_arg(cap_options *opt, int argc, char **argv, int i,
                          tp_error *err) {
  const char *a = argv[i];
  if (!strcmp(a, "--fast")) return opt->fast = true, 1;
  if (!strcmp(a, "--color")) return opt->color = true, 1;
  if (!strcmp(a, "--no-lock")) return opt->lock = false, 1;
  if (strcmp(a, "--size") && strcmp(a, "--fps") && strcmp(a, "--timeout") &&
      strcmp(a, "--reconnect"))
    return 0;
  if (i + 1 >= argc) {
    tp_error_set(err, TP_ERR_INVALID, "%s needs a value (see --help)", a);
    return -1;
  }
  return parse_valued(opt, a, argv[i + 1], err);
}

int cap_exit_code(const char *source, tp_status status) {
  cap_spec spec;
  if (status == TP_OK) return TP_EXIT_OK;
  if (status == TP_ERR_INVALID || cap_parse_source(source, &spec, NULL) != TP_OK)
    return TP_EXIT_USAGE;
  bool live = spec.kind == CAP_KIND_LIBCAMERA || spec.kind == CAP_KIND_V4L2;
  return live ? TP_EXIT_JOB : TP_EXIT_USAGE;
}
