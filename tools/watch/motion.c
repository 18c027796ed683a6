/* watch motion: which frames are still. Plain C on a shrunken gray
 * frame, normalised by its mean so a lamp switched on is not motion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

struct wch_motion {
  wch_motion_config cfg;
  int w, h;        /* working size */
  float *prev;     /* last frame, normalised */
  float *cur;
  bool have_prev;
  int run;         /* still frames in a row */
  bool decided;    /* this still run was already reported as settled */
};

void wch_motion_config_default(wch_motion_config *cfg) {
  cfg->width = 160;
  cfg->noise_level = 8;
  cfg->max_changed = 0.002;
  cfg->still_frames = 3;
}

tp_status wch_motion_create(const wch_motion_config *cfg, wch_motion **out,
                            tp_error *err) {
  *out = NULL;
  wch_motion *m = calloc(1, sizeof *m);
  if (!m) return tp_error_set(err, TP_ERR_NOMEM, "motion: out of memory");
  if (cfg)
    m->cfg = *cfg;
  else
    wch_motion_config_default(&m->cfg);
  if (m->cfg.width < 16 || m->cfg.width > 4096 || m->cfg.still_frames < 1) {
    free(m);
    return tp_error_set(err, TP_ERR_INVALID, "motion: width 16..4096 and "
                        "still_frames >= 1");
  }
  *out = m;
  return TP_OK;
}

void wch_motion_destroy(wch_motion *m) {
  if (!m) return;
  free(m->prev);
  free(m->cur);
  free(m);
}

/* Box-averages the frame down to the working size and divides by the
 * mean (times 128), so global brightness changes cancel out. */
static void shrink(const tp_image *g, int w, int h, float *out) {
  double sum = 0;
  for (int y = 0; y < h; y++) {
    int y0 = y * g->height / h, y1 = (y + 1) * g->height / h;
    for (int x = 0; x < w; x++) {
      int x0 = x * g->width / w, x1 = (x + 1) * g->width / w;
      unsigned acc = 0, n = 0;
      for (int yy = y0; yy < y1; yy++) {
        const uint8_t *row = tp_image_row(g, yy);
        for (int xx = x0; xx < x1; xx++) acc += row[xx * g->channels], n++;
      }
      out[y * w + x] = n ? (float)acc / (float)n : 0;
      sum += out[y * w + x];
    }
  }
  float scale = sum > 0 ? (float)(128.0 * w * h / sum) : 1.0f;
  for (int i = 0; i < w * h; i++) out[i] *= scale;
}

tp_status wch_motion_feed(wch_motion *m, const tp_image *gray,
                          wch_motion_result *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  if (!gray || !gray->data || gray->width < 1 || gray->height < 1)
    return tp_error_set(err, TP_ERR_INVALID, "motion: empty frame");
  int w = m->cfg.width < gray->width ? m->cfg.width : gray->width;
  int h = (int)((long)gray->height * w / gray->width);
  if (h < 1) h = 1;
  if (w != m->w || h != m->h) {
    free(m->prev);
    free(m->cur);
    m->prev = malloc(sizeof(float) * (size_t)(w * h));
    m->cur = malloc(sizeof(float) * (size_t)(w * h));
    if (!m->prev || !m->cur)
      return tp_error_set(err, TP_ERR_NOMEM, "motion: out of memory");
    m->w = w, m->h = h, m->have_prev = false;
  }
  shrink(gray, w, h, m->cur);
  int changed = 0;
  if (m->have_prev)
    for (int i = 0; i < w * h; i++)
      changed += fabsf(m->cur[i] - m->prev[i]) > m->cfg.noise_level;
  out->changed = m->have_prev ? (double)changed / (w * h) : 1.0;
  float *t = m->prev;
  m->prev = m->cur;
  m->cur = t;
  m->have_prev = true;
  if (out->changed <= m->cfg.max_changed) {
    m->run++;
  } else {
    m->run = 0;
    m->decided = false;
  }
  out->run = m->run;
  /* the first frame of a run is the one after the motion: it may still be
   * blurred, so the run has to be long enough without it */
  out->still = m->run >= m->cfg.still_frames;
  out->settled = out->still && !m->decided;
  if (out->settled) m->decided = true;
  return TP_OK;
}
