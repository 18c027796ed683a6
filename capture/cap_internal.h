/* capture internals: the backend table and the state every source shares.
 * Private to capture/ (and to the capture tests, which build sources on
 * faked system layers). */
#ifndef TEPPICH_CAP_INTERNAL_H
#define TEPPICH_CAP_INTERNAL_H

#include "capture.h"

/* One backend. `next` fills frame->gray (and color when asked), the
 * timestamp and source_sequence; the common layer counts, paces and
 * numbers. Optional hooks may be NULL. */
typedef struct {
  const char *name;
  int (*next)(cap_source *src, cap_frame *frame, tp_error *err);
  void (*close)(void *state);
  /* live cameras: fix exposure, gain and white balance at their current
   * values (TP_OK or an error; the stream goes on either way) */
  tp_status (*lock)(cap_source *src, tp_error *err);
  /* live cameras: true once the camera itself says auto exposure has
   * converged (NULL: judge from the picture only) */
  bool (*converged)(cap_source *src);
} cap__backend;

/* System layers the backends call; NULL members mean the real ones. Tests
 * pass fakes so buffer handling, unplugging and reconnects run in CI. */
struct cap__v4l2_sys;
struct cap__lcam_ops;
typedef struct {
  const struct cap__v4l2_sys *v4l2;
  const struct cap__lcam_ops *lcam;
} cap__hooks;

struct cap_source {
  cap_spec spec;
  cap__hooks hooks;
  cap_options opt;
  const cap__backend *backend;
  void *state;
  cap_stats stats;
  cap_settings settings;
  uint64_t next_sequence;
  int64_t last_source_sequence; /* -1 before the first frame */
  int64_t pace_start_ns;        /* replay pacing: monotonic start */
  tp_image color_buf;           /* RGB conversion target (owned) */
};

/* Backends' open functions: set src->backend, src->state, src->settings. */
tp_status cap__open_replay(cap_source *src, tp_error *err);
tp_status cap__open_video(cap_source *src, tp_error *err);
tp_status cap__open_v4l2(cap_source *src, tp_error *err);
tp_status cap__open_libcamera(cap_source *src, tp_error *err);

/* Camera listings for cap_list_cameras: lines on out, the count, or -1
 * with err set when the backend cannot look (NULL layers: the real ones). */
int cap__libcamera_list(FILE *out, const struct cap__lcam_ops *ops,
                        tp_error *err);
int cap__v4l2_list(FILE *out, const struct cap__v4l2_sys *sys);

/* Allocates a source with parsed spec and options, no backend yet. */
tp_status cap__source_new(cap_source **out, const cap_spec *spec,
                          const cap_options *opt, tp_error *err);
/* cap_open with fake system layers (hooks may be NULL). */
tp_status cap__open_with(cap_source **out, const char *source,
                         const cap_options *opt, const cap__hooks *hooks,
                         tp_error *err);
/* Settles and locks a live source (auto first, lock once stable). */
tp_status cap__settle(cap_source *src, tp_error *err);

int64_t cap__now_ns(void);
void cap__sleep_ns(int64_t ns);

/* Logs through src->opt.log when set. */
void cap__log(const cap_source *src, tp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Pixel conversions (convert.c). Destinations are caller-owned. */
void cap__yuyv_to_gray(const uint8_t *yuyv, int stride, tp_image *gray);
void cap__yuyv_to_rgb(const uint8_t *yuyv, int stride, tp_image *rgb);
void cap__i420_to_rgb(const tp_image *y, const uint8_t *u, const uint8_t *v,
                      int uv_stride, tp_image *rgb);
void cap__rgb_to_gray(const tp_image *rgb, tp_image *gray);
/* Mean of a gray image sampled on a grid (for settling). */
double cap__mean_gray(const tp_image *gray);
/* (Re)allocates img to the given shape if it differs. */
tp_status cap__ensure_image(tp_image *img, int width, int height,
                            int channels);

/* Reads an image file (JPEG or PNG, through vision/cvw) into out with the
 * given channels (1 gray, 3 RGB), reusing out's buffer when it fits. */
tp_status cap__read_image(const char *path, int channels, tp_image *out,
                          tp_error *err);

/* JPEG decoding for MJPEG webcams (jpeg.c). Decodes into out (gray or
 * RGB, reallocated to the JPEG's size when needed). */
tp_status cap__jpeg_decode(const uint8_t *data, size_t len, int channels,
                           tp_image *out, tp_error *err);

#endif
