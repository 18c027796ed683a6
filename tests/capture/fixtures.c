#define _POSIX_C_SOURCE 200809L
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "cvw.h"

static bool fail(const char *what, const tp_error *err) {
  fprintf(stderr, "fixtures: %s: %s\n", what, err ? err->text : "");
  return false;
}

/* A 64x48 RGB frame: a level plus a bright square that moves with i. */
static void draw(tp_image *img, int i) {
  for (int y = 0; y < img->height; y++) {
    uint8_t *row = tp_image_row(img, y);
    for (int x = 0; x < img->width; x++) {
      bool square = x >= 4 * i && x < 4 * i + 12 && y >= 10 && y < 22;
      row[3 * x] = square ? 250 : (uint8_t)(40 + 10 * i);
      row[3 * x + 1] = square ? 40 : (uint8_t)(60 + 10 * i);
      row[3 * x + 2] = square ? 40 : 90;
    }
  }
}

static bool write_bytes(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static bool sub(char *out, size_t n, const char *folder, const char *name) {
  return snprintf(out, n, "%s/%s", folder, name) < (int)n;
}

static bool frames(const char *folder, const char *name, const int *numbers,
                   int count, int garbage, tp_image *img) {
  char dir[1024], path[1100];
  if (!sub(dir, sizeof dir, folder, name)) return false;
  mkdir(dir, 0777);
  for (int k = 0; k < count; k++) {
    snprintf(path, sizeof path, "%s/frame-%06d.jpg", dir, numbers[k]);
    if (numbers[k] == garbage) {
      if (!write_bytes(path, "\xff\xd8 not a jpeg at all", 20)) return false;
      continue;
    }
    draw(img, numbers[k]);
    tp_error err;
    if (cap_write_jpeg(path, img, 90, &err) != TP_OK) return fail(path, &err);
  }
  return true;
}

static bool video(const char *folder, tp_image *img) {
  char path[1100];
  sub(path, sizeof path, folder, "clip.avi");
  cvw_video_writer *w;
  tp_error err;
  if (cvw_video_writer_create(path, 5, img->width, img->height, &w, &err))
    return fail(path, &err);
  for (int i = 0; i < 8; i++) {
    draw(img, i);
    if (cvw_video_writer_write(w, img, &err)) {
      cvw_video_writer_close(w, NULL);
      return fail(path, &err);
    }
  }
  return cvw_video_writer_close(w, &err) == TP_OK || fail(path, &err);
}

bool cap_test_make_fixtures(const char *folder) {
  tp_image img;
  if (tp_image_alloc(&img, 64, 48, 3) != TP_OK) return false;
  static const int game[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  static const int gaps[] = {1, 2, 4, 5, 6};
  char path[1100];
  tp_error err;
  bool ok = frames(folder, "game", game, 10, -1, &img) &&
            frames(folder, "gaps", gaps, 5, 4, &img) &&
            frames(folder, "empty", game, 0, -1, &img) && video(folder, &img);
  draw(&img, 3);
  ok = ok && sub(path, sizeof path, folder, "still.jpg") &&
       cap_write_jpeg(path, &img, 90, &err) == TP_OK;
  ok = ok && sub(path, sizeof path, folder, "still.png") &&
       cvw_image_write(path, &img, 0, &err) == TP_OK;
  ok = ok && sub(path, sizeof path, folder, "corrupt.jpg") &&
       write_bytes(path, "\xff\xd8\xff\xe0 truncated", 14);
  tp_image_free(&img);
  return ok;
}

bool cap_test_make_many(const char *folder, int count) {
  tp_image img;
  if (tp_image_alloc(&img, 32, 24, 3) != TP_OK) return false;
  draw(&img, 1);
  uint8_t *jpeg;
  size_t len;
  tp_error err;
  bool ok = cvw_image_encode(&img, ".jpg", 80, &jpeg, &len, &err) == TP_OK;
  tp_image_free(&img);
  if (!ok) return fail("encode", &err);
  mkdir(folder, 0777);
  char path[1100];
  for (int i = 1; ok && i <= count; i++) {
    snprintf(path, sizeof path, "%s/frame-%06d.jpg", folder, i);
    ok = write_bytes(path, jpeg, len);
  }
  free(jpeg);
  return ok;
}
