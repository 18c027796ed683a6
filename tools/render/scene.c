/* render: scene defaults, the scene JSON parser and writer (docs/render.md).
 *
 * The parser is strict: an unknown key, a wrong type or a value out of range
 * is an error that names the file, the JSON path and what is allowed, so
 * that a typo in a hand-written scene never silently renders something else. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

void rnd_scene_defaults(rnd_scene *s) {
  memset(s, 0, sizeof *s);
  s->card_mm[0] = s->carpet_mm[0] = 59;
  s->card_mm[1] = s->carpet_mm[1] = 91;
  s->corner_mm = 3;
  snprintf(s->dictionary, sizeof s->dictionary, "4X4_50");
  s->table = (rnd_table){.rect_mm = {-120, -100, 680, 500},
                         .surface = RND_SURFACE_WOOD,
                         .colour = {0.55, 0.36, 0.2},
                         .colour2 = {0.38, 0.22, 0.11},
                         .pattern_mm = 90,
                         .floor_colour = {0.12, 0.11, 0.1}};
  /* markers 0..3 clockwise from the top-left corner of a 560 x 400 field */
  static const double pos[4][2] = {{0, 0}, {560, 0}, {560, 400}, {0, 400}};
  s->n_markers = 4;
  for (int i = 0; i < 4; i++)
    s->markers[i] = (rnd_marker){.id = i, .center_mm = {pos[i][0], pos[i][1]},
                                 .size_mm = 40, .quiet_mm = 8};
  s->camera = (rnd_camera){.width = 1920, .height = 1080,
                           .position_mm = {280, 200, 800},
                           .look_at_mm = {280, 200}};
  rnd_camera_set_hfov(&s->camera, 66);
  s->look = (rnd_look){.brightness = 1, .tint = {1, 1, 1}, .glare_radius_mm = 80,
                       .shadow_strength = 0.35, .shadow_deg = 45,
                       .shadow_softness_mm = 1.5, .noise_sigma = 1.5,
                       .noise_seed = 1, .jpeg_quality = 92};
}

/* ---------------- parse helpers ------------------------------------- */

typedef struct {
  const char *file;
  tp_error *err;
} parse_ctx;

static tp_status fail(parse_ctx *c, const char *path, const char *what) {
  return tp_error_set(c->err, TP_ERR_FORMAT, "%s: %s: %s", c->file, path, what);
}

static tp_status check_keys(parse_ctx *c, const cJSON *obj, const char *path,
                            const char *const *allowed) {
  if (!cJSON_IsObject(obj)) return fail(c, path, "expected a JSON object");
  for (const cJSON *it = obj->child; it; it = it->next) {
    bool ok = false;
    for (int i = 0; allowed[i] && !ok; i++) ok = it->string && !strcmp(it->string, allowed[i]);
    if (!ok) {
      char what[200], key[61];
      /* the key is untrusted text: keep the message on one printable line */
      size_t n = 0;
      for (const char *p = it->string ? it->string : "?"; *p && n < sizeof key - 1; p++)
        key[n++] = (*p >= 32 && *p < 127) ? *p : '?';
      key[n] = '\0';
      snprintf(what, sizeof what, "unknown key '%s' (see docs/render.md)", key);
      return fail(c, path, what);
    }
  }
  return TP_OK;
}

static tp_status get_num(parse_ctx *c, const cJSON *obj, const char *key,
                         const char *path, double lo, double hi, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return TP_OK;
  char full[160], what[120];
  snprintf(full, sizeof full, "%s.%s", path, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
      v->valuedouble > hi) {
    snprintf(what, sizeof what, "expected a number in [%g, %g]", lo, hi);
    return fail(c, full, what);
  }
  *out = v->valuedouble;
  return TP_OK;
}

static tp_status get_int(parse_ctx *c, const cJSON *obj, const char *key,
                         const char *path, double lo, double hi, int *out) {
  double d = *out;
  tp_status st = get_num(c, obj, key, path, lo, hi, &d);
  if (st != TP_OK) return st;
  if (d != floor(d)) {
    char full[160];
    snprintf(full, sizeof full, "%s.%s", path, key);
    return fail(c, full, "expected a whole number");
  }
  *out = (int)d;
  return TP_OK;
}

/* An array of exactly n numbers in [lo, hi], scaled by `scale`. */
static tp_status get_vec(parse_ctx *c, const cJSON *obj, const char *key,
                         const char *path, int n, double lo, double hi,
                         double scale, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return TP_OK;
  char full[160], what[120];
  snprintf(full, sizeof full, "%s.%s", path, key);
  snprintf(what, sizeof what, "expected an array of %d numbers in [%g, %g]", n, lo, hi);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return fail(c, full, what);
  for (int i = 0; i < n; i++) {
    const cJSON *x = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < lo ||
        x->valuedouble > hi)
      return fail(c, full, what);
    out[i] = x->valuedouble * scale;
  }
  return TP_OK;
}

static tp_status get_bool(parse_ctx *c, const cJSON *obj, const char *key,
                          const char *path, bool *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return TP_OK;
  if (!cJSON_IsBool(v)) {
    char full[160];
    snprintf(full, sizeof full, "%s.%s", path, key);
    return fail(c, full, "expected true or false");
  }
  *out = cJSON_IsTrue(v);
  return TP_OK;
}

/* A lower-case name ([a-z0-9_-]) up to RND_NAME_LEN - 1 characters. */
static tp_status get_name(parse_ctx *c, const cJSON *obj, const char *key,
                          const char *path, char out[RND_NAME_LEN]) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return TP_OK;
  char full[160];
  snprintf(full, sizeof full, "%s.%s", path, key);
  if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= RND_NAME_LEN)
    return fail(c, full, "expected a non-empty name of at most 31 characters");
  for (const char *p = v->valuestring; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
          *p == '_' || (*p >= 'A' && *p <= 'Z')))
      return fail(c, full, "names may hold only letters, digits, '-' and '_'");
  snprintf(out, RND_NAME_LEN, "%s", v->valuestring);
  return TP_OK;
}

#define TRY(expr)                      \
  do {                                 \
    tp_status st_ = (expr);            \
    if (st_ != TP_OK) return st_;      \
  } while (0)

static tp_status parse_pose(parse_ctx *c, const cJSON *o, const char *path, rnd_pose *p) {
  const cJSON *center = cJSON_GetObjectItemCaseSensitive(o, "center_mm");
  if (!center) return fail(c, path, "missing center_mm");
  TRY(get_vec(c, o, "center_mm", path, 2, -1e5, 1e5, 1, p->center_mm));
  TRY(get_num(c, o, "angle_deg", path, -3600, 3600, &p->angle_deg));
  TRY(get_num(c, o, "z", path, -1e6, 1e6, &p->z));
  TRY(get_num(c, o, "lift_mm", path, 0, 100, &p->lift_mm));
  TRY(get_vec(c, o, "velocity_mm", path, 2, -2000, 2000, 1, p->velocity_mm));
  TRY(get_num(c, o, "spin_deg", path, -360, 360, &p->spin_deg));
  return TP_OK;
}

static tp_status parse_card(parse_ctx *c, const cJSON *o, const char *path, int index,
                            rnd_card *card) {
  static const char *const keys[] = {"type", "center_mm", "angle_deg", "z", "lift_mm",
                                     "velocity_mm", "spin_deg", "face_down", NULL};
  TRY(check_keys(c, o, path, keys));
  card->pose.z = index;
  card->pose.lift_mm = 0.3;
  if (!cJSON_GetObjectItemCaseSensitive(o, "type")) return fail(c, path, "missing type");
  TRY(get_name(c, o, "type", path, card->type));
  bool known = false;
  for (int i = 0; i < 12; i++) known |= !strcmp(card->type, rnd_card_types[i]);
  if (!known) {
    char full[160];
    snprintf(full, sizeof full, "%s.type", path);
    return fail(c, full, "not one of the twelve destination types of spec section 2");
  }
  TRY(parse_pose(c, o, path, &card->pose));
  return get_bool(c, o, "face_down", path, &card->face_down);
}

static tp_status parse_carpet(parse_ctx *c, const cJSON *o, const char *path, int index,
                              rnd_carpet *carpet) {
  static const char *const keys[] = {"colour", "player", "center_mm", "angle_deg", "z",
                                     "lift_mm", "velocity_mm", "spin_deg", "face_down",
                                     NULL};
  TRY(check_keys(c, o, path, keys));
  carpet->pose.z = 1000 + index;
  carpet->pose.lift_mm = 0.8;
  if (!cJSON_GetObjectItemCaseSensitive(o, "colour")) return fail(c, path, "missing colour");
  TRY(get_name(c, o, "colour", path, carpet->colour));
  for (const char *p = carpet->colour; *p; p++)
    if (*p >= 'A' && *p <= 'Z') {
      char full[160];
      snprintf(full, sizeof full, "%s.colour", path);
      return fail(c, full, "carpet colours are lower-case names");
    }
  memcpy(carpet->player, carpet->colour, RND_NAME_LEN);
  TRY(get_name(c, o, "player", path, carpet->player));
  TRY(parse_pose(c, o, path, &carpet->pose));
  return get_bool(c, o, "face_down", path, &carpet->face_down);
}

static tp_status parse_marker(parse_ctx *c, const cJSON *o, const char *path, rnd_marker *m) {
  static const char *const keys[] = {"id", "center_mm", "angle_deg", "size_mm", "quiet_mm", NULL};
  TRY(check_keys(c, o, path, keys));
  *m = (rnd_marker){.size_mm = 40, .quiet_mm = 8};
  if (!cJSON_GetObjectItemCaseSensitive(o, "id")) return fail(c, path, "missing id");
  if (!cJSON_GetObjectItemCaseSensitive(o, "center_mm")) return fail(c, path, "missing center_mm");
  TRY(get_int(c, o, "id", path, 0, 999, &m->id));
  TRY(get_vec(c, o, "center_mm", path, 2, -1e5, 1e5, 1, m->center_mm));
  TRY(get_num(c, o, "angle_deg", path, -3600, 3600, &m->angle_deg));
  TRY(get_num(c, o, "size_mm", path, 5, 500, &m->size_mm));
  return get_num(c, o, "quiet_mm", path, 0, 100, &m->quiet_mm);
}

static tp_status parse_hand(parse_ctx *c, const cJSON *o, const char *path, rnd_hand *h) {
  static const char *const keys[] = {"center_mm", "radius_mm", "arm_deg", "height_mm",
                                     "velocity_mm", NULL};
  TRY(check_keys(c, o, path, keys));
  *h = (rnd_hand){.radius_mm = 45, .arm_deg = 90, .height_mm = 120};
  if (!cJSON_GetObjectItemCaseSensitive(o, "center_mm")) return fail(c, path, "missing center_mm");
  TRY(get_vec(c, o, "center_mm", path, 2, -1e5, 1e5, 1, h->center_mm));
  TRY(get_num(c, o, "radius_mm", path, 5, 300, &h->radius_mm));
  TRY(get_num(c, o, "arm_deg", path, -3600, 3600, &h->arm_deg));
  TRY(get_num(c, o, "height_mm", path, 0, 2000, &h->height_mm));
  return get_vec(c, o, "velocity_mm", path, 2, -2000, 2000, 1, h->velocity_mm);
}

typedef tp_status (*item_fn)(parse_ctx *c, const cJSON *o, const char *path, int index,
                             void *out);

static tp_status card_item(parse_ctx *c, const cJSON *o, const char *p, int i, void *out) {
  return parse_card(c, o, p, i, (rnd_card *)out + i);
}
static tp_status carpet_item(parse_ctx *c, const cJSON *o, const char *p, int i, void *out) {
  return parse_carpet(c, o, p, i, (rnd_carpet *)out + i);
}
static tp_status marker_item(parse_ctx *c, const cJSON *o, const char *p, int i, void *out) {
  return parse_marker(c, o, p, (rnd_marker *)out + i);
}
static tp_status hand_item(parse_ctx *c, const cJSON *o, const char *p, int i, void *out) {
  return parse_hand(c, o, p, (rnd_hand *)out + i);
}

static tp_status parse_list(parse_ctx *c, const cJSON *root, const char *key, int max,
                            item_fn fn, void *out, int *count) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!arr) return TP_OK;
  char what[80];
  if (!cJSON_IsArray(arr)) return fail(c, key, "expected an array");
  int n = cJSON_GetArraySize(arr);
  if (n > max) {
    snprintf(what, sizeof what, "at most %d entries are supported", max);
    return fail(c, key, what);
  }
  int i = 0;
  for (const cJSON *it = arr->child; it; it = it->next, i++) {
    char path[64];
    snprintf(path, sizeof path, "%s[%d]", key, i);
    if (!cJSON_IsObject(it)) return fail(c, path, "expected a JSON object");
    TRY(fn(c, it, path, i, out));
  }
  *count = n;
  return TP_OK;
}

static tp_status parse_table(parse_ctx *c, const cJSON *root, rnd_table *t) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "table");
  if (!o) return TP_OK;
  static const char *const keys[] = {"rect_mm", "surface", "colour", "colour2",
                                     "pattern_mm", "floor_colour", NULL};
  TRY(check_keys(c, o, "table", keys));
  TRY(get_vec(c, o, "rect_mm", "table", 4, -1e5, 1e5, 1, t->rect_mm));
  if (!(t->rect_mm[2] - t->rect_mm[0] >= 10 && t->rect_mm[3] - t->rect_mm[1] >= 10 &&
        t->rect_mm[2] - t->rect_mm[0] <= 20000 && t->rect_mm[3] - t->rect_mm[1] <= 20000))
    return fail(c, "table.rect_mm", "expected [x0, y0, x1, y1] with x1 > x0 and y1 > y0 "
                                    "(10 mm to 20 m)");
  const cJSON *surf = cJSON_GetObjectItemCaseSensitive(o, "surface");
  if (surf) {
    static const char *const names[] = {"plain", "wood", "felt", "cloth"};
    int found = -1;
    for (int i = 0; i < 4; i++)
      if (cJSON_IsString(surf) && !strcmp(surf->valuestring, names[i])) found = i;
    if (found < 0) return fail(c, "table.surface", "expected plain, wood, felt or cloth");
    t->surface = (rnd_surface)found;
  }
  TRY(get_vec(c, o, "colour", "table", 3, 0, 255, 1 / 255.0, t->colour));
  TRY(get_vec(c, o, "colour2", "table", 3, 0, 255, 1 / 255.0, t->colour2));
  TRY(get_num(c, o, "pattern_mm", "table", 2, 2000, &t->pattern_mm));
  return get_vec(c, o, "floor_colour", "table", 3, 0, 255, 1 / 255.0, t->floor_colour);
}

static tp_status parse_camera(parse_ctx *c, const cJSON *root, rnd_camera *cam) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "camera");
  if (!o) return TP_OK;
  static const char *const keys[] = {"resolution", "position_mm", "look_at_mm", "roll_deg",
                                     "hfov_deg", "focal_px", "principal_px", "distortion",
                                     NULL};
  TRY(check_keys(c, o, "camera", keys));
  double res[2] = {cam->width, cam->height};
  TRY(get_vec(c, o, "resolution", "camera", 2, 16, 8192, 1, res));
  if (res[0] != floor(res[0]) || res[1] != floor(res[1]))
    return fail(c, "camera.resolution", "expected whole pixel counts");
  bool resized = res[0] != cam->width || res[1] != cam->height;
  cam->width = (int)res[0], cam->height = (int)res[1];
  if (resized) rnd_camera_set_hfov(cam, 66);
  TRY(get_vec(c, o, "position_mm", "camera", 3, -1e5, 1e5, 1, cam->position_mm));
  if (cam->position_mm[2] < 10)
    return fail(c, "camera.position_mm", "the camera must be at least 10 mm above the table");
  TRY(get_vec(c, o, "look_at_mm", "camera", 2, -1e5, 1e5, 1, cam->look_at_mm));
  if (rnd_camera_tilt_deg(cam) > 80)
    return fail(c, "camera", "tilt from straight down must be at most 80 degrees");
  TRY(get_num(c, o, "roll_deg", "camera", -3600, 3600, &cam->roll_deg));
  double hfov = 0;
  TRY(get_num(c, o, "hfov_deg", "camera", 5, 170, &hfov));
  if (hfov > 0) rnd_camera_set_hfov(cam, hfov);
  double f[2] = {cam->fx, cam->fy}, pp[2] = {cam->cx, cam->cy};
  TRY(get_vec(c, o, "focal_px", "camera", 2, 10, 1e6, 1, f));
  TRY(get_vec(c, o, "principal_px", "camera", 2, -1e4, 1e4, 1, pp));
  cam->fx = f[0], cam->fy = f[1], cam->cx = pp[0], cam->cy = pp[1];
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "distortion");
  if (d) {
    int n = cJSON_IsArray(d) ? cJSON_GetArraySize(d) : 0;
    if (n < 1 || n > 5)
      return fail(c, "camera.distortion", "expected 1 to 5 numbers k1 [k2 [p1 p2 [k3]]]");
    double k[5] = {0};
    for (int i = 0; i < n; i++) {
      const cJSON *x = cJSON_GetArrayItem(d, i);
      if (!cJSON_IsNumber(x) || !(fabs(x->valuedouble) <= 2))
        return fail(c, "camera.distortion", "coefficients must be numbers in [-2, 2]");
      k[i] = x->valuedouble;
    }
    memcpy(cam->dist, k, sizeof k);
  }
  return TP_OK;
}

static tp_status parse_lighting(parse_ctx *c, const cJSON *root, rnd_look *l) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "lighting");
  if (!o) return TP_OK;
  static const char *const keys[] = {"brightness", "gradient", "gradient_deg", "vignette",
                                     "tint", "glare", "shadows", NULL};
  TRY(check_keys(c, o, "lighting", keys));
  TRY(get_num(c, o, "brightness", "lighting", 0.05, 4, &l->brightness));
  TRY(get_num(c, o, "gradient", "lighting", 0, 1, &l->gradient));
  TRY(get_num(c, o, "gradient_deg", "lighting", -3600, 3600, &l->gradient_deg));
  TRY(get_num(c, o, "vignette", "lighting", 0, 1, &l->vignette));
  TRY(get_vec(c, o, "tint", "lighting", 3, 0.2, 3, 1, l->tint));
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "glare");
  if (g) {
    static const char *const gk[] = {"center_mm", "radius_mm", "strength", NULL};
    TRY(check_keys(c, g, "lighting.glare", gk));
    TRY(get_vec(c, g, "center_mm", "lighting.glare", 2, -1e5, 1e5, 1, l->glare_mm));
    TRY(get_num(c, g, "radius_mm", "lighting.glare", 1, 5000, &l->glare_radius_mm));
    TRY(get_num(c, g, "strength", "lighting.glare", 0, 1, &l->glare_strength));
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "shadows");
  if (s) {
    static const char *const sk[] = {"strength", "direction_deg", "softness_mm", NULL};
    TRY(check_keys(c, s, "lighting.shadows", sk));
    TRY(get_num(c, s, "strength", "lighting.shadows", 0, 1, &l->shadow_strength));
    TRY(get_num(c, s, "direction_deg", "lighting.shadows", -3600, 3600, &l->shadow_deg));
    TRY(get_num(c, s, "softness_mm", "lighting.shadows", 0.1, 50, &l->shadow_softness_mm));
  }
  return TP_OK;
}

static tp_status parse_sensor(parse_ctx *c, const cJSON *root, rnd_look *l) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "sensor");
  if (!o) return TP_OK;
  static const char *const keys[] = {"noise_sigma", "blur_px", "seed", "jpeg_quality", NULL};
  TRY(check_keys(c, o, "sensor", keys));
  TRY(get_num(c, o, "noise_sigma", "sensor", 0, 64, &l->noise_sigma));
  TRY(get_num(c, o, "blur_px", "sensor", 0, 20, &l->blur_px));
  double seed = (double)l->noise_seed;
  TRY(get_num(c, o, "seed", "sensor", 0, 9007199254740992.0, &seed));
  l->noise_seed = (uint64_t)seed;
  return get_int(c, o, "jpeg_quality", "sensor", 1, 100, &l->jpeg_quality);
}

static tp_status parse_root(parse_ctx *c, const cJSON *root, rnd_scene *s) {
  static const char *const keys[] = {"card_mm", "carpet_mm", "corner_mm", "dictionary",
                                     "table", "markers", "cards", "carpets", "hands",
                                     "camera", "lighting", "sensor", "comment", NULL};
  TRY(check_keys(c, root, "(top level)", keys));
  TRY(get_vec(c, root, "card_mm", "(top level)", 2, 10, 500, 1, s->card_mm));
  TRY(get_vec(c, root, "carpet_mm", "(top level)", 2, 10, 500, 1, s->carpet_mm));
  TRY(get_num(c, root, "corner_mm", "(top level)", 0, 10, &s->corner_mm));
  TRY(get_name(c, root, "dictionary", "(top level)", s->dictionary));
  TRY(parse_table(c, root, &s->table));
  TRY(parse_list(c, root, "markers", RND_MAX_MARKERS, marker_item, s->markers, &s->n_markers));
  TRY(parse_list(c, root, "cards", RND_MAX_CARDS, card_item, s->cards, &s->n_cards));
  TRY(parse_list(c, root, "carpets", RND_MAX_CARPETS, carpet_item, s->carpets, &s->n_carpets));
  TRY(parse_list(c, root, "hands", RND_MAX_HANDS, hand_item, s->hands, &s->n_hands));
  TRY(parse_camera(c, root, &s->camera));
  TRY(parse_lighting(c, root, &s->look));
  return parse_sensor(c, root, &s->look);
}

tp_status rnd_scene_parse(const char *text, size_t len, const char *name,
                          const double deck_card_mm[2], const double deck_carpet_mm[2],
                          rnd_scene *scene, tp_error *err) {
  rnd_scene_defaults(scene);
  if (deck_card_mm) scene->card_mm[0] = deck_card_mm[0], scene->card_mm[1] = deck_card_mm[1];
  if (deck_carpet_mm)
    scene->carpet_mm[0] = deck_carpet_mm[0], scene->carpet_mm[1] = deck_carpet_mm[1];
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!root) {
    long at = end ? (long)(end - text) : 0;
    if (at < 0 || (size_t)at > len) at = 0;
    return tp_error_set(err, TP_ERR_FORMAT, "%s: not valid JSON (near byte %ld)", name, at);
  }
  parse_ctx c = {name, err};
  tp_status st = parse_root(&c, root, scene);
  cJSON_Delete(root);
  return st;
}

/* ---------------- writer -------------------------------------------- */

static void add_vec(cJSON *o, const char *key, const double *v, int n, double scale) {
  cJSON *a = cJSON_AddArrayToObject(o, key);
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i] * scale));
}

static void add_pose(cJSON *o, const rnd_pose *p) {
  add_vec(o, "center_mm", p->center_mm, 2, 1);
  cJSON_AddNumberToObject(o, "angle_deg", p->angle_deg);
  cJSON_AddNumberToObject(o, "z", p->z);
  cJSON_AddNumberToObject(o, "lift_mm", p->lift_mm);
  if (p->velocity_mm[0] != 0 || p->velocity_mm[1] != 0) add_vec(o, "velocity_mm", p->velocity_mm, 2, 1);
  if (p->spin_deg != 0) cJSON_AddNumberToObject(o, "spin_deg", p->spin_deg);
}

static cJSON *camera_json(const rnd_camera *cam) {
  cJSON *o = cJSON_CreateObject();
  double res[2] = {cam->width, cam->height}, f[2] = {cam->fx, cam->fy}, pp[2] = {cam->cx, cam->cy};
  add_vec(o, "resolution", res, 2, 1);
  add_vec(o, "position_mm", cam->position_mm, 3, 1);
  add_vec(o, "look_at_mm", cam->look_at_mm, 2, 1);
  cJSON_AddNumberToObject(o, "roll_deg", cam->roll_deg);
  add_vec(o, "focal_px", f, 2, 1);
  add_vec(o, "principal_px", pp, 2, 1);
  add_vec(o, "distortion", cam->dist, 5, 1);
  return o;
}

cJSON *rnd__scene_json_object(const rnd_scene *s) {
  static const char *const surfaces[] = {"plain", "wood", "felt", "cloth"};
  cJSON *root = cJSON_CreateObject();
  add_vec(root, "card_mm", s->card_mm, 2, 1);
  add_vec(root, "carpet_mm", s->carpet_mm, 2, 1);
  cJSON_AddNumberToObject(root, "corner_mm", s->corner_mm);
  cJSON_AddStringToObject(root, "dictionary", s->dictionary);
  cJSON *t = cJSON_AddObjectToObject(root, "table");
  add_vec(t, "rect_mm", s->table.rect_mm, 4, 1);
  cJSON_AddStringToObject(t, "surface", surfaces[s->table.surface]);
  add_vec(t, "colour", s->table.colour, 3, 255);
  add_vec(t, "colour2", s->table.colour2, 3, 255);
  cJSON_AddNumberToObject(t, "pattern_mm", s->table.pattern_mm);
  add_vec(t, "floor_colour", s->table.floor_colour, 3, 255);
  cJSON *ms = cJSON_AddArrayToObject(root, "markers");
  for (int i = 0; i < s->n_markers; i++) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "id", s->markers[i].id);
    add_vec(m, "center_mm", s->markers[i].center_mm, 2, 1);
    cJSON_AddNumberToObject(m, "angle_deg", s->markers[i].angle_deg);
    cJSON_AddNumberToObject(m, "size_mm", s->markers[i].size_mm);
    cJSON_AddNumberToObject(m, "quiet_mm", s->markers[i].quiet_mm);
    cJSON_AddItemToArray(ms, m);
  }
  cJSON *cs = cJSON_AddArrayToObject(root, "cards");
  for (int i = 0; i < s->n_cards; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", s->cards[i].type);
    add_pose(c, &s->cards[i].pose);
    if (s->cards[i].face_down) cJSON_AddTrueToObject(c, "face_down");
    cJSON_AddItemToArray(cs, c);
  }
  cJSON *ps = cJSON_AddArrayToObject(root, "carpets");
  for (int i = 0; i < s->n_carpets; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "colour", s->carpets[i].colour);
    cJSON_AddStringToObject(c, "player", s->carpets[i].player);
    add_pose(c, &s->carpets[i].pose);
    if (s->carpets[i].face_down) cJSON_AddTrueToObject(c, "face_down");
    cJSON_AddItemToArray(ps, c);
  }
  if (s->n_hands > 0) {
    cJSON *hs = cJSON_AddArrayToObject(root, "hands");
    for (int i = 0; i < s->n_hands; i++) {
      cJSON *h = cJSON_CreateObject();
      add_vec(h, "center_mm", s->hands[i].center_mm, 2, 1);
      cJSON_AddNumberToObject(h, "radius_mm", s->hands[i].radius_mm);
      cJSON_AddNumberToObject(h, "arm_deg", s->hands[i].arm_deg);
      cJSON_AddNumberToObject(h, "height_mm", s->hands[i].height_mm);
      add_vec(h, "velocity_mm", s->hands[i].velocity_mm, 2, 1);
      cJSON_AddItemToArray(hs, h);
    }
  }
  cJSON_AddItemToObject(root, "camera", camera_json(&s->camera));
  cJSON *l = cJSON_AddObjectToObject(root, "lighting");
  cJSON_AddNumberToObject(l, "brightness", s->look.brightness);
  cJSON_AddNumberToObject(l, "gradient", s->look.gradient);
  cJSON_AddNumberToObject(l, "gradient_deg", s->look.gradient_deg);
  cJSON_AddNumberToObject(l, "vignette", s->look.vignette);
  add_vec(l, "tint", s->look.tint, 3, 1);
  cJSON *g = cJSON_AddObjectToObject(l, "glare");
  add_vec(g, "center_mm", s->look.glare_mm, 2, 1);
  cJSON_AddNumberToObject(g, "radius_mm", s->look.glare_radius_mm);
  cJSON_AddNumberToObject(g, "strength", s->look.glare_strength);
  cJSON *sh = cJSON_AddObjectToObject(l, "shadows");
  cJSON_AddNumberToObject(sh, "strength", s->look.shadow_strength);
  cJSON_AddNumberToObject(sh, "direction_deg", s->look.shadow_deg);
  cJSON_AddNumberToObject(sh, "softness_mm", s->look.shadow_softness_mm);
  cJSON *se = cJSON_AddObjectToObject(root, "sensor");
  cJSON_AddNumberToObject(se, "noise_sigma", s->look.noise_sigma);
  cJSON_AddNumberToObject(se, "blur_px", s->look.blur_px);
  cJSON_AddNumberToObject(se, "seed", (double)(s->look.noise_seed & ((1ull << 53) - 1)));
  cJSON_AddNumberToObject(se, "jpeg_quality", s->look.jpeg_quality);
  return root;
}

char *rnd_scene_to_json(const rnd_scene *scene) {
  cJSON *root = rnd__scene_json_object(scene);
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}
