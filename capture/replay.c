/* capture: replay of still images and numbered frame folders.
 *
 * dir: takes every .jpg/.jpeg/.png whose name holds a number, ordered by
 * the last number in the name (frame-000001.jpg, shot_12.png ...). A
 * missing number or an unreadable file is skipped with a warning and
 * counted as dropped: a replay never stops on one bad frame. */
#define _DEFAULT_SOURCE /* POSIX clocks, strdup, V4L2 headers */
#include "cap_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  char *name;
  long number;
} replay_entry;

typedef struct {
  replay_entry *entries;
  size_t count;
  size_t next;
  long first_number;
  tp_image gray;  /* owned: the frame handed out last */
  tp_image color; /* owned, when color is asked for */
} replay_state;

static bool is_image_name(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg") ||
                 !strcasecmp(dot, ".png"));
}

/* The last run of digits in the name, or -1 when there is none. */
static long last_number(const char *name) {
  const char *end = strrchr(name, '.');
  long value = -1;
  for (const char *p = name; p < end; p++) {
    if (!isdigit((unsigned char)*p)) continue;
    value = 0;
    for (; p < end && isdigit((unsigned char)*p); p++)
      value = value < 100000000 ? value * 10 + (*p - '0') : value;
    p--;
  }
  return value;
}

static int compare_entries(const void *a, const void *b) {
  const replay_entry *x = a, *y = b;
  if (x->number != y->number) return x->number < y->number ? -1 : 1;
  return strcmp(x->name, y->name);
}

static void replay_close(void *state) {
  replay_state *st = state;
  if (!st) return;
  for (size_t i = 0; i < st->count; i++) free(st->entries[i].name);
  free(st->entries);
  tp_image_free(&st->gray);
  tp_image_free(&st->color);
  free(st);
}

static tp_status add_entry(replay_state *st, size_t *cap, const char *name,
                           long number, tp_error *err) {
  if (st->count == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    replay_entry *grown = realloc(st->entries, ncap * sizeof *grown);
    if (!grown) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    st->entries = grown;
    *cap = ncap;
  }
  char *copy = strdup(name);
  if (!copy) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  st->entries[st->count++] = (replay_entry){copy, number};
  return TP_OK;
}

static tp_status list_folder(replay_state *st, const char *folder,
                             tp_error *err) {
  DIR *dir = opendir(folder);
  if (!dir)
    return tp_error_set(err, errno == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
                        "cannot open frame folder %s: %s", folder,
                        strerror(errno));
  size_t cap = 0;
  tp_status status = TP_OK;
  struct dirent *de;
  while (status == TP_OK && (de = readdir(dir))) {
    long number = last_number(de->d_name);
    if (de->d_name[0] != '.' && is_image_name(de->d_name) && number >= 0)
      status = add_entry(st, &cap, de->d_name, number, err);
  }
  closedir(dir);
  if (status != TP_OK) return status;
  if (st->count == 0)
    return tp_error_set(err, TP_ERR_NOTFOUND,
                        "frame folder %s holds no numbered .jpg/.png frames "
                        "(expected names like frame-000001.jpg)",
                        folder);
  qsort(st->entries, st->count, sizeof *st->entries, compare_entries);
  st->first_number = st->entries[0].number;
  return TP_OK;
}

/* Reads one file into the state's images (gray, and RGB when asked). */
static tp_status load_image(cap_source *src, replay_state *st,
                            const char *path, tp_error *err) {
  if (!src->opt.color) return cap__read_image(path, 1, &st->gray, err);
  tp_status status = cap__read_image(path, 3, &st->color, err);
  if (status != TP_OK) return status;
  status = cap__ensure_image(&st->gray, st->color.width, st->color.height, 1);
  if (status != TP_OK) return tp_error_set(err, status, "out of memory");
  cap__rgb_to_gray(&st->color, &st->gray);
  return TP_OK;
}

static void fill_frame(cap_source *src, replay_state *st, long number,
                       cap_frame *frame) {
  frame->gray = st->gray;
  if (src->opt.color) frame->color = st->color;
  frame->source_sequence = (uint64_t)(number - st->first_number);
  frame->timestamp_ns =
      (int64_t)((double)(number - st->first_number) * 1e9 / src->settings.fps);
  src->settings.width = st->gray.width;
  src->settings.height = st->gray.height;
}

static int dir_next(cap_source *src, cap_frame *frame, tp_error *err) {
  replay_state *st = src->state;
  char path[CAP_PATH_MAX + 300];
  while (st->next < st->count) {
    const replay_entry *e = &st->entries[st->next++];
    if (st->next >= 2 && e->number > st->entries[st->next - 2].number + 1)
      cap__log(src, TP_LOG_WARN, "%s: frames %ld to %ld are missing",
               src->spec.path, st->entries[st->next - 2].number + 1,
               e->number - 1);
    snprintf(path, sizeof path, "%s/%s", src->spec.path, e->name);
    tp_error read_err;
    if (load_image(src, st, path, &read_err) == TP_OK) {
      fill_frame(src, st, e->number, frame);
      return CAP_FRAME;
    }
    cap__log(src, TP_LOG_WARN, "skipping frame: %s", read_err.text);
  }
  (void)err;
  return CAP_END;
}

static int file_next(cap_source *src, cap_frame *frame, tp_error *err) {
  replay_state *st = src->state;
  (void)err;
  if (st->next++ > 0) return CAP_END;
  fill_frame(src, st, 0, frame);
  return CAP_FRAME;
}

static const cap__backend cap__dir_backend = {"dir", dir_next, replay_close,
                                              NULL, NULL};
static const cap__backend cap__file_backend = {"file", file_next,
                                               replay_close, NULL, NULL};

static void describe(cap_source *src, const char *name) {
  const char *dot = strrchr(name, '.');
  snprintf(src->settings.format, sizeof src->settings.format, "%s",
           dot && !strcasecmp(dot, ".png") ? "PNG" : "JPEG");
  snprintf(src->settings.camera, sizeof src->settings.camera, "replay %s",
           src->spec.kind == CAP_KIND_DIR ? "folder" : "image");
}

tp_status cap__open_replay(cap_source *src, tp_error *err) {
  replay_state *st = calloc(1, sizeof *st);
  if (!st) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  src->state = st;
  src->settings.fps = src->spec.fps > 0   ? src->spec.fps
                      : src->opt.fps > 0 ? src->opt.fps
                                         : 10;
  if (src->spec.kind == CAP_KIND_FILE) {
    src->backend = &cap__file_backend;
    describe(src, src->spec.path);
    return load_image(src, st, src->spec.path, err);
  }
  src->backend = &cap__dir_backend;
  tp_status status = list_folder(st, src->spec.path, err);
  if (status == TP_OK) describe(src, st->entries[0].name);
  return status;
}
