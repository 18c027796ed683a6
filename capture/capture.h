/* capture: frames from a camera or a recording, through one interface.
 *
 * Prefix cap_. A source is named by one string, the same wherever a
 * `--source` is taken:
 *
 *   libcamera[:INDEX|:ID]   CSI camera on a Raspberry Pi (libcamera)
 *   v4l2:/dev/videoN        USB webcam, MJPEG or YUYV (V4L2 mmap streaming)
 *   file:IMAGE              one still image, handed out once
 *   dir:FOLDER[@FPS]        numbered frames (frame-000001.jpg ...), replayed
 *   video:FILE              a video file (OpenCV VideoCapture)
 *
 * A bare path is taken as dir: when it is a folder and file: otherwise.
 *
 *   cap_source *src; cap_options opt; cap_frame f; tp_error err;
 *   cap_options_init(&opt);
 *   if (cap_open(&src, "v4l2:/dev/video0", &opt, &err) != TP_OK) ...
 *   while (cap_next(src, &f, &err) == CAP_FRAME) use(f.gray);
 *   cap_close(src);
 *
 * A frame is a view into the source's buffers (for libcamera the Y plane
 * of the mapped camera buffer itself, no copy): it stays valid until the
 * next cap_next or cap_close on that source. Copy it to keep it.
 *
 * Live cameras start with automatic exposure, gain and white balance and
 * lock them once the picture has settled (a camera that re-exposes each
 * time a hand passes would break change detection). cap_open returns only
 * after that, so the first frame is already a settled one. */
#ifndef TEPPICH_CAPTURE_H
#define TEPPICH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CAP_KIND_LIBCAMERA,
  CAP_KIND_V4L2,
  CAP_KIND_FILE,
  CAP_KIND_DIR,
  CAP_KIND_VIDEO
} cap_kind;

enum { CAP_PATH_MAX = 1024 };

/* A parsed source string (cap_parse_source). */
typedef struct {
  cap_kind kind;
  char path[CAP_PATH_MAX]; /* device, file, folder, or libcamera id ("" =
                              first camera) */
  int index;               /* libcamera:INDEX; -1 when an id or nothing */
  double fps;              /* dir:FOLDER@FPS; 0 when not given */
} cap_spec;

/* Parses a source string. TP_ERR_INVALID with a message naming the text and
 * the accepted forms when it is not one of them. Never touches the file
 * system except to tell a bare folder from a bare file. */
tp_status cap_parse_source(const char *text, cap_spec *out, tp_error *err);

/* What the caller wants; cap_options_init sets the defaults. */
typedef struct {
  int width, height; /* requested size; 0 = libcamera 1920x1080, V4L2
                        1280x720 (the nearest the camera has); replays keep
                        the file's size */
  double fps;        /* requested rate; 0 = default (camera 30, replay 10 or
                        the @FPS of the source) */
  bool color;        /* also hand out an RGB image (costs a conversion) */
  bool fast;         /* replay: as fast as frames are read, no pacing */
  bool lock;         /* live: auto exposure/WB first, then lock (default on) */
  int settle_ms;     /* live: longest wait for the picture to settle (3000) */
  int timeout_ms;    /* live: a frame that takes longer is a timeout (2000) */
  int reconnect_ms;  /* live: how long to retry a lost camera (10000; 0 =
                        give up at once) */
  FILE *log;         /* where reconnects, drops, skipped frames are said
                        (NULL: silent) */
  tp_log_level log_level; /* threshold for log (TP_LOG_INFO) */
} cap_options;

void cap_options_init(cap_options *opt);

/* Command-line options every command with a --source shares:
 *   --size WxH  --fps N  --fast  --color  --no-lock  --timeout MS
 *   --reconnect MS
 * Looks at argv[i]: returns how many arguments it used (0: not one of
 * these), or -1 with err set (bad value; exit status 2). */
int cap_options_parse_arg(cap_options *opt, int argc, char **argv, int i,
                          tp_error *err);
/* The help text for those options, one per line, indented by two. */
extern const char cap_options_help[];

typedef struct {
  tp_image gray;  /* always set: 1 channel; a view, see above */
  tp_image color; /* 3 channels RGB when options.color, else data NULL */
  int64_t timestamp_ns; /* capture time: the camera's monotonic clock, or
                           the replay's position (sequence / fps) */
  uint64_t sequence;    /* counts frames handed out, from 0 */
  uint64_t source_sequence; /* the camera's / file's own frame number: a gap
                               to the previous one means frames were lost */
} cap_frame;

/* Result of cap_next besides the negative tp_status errors. */
enum { CAP_FRAME = 0, CAP_END = 1 };

/* Counters since cap_open. */
typedef struct {
  uint64_t delivered;  /* frames handed out */
  uint64_t dropped;    /* frames the source had but never handed out
                          (sequence gaps, skipped corrupt/missing files) */
  uint64_t late;       /* frames handed out more than one frame period after
                          they were due (the reader is too slow) */
  uint64_t timeouts;   /* waits for a frame that ran out of time */
  uint64_t reconnects; /* successful reopenings of a lost camera */
} cap_stats;

/* The camera's settings as they are now (after locking: the locked ones).
 * Values not known are 0. */
typedef struct {
  char camera[128];      /* model or device name */
  char format[16];       /* "YUV420", "MJPEG", "YUYV", "JPEG", "PNG", "video" */
  int width, height;
  double fps;
  bool locked;           /* exposure, gain and white balance are locked */
  double exposure_us;
  double gain;
  double colour_gains[2]; /* red, blue (libcamera); 0 when not known */
  int white_balance_k;    /* V4L2 white balance temperature */
} cap_settings;

typedef struct cap_source cap_source;

/* Opens a source and, for a live camera, waits until exposure has settled
 * and is locked. TP_ERR_NOTFOUND: no such camera / file; TP_ERR_IO: busy
 * or failing device; TP_ERR_FORMAT: unreadable file; TP_ERR_UNSUPPORTED:
 * backend not built in. The message says what to check. */
tp_status cap_open(cap_source **out, const char *source,
                   const cap_options *opt, tp_error *err);

/* Waits for the next frame. CAP_FRAME with *frame set, CAP_END at the end
 * of a replay, or a negative tp_status (camera lost and not back within
 * reconnect_ms, repeated timeouts). */
int cap_next(cap_source *src, cap_frame *frame, tp_error *err);

void cap_close(cap_source *src); /* NULL-safe */

void cap_get_stats(const cap_source *src, cap_stats *out);
void cap_get_settings(const cap_source *src, cap_settings *out);
const cap_spec *cap_get_spec(const cap_source *src);

/* Lists the cameras this machine has, one line each with their modes, on
 * out. Returns how many were found (0: none; then a hint on what to check
 * is printed too). */
int cap_list_cameras(FILE *out);

/* Exit status (spec section 5) for a failure of cap_open/cap_next on this
 * source: a camera that is missing, busy or lost is 1 (the job could not
 * be done); a bad source string or an unreadable replay file is 2. */
int cap_exit_code(const char *source, tp_status status);

/* JPEG helpers for snapshot/record (libjpeg): encodes a gray or RGB image
 * and writes it atomically (tp_write_file_atomic). quality 1..100. */
tp_status cap_write_jpeg(const char *path, const tp_image *img, int quality,
                         tp_error *err);

/* `teppich capture-bench`: writes frames frames of width x height (JPEG,
 * PNG, an MJPEG .avi) into folder, then prints the per-frame cost of each
 * replay source, of the webcam conversions and of the frame hand-off. */
tp_status cap_bench(FILE *out, const char *folder, int frames, int width,
                    int height, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
