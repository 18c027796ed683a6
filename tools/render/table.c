/* render: procedural table surfaces (plain, wood, felt, patterned cloth).
 * Drawn once per table description into a texture over the table rect. */
#include <math.h>
#include <stdlib.h>

#include "render_internal.h"

static float fbm(float x, float y, uint32_t seed, int octaves) {
  float sum = 0, amp = 0.5f, norm = 0;
  for (int i = 0; i < octaves; i++) {
    sum += amp * rnd__value_noise(x, y, seed + (uint32_t)i * 101u);
    norm += amp;
    x *= 2.03f, y *= 2.03f, amp *= 0.5f;
  }
  return sum / norm;
}

static float mixf(float a, float b, float t) { return a + (b - a) * t; }

/* Returns the blend weight of colour2 (0..1) and a brightness factor. */
static void wood(float x, float y, float plank, float *w2, float *bright) {
  float row = floorf(y / plank);
  uint32_t h = rnd__hash2((int32_t)row, 3, 17);
  float shift = (float)(h % 1000) * 3.7f;
  float gy = y - row * plank;
  float warp = fbm((x + shift) * 0.004f, gy * 0.05f + row * 7, 5, 2) * 18.0f;
  float rings = 0.5f + 0.5f * sinf((gy + warp) * 1.9f + row);
  float streak = rnd__value_noise((x + shift) * 0.02f, gy * 0.9f, 9);
  *w2 = 0.25f + 0.45f * rings * rings + 0.3f * (streak - 0.5f);
  *bright = 0.92f + 0.16f * (float)((h >> 10) % 100) / 100.0f;
  float edge = fminf(gy, plank - gy);
  if (edge < 0.7f) *bright *= 0.55f + 0.45f * edge / 0.7f; /* the gap between planks */
  /* butt joints every so often */
  float seg = plank * 9.0f, sx = fmodf(x + shift + 100000.0f, seg);
  if (sx < 0.6f) *bright *= 0.6f;
}

static void cloth(float x, float y, float rep, float *w2, float *bright) {
  /* the weave itself is finer than the camera resolves: a faint linen
   * texture, threads running along x and y */
  float lx = rnd__value_noise(x * 0.9f, y * 0.12f, 41), ly = rnd__value_noise(x * 0.12f, y * 0.9f, 43);
  *bright = 0.9f + 0.06f * lx + 0.06f * ly;
  /* printed pattern: tartan bands and rosettes, one repeat = rep mm */
  float u = fmodf(x + 100000.0f * rep, rep) / rep, v = fmodf(y + 100000.0f * rep, rep) / rep;
  float band = (fabsf(u - 0.5f) < 0.06f || fabsf(v - 0.5f) < 0.06f) ? 0.8f : 0.0f;
  float thin = (fabsf(u - 0.2f) < 0.012f || fabsf(v - 0.2f) < 0.012f) ? 0.6f : 0.0f;
  float du = u - 0.5f, dv = v - 0.5f, r = sqrtf(du * du + dv * dv);
  float petal = 0.5f + 0.5f * cosf(8.0f * atan2f(dv, du));
  float rose = (r < 0.12f + 0.06f * petal && r > 0.03f) ? 1.0f : 0.0f;
  float corner = sqrtf(u * u + v * v) < 0.1f || sqrtf((1 - u) * (1 - u) + v * v) < 0.1f ||
                         sqrtf(u * u + (1 - v) * (1 - v)) < 0.1f ||
                         sqrtf((1 - u) * (1 - u) + (1 - v) * (1 - v)) < 0.1f
                     ? 0.9f : 0.0f;
  *w2 = fmaxf(fmaxf(band, thin), fmaxf(rose, corner));
}

tp_status rnd__table_texture(const rnd_table *t, double px_per_mm, tp_image *out,
                             tp_error *err) {
  double w_mm = t->rect_mm[2] - t->rect_mm[0], h_mm = t->rect_mm[3] - t->rect_mm[1];
  double max_px = 2.5e6;
  if (w_mm * h_mm * px_per_mm * px_per_mm > max_px) px_per_mm = sqrt(max_px / (w_mm * h_mm));
  int w = (int)ceil(w_mm * px_per_mm) + 1, h = (int)ceil(h_mm * px_per_mm) + 1;
  if (w < 2) w = 2;
  if (h < 2) h = 2;
  if (tp_image_alloc(out, w, h, 3) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "table texture: out of memory (%dx%d)", w, h);
  float step = (float)(w_mm / (w - 1)), stepy = (float)(h_mm / (h - 1));
  float plank = (float)t->pattern_mm;
  for (int j = 0; j < h; j++) {
    uint8_t *row = tp_image_row(out, j);
    float y = (float)t->rect_mm[1] + j * stepy;
    for (int i = 0; i < w; i++) {
      float x = (float)t->rect_mm[0] + i * step, w2 = 0, bright = 1;
      switch (t->surface) {
      case RND_SURFACE_PLAIN:
        bright = 0.95f + 0.07f * fbm(x * 0.01f, y * 0.01f, 21, 2) +
                 0.03f * rnd__value_noise(x * 0.8f, y * 0.8f, 4);
        break;
      case RND_SURFACE_WOOD: wood(x, y, plank > 20 ? plank : 20, &w2, &bright); break;
      case RND_SURFACE_FELT:
        bright = 0.9f + 0.1f * fbm(x * 0.7f, y * 0.7f, 31, 2) + 0.05f * fbm(x * 0.02f, y * 0.02f, 8, 2);
        w2 = 0.15f * rnd__value_noise(x * 0.05f, y * 0.05f, 12);
        break;
      case RND_SURFACE_CLOTH: cloth(x, y, plank, &w2, &bright); break;
      }
      w2 = w2 < 0 ? 0 : w2 > 1 ? 1 : w2;
      for (int c = 0; c < 3; c++) {
        float v = mixf((float)t->colour[c], (float)t->colour2[c], w2) * bright;
        row[3 * i + c] = (uint8_t)(v <= 0 ? 0 : v >= 1 ? 255 : v * 255.0f + 0.5f);
      }
    }
  }
  return TP_OK;
}
