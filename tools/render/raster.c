/* render: the rasterizer.
 *
 * For every output pixel the camera ray is intersected with the table plane
 * (exactly on a grid of nodes every GRID pixels, bilinear in between: the
 * mapping is smooth, the error is far below a hundredth of a pixel), the
 * top-most object there is found in stacking order and its face is sampled
 * from a mip level that matches the pixel's footprint. Pixels near an edge
 * are supersampled (4x4), pixels that see a moving object are sampled over
 * the exposure (motion blur). Then shadows, light, glare; blur and sensor
 * noise run over the finished image.
 *
 * Objects are binned per 16x16-pixel tile (their table-mm bounding boxes
 * against the tile's), so the inner loop only looks at the few objects that
 * can be there. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

enum { GRID = 8, TILE = 16, MAX_LEVELS = 12, MAX_OBJECTS = RND_MAX_CARDS + RND_MAX_CARPETS + RND_MAX_MARKERS + RND_MAX_HANDS };
enum { OBJ_CARD, OBJ_MARKER, OBJ_HAND };

typedef struct {
  int n_levels;
  tp_image level[MAX_LEVELS];
} mip;

typedef struct {
  char stem[RND_NAME_LEN + 16];
  mip tex;
} face_tex;

struct rnd_renderer {
  const rnd_deck *deck;
  rnd_marker_bits_fn marker_bits;
  void *marker_user;
  int n_faces;
  face_tex faces[64];
  mip back;
  /* the table texture of the last scene, reused while the table is equal */
  rnd_table table_key;
  bool table_valid;
  tp_image table_tex;
  /* marker textures, kept while the marker stays the same */
  mip marker_tex[RND_MAX_MARKERS];
  struct {
    char dictionary[RND_NAME_LEN];
    int id;
    double size_mm, quiet_mm;
  } marker_key[RND_MAX_MARKERS];
};

typedef struct {
  int kind;
  int rank;              /* higher is on top */
  double cx, cy, c, s;   /* centre, cos/sin of the angle */
  double hw, hh, r;      /* half sizes, corner radius */
  double vx, vy, spin;   /* motion over the exposure (mm, rad) */
  bool moving;
  const mip *tex;
  float gloss, tint, bend;
  double shadow_dx, shadow_dy, shadow_soft; /* its shadow: offset and blur */
  double bbox[4];        /* table mm incl. motion and shadow */
  /* hand only */
  double arm_dx, arm_dy;
} robj;

typedef struct {
  const rnd_scene *scene;
  const rnd_renderer *r;
  int n;
  robj obj[MAX_OBJECTS];
  const tp_image *table;
  double table_sx, table_sy; /* texels per mm */
  double shadow_strength;
} raster_ctx;

/* ---------------- mip maps ----------------------------------------- */

static void mip_free(mip *m) {
  for (int i = 0; i < m->n_levels; i++) tp_image_free(&m->level[i]);
  m->n_levels = 0;
}

static tp_status mip_build(const tp_image *src, mip *m) {
  memset(m, 0, sizeof *m);
  if (tp_image_alloc(&m->level[0], src->width, src->height, 3) != TP_OK) return TP_ERR_NOMEM;
  for (int y = 0; y < src->height; y++)
    memcpy(tp_image_row(&m->level[0], y), tp_image_row(src, y), (size_t)src->width * 3);
  m->n_levels = 1;
  while (m->n_levels < MAX_LEVELS) {
    const tp_image *a = &m->level[m->n_levels - 1];
    if (a->width < 4 || a->height < 4) break;
    tp_image *b = &m->level[m->n_levels];
    if (tp_image_alloc(b, a->width / 2, a->height / 2, 3) != TP_OK) {
      mip_free(m);
      return TP_ERR_NOMEM;
    }
    for (int y = 0; y < b->height; y++) {
      const uint8_t *r0 = tp_image_row(a, 2 * y), *r1 = tp_image_row(a, 2 * y + 1);
      uint8_t *d = tp_image_row(b, y);
      for (int x = 0; x < b->width * 3; x++) {
        int c = x % 3, px = (x / 3) * 6 + c;
        d[x] = (uint8_t)((r0[px] + r0[px + 3] + r1[px] + r1[px + 3] + 2) >> 2);
      }
    }
    m->n_levels++;
  }
  return TP_OK;
}

/* Bilinear sample at texel coordinates of level 0 (centres at integers). */
static inline void mip_sample(const mip *m, double tx, double ty, float texels_per_px,
                              float out[3]) {
  int lv = 0;
  while (texels_per_px > 1.6f && lv + 1 < m->n_levels) {
    texels_per_px *= 0.5f;
    lv++;
  }
  const tp_image *im = &m->level[lv];
  double sc = 1.0 / (double)(1 << lv);
  double x = (tx + 0.5) * sc - 0.5, y = (ty + 0.5) * sc - 0.5;
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  if (x > im->width - 1) x = im->width - 1;
  if (y > im->height - 1) y = im->height - 1;
  int x0 = (int)x, y0 = (int)y;
  int x1 = x0 + 1 < im->width ? x0 + 1 : x0, y1 = y0 + 1 < im->height ? y0 + 1 : y0;
  float fx = (float)(x - x0), fy = (float)(y - y0);
  const uint8_t *a = tp_image_row(im, y0) + 3 * x0, *b = tp_image_row(im, y0) + 3 * x1;
  const uint8_t *c = tp_image_row(im, y1) + 3 * x0, *d = tp_image_row(im, y1) + 3 * x1;
  for (int k = 0; k < 3; k++) {
    float top = a[k] + (b[k] - a[k]) * fx, bot = c[k] + (d[k] - c[k]) * fx;
    out[k] = (top + (bot - top) * fy) * (1.0f / 255.0f);
  }
}

/* ---------------- renderer handle ---------------------------------- */

static tp_status add_face(rnd_renderer *r, const char *stem, const tp_image *img, tp_error *err) {
  face_tex *f = &r->faces[r->n_faces];
  snprintf(f->stem, sizeof f->stem, "%s", stem);
  if (mip_build(img, &f->tex) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "renderer: out of memory for '%s'", stem);
  r->n_faces++;
  return TP_OK;
}

tp_status rnd_renderer_create(const rnd_deck *deck, rnd_marker_bits_fn marker_bits,
                              void *user, rnd_renderer **out, tp_error *err) {
  *out = NULL;
  rnd_renderer *r = calloc(1, sizeof *r);
  if (!r) return tp_error_set(err, TP_ERR_NOMEM, "renderer: out of memory");
  r->deck = deck;
  r->marker_bits = marker_bits;
  r->marker_user = user;
  tp_status st = TP_OK;
  char stem[RND_NAME_LEN + 16];
  for (int i = 0; i < 12 && st == TP_OK; i++) {
    const tp_image *img = rnd_deck_face(deck, rnd_card_types[i]);
    if (img) st = add_face(r, rnd_card_types[i], img, err);
  }
  for (int i = 0; i < rnd_deck_colour_count(deck) && st == TP_OK && r->n_faces < 62; i++) {
    for (int back = 0; back < 2 && st == TP_OK; back++) {
      snprintf(stem, sizeof stem, "carpet-%s%s", rnd_deck_colour(deck, i), back ? "-back" : "");
      const tp_image *img = rnd_deck_face(deck, stem);
      if (img) st = add_face(r, stem, img, err);
    }
  }
  if (st == TP_OK && mip_build(rnd_deck_back(deck), &r->back) != TP_OK)
    st = tp_error_set(err, TP_ERR_NOMEM, "renderer: out of memory");
  if (st != TP_OK) {
    rnd_renderer_destroy(r);
    return st;
  }
  *out = r;
  return TP_OK;
}

void rnd_renderer_destroy(rnd_renderer *r) {
  if (!r) return;
  for (int i = 0; i < r->n_faces; i++) mip_free(&r->faces[i].tex);
  mip_free(&r->back);
  for (int i = 0; i < RND_MAX_MARKERS; i++) mip_free(&r->marker_tex[i]);
  tp_image_free(&r->table_tex);
  free(r);
}

static const mip *find_tex(const rnd_renderer *r, const char *stem) {
  for (int i = 0; i < r->n_faces; i++)
    if (!strcmp(r->faces[i].stem, stem)) return &r->faces[i].tex;
  return NULL;
}

/* ---------------- markers ------------------------------------------ */

/* A marker and its quiet zone as a texture, 8 texels per mm. */
static tp_status marker_texture(rnd_renderer *r, const rnd_scene *scene, int k, tp_error *err) {
  const rnd_marker *m = &scene->markers[k];
  if (r->marker_tex[k].n_levels > 0 && r->marker_key[k].id == m->id &&
      r->marker_key[k].size_mm == m->size_mm && r->marker_key[k].quiet_mm == m->quiet_mm &&
      !strcmp(r->marker_key[k].dictionary, scene->dictionary))
    return TP_OK;
  uint8_t bits[256];
  int cells = 0;
  tp_status st;
  if (r->marker_bits) {
    st = r->marker_bits(r->marker_user, scene->dictionary, m->id, bits, &cells, err);
    if (st != TP_OK) return st;
    if (cells < 3 || cells > 16)
      return tp_error_set(err, TP_ERR_INTERNAL, "marker %d: bad cell count %d", m->id, cells);
  } else {
    /* no bit source: a recognisably fake checker so nobody mistakes it */
    cells = 6;
    for (int i = 0; i < 36; i++) {
      int x = i % 6, y = i / 6;
      bits[i] = (x == 0 || y == 0 || x == 5 || y == 5) ? 0 : (uint8_t)((x + y) & 1);
    }
  }
  double total = m->size_mm + 2 * m->quiet_mm;
  int n = (int)ceil(total * 8);
  if (n < 16) n = 16;
  if (n > 2048) n = 2048;
  tp_image img;
  if (tp_image_alloc(&img, n, n, 3) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "marker texture: out of memory");
  for (int y = 0; y < n; y++) {
    uint8_t *row = tp_image_row(&img, y);
    for (int x = 0; x < n; x++) {
      double mx = (x + 0.5) / n * total - m->quiet_mm, my = (y + 0.5) / n * total - m->quiet_mm;
      uint8_t v = 236; /* white paper */
      if (mx >= 0 && my >= 0 && mx < m->size_mm && my < m->size_mm) {
        int cx = (int)(mx / m->size_mm * cells), cy = (int)(my / m->size_mm * cells);
        v = bits[cy * cells + cx] ? 236 : 22;
      }
      row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = v;
    }
  }
  mip_free(&r->marker_tex[k]);
  st = mip_build(&img, &r->marker_tex[k]);
  tp_image_free(&img);
  if (st == TP_OK) {
    snprintf(r->marker_key[k].dictionary, RND_NAME_LEN, "%s", scene->dictionary);
    r->marker_key[k].id = m->id;
    r->marker_key[k].size_mm = m->size_mm, r->marker_key[k].quiet_mm = m->quiet_mm;
  }
  return st == TP_OK ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "marker texture: out of memory");
}

/* ---------------- objects ------------------------------------------ */

static void set_box(robj *o, double extra) {
  double ex = fabs(o->c) * o->hh + fabs(o->s) * o->hw;
  double ey = fabs(o->s) * o->hh + fabs(o->c) * o->hw;
  if (o->kind == OBJ_HAND) ex = ey = 2500; /* the arm leaves the picture */
  double sweep = fabs(o->spin) * (o->hw + o->hh);
  ex += sweep + fabs(o->vx) * 0.5 + extra;
  ey += sweep + fabs(o->vy) * 0.5 + extra;
  double sx = fmax(o->shadow_dx, 0), sy = fmax(o->shadow_dy, 0);
  double nx = fmin(o->shadow_dx, 0), ny = fmin(o->shadow_dy, 0);
  o->bbox[0] = o->cx - ex + nx - o->shadow_soft;
  o->bbox[1] = o->cy - ey + ny - o->shadow_soft;
  o->bbox[2] = o->cx + ex + sx + o->shadow_soft;
  o->bbox[3] = o->cy + ey + sy + o->shadow_soft;
}

static void set_pose(robj *o, const rnd_pose *p, const rnd_look *look) {
  double a = p->angle_deg * RND__DEG;
  o->cx = p->center_mm[0], o->cy = p->center_mm[1];
  o->c = cos(a), o->s = sin(a);
  o->vx = p->velocity_mm[0], o->vy = p->velocity_mm[1];
  o->spin = p->spin_deg * RND__DEG;
  o->moving = o->vx != 0 || o->vy != 0 || o->spin != 0;
  double sd = look->shadow_deg * RND__DEG, len = 1.5 * p->lift_mm;
  o->shadow_dx = cos(sd) * len, o->shadow_dy = sin(sd) * len;
  o->shadow_soft = look->shadow_softness_mm + 0.8 * p->lift_mm;
}

static tp_status build_objects(raster_ctx *c, rnd_renderer *r, tp_error *err) {
  const rnd_scene *s = c->scene;
  c->n = 0;
  for (int i = 0; i < s->n_markers; i++) {
    tp_status st = marker_texture(r, s, i, err);
    if (st != TP_OK) return st;
    robj *o = &c->obj[c->n++];
    memset(o, 0, sizeof *o);
    o->kind = OBJ_MARKER;
    o->rank = -1000 + i;
    rnd_pose p = {.center_mm = {s->markers[i].center_mm[0], s->markers[i].center_mm[1]},
                  .angle_deg = s->markers[i].angle_deg + 90};
    set_pose(o, &p, &s->look);
    o->hw = o->hh = 0.5 * s->markers[i].size_mm + s->markers[i].quiet_mm;
    o->tex = &r->marker_tex[i];
    o->gloss = 0.5f, o->tint = 1;
    set_box(o, 1);
  }
  int stack[RND_MAX_CARDS + RND_MAX_CARPETS];
  int n = rnd__stacking(s, stack);
  char stem[RND_NAME_LEN + 16];
  for (int k = 0; k < n; k++) {
    robj *o = &c->obj[c->n++];
    memset(o, 0, sizeof *o);
    o->kind = OBJ_CARD;
    o->rank = k;
    const rnd_pose *pose;
    if (stack[k] >= 0) {
      const rnd_card *card = &s->cards[stack[k]];
      pose = &card->pose;
      o->hw = 0.5 * s->card_mm[0], o->hh = 0.5 * s->card_mm[1];
      o->tex = card->face_down ? &r->back : find_tex(r, card->type);
      if (!o->tex)
        return tp_error_set(err, TP_ERR_INVALID,
                            "cards[%d]: the deck has no face for type '%s'", stack[k], card->type);
    } else {
      const rnd_carpet *cp = &s->carpets[-1 - stack[k]];
      pose = &cp->pose;
      o->hw = 0.5 * s->carpet_mm[0], o->hh = 0.5 * s->carpet_mm[1];
      snprintf(stem, sizeof stem, "carpet-%s-back", cp->colour);
      o->tex = cp->face_down ? find_tex(r, stem) : NULL;
      snprintf(stem, sizeof stem, "carpet-%s", cp->colour);
      if (!o->tex) o->tex = find_tex(r, stem);
      if (!o->tex)
        return tp_error_set(err, TP_ERR_INVALID,
                            "carpets[%d]: the deck has no face carpet-%s", -1 - stack[k], cp->colour);
    }
    set_pose(o, pose, &s->look);
    o->r = fmin(s->corner_mm, fmin(o->hw, o->hh));
    uint32_t h = rnd__hash2(k, stack[k], 77);
    o->gloss = 1.0f;
    o->tint = 0.97f + 0.06f * (float)(h % 1000) / 1000.0f;
    o->bend = 0.05f * ((float)((h >> 10) % 1000) / 1000.0f - 0.5f);
    set_box(o, 1);
  }
  for (int i = 0; i < s->n_hands; i++) {
    const rnd_hand *hd = &s->hands[i];
    robj *o = &c->obj[c->n++];
    memset(o, 0, sizeof *o);
    o->kind = OBJ_HAND;
    o->rank = 100000 + i;
    rnd_pose p = {.center_mm = {hd->center_mm[0], hd->center_mm[1]},
                  .velocity_mm = {hd->velocity_mm[0], hd->velocity_mm[1]},
                  .lift_mm = hd->height_mm * 0.25};
    set_pose(o, &p, &s->look);
    o->hw = o->hh = hd->radius_mm;
    o->arm_dx = cos(hd->arm_deg * RND__DEG), o->arm_dy = sin(hd->arm_deg * RND__DEG);
    o->shadow_soft = s->look.shadow_softness_mm + hd->height_mm * 0.12;
    set_box(o, 1);
  }
  return TP_OK;
}

/* ---------------- per-sample shading ------------------------------- */

/* Signed distance (mm) to a rounded rectangle in its local frame. */
static inline double rect_sd(double u, double v, double hw, double hh, double r) {
  double qx = fabs(u) - (hw - r), qy = fabs(v) - (hh - r);
  double ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
  double in = qx > qy ? qx : qy;
  return sqrt(ox * ox + oy * oy) + (in < 0 ? in : 0) - r;
}

/* Local coordinates of (x, y) in object o at exposure time t in [-0.5, 0.5]. */
static inline void to_local(const robj *o, double x, double y, double t, double *u, double *v) {
  double cx = o->cx, cy = o->cy, c = o->c, s = o->s;
  if (o->moving) {
    cx += o->vx * t, cy += o->vy * t;
    /* small-angle series: exact to 1e-4 for the half turn a frame allows */
    double a = o->spin * t, a2 = a * a;
    double ca = 1 - a2 * (0.5 - a2 * (1.0 / 24 - a2 / 720));
    double sa = a * (1 - a2 * (1.0 / 6 - a2 * (1.0 / 120 - a2 / 5040)));
    double c2 = c * ca - s * sa, s2 = s * ca + c * sa;
    c = c2, s = s2;
  }
  double dx = x - cx, dy = y - cy;
  *u = dx * s - dy * c;
  *v = dx * c + dy * s;
}

static inline double hand_sd(const robj *o, double x, double y, double t, int *sleeve) {
  return rnd__hand_sd(o->cx + o->vx * t, o->cy + o->vy * t, o->hw, o->arm_dx, o->arm_dy, x, y,
                      sleeve);
}

static inline double obj_sd(const robj *o, double x, double y, double t, double *u, double *v) {
  if (o->kind == OBJ_HAND) return hand_sd(o, x, y, t, NULL);
  to_local(o, x, y, t, u, v);
  return rect_sd(*u, *v, o->hw, o->hh, o->r);
}

typedef struct {
  int n;
  const robj *o[MAX_OBJECTS]; /* top first */
} tile_list;

/* Colour of the scene at table point (x, y) at time t; fp: mm per pixel.
 * *edge receives the distance (mm) to the nearest visible edge. */
static void shade(const raster_ctx *c, const tile_list *tl, double x, double y, double t,
                  double fp, float rgb[3], double *edge, float *gloss) {
  double near = DBL_MAX;
  const robj *hit = NULL;
  double hu = 0, hv = 0;
  for (int i = 0; i < tl->n; i++) {
    const robj *o = tl->o[i];
    double u = 0, v = 0, sd = obj_sd(o, x, y, t, &u, &v);
    double a = fabs(sd);
    if (a < near) near = a;
    if (sd < 0) {
      hit = o, hu = u, hv = v;
      break;
    }
  }
  const rnd_table *tb = &c->scene->table;
  int hit_rank = -1000000;
  *gloss = 0.35f;
  if (hit && hit->kind == OBJ_HAND) {
    int sleeve;
    double sd = hand_sd(hit, x, y, t, &sleeve), k = fmin(1.0, -sd / (0.35 * hit->hw));
    float shadeh = (float)(0.62 + 0.38 * sqrt(k)); /* rounder toward the middle */
    if (sleeve) rgb[0] = 0.16f * shadeh, rgb[1] = 0.2f * shadeh, rgb[2] = 0.32f * shadeh;
    else rgb[0] = 0.88f * shadeh, rgb[1] = 0.64f * shadeh, rgb[2] = 0.52f * shadeh;
    hit_rank = hit->rank;
    *gloss = 0.2f;
  } else if (hit) {
    const mip *m = hit->tex;
    double tw = m->level[0].width, th = m->level[0].height;
    double tx = (hu + hit->hw) / (2 * hit->hw) * tw - 0.5;
    double ty = (hv + hit->hh) / (2 * hit->hh) * th - 0.5;
    mip_sample(m, tx, ty, (float)(fp * tw / (2 * hit->hw)), rgb);
    float k = hit->tint * (1.0f + hit->bend * (float)(hu / hit->hw));
    rgb[0] *= k, rgb[1] *= k, rgb[2] *= k;
    hit_rank = hit->rank;
    *gloss = hit->gloss;
  } else if (x >= tb->rect_mm[0] && y >= tb->rect_mm[1] && x <= tb->rect_mm[2] &&
             y <= tb->rect_mm[3]) {
    double tx = (x - tb->rect_mm[0]) * c->table_sx, ty = (y - tb->rect_mm[1]) * c->table_sy;
    mip tm = {.n_levels = 1};
    tm.level[0] = *c->table;
    mip_sample(&tm, tx, ty, 1.0f, rgb);
    double ex = fmin(fmin(x - tb->rect_mm[0], tb->rect_mm[2] - x),
                     fmin(y - tb->rect_mm[1], tb->rect_mm[3] - y));
    if (ex < near) near = ex;
  } else {
    for (int k = 0; k < 3; k++) rgb[k] = (float)tb->floor_colour[k];
  }
  *edge = near;
  /* shadows of everything above what we see */
  double light = 1.0;
  for (int i = 0; i < tl->n; i++) {
    const robj *o = tl->o[i];
    if (o->rank <= hit_rank) break;
    if (o->kind == OBJ_MARKER) continue;
    double u, v, sd = obj_sd(o, x - o->shadow_dx, y - o->shadow_dy, t, &u, &v);
    if (sd >= o->shadow_soft) continue;
    double cov = 0.5 - 0.5 * sd / o->shadow_soft;
    cov = cov > 1 ? 1 : cov;
    light *= 1.0 - c->shadow_strength * cov * (o->kind == OBJ_HAND ? 0.8 : 1.0);
  }
  rgb[0] *= (float)light, rgb[1] *= (float)light, rgb[2] *= (float)light;
}

/* ---------------- the grid of table coordinates -------------------- */

typedef struct {
  int gw, gh;
  double *xy; /* (gw * gh) * 2, NaN where the ray misses the table */
} grid;

static tp_status grid_build(const rnd_camera *cam, grid *g) {
  g->gw = (cam->width + GRID - 1) / GRID + 2;
  g->gh = (cam->height + GRID - 1) / GRID + 2;
  g->xy = malloc((size_t)g->gw * (size_t)g->gh * 2 * sizeof *g->xy);
  if (!g->xy) return TP_ERR_NOMEM;
  for (int j = 0; j < g->gh; j++)
    for (int i = 0; i < g->gw; i++) {
      double *p = g->xy + 2 * ((size_t)j * (size_t)g->gw + (size_t)i);
      if (!rnd_camera_unproject(cam, i * GRID, j * GRID, &p[0], &p[1])) p[0] = p[1] = NAN;
    }
  return TP_OK;
}

/* ---------------- tiles -------------------------------------------- */

static void tile_objects(const raster_ctx *c, const grid *g, int tx0, int ty0, int tx1, int ty1,
                         tile_list *tl, double *motion_mm, double *fp_max) {
  double bb[4] = {DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX};
  int i0 = tx0 / GRID, i1 = (tx1 + GRID - 1) / GRID, j0 = ty0 / GRID, j1 = (ty1 + GRID - 1) / GRID;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) {
      const double *p = g->xy + 2 * ((size_t)j * (size_t)g->gw + (size_t)i);
      if (isnan(p[0])) continue;
      bb[0] = fmin(bb[0], p[0]), bb[1] = fmin(bb[1], p[1]);
      bb[2] = fmax(bb[2], p[0]), bb[3] = fmax(bb[3], p[1]);
    }
  tl->n = 0;
  *motion_mm = 0;
  if (bb[0] > bb[2]) return;
  double span = fmax(bb[2] - bb[0], bb[3] - bb[1]);
  *fp_max = span / TILE;
  double m = span * 0.1 + 1;
  for (int k = c->n - 1; k >= 0; k--) {
    const robj *o = &c->obj[k];
    if (o->bbox[0] > bb[2] + m || o->bbox[2] < bb[0] - m || o->bbox[1] > bb[3] + m ||
        o->bbox[3] < bb[1] - m)
      continue;
    if (o->kind == OBJ_HAND) {
      /* the arm's bounding box is most of the table: test the shape */
      double mx = 0.5 * (bb[0] + bb[2]), my = 0.5 * (bb[1] + bb[3]);
      double reach = 0.5 * hypot(bb[2] - bb[0], bb[3] - bb[1]) + m + 0.5 * hypot(o->vx, o->vy) +
                     hypot(o->shadow_dx, o->shadow_dy) + o->shadow_soft;
      if (rnd__hand_sd(o->cx, o->cy, o->hw, o->arm_dx, o->arm_dy, mx, my, NULL) > reach) continue;
    }
    tl->o[tl->n++] = o;
    if (o->moving) {
      double travel = hypot(o->vx, o->vy) + fabs(o->spin) * (o->hw + o->hh);
      if (travel > *motion_mm) *motion_mm = travel;
    }
  }
}

/* True if anything moving can be seen at (x, y) during the exposure:
 * within its swept disc (rotation stays inside the circumscribed circle)
 * or its shadow's. */
static bool sees_motion(const tile_list *tl, double x, double y, double fp) {
  for (int i = 0; i < tl->n; i++) {
    const robj *o = tl->o[i];
    if (!o->moving) continue;
    double pad = fp + hypot(o->shadow_dx, o->shadow_dy) + o->shadow_soft;
    if (o->kind == OBJ_HAND) {
      double sd = rnd__hand_sd(o->cx, o->cy, o->hw, o->arm_dx, o->arm_dy, x, y, NULL);
      if (sd < 0.5 * hypot(o->vx, o->vy) + pad) return true;
      continue;
    }
    double ax = o->cx - 0.5 * o->vx, ay = o->cy - 0.5 * o->vy;
    double len2 = o->vx * o->vx + o->vy * o->vy;
    double t = len2 > 0 ? ((x - ax) * o->vx + (y - ay) * o->vy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dx = x - ax - t * o->vx, dy = y - ay - t * o->vy;
    double reach = hypot(o->hw, o->hh) + pad;
    if (dx * dx + dy * dy < reach * reach) return true;
  }
  return false;
}

/* Objects are created bottom to top, so walking them backwards gives top
 * first; markers (-1000 ranks) come first in the array and so last. */

/* Light that depends only on the image position, set up once per render. */
typedef struct {
  double gx, gy, g0;    /* gradient: light = g0 - gx*nx - gy*ny */
  double vig;           /* vignette factor per normalised radius^2 */
  double inv_w2;
} light_setup;

static void light_init(const rnd_look *l, const rnd_camera *cam, light_setup *ls) {
  double ga = l->gradient_deg * RND__DEG;
  ls->gx = 0.5 * l->gradient * cos(ga), ls->gy = 0.5 * l->gradient * sin(ga);
  ls->g0 = 1.0 - 0.5 * l->gradient;
  ls->vig = 0.5 * l->vignette;
  ls->inv_w2 = 2.0 / cam->width;
}

static void finish_pixel(const raster_ctx *c, const light_setup *ls, int px, int py, double x,
                         double y, const float rgb[3], float gloss, uint8_t *dst) {
  const rnd_look *l = &c->scene->look;
  const rnd_camera *cam = &c->scene->camera;
  double nx = (px - cam->cx) * ls->inv_w2, ny = (py - cam->cy) * ls->inv_w2;
  double light = l->brightness * (ls->g0 - ls->gx * nx - ls->gy * ny) *
                 (1.0 - ls->vig * (nx * nx + ny * ny));
  double glare = 0;
  if (l->glare_strength > 0 && !isnan(x)) {
    double dx = x - l->glare_mm[0], dy = y - l->glare_mm[1];
    double r2 = (dx * dx + dy * dy) / (l->glare_radius_mm * l->glare_radius_mm);
    if (r2 < 12) glare = l->glare_strength * gloss * exp(-0.5 * r2);
  }
  for (int k = 0; k < 3; k++) {
    double v = rgb[k] * light * l->tint[k];
    v = 1.0 - (1.0 - v) * (1.0 - glare);
    dst[k] = (uint8_t)(v <= 0 ? 0 : v >= 1 ? 255 : v * 255.0 + 0.5);
  }
}

/* 4x4 stratified offsets for edges; 8 rook positions with times for motion. */
static void render_tile(const raster_ctx *c, const light_setup *ls, const grid *g, tp_image *img,
                        int tx0, int ty0, long *edge_pixels) {
  int tx1 = tx0 + TILE < img->width ? tx0 + TILE : img->width;
  int ty1 = ty0 + TILE < img->height ? ty0 + TILE : img->height;
  tile_list tl;
  double motion = 0, fp_tile = 1;
  tile_objects(c, g, tx0, ty0, tx1 - 1, ty1 - 1, &tl, &motion, &fp_tile);
  bool moving = motion > 0;
  for (int py = ty0; py < ty1; py++) {
    uint8_t *row = tp_image_row(img, py);
    int gj = py / GRID;
    double fy = (double)(py - gj * GRID) / GRID;
    for (int px = tx0; px < tx1; px++) {
      int gi = px / GRID;
      double fx = (double)(px - gi * GRID) / GRID;
      const double *p00 = g->xy + 2 * ((size_t)gj * (size_t)g->gw + (size_t)gi);
      const double *p10 = p00 + 2, *p01 = p00 + 2 * g->gw, *p11 = p01 + 2;
      float rgb[3];
      float gloss = 0.35f;
      if (isnan(p00[0]) || isnan(p10[0]) || isnan(p01[0]) || isnan(p11[0])) {
        for (int k = 0; k < 3; k++) rgb[k] = (float)c->scene->table.floor_colour[k] * 0.6f;
        finish_pixel(c, ls, px, py, NAN, NAN, rgb, gloss, row + 3 * px);
        continue;
      }
      double x = (p00[0] * (1 - fx) + p10[0] * fx) * (1 - fy) + (p01[0] * (1 - fx) + p11[0] * fx) * fy;
      double y = (p00[1] * (1 - fx) + p10[1] * fx) * (1 - fy) + (p01[1] * (1 - fx) + p11[1] * fx) * fy;
      /* table mm per pixel step in u and v (constant per grid cell) */
      double xu = (p10[0] - p00[0]) / GRID, yu = (p10[1] - p00[1]) / GRID;
      double xv = (p01[0] - p00[0]) / GRID, yv = (p01[1] - p00[1]) / GRID;
      double fp = sqrt(fabs(xu * yv - xv * yu));
      double edge;
      shade(c, &tl, x, y, 0, fp, rgb, &edge, &gloss);
      bool blurred = moving && sees_motion(&tl, x, y, fp);
      if (blurred || edge < 0.75 * fp * 1.4142) {
        /* supersample: 16 stratified points; over a moving object as many
         * exposure times as the motion is long in pixels, jittered per
         * pixel so that the blur is smooth rather than a row of ghosts */
        int n = 16;
        if (blurred) {
          double steps = ceil(motion / fp);
          n = steps < 16 ? 16 : steps > 96 ? 96 : (int)steps;
        }
        float acc[3] = {0, 0, 0}, s[3], gl;
        double e;
        for (int k = 0; k < n; k++) {
          int q = (k * 7) & 15;
          double ou = ((q & 3) + 0.5) / 4 - 0.5, ov = ((q >> 2) + 0.5) / 4 - 0.5;
          double t = 0;
          if (blurred) {
            double jit = (rnd__hash2(px, py, (uint32_t)k) >> 8) * (1.0 / 16777216.0);
            t = (k + jit) / n - 0.5;
          }
          shade(c, &tl, x + ou * xu + ov * xv, y + ou * yu + ov * yv, t, fp, s, &e, &gl);
          acc[0] += s[0], acc[1] += s[1], acc[2] += s[2];
        }
        rgb[0] = acc[0] / n, rgb[1] = acc[1] / n, rgb[2] = acc[2] / n;
        (*edge_pixels)++;
      }
      finish_pixel(c, ls, px, py, x, y, rgb, gloss, row + 3 * px);
    }
  }
}

/* ---------------- post: blur and noise ----------------------------- */

/* Separable Gaussian over whole rows of interleaved RGB floats (the inner
 * loops vectorise). The horizontal pass fills a ring of 2*rad+1 rows, so
 * the working set stays in cache and the image is blurred in place. */
static void blur_row(const uint8_t *src, int n, int rad, const float *kern, float *pad,
                     float *dst) {
  for (int i = 0; i < n; i++) pad[3 * rad + i] = src[i];
  for (int k = 0; k < rad; k++)
    for (int c = 0; c < 3; c++) {
      pad[3 * k + c] = src[c];
      pad[3 * rad + n + 3 * k + c] = src[n - 3 + c];
    }
  for (int i = 0; i < n; i++) dst[i] = 0;
  for (int k = 0; k <= 2 * rad; k++) {
    const float *p = pad + 3 * k;
    float kk = kern[k];
    for (int i = 0; i < n; i++) dst[i] += kk * p[i];
  }
}

static tp_status blur(tp_image *img, double sigma) {
  int rad = (int)ceil(2.5 * sigma);
  if (rad < 1) return TP_OK;
  if (rad > 60) rad = 60;
  float kern[121];
  float sum = 0;
  for (int i = -rad; i <= rad; i++) sum += kern[i + rad] = (float)exp(-0.5 * i * i / (sigma * sigma));
  for (int i = 0; i <= 2 * rad; i++) kern[i] /= sum;
  int w = img->width, h = img->height, n = 3 * w, ring = 2 * rad + 1;
  float *rows = malloc((size_t)n * (size_t)ring * sizeof *rows);
  float *pad = malloc((size_t)(n + 6 * rad) * sizeof *pad);
  float *acc = malloc((size_t)n * sizeof *acc);
  if (!rows || !pad || !acc) {
    free(rows), free(pad), free(acc);
    return TP_ERR_NOMEM;
  }
  int done = 0; /* rows 0..done-1 are in the ring */
  for (int y = 0; y < h; y++) {
    int need = y + rad < h - 1 ? y + rad : h - 1;
    for (; done <= need; done++)
      blur_row(tp_image_row(img, done), n, rad, kern, pad, rows + (size_t)(done % ring) * (size_t)n);
    for (int i = 0; i < n; i++) acc[i] = 0.5f;
    for (int k = -rad; k <= rad; k++) {
      int yy = y + k < 0 ? 0 : y + k >= h ? h - 1 : y + k;
      const float *p = rows + (size_t)(yy % ring) * (size_t)n;
      float kk = kern[k + rad];
      for (int i = 0; i < n; i++) acc[i] += kk * p[i];
    }
    uint8_t *dst = tp_image_row(img, y);
    for (int i = 0; i < n; i++) dst[i] = (uint8_t)(acc[i] > 255.0f ? 255.0f : acc[i]);
  }
  free(rows), free(pad), free(acc);
  return TP_OK;
}

/* Sensor noise: read noise plus a shot-noise share that grows with the
 * signal; Irwin-Hall sums of hashed uniforms keep it fast and exact to
 * reproduce. Channels get independent noise, as a Bayer sensor's do. */
static void add_noise(tp_image *img, double sigma, uint64_t seed) {
  if (sigma <= 0) return;
  rnd__rng g = {seed * 0x9E3779B97F4A7C15ull + 12345};
  float fs = (float)sigma;
  for (int y = 0; y < img->height; y++) {
    uint8_t *row = tp_image_row(img, y);
    for (int x = 0; x < img->width * 3; x++) {
      uint64_t r = rnd__next(&g);
      /* Irwin-Hall of three 21-bit uniforms: close enough to Gaussian */
      float u = (float)(r & 0x1fffff) + (float)((r >> 21) & 0x1fffff) + (float)(r >> 43);
      float n = (u * (1.0f / 2097151.0f) - 1.5f) * 2.0f;
      float s = fs * (0.6f + 0.8f / 255.0f * row[x]);
      float v = row[x] + n * s;
      row[x] = (uint8_t)(v <= 0 ? 0 : v >= 255 ? 255 : v + 0.5f);
    }
  }
}

/* ---------------- entry -------------------------------------------- */

static tp_status prepare_table(rnd_renderer *r, const rnd_table *t, tp_error *err) {
  if (r->table_valid && !memcmp(&r->table_key, t, sizeof *t)) return TP_OK;
  tp_image_free(&r->table_tex);
  r->table_valid = false;
  tp_status st = rnd__table_texture(t, t->surface == RND_SURFACE_CLOTH ? 1.25 : 1.0, &r->table_tex, err);
  if (st != TP_OK) return st;
  r->table_key = *t;
  r->table_valid = true;
  return TP_OK;
}

tp_status rnd_render(rnd_renderer *r, const rnd_scene *scene, tp_image *img,
                     rnd_render_stats *stats, tp_error *err) {
  double t0 = rnd__now_ms();
  const rnd_camera *cam = &scene->camera;
  if (!img || !img->data || img->channels != 3 || img->width != cam->width ||
      img->height != cam->height)
    return tp_error_set(err, TP_ERR_INVALID, "render: output image must be RGB %dx%d",
                        cam->width, cam->height);
  rnd_render_stats local = {0};
  tp_status st = prepare_table(r, &scene->table, err);
  if (st != TP_OK) return st;
  double t1 = rnd__now_ms();
  raster_ctx *c = calloc(1, sizeof *c);
  if (!c) return tp_error_set(err, TP_ERR_NOMEM, "render: out of memory");
  c->scene = scene;
  c->r = r;
  c->table = &r->table_tex;
  c->table_sx = (r->table_tex.width - 1) / (scene->table.rect_mm[2] - scene->table.rect_mm[0]);
  c->table_sy = (r->table_tex.height - 1) / (scene->table.rect_mm[3] - scene->table.rect_mm[1]);
  c->shadow_strength = scene->look.shadow_strength;
  st = build_objects(c, r, err);
  grid g = {0};
  if (st == TP_OK && grid_build(cam, &g) != TP_OK)
    st = tp_error_set(err, TP_ERR_NOMEM, "render: out of memory");
  if (st == TP_OK) {
    light_setup ls;
    light_init(&scene->look, cam, &ls);
    for (int ty = 0; ty < img->height; ty += TILE)
      for (int tx = 0; tx < img->width; tx += TILE)
        render_tile(c, &ls, &g, img, tx, ty, &local.edge_pixels);
  }
  free(g.xy);
  free(c);
  if (st != TP_OK) return st;
  double t2 = rnd__now_ms();
  if (scene->look.blur_px > 0.05 && blur(img, scene->look.blur_px) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "render: out of memory");
  add_noise(img, scene->look.noise_sigma, scene->look.noise_seed);
  double t3 = rnd__now_ms();
  local.table_ms = t1 - t0;
  local.raster_ms = t2 - t1;
  local.post_ms = t3 - t2;
  local.total_ms = t3 - t0;
  if (stats) *stats = local;
  return TP_OK;
}
