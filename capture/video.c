/* capture: video files through OpenCV's VideoCapture (vision/cvw). */
#include "cap_internal.h"
#include "cvw.h"

#include <stdlib.h>

typedef struct {
  cvw_video *video;
  tp_image gray, color; /* the frame handed out last (owned) */
  uint64_t index;
} video_state;

static int video_next(cap_source *src, cap_frame *frame, tp_error *err) {
  video_state *st = src->state;
  tp_image *target = src->opt.color ? &st->color : &st->gray;
  tp_status s = cvw_video_read(st->video, src->opt.color ? 3 : 1, target, err);
  if (s == TP_ERR_NOTFOUND) return CAP_END;
  if (s != TP_OK) return s;
  if (src->opt.color) {
    if (cap__ensure_image(&st->gray, st->color.width, st->color.height, 1))
      return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    cap__rgb_to_gray(&st->color, &st->gray);
    frame->color = st->color;
  }
  frame->gray = st->gray;
  frame->source_sequence = st->index;
  frame->timestamp_ns = (int64_t)((double)st->index * 1e9 / src->settings.fps);
  st->index++;
  src->settings.width = st->gray.width;
  src->settings.height = st->gray.height;
  return CAP_FRAME;
}

static void video_close(void *state) {
  video_state *st = state;
  if (!st) return;
  cvw_video_destroy(st->video);
  tp_image_free(&st->gray);
  tp_image_free(&st->color);
  free(st);
}

static const cap__backend cap__video_backend = {"video", video_next,
                                                video_close, NULL, NULL};

tp_status cap__open_video(cap_source *src, tp_error *err) {
  video_state *st = calloc(1, sizeof *st);
  if (!st) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  src->state = st;
  src->backend = &cap__video_backend;
  tp_status s = cvw_video_create(src->spec.path, &st->video, err);
  if (s != TP_OK) return s;
  double fps = cvw_video_fps(st->video);
  src->settings.fps = src->opt.fps > 0 ? src->opt.fps : fps > 0 ? fps : 10;
  snprintf(src->settings.camera, sizeof src->settings.camera, "replay video");
  snprintf(src->settings.format, sizeof src->settings.format, "video");
  return TP_OK;
}
