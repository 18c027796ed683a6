/* analysis: deck, players, vision and rules for one photo; JSON and the
 * readable summary. */
#define _POSIX_C_SOURCE 200809L
#include "analysis.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "calibration.h"
#include "cvw.h"

struct an_session {
  cal_calib *calib; /* --calib FILE, or NULL: each photo's own markers */
  char calib_file[512]; /* its name, for messages */
  vis_deck *deck;
  vis_analyzer *an;
  ft_rules rules;
  bool has_players;
  ft_players players;
  bool hold_still_map;
  cal_calib *held; /* the still camera's calibration (hold_still_map) */
  cvw_marker held_markers[CAL_MAX_MARKERS]; /* the markers it was fitted to */
  size_t n_held_markers;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const vis_deck *an_session_deck(const an_session *s) { return s->deck; }

const cal_calib *an__report_calib(const an_session *s, const an_report *r) {
  if (r->own_calib) return r->own_calib;
  return r->has_map && s->calib && r->map.user == (const void *)s->calib ? s->calib : NULL;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The built-in demo deck comes from the renderer (its procedural art).
 * Its carpets are added in name order, as vis_deck_load adds a folder's
 * (the renderer lists them in the demo's own order): the analysis of the
 * built-in deck is the analysis of its folder (teppich render deck). */
static tp_status demo_deck(vis_deck **out, tp_error *err) {
  rnd_deck *rd = NULL;
  tp_status st = rnd_deck_create_demo(&rd, err);
  if (st) return st;
  st = vis_deck_create(out, err);
  double card[2], carpet[2];
  rnd_deck_sizes(rd, card, carpet);
  if (!st) vis_deck_set_sizes(*out, card, carpet);
  for (int i = 0; !st && i < VIS_TYPE_COUNT; i++) {
    const tp_image *f = rnd_deck_face(rd, vis_type_name(i));
    if (f) st = vis_deck_add_face(*out, vis_type_name(i), f, err);
  }
  const char *colours[64];
  int n_colours = rnd_deck_colour_count(rd) < 64 ? rnd_deck_colour_count(rd) : 64;
  for (int i = 0; i < n_colours; i++) colours[i] = rnd_deck_colour(rd, i);
  qsort(colours, (size_t)n_colours, sizeof *colours, by_name);
  for (int i = 0; !st && i < n_colours; i++) {
    char stem[64];
    snprintf(stem, sizeof stem, "carpet-%s", colours[i]);
    const tp_image *f = rnd_deck_face(rd, stem);
    if (f) st = vis_deck_add_face(*out, stem, f, err);
    strcat(stem, "-back");
    f = rnd_deck_face(rd, stem);
    if (!st && f) st = vis_deck_add_face(*out, stem, f, err);
  }
  rnd_deck_destroy(rd);
  if (st) {
    vis_deck_destroy(*out);
    *out = NULL;
  }
  return st;
}

void an_session_destroy(an_session *s) {
  if (!s) return;
  vis_analyzer_destroy(s->an);
  vis_deck_destroy(s->deck);
  cal_calib_destroy(s->calib);
  cal_calib_destroy(s->held);
  free(s);
}

tp_status an_session_create(const an_options *o, an_session **out,
                            tp_error *err) {
  *out = NULL;
  an_session *s = calloc(1, sizeof *s);
  if (!s) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  s->hold_still_map = o->hold_still_map;
  if (o->rules) s->rules = *o->rules;
  else ft_rules_default(&s->rules);
  tp_status st = o->deck_dir ? vis_deck_load(o->deck_dir, &s->deck, err)
                             : demo_deck(&s->deck, err);
  if (!st && o->players) {
    st = ft_players_parse(o->players, &s->players, err);
    s->has_players = !st;
  }
  if (!st && o->calib_file) {
    st = cal_calib_load(o->calib_file, &s->calib, err);
    snprintf(s->calib_file, sizeof s->calib_file, "%s", o->calib_file);
    if (!st && !cal_calib_has_table(s->calib))
      st = tp_error_set(err, TP_ERR_FORMAT,
                        "%s: holds only a lens model; calibrate the table (teppich calibrate)",
                        o->calib_file);
  }
  vis_settings vs;
  vis_settings_default(&vs);
  vs.debug_dir = getenv("TEPPICH_DEBUG_DIR"); /* for looking at failures */
  vs.threads = o->threads > 0 ? o->threads : an_default_threads();
  vs.contact_depth_mm = ft_rules_contact_mm(&s->rules);
  if (!st) st = vis_analyzer_create(s->deck, &vs, &s->an, err);
  if (st) {
    an_session_destroy(s);
    return st;
  }
  *out = s;
  return TP_OK;
}

int an_default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > AN_DEFAULT_MAX_THREADS ? AN_DEFAULT_MAX_THREADS : (int)n;
}

void an_report_free(an_report *r) {
  if (!r) return;
  cal_calib_destroy(r->own_calib);
  vis_result_free(&r->vis);
  tp_image_free(&r->photo);
  memset(r, 0, sizeof *r);
}

static void player_of(const an_session *s, const char *colour, char *out) {
  if (s->has_players) {
    int p = ft_players_by_colour(&s->players, colour);
    if (p >= 0) {
      snprintf(out, FT_NAME_MAX, "%s", s->players.players[p].name);
      return;
    }
  }
  snprintf(out, FT_NAME_MAX, "%s", colour);
}

static tp_status resolve(an_session *s, an_report *r, tp_error *err) {
  double t0 = now_ms();
  ft_carpet_on on[VIS_MAX_CARPETS];
  int n = r->vis.n_carpets < VIS_MAX_CARPETS ? r->vis.n_carpets : VIS_MAX_CARPETS;
  for (int i = 0; i < n; i++) {
    const vis_carpet *c = &r->vis.carpets[i];
    player_of(s, c->colour, r->players[i]);
    on[i] = (ft_carpet_on){c->colour, r->players[i], c->on_cards, c->n_on_cards};
  }
  tp_status st = ft_resolve(&s->rules, on, n, r->vis.n_cards, &r->rules, err);
  r->vis.profile.rules_ms = now_ms() - t0;
  return st;
}

static bool calib_to_image(void *user, const double mm[2], double px[2]) {
  return cal_table_to_image(user, mm, px);
}

/* The table area worth looking at: the markers' box with a margin for
 * cards beside them, within what the photo shows. (A 100 mm margin would
 * save a fifth of the later stages' time, but the table's colour
 * histogram then holds less table, and the object mask, tuned on this
 * area, grows phantom cards: keep 150 until the mask's table model does
 * not depend on it.) */
static void table_area(const cal_calib *c, const tp_image *rgb, double area[4]) {
  cal_marker_pose mk[CAL_MAX_MARKERS];
  size_t n = cal_calib_markers(c, mk, CAL_MAX_MARKERS);
  double x0 = 0, y0 = 0, x1 = 600, y1 = 420;
  for (size_t i = 0; i < n && i < CAL_MAX_MARKERS; i++) {
    x0 = fmin(x0, mk[i].center_mm[0]), y0 = fmin(y0, mk[i].center_mm[1]);
    x1 = fmax(x1, mk[i].center_mm[0]), y1 = fmax(y1, mk[i].center_mm[1]);
  }
  x0 -= 150, y0 -= 150, x1 += 150, y1 += 150;
  double fx0 = 1e9, fy0 = 1e9, fx1 = -1e9, fy1 = -1e9;
  for (int k = 0; k <= 40; k++) { /* the photo's outline, mapped */
    double t = k / 40.0, W = rgb->width - 1, H = rgb->height - 1;
    double px[4][2] = {{t * W, 0}, {t * W, H}, {0, t * H}, {W, t * H}}, mm[2];
    for (int e = 0; e < 4; e++)
      if (cal_image_to_table(c, px[e], mm)) {
        fx0 = fmin(fx0, mm[0]), fy0 = fmin(fy0, mm[1]);
        fx1 = fmax(fx1, mm[0]), fy1 = fmax(fy1, mm[1]);
      }
  }
  area[0] = fmax(x0, fx0);
  area[1] = fmax(y0, fy0);
  area[2] = fmin(x1, fx1);
  area[3] = fmin(y1, fy1);
}

/* The markers found in a photo. */
typedef struct {
  cvw_marker m[CAL_MAX_MARKERS];
  size_t n;
} photo_markers;

/* Markers and the table mapping from this photo (no --calib). */
static tp_status calibrate_photo(const tp_image *rgb, cal_calib **out, photo_markers *found,
                                 double *detect_ms, tp_error *err) {
  cal_options opt;
  cal_options_default(&opt);
  cal_session *cs = NULL;
  double t0 = now_ms();
  tp_status st = cal_session_create(&opt, &cs, err);
  if (!st) st = cal_session_add_frame(cs, rgb, "the photo", NULL, err);
  *detect_ms = now_ms() - t0;
  found->n = st ? 0 : cal_session_markers(cs, found->m, CAL_MAX_MARKERS);
  if (found->n > CAL_MAX_MARKERS) found->n = CAL_MAX_MARKERS;
  if (!st) st = cal_session_solve(cs, out, err);
  cal_session_destroy(cs);
  return st;
}

/* A still camera keeps one map: each photo's own fit from the four
 * frame markers moves the middle of the table by up to 10 mm from photo
 * to photo (at 960x540), and a layout card compared with itself through
 * two such maps looks taken away, or like a carpet. *own (the photo's
 * fit) becomes a copy of the held one while its markers stay put, and
 * is held when they moved. */
static tp_status hold_still_map(an_session *s, const photo_markers *found, cal_calib **own,
                                tp_error *err) {
  int w, h, held_w = 0, held_h = 0;
  cal_calib_image_size(*own, &w, &h);
  cal_calib_image_size(s->held, &held_w, &held_h);
  bool still = s->held && held_w == w && held_h == h &&
               cal_markers_in_place(s->held_markers, s->n_held_markers, found->m, found->n,
                                    AN_STILL_MARKER_PX);
  cal_calib *copy = cal_calib_copy(still ? s->held : *own);
  if (!copy) return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the calibration");
  if (still) {
    cal_calib_destroy(*own);
    *own = copy;
    return TP_OK;
  }
  cal_calib_destroy(s->held);
  s->held = copy;
  memcpy(s->held_markers, found->m, found->n * sizeof found->m[0]);
  s->n_held_markers = found->n;
  return TP_OK;
}

/* The frame markers c saw (ids 0..3); returns how many. */
static int markers_seen(const cal_calib *c, int ids[4]) {
  cal_marker_pose mk[CAL_MAX_MARKERS];
  size_t n = cal_calib_markers(c, mk, CAL_MAX_MARKERS);
  int seen = 0;
  for (size_t i = 0; i < n && i < CAL_MAX_MARKERS && seen < 4; i++)
    if (mk[i].observations > 0 && mk[i].id >= 0 && mk[i].id <= 3) ids[seen++] = mk[i].id;
  return seen;
}

/* A calibration maps the pixels of photos of its own size only: another
 * size would put every card in the wrong place, a guess presented as
 * certain. */
static tp_status check_calib_size(const an_session *s, const tp_image *rgb, tp_error *err) {
  int w = 0, h = 0;
  cal_calib_image_size(s->calib, &w, &h);
  if (w <= 0 || h <= 0 || (w == rgb->width && h == rgb->height)) return TP_OK;
  return tp_error_set(err, TP_ERR_INVALID,
                      "%s: made for %dx%d photos, this one is %dx%d; calibrate again at "
                      "this size (teppich calibrate)",
                      s->calib_file, w, h, rgb->width, rgb->height);
}

vis_analyzer *an_session_analyzer(an_session *s) { return s->an; }

tp_status an_run_image(an_session *s, const tp_image *rgb,
                       const vis_table_map *map, an_report *out, tp_error *err) {
  return an_run_image_ref(s, NULL, rgb, map, out, err);
}

tp_status an_run_image_ref(an_session *s, const vis_reference *ref,
                           const tp_image *rgb, const vis_table_map *map,
                           an_report *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  double t0 = now_ms();
  tp_status st = tp_image_alloc(&out->photo, rgb->width, rgb->height, 3);
  if (st) return tp_error_set(err, st, "out of memory for the photo");
  for (int y = 0; y < rgb->height; y++)
    memcpy(tp_image_row(&out->photo, y), tp_image_row(rgb, y), (size_t)rgb->width * 3);
  double copy_ms = now_ms() - t0;
  double t_cal = now_ms(), cal_ms = 0, detect_ms = 0;
  const cal_calib *calib = s->calib;
  if (!map && calib) st = check_calib_size(s, rgb, err);
  if (st) return st;
  int seen[4], n_seen = calib ? markers_seen(calib, seen) : 0;
  if (!map && !calib) {
    photo_markers found;
    st = calibrate_photo(rgb, &out->own_calib, &found, &detect_ms, err);
    if (!st) n_seen = markers_seen(out->own_calib, seen); /* the photo's own */
    if (!st && s->hold_still_map) st = hold_still_map(s, &found, &out->own_calib, err);
    calib = out->own_calib;
  }
  if (!map && calib && !st) {
    out->map.table_to_image = calib_to_image;
    out->map.user = (void *)calib;
    table_area(calib, rgb, out->map.area_mm);
    map = &out->map;
  }
  cal_ms = now_ms() - t_cal;
  if (st) return st;
  out->has_map = true;
  if (map != &out->map) out->map = *map;
  st = ref ? vis_analyze_with_reference(s->an, ref, rgb, map, &out->vis, err)
           : vis_analyze(s->an, rgb, map, &out->vis, err);
  out->vis.profile.markers_ms += detect_ms;        /* marker detection */
  out->vis.profile.mapping_ms += cal_ms - detect_ms; /* table fit */
  out->vis.profile.total_ms += cal_ms;
  if (!st && calib) {
    out->vis.n_markers_seen = n_seen;
    memcpy(out->vis.markers_seen, seen, sizeof(int) * (size_t)n_seen);
  }
  if (!st) st = resolve(s, out, err);
  out->vis.profile.total_ms += copy_ms + out->vis.profile.rules_ms;
  return st;
}

tp_status an_run_file(an_session *s, const char *path, an_report *out,
                      tp_error *err) {
  memset(out, 0, sizeof *out);
  double t0 = now_ms();
  tp_image img = {0};
  tp_status st = cvw_image_read(path, 3, &img, err);
  double decode = now_ms() - t0;
  if (st) return st;
  st = an_run_image(s, &img, NULL, out, err);
  tp_image_free(&img);
  out->vis.profile.decode_ms = decode;
  out->vis.profile.total_ms += decode;
  if (st == TP_ERR_NOTFOUND) {
    char msg[sizeof err->text];
    memcpy(msg, err->text, sizeof msg);
    tp_error_set(err, st, "%.200s: %.300s", path, msg);
  }
  return st;
}

/* ------------------------------------------------------------- JSON */

static double r1(double v) { return round(v * 10) / 10; }
static double r3(double v) { return round(v * 1000) / 1000; }

static cJSON *point(double x, double y) {
  cJSON *a = cJSON_CreateArray();
  cJSON_AddItemToArray(a, cJSON_CreateNumber(r1(x)));
  cJSON_AddItemToArray(a, cJSON_CreateNumber(r1(y)));
  return a;
}

static void add_rect(cJSON *o, const vis_rect *r) {
  cJSON_AddItemToObject(o, "center_mm", point(r->center.x, r->center.y));
  cJSON_AddNumberToObject(o, "angle_deg", r1(r->angle_deg));
  vis_pt c[4];
  vis_rect_corners(r, c);
  cJSON *cs = cJSON_AddArrayToObject(o, "corners_mm");
  for (int i = 0; i < 4; i++) cJSON_AddItemToArray(cs, point(c[i].x, c[i].y));
}

static cJSON *card_json(const vis_card *c, int id) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", id);
  if (c->type >= 0)
    cJSON_AddStringToObject(o, "type", vis_type_name(c->type));
  else
    cJSON_AddNullToObject(o, "type");
  add_rect(o, &c->rect);
  cJSON_AddNumberToObject(o, "visible_fraction", r3(c->visible_fraction));
  cJSON_AddNumberToObject(o, "type_score", r3(c->type_score));
  if (c->uncertain) {
    cJSON_AddTrueToObject(o, "uncertain");
    cJSON_AddStringToObject(o, "reason", c->reason);
  }
  return o;
}

static cJSON *carpet_json(const vis_carpet *c, const char *player) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "colour", c->colour);
  cJSON_AddStringToObject(o, "player", player);
  add_rect(o, &c->rect);
  cJSON_AddItemToObject(o, "on_cards", cJSON_CreateIntArray(c->on_cards, c->n_on_cards));
  cJSON_AddItemToObject(o, "under_cards",
                        cJSON_CreateIntArray(c->under_cards, c->n_under_cards));
  if (c->face_down) cJSON_AddTrueToObject(o, "face_down");
  cJSON_AddNumberToObject(o, "visible_fraction", r3(c->visible_fraction));
  if (c->uncertain) {
    cJSON_AddTrueToObject(o, "uncertain");
    cJSON_AddStringToObject(o, "reason", c->reason);
  }
  return o;
}

static cJSON *rules_json(cJSON *root, const ft_resolution *rs) {
  cJSON *claims = cJSON_AddArrayToObject(root, "claims");
  for (int i = 0; i < rs->n_claims; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "player", rs->claims[i].player);
    cJSON_AddItemToObject(c, "cards",
                          cJSON_CreateIntArray(rs->claims[i].cards, rs->claims[i].n_cards));
    cJSON_AddItemToArray(claims, c);
  }
  cJSON *contests = cJSON_AddArrayToObject(root, "contests");
  for (int i = 0; i < rs->n_contests; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "card", rs->contests[i].card);
    cJSON *p = cJSON_AddArrayToObject(c, "players");
    for (int k = 0; k < rs->contests[i].n_players; k++)
      cJSON_AddItemToArray(p, cJSON_CreateString(rs->contests[i].players[k]));
    cJSON_AddItemToArray(contests, c);
  }
  cJSON *ret = cJSON_AddArrayToObject(root, "returned");
  for (int i = 0; i < rs->n_returned; i++)
    cJSON_AddItemToArray(ret, cJSON_CreateString(rs->returned[i]));
  return root;
}

static cJSON *profile_json(const vis_profile *p) {
  cJSON *o = cJSON_CreateObject();
  const struct {
    const char *name;
    double v;
  } f[] = {{"decode", p->decode_ms},     {"markers", p->markers_ms},
           {"mapping", p->mapping_ms},   {"detection", p->detect_ms},
           {"identification", p->identify_ms}, {"stacking", p->stacking_ms},
           {"rules", p->rules_ms},       {"total", p->total_ms}};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    cJSON_AddNumberToObject(o, f[i].name, r1(f[i].v));
  return o;
}

char *an_report_json(const an_session *s, const an_report *r) {
  (void)s;
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddItemToObject(root, "markers_seen",
                        cJSON_CreateIntArray(r->vis.markers_seen, r->vis.n_markers_seen));
  cJSON *cards = cJSON_AddArrayToObject(root, "cards");
  for (int i = 0; i < r->vis.n_cards; i++)
    cJSON_AddItemToArray(cards, card_json(&r->vis.cards[i], i));
  cJSON *carpets = cJSON_AddArrayToObject(root, "carpets");
  for (int i = 0; i < r->vis.n_carpets; i++)
    cJSON_AddItemToArray(carpets, carpet_json(&r->vis.carpets[i], r->players[i]));
  rules_json(root, &r->rules);
  cJSON_AddItemToObject(root, "profile_ms", profile_json(&r->vis.profile));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) return NULL;
  size_t n = strlen(text);
  char *out = realloc(text, n + 2);
  if (!out) {
    free(text);
    return NULL;
  }
  out[n] = '\n';
  out[n + 1] = 0;
  return out;
}

/* ---------------------------------------------------------- summary */

typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[1024];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0 || b->oom) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->cap + (size_t)n + 1) * 2;
    char *p = realloc(b->buf, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->buf = p;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, tmp, (size_t)n + 1);
  b->len += (size_t)n;
}

/* "the camel bazaar (card 4)" */
/* "the camel bazaar (card 4)", "adventure A (card 1)", "the magic lamp
 * (card 2)": as the cards are called at the table, and as teppich watch
 * and the web page say them. */
static void card_name(const vis_result *v, int id, char *out, size_t cap) {
  const char *t = id >= 0 && id < v->n_cards ? vis_type_name(v->cards[id].type) : NULL;
  if (t && !strncmp(t, "adventure-", 10) && t[10] >= 'a' && t[10] <= 'z') {
    snprintf(out, cap, "adventure %c (card %d)", t[10] - 'a' + 'A', id);
    return;
  }
  char nice[40] = "unknown card";
  if (t) {
    snprintf(nice, sizeof nice, "%s", strcmp(t, "lamp") ? t : "magic lamp");
    for (char *p = nice; *p; p++)
      if (*p == '-') *p = ' ';
  }
  snprintf(out, cap, "the %s (card %d)", nice, id);
}

static void list_cards(sbuf *b, const vis_result *v, const int *ids, int n) {
  for (int i = 0; i < n; i++) {
    char name[80];
    card_name(v, ids[i], name, sizeof name);
    sb_add(b, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", name);
  }
}

/* A carpet whose colour --players gives nobody plays as its colour: say
 * so, or "red takes the palace" reads as a mistake beside anna and ben. */
static void say_unowned_carpets(const an_session *s, const vis_result *v, sbuf *b) {
  if (!s->has_players) return;
  for (int i = 0; i < v->n_carpets; i++)
    if (ft_players_by_colour(&s->players, v->carpets[i].colour) < 0)
      sb_add(b, "The %s carpet is nobody's in --players: it plays as %s.\n",
             v->carpets[i].colour, v->carpets[i].colour);
}

char *an_report_summary(const an_session *s, const an_report *r) {
  sbuf b = {0};
  const vis_result *v = &r->vis;
  const ft_resolution *rs = &r->rules;
  sb_add(&b, "%d card%s and %d carpet%s on the table.\n", v->n_cards,
         v->n_cards == 1 ? "" : "s", v->n_carpets, v->n_carpets == 1 ? "" : "s");
  say_unowned_carpets(s, v, &b);
  for (int i = 0; i < rs->n_claims; i++) {
    sb_add(&b, "%s takes ", rs->claims[i].player);
    list_cards(&b, v, rs->claims[i].cards, rs->claims[i].n_cards);
    sb_add(&b, ".\n");
  }
  for (int i = 0; i < rs->n_contests; i++) {
    char name[80];
    card_name(v, rs->contests[i].card, name, sizeof name);
    sb_add(&b, "Genie contest on %s: ", name);
    for (int k = 0; k < rs->contests[i].n_players; k++)
      sb_add(&b, "%s%s", k ? " vs " : "", rs->contests[i].players[k]);
    sb_add(&b, ".\n");
  }
  for (int i = 0; i < rs->n_returned; i++)
    sb_add(&b, "The %s carpet lies on no card and goes back.\n", rs->returned[i]);
  for (int i = 0; i < v->n_cards; i++)
    if (v->cards[i].uncertain) {
      char name[80];
      card_name(v, i, name, sizeof name);
      sb_add(&b, "Not sure about %s: %s.\n", name, v->cards[i].reason);
    }
  for (int i = 0; i < v->n_carpets; i++)
    if (v->carpets[i].uncertain)
      sb_add(&b, "Not sure about the %s carpet: %s.\n", v->carpets[i].colour,
             v->carpets[i].reason);
  if (!b.buf || b.oom) {
    free(b.buf);
    return NULL;
  }
  return b.buf;
}
