/* render: the ground truth of a scene (analyze's JSON fields of spec
 * section 4 plus what only the renderer knows). Claims, contests and
 * returned carpets come from the rules core (ft_resolve), never from here:
 * this file only decides the geometry, "which carpet lies on which card from
 * above". */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"
#include "render_internal.h"

/* A marker counts as covered by an overlap above this (mm^2): a float
 * tolerance, so that a card sharing an edge with it does not hide it.
 * (Whether a carpet lies on a card is the rules' contact depth instead.) */
#define COVER_AREA_MM2 0.01

static void object_corners(const rnd_scene *s, int item, double corners[4][2]) {
  if (item >= 0)
    rnd_pose_corners(&s->cards[item].pose, s->card_mm[0], s->card_mm[1], corners);
  else
    rnd_pose_corners(&s->carpets[-1 - item].pose, s->carpet_mm[0], s->carpet_mm[1], corners);
}

static bool in_rect(const rnd_pose *p, double w, double h, double x, double y) {
  double a = p->angle_deg * RND__DEG, dx = x - p->center_mm[0], dy = y - p->center_mm[1];
  double u = dx * sin(a) - dy * cos(a), v = dx * cos(a) + dy * sin(a);
  return fabs(u) <= 0.5 * w && fabs(v) <= 0.5 * h;
}

static bool in_hand(const rnd_hand *h, double x, double y) {
  return rnd__hand_sd(h->center_mm[0], h->center_mm[1], h->radius_mm, cos(h->arm_deg * RND__DEG),
                      sin(h->arm_deg * RND__DEG), x, y, NULL) <= 0;
}

/* Share of the card's area that nothing above covers (48 x 72 samples). */
static double visible_fraction(const rnd_scene *s, const int *stack, int n, int pos) {
  const rnd_pose *p = &s->cards[stack[pos]].pose;
  double a = p->angle_deg * RND__DEG, w = s->card_mm[0], h = s->card_mm[1];
  int visible = 0, total = 0;
  for (int j = 0; j < 72; j++)
    for (int i = 0; i < 48; i++) {
      double u = ((i + 0.5) / 48 - 0.5) * w, v = ((j + 0.5) / 72 - 0.5) * h;
      double x = p->center_mm[0] + u * sin(a) + v * cos(a);
      double y = p->center_mm[1] - u * cos(a) + v * sin(a);
      bool hidden = false;
      for (int k = pos + 1; k < n && !hidden; k++) {
        int it = stack[k];
        hidden = it >= 0 ? in_rect(&s->cards[it].pose, s->card_mm[0], s->card_mm[1], x, y)
                         : in_rect(&s->carpets[-1 - it].pose, s->carpet_mm[0], s->carpet_mm[1], x, y);
      }
      for (int k = 0; k < s->n_hands && !hidden; k++) hidden = in_hand(&s->hands[k], x, y);
      visible += !hidden;
      total++;
    }
  return (double)visible / total;
}

/* The rules' default contact depth: what the renderer's truth uses unless
 * told otherwise. */
static double default_contact_mm(void) {
  ft_rules rules;
  ft_rules_default(&rules);
  return ft_rules_contact_mm(&rules);
}

void rnd_truth_compute(const rnd_scene *s, rnd_truth *out) {
  rnd_truth_compute_contact(s, default_contact_mm(), out);
}

void rnd_truth_compute_contact(const rnd_scene *s, double contact_mm, rnd_truth *out) {
  memset(out, 0, sizeof *out);
  out->n_stack = rnd__stacking(s, out->stack);
  int pos_of[RND_MAX_CARDS + RND_MAX_CARPETS];
  for (int k = 0; k < out->n_stack; k++) {
    int it = out->stack[k];
    pos_of[it >= 0 ? it : RND_MAX_CARDS + (-1 - it)] = k;
  }
  for (int i = 0; i < s->n_cards; i++) {
    object_corners(s, i, out->cards[i].corners_mm);
    out->cards[i].visible_fraction = visible_fraction(s, out->stack, out->n_stack, pos_of[i]);
  }
  for (int c = 0; c < s->n_carpets; c++) {
    rnd_carpet_truth *ct = &out->carpets[c];
    object_corners(s, -1 - c, ct->corners_mm);
    int my_pos = pos_of[RND_MAX_CARDS + c];
    for (int i = 0; i < s->n_cards; i++) {
      if (pos_of[i] > my_pos) continue; /* the card lies on the carpet */
      /* between the outlines as drawn: the scene's rounded corners */
      double depth = tp_rounded_rect_contact_depth(
          (const double(*)[2])ct->corners_mm, s->corner_mm,
          (const double(*)[2])out->cards[i].corners_mm, s->corner_mm);
      if (tp_contact_lies_on(depth, contact_mm)) ct->on_cards[ct->n_on++] = i;
    }
  }
}

/* ---------------- JSON --------------------------------------------- */

static cJSON *vec(const double *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(round(v[i] * 1e4) / 1e4));
  return a;
}

static cJSON *corners(const double c[4][2]) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < 4; i++) cJSON_AddItemToArray(a, vec(c[i], 2));
  return a;
}

static cJSON *corners_px(const rnd_camera *cam, const double c[4][2]) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < 4; i++) {
    double px[2] = {NAN, NAN};
    if (rnd_camera_project(cam, c[i][0], c[i][1], &px[0], &px[1]))
      cJSON_AddItemToArray(a, vec(px, 2));
    else
      cJSON_AddItemToArray(a, cJSON_CreateNull());
  }
  return a;
}

static double fold_angle(double a) {
  a = fmod(a, 180.0);
  if (a < 0) a += 180.0;
  if (a >= 180.0 - 1e-9) a = 0;
  return a;
}

static void marker_corners(const rnd_marker *m, double c[4][2]) {
  rnd_pose p = {.center_mm = {m->center_mm[0], m->center_mm[1]}, .angle_deg = m->angle_deg + 90};
  rnd_pose_corners(&p, m->size_mm, m->size_mm, c);
}

/* A marker counts as seen when its black square is wholly in the picture
 * and nothing lies over it. */
static bool marker_seen(const rnd_scene *s, const rnd_truth *t, const rnd_marker *m) {
  double c[4][2];
  marker_corners(m, c);
  for (int i = 0; i < 4; i++) {
    double u, v;
    if (!rnd_camera_project(&s->camera, c[i][0], c[i][1], &u, &v)) return false;
    if (u < 1 || v < 1 || u > s->camera.width - 2 || v > s->camera.height - 2) return false;
  }
  rnd__poly mp, op;
  rnd__poly_from_corners(c, &mp);
  for (int i = 0; i < s->n_cards; i++) {
    rnd__poly_from_corners(t->cards[i].corners_mm, &op);
    if (rnd__convex_overlap(&mp, &op) > COVER_AREA_MM2) return false;
  }
  for (int i = 0; i < s->n_carpets; i++) {
    rnd__poly_from_corners(t->carpets[i].corners_mm, &op);
    if (rnd__convex_overlap(&mp, &op) > COVER_AREA_MM2) return false;
  }
  for (int h = 0; h < s->n_hands; h++)
    for (int i = 0; i < 4; i++)
      if (in_hand(&s->hands[h], c[i][0], c[i][1])) return false;
  return true;
}

static cJSON *camera_truth(const rnd_camera *cam) {
  rnd_extrinsics e;
  rnd_camera_extrinsics(cam, &e);
  cJSON *o = cJSON_CreateObject();
  double res[2] = {cam->width, cam->height};
  cJSON_AddItemToObject(o, "resolution", vec(res, 2));
  cJSON_AddItemToObject(o, "position_mm", vec(cam->position_mm, 3));
  cJSON_AddItemToObject(o, "look_at_mm", vec(cam->look_at_mm, 2));
  cJSON_AddNumberToObject(o, "roll_deg", cam->roll_deg);
  cJSON_AddNumberToObject(o, "tilt_deg", round(rnd_camera_tilt_deg(cam) * 1e4) / 1e4);
  cJSON *K = cJSON_AddArrayToObject(o, "K");
  for (int r = 0; r < 3; r++) cJSON_AddItemToArray(K, vec(e.K + 3 * r, 3));
  cJSON_AddItemToObject(o, "dist", vec(cam->dist, 5));
  cJSON *R = cJSON_AddArrayToObject(o, "R");
  for (int r = 0; r < 3; r++) {
    cJSON *row = cJSON_CreateArray();
    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(row, cJSON_CreateNumber(e.R[3 * r + k]));
    cJSON_AddItemToArray(R, row);
  }
  cJSON *t = cJSON_AddArrayToObject(o, "t");
  for (int k = 0; k < 3; k++) cJSON_AddItemToArray(t, cJSON_CreateNumber(e.t[k]));
  cJSON_AddStringToObject(o, "frame", "table frame, z into the table; X_cam = R X + t (OpenCV)");
  return o;
}

static tp_status resolve(const rnd_scene *s, const rnd_truth *t, ft_resolution *res,
                         tp_error *err) {
  ft_carpet_on on[RND_MAX_CARPETS];
  for (int i = 0; i < s->n_carpets; i++)
    on[i] = (ft_carpet_on){.colour = s->carpets[i].colour, .player = s->carpets[i].player,
                           .on_cards = t->carpets[i].on_cards, .n_on_cards = t->carpets[i].n_on};
  tp_status st = ft_resolve(NULL, on, s->n_carpets, s->n_cards, res, err);
  if (st != TP_OK) {
    tp_error inner = *err;
    tp_error_set(err, st, "truth: the rules core refused the scene: %s", inner.text);
  }
  return st;
}

static void add_resolution(cJSON *root, const ft_resolution *res) {
  cJSON *claims = cJSON_AddArrayToObject(root, "claims");
  for (int i = 0; i < res->n_claims; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "player", res->claims[i].player);
    cJSON_AddItemToObject(c, "cards", cJSON_CreateIntArray(res->claims[i].cards, res->claims[i].n_cards));
    cJSON_AddItemToArray(claims, c);
  }
  cJSON *contests = cJSON_AddArrayToObject(root, "contests");
  for (int i = 0; i < res->n_contests; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "card", res->contests[i].card);
    cJSON *ps = cJSON_AddArrayToObject(c, "players");
    for (int k = 0; k < res->contests[i].n_players; k++)
      cJSON_AddItemToArray(ps, cJSON_CreateString(res->contests[i].players[k]));
    cJSON_AddItemToArray(contests, c);
  }
  cJSON *ret = cJSON_AddArrayToObject(root, "returned");
  for (int i = 0; i < res->n_returned; i++)
    cJSON_AddItemToArray(ret, cJSON_CreateString(res->returned[i]));
}

static void add_cards(cJSON *root, const rnd_scene *s, const rnd_truth *t) {
  int pos_of[RND_MAX_CARDS] = {0};
  for (int k = 0; k < t->n_stack; k++)
    if (t->stack[k] >= 0) pos_of[t->stack[k]] = k;
  cJSON *cards = cJSON_AddArrayToObject(root, "cards");
  for (int i = 0; i < s->n_cards; i++) {
    const rnd_card *c = &s->cards[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", i);
    cJSON_AddStringToObject(o, "type", c->type);
    cJSON_AddItemToObject(o, "center_mm", vec(c->pose.center_mm, 2));
    cJSON_AddNumberToObject(o, "angle_deg", round(fold_angle(c->pose.angle_deg) * 1e4) / 1e4);
    cJSON_AddItemToObject(o, "corners_mm", corners(t->cards[i].corners_mm));
    cJSON_AddNumberToObject(o, "visible_fraction", round(t->cards[i].visible_fraction * 1e4) / 1e4);
    cJSON_AddNumberToObject(o, "face_angle_deg", c->pose.angle_deg);
    cJSON_AddItemToObject(o, "corners_px", corners_px(&s->camera, t->cards[i].corners_mm));
    cJSON_AddNumberToObject(o, "stack_index", pos_of[i]);
    cJSON_AddBoolToObject(o, "face_down", c->face_down);
    cJSON_AddItemToArray(cards, o);
  }
}

static void add_carpets(cJSON *root, const rnd_scene *s, const rnd_truth *t) {
  cJSON *carpets = cJSON_AddArrayToObject(root, "carpets");
  for (int i = 0; i < s->n_carpets; i++) {
    const rnd_carpet *c = &s->carpets[i];
    int pos = 0;
    for (int k = 0; k < t->n_stack; k++)
      if (t->stack[k] == -1 - i) pos = k;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "colour", c->colour);
    cJSON_AddStringToObject(o, "player", c->player);
    cJSON_AddItemToObject(o, "center_mm", vec(c->pose.center_mm, 2));
    cJSON_AddNumberToObject(o, "angle_deg", round(fold_angle(c->pose.angle_deg) * 1e4) / 1e4);
    cJSON_AddItemToObject(o, "corners_mm", corners(t->carpets[i].corners_mm));
    cJSON_AddItemToObject(o, "on_cards", cJSON_CreateIntArray(t->carpets[i].on_cards, t->carpets[i].n_on));
    cJSON_AddNumberToObject(o, "face_angle_deg", c->pose.angle_deg);
    cJSON_AddItemToObject(o, "corners_px", corners_px(&s->camera, t->carpets[i].corners_mm));
    cJSON_AddNumberToObject(o, "stack_index", pos);
    cJSON_AddBoolToObject(o, "moving", c->pose.velocity_mm[0] != 0 || c->pose.velocity_mm[1] != 0 ||
                                           c->pose.spin_deg != 0);
    cJSON_AddItemToArray(carpets, o);
  }
}

static void add_markers(cJSON *root, const rnd_scene *s, const rnd_truth *t) {
  cJSON *seen = cJSON_AddArrayToObject(root, "markers_seen");
  cJSON *all = cJSON_CreateArray();
  int ids[RND_MAX_MARKERS], n = 0;
  for (int i = 0; i < s->n_markers; i++) {
    double c[4][2];
    marker_corners(&s->markers[i], c);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "id", s->markers[i].id);
    cJSON_AddItemToObject(m, "center_mm", vec(s->markers[i].center_mm, 2));
    cJSON_AddNumberToObject(m, "size_mm", s->markers[i].size_mm);
    cJSON_AddItemToObject(m, "corners_mm", corners(c));
    cJSON_AddItemToObject(m, "corners_px", corners_px(&s->camera, c));
    cJSON_AddItemToArray(all, m);
    if (marker_seen(s, t, &s->markers[i])) ids[n++] = s->markers[i].id;
  }
  for (int i = 1; i < n; i++) /* ascending ids */
    for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
      int tmp = ids[j];
      ids[j] = ids[j - 1], ids[j - 1] = tmp;
    }
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(seen, cJSON_CreateNumber(ids[i]));
  cJSON_AddItemToObject(root, "markers", all);
}

char *rnd_truth_json(const rnd_scene *s, tp_error *err) {
  return rnd_truth_json_contact(s, default_contact_mm(), err);
}

char *rnd_truth_json_contact(const rnd_scene *s, double contact_mm, tp_error *err) {
  rnd_truth *t = malloc(sizeof *t);
  if (!t) {
    tp_error_set(err, TP_ERR_NOMEM, "truth: out of memory");
    return NULL;
  }
  rnd_truth_compute_contact(s, contact_mm, t);
  ft_resolution res;
  if (resolve(s, t, &res, err) != TP_OK) {
    free(t);
    return NULL;
  }
  cJSON *root = cJSON_CreateObject();
  add_markers(root, s, t);
  add_cards(root, s, t);
  add_carpets(root, s, t);
  add_resolution(root, &res);
  cJSON *stack = cJSON_AddArrayToObject(root, "stacking");
  for (int k = 0; k < t->n_stack; k++) {
    cJSON *o = cJSON_CreateObject();
    int it = t->stack[k];
    cJSON_AddStringToObject(o, "kind", it >= 0 ? "card" : "carpet");
    if (it >= 0) cJSON_AddNumberToObject(o, "id", it);
    else cJSON_AddStringToObject(o, "colour", s->carpets[-1 - it].colour);
    cJSON_AddItemToArray(stack, o);
  }
  cJSON_AddItemToObject(root, "camera", camera_truth(&s->camera));
  cJSON_AddItemToObject(root, "scene", rnd__scene_json_object(s));
  free(t);
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) tp_error_set(err, TP_ERR_NOMEM, "truth: out of memory");
  return text;
}
