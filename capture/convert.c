/* capture: pixel conversions from camera formats to gray and RGB. */
#include "cap_internal.h"

#include <stdlib.h>
#include <string.h>

tp_status cap__ensure_image(tp_image *img, int width, int height,
                            int channels) {
  if (img->data && img->width == width && img->height == height &&
      img->channels == channels)
    return TP_OK;
  tp_image_free(img);
  return tp_image_alloc(img, width, height, channels);
}

void cap__yuyv_to_gray(const uint8_t *yuyv, int stride, tp_image *gray) {
  for (int y = 0; y < gray->height; y++) {
    const uint8_t *in = yuyv + (size_t)y * (size_t)stride;
    uint8_t *out = tp_image_row(gray, y);
    for (int x = 0; x < gray->width; x++) out[x] = in[2 * x];
  }
}

static uint8_t clamp8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

/* BT.601 limited range, integer arithmetic (as libjpeg/V4L2 use). */
static void yuv_to_rgb(int y, int u, int v, uint8_t *rgb) {
  int c = 298 * (y - 16), d = u - 128, e = v - 128;
  rgb[0] = clamp8((c + 409 * e + 128) >> 8);
  rgb[1] = clamp8((c - 100 * d - 208 * e + 128) >> 8);
  rgb[2] = clamp8((c + 516 * d + 128) >> 8);
}

void cap__yuyv_to_rgb(const uint8_t *yuyv, int stride, tp_image *rgb) {
  for (int y = 0; y < rgb->height; y++) {
    const uint8_t *in = yuyv + (size_t)y * (size_t)stride;
    uint8_t *out = tp_image_row(rgb, y);
    for (int x = 0; x < rgb->width; x++) {
      const uint8_t *pair = in + 4 * (x / 2);
      yuv_to_rgb(in[2 * x], pair[1], pair[3], out + 3 * x);
    }
  }
}

void cap__i420_to_rgb(const tp_image *yp, const uint8_t *u, const uint8_t *v,
                      int uv_stride, tp_image *rgb) {
  for (int y = 0; y < rgb->height; y++) {
    const uint8_t *yr = tp_image_row(yp, y);
    const uint8_t *ur = u + (size_t)(y / 2) * (size_t)uv_stride;
    const uint8_t *vr = v + (size_t)(y / 2) * (size_t)uv_stride;
    uint8_t *out = tp_image_row(rgb, y);
    for (int x = 0; x < rgb->width; x++)
      yuv_to_rgb(yr[x], ur[x / 2], vr[x / 2], out + 3 * x);
  }
}

void cap__rgb_to_gray(const tp_image *rgb, tp_image *gray) {
  for (int y = 0; y < gray->height; y++) {
    const uint8_t *in = tp_image_row(rgb, y);
    uint8_t *out = tp_image_row(gray, y);
    for (int x = 0; x < gray->width; x++, in += 3)
      out[x] = (uint8_t)((77 * in[0] + 150 * in[1] + 29 * in[2] + 128) >> 8);
  }
}

double cap__mean_gray(const tp_image *gray) {
  if (!gray->data || gray->width <= 0 || gray->height <= 0) return 0;
  /* A 64x64 grid is plenty to see exposure move and costs nothing. */
  int sx = gray->width > 64 ? gray->width / 64 : 1;
  int sy = gray->height > 64 ? gray->height / 64 : 1;
  double sum = 0;
  long n = 0;
  for (int y = 0; y < gray->height; y += sy) {
    const uint8_t *row = tp_image_row(gray, y);
    for (int x = 0; x < gray->width; x += sx, n++) sum += row[x];
  }
  return n ? sum / (double)n : 0;
}
