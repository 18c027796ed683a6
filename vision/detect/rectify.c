/* rectify: the photo resampled into a top-down image of the table.
 *
 * The table mapping (markers, lens) is smooth, so it is evaluated only on
 * a coarse grid (every RECT_GRID-th table pixel) and interpolated
 * bilinearly in between: the interpolation error over 4 mm is far below a
 * hundredth of a pixel, and the mapping's calls drop from one per pixel to
 * one per 64 pixels. The image is made in strips of rows: each strip's
 * pixel maps, its remap and its Lab conversion stay in the cache, and
 * strips are independent, so `threads` workers (pthreads, no shared
 * mutable state but disjoint rows) share them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"

enum { RECT_GRID = 8, RECT_STRIP = 16, RECT_MAX_THREADS = 16 };

typedef struct {
  const tp_image *rgb;
  vis__table *t;
  const float *gx, *gy; /* image position of every RECT_GRID-th table pixel */
  int gw;               /* grid nodes per row */
  int first, step;      /* strips first, first + step, ... */
  tp_status st;
  tp_error err;
} strip_job;

/* The table pixel -> image position maps of rows y0..y0+n-1, by bilinear
 * interpolation of the grid: per grid cell, the two row-interpolated ends
 * and a linear run between them. */
static void strip_maps(const strip_job *j, int y0, int n, float *mx, float *my) {
  const int g = RECT_GRID, w = j->t->rgb.width, gw = j->gw;
  for (int r = 0; r < n; r++) {
    int y = y0 + r, gj = y / g;
    float fy = (float)(y - gj * g) / g;
    const float *ax = j->gx + (size_t)gj * gw, *ay = j->gy + (size_t)gj * gw;
    float *ox = mx + (size_t)r * w, *oy = my + (size_t)r * w;
    for (int gi = 0; gi * g < w; gi++) {
      float lx = ax[gi] + fy * (ax[gi + gw] - ax[gi]);
      float rx = ax[gi + 1] + fy * (ax[gi + 1 + gw] - ax[gi + 1]);
      float ly = ay[gi] + fy * (ay[gi + gw] - ay[gi]);
      float ry = ay[gi + 1] + fy * (ay[gi + 1 + gw] - ay[gi + 1]);
      float dx = (rx - lx) / g, dy = (ry - ly) / g;
      int end = gi * g + g < w ? gi * g + g : w;
      for (int x = gi * g, k = 0; x < end; x++, k++) {
        ox[x] = lx + k * dx;
        oy[x] = ly + k * dy;
      }
    }
  }
}

/* A view of rows y0..y0+n-1 of img. */
static tp_image rows(const tp_image *img, int y0, int n) {
  tp_image v = *img;
  v.data = img->data + (size_t)y0 * (size_t)img->stride;
  v.height = n;
  return v;
}

static void *run_strips(void *arg) {
  strip_job *j = arg;
  vis__table *t = j->t;
  int w = t->rgb.width, h = t->rgb.height;
  float *mx = malloc(sizeof(float) * (size_t)w * RECT_STRIP);
  float *my = malloc(sizeof(float) * (size_t)w * RECT_STRIP);
  if (!mx || !my) {
    j->st = tp_error_set(&j->err, TP_ERR_NOMEM, "out of memory for the table image");
    goto done;
  }
  for (int y0 = j->first * RECT_STRIP; y0 < h; y0 += j->step * RECT_STRIP) {
    int n = y0 + RECT_STRIP <= h ? RECT_STRIP : h - y0;
    strip_maps(j, y0, n, mx, my);
    tp_image rgb = rows(&t->rgb, y0, n), lab = rows(&t->lab, y0, n);
    j->st = cvw_remap(j->rgb, mx, my, &rgb, &j->err);
    if (!j->st) j->st = cvw_rgb_to_lab(&rgb, &lab, &j->err);
    if (j->st) break;
  }
done:
  free(mx);
  free(my);
  return NULL;
}

/* Image positions of the grid nodes; -1e6 where the table does not map. */
static tp_status grid(const vis_table_map *map, const vis__table *t, int gw, int gh,
                      float *gx, float *gy) {
  for (int j = 0; j < gh; j++)
    for (int i = 0; i < gw; i++) {
      vis_pt mm = vis__px_to_mm(t, (vis_pt){(double)i * RECT_GRID, (double)j * RECT_GRID});
      double in[2] = {mm.x, mm.y}, px[2];
      bool ok = map->table_to_image(map->user, in, px);
      gx[(size_t)j * gw + i] = ok ? (float)px[0] : -1e6f;
      gy[(size_t)j * gw + i] = ok ? (float)px[1] : -1e6f;
    }
  return TP_OK;
}

tp_status vis__rectify(const tp_image *rgb, const vis_table_map *map, int threads,
                       vis__table *t, tp_error *err) {
  int w = t->rgb.width, h = t->rgb.height;
  int gw = (w + RECT_GRID - 1) / RECT_GRID + 1, gh = (h + RECT_GRID - 1) / RECT_GRID + 1;
  float *gx = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
  float *gy = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
  if (!gx || !gy) {
    free(gx);
    free(gy);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the table image");
  }
  grid(map, t, gw, gh, gx, gy);
  int n = threads < 1 ? 1 : threads > RECT_MAX_THREADS ? RECT_MAX_THREADS : threads;
  strip_job jobs[RECT_MAX_THREADS];
  pthread_t tid[RECT_MAX_THREADS];
  bool started[RECT_MAX_THREADS] = {false};
  for (int k = 0; k < n; k++) {
    jobs[k] = (strip_job){rgb, t, gx, gy, gw, k, n, TP_OK, {{0}}};
    if (k > 0) started[k] = pthread_create(&tid[k], NULL, run_strips, &jobs[k]) == 0;
  }
  run_strips(&jobs[0]);
  for (int k = 1; k < n; k++) {
    if (started[k])
      pthread_join(tid[k], NULL);
    else
      run_strips(&jobs[k]); /* no thread to be had: do its strips here */
  }
  free(gx);
  free(gy);
  for (int k = 0; k < n; k++)
    if (jobs[k].st) {
      *err = jobs[k].err;
      return jobs[k].st;
    }
  return TP_OK;
}
