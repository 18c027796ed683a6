/* scenes: rendered random scenes and how an analysis compares with their
 * truth (for `teppich eval` and `teppich bench`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cvw.h"

struct an_scenes {
  rnd_deck *deck;
  rnd_renderer *renderer;
  cvw_dict *dict;
  char dict_name[RND_NAME_LEN];
};

static tp_status marker_bits(void *user, const char *dictionary, int id, uint8_t *bits,
                             int *cells, tp_error *err) {
  an_scenes *s = user;
  if (!s->dict || strcmp(s->dict_name, dictionary)) {
    cvw_dict_destroy(s->dict);
    s->dict = NULL;
    tp_status st = cvw_dict_create(dictionary, &s->dict, err);
    if (st) return st;
    snprintf(s->dict_name, sizeof s->dict_name, "%s", dictionary);
  }
  int n = cvw_dict_marker_bits(s->dict) + 2;
  if (n > 16 || id < 0 || id >= cvw_dict_marker_count(s->dict))
    return tp_error_set(err, TP_ERR_INVALID, "marker %d of %s cannot be drawn", id, dictionary);
  tp_image img;
  if (tp_image_alloc(&img, n, n, 1)) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st = cvw_marker_draw(s->dict, id, &img, err);
  for (int y = 0; !st && y < n; y++)
    for (int x = 0; x < n; x++) bits[y * n + x] = tp_image_row(&img, y)[x] > 127;
  tp_image_free(&img);
  *cells = n;
  return st;
}

static tp_status read_face(void *user, const char *path, tp_image *out, tp_error *err) {
  (void)user;
  return cvw_image_read(path, 3, out, err);
}

tp_status an_scenes_create(an_scenes **out, tp_error *err) {
  return an_scenes_create_deck(NULL, out, err);
}

tp_status an_scenes_create_deck(const char *deck_dir, an_scenes **out, tp_error *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st = deck_dir ? rnd_deck_load_dir(deck_dir, read_face, NULL, &(*out)->deck, err)
                          : rnd_deck_create_demo(&(*out)->deck, err);
  if (!st) st = rnd_renderer_create((*out)->deck, marker_bits, *out, &(*out)->renderer, err);
  if (st) {
    an_scenes_destroy(*out);
    *out = NULL;
  }
  return st;
}

void an_scenes_sizes(const an_scenes *s, double card_mm[2], double carpet_mm[2]) {
  rnd_deck_sizes(s->deck, card_mm, carpet_mm);
}

void an_scenes_destroy(an_scenes *s) {
  if (!s) return;
  rnd_renderer_destroy(s->renderer);
  rnd_deck_destroy(s->deck);
  cvw_dict_destroy(s->dict);
  free(s);
}

tp_status an_scenes_render(an_scenes *s, const rnd_scene *scene, tp_image *img,
                           tp_error *err) {
  if (tp_image_alloc(img, scene->camera.width, scene->camera.height, 3))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for a rendered scene");
  tp_status st = rnd_render(s->renderer, scene, img, NULL, err);
  if (st) tp_image_free(img);
  return st;
}

tp_status an_scenes_photo(an_scenes *s, const rnd_scene *scene, tp_image *img,
                          tp_error *err) {
  tp_status st = an_scenes_render(s, scene, img, err);
  uint8_t *jpg = NULL;
  size_t len = 0;
  int q = scene->look.jpeg_quality > 0 ? scene->look.jpeg_quality : 90;
  if (!st) st = cvw_image_encode(img, ".jpg", q, &jpg, &len, err);
  tp_image dec = {0};
  if (!st) st = cvw_image_decode(jpg, len, 3, "scene", &dec, err);
  free(jpg);
  tp_image_free(img);
  if (!st) *img = dec;
  return st;
}

static bool camera_to_image(void *user, const double mm[2], double px[2]) {
  return rnd_camera_project(user, mm[0], mm[1], &px[0], &px[1]);
}

vis_table_map an_scenes_true_map(const rnd_scene *scene, const double *area) {
  vis_table_map m = {camera_to_image, (void *)&scene->camera, {-150, -150, 710, 550}};
  if (area) memcpy(m.area_mm, area, sizeof m.area_mm);
  return m;
}

/* ------------------------------------------------------------ score */

static vis_pt centre(const double c[4][2]) {
  vis_pt p = {0, 0};
  for (int i = 0; i < 4; i++) p.x += c[i][0] / 4, p.y += c[i][1] / 4;
  return p;
}

static double dist(vis_pt a, vis_pt b) { return hypot(a.x - b.x, a.y - b.y); }

static void note(an_score *s, const char *what) {
  if (!s->first_error[0]) snprintf(s->first_error, sizeof s->first_error, "%s", what);
  size_t n = strlen(s->errors);
  if (n + 3 < sizeof s->errors)
    snprintf(s->errors + n, sizeof s->errors - n, "%s%s", n ? "; " : "", what);
  s->exact = false;
}

/* note() with " (marked uncertain)" when the analysis said it was unsure. */
static void note_marked(an_score *s, const char *what, bool marked) {
  char m[160];
  snprintf(m, sizeof m, "%.140s%s", what, marked ? " (marked uncertain)" : "");
  note(s, m);
}

static void add_err(an_score *s, double e) {
  s->pos_err_sum += e;
  s->pos_err_max = fmax(s->pos_err_max, e);
  s->pos_n++;
}

void an_match_truth_cards(const rnd_scene *scene, const rnd_truth *t, const vis_result *v,
                          int *ours_of) {
  bool *taken = calloc((size_t)v->n_cards + 1, 1);
  for (int i = 0; i < scene->n_cards; i++) {
    vis_pt tc = centre(t->cards[i].corners_mm);
    int best = -1;
    for (int k = 0; k < v->n_cards; k++)
      if (!(taken && taken[k]) && dist(tc, v->cards[k].rect.center) < 15 &&
          (best < 0 || dist(tc, v->cards[k].rect.center) < dist(tc, v->cards[best].rect.center)))
        best = k;
    ours_of[i] = best;
    if (best >= 0 && taken) taken[best] = true;
  }
  free(taken);
}

const vis_carpet *an_match_truth_carpet(const rnd_scene *scene, const rnd_truth *t,
                                        const vis_result *v, int j) {
  const vis_carpet *c = NULL;
  for (int k = 0; k < v->n_carpets; k++)
    if (!strcmp(v->carpets[k].colour, scene->carpets[j].colour)) c = &v->carpets[k];
  return c && dist(centre(t->carpets[j].corners_mm), c->rect.center) <= 20 ? c : NULL;
}

/* Scores the cards matched by an_match_truth_cards (ours_of). */
static void match_cards(const rnd_scene *scene, const rnd_truth *t, const vis_result *v,
                        int *ours_of, an_score *s) {
  an_match_truth_cards(scene, t, v, ours_of);
  for (int i = 0; i < scene->n_cards; i++) {
    vis_pt tc = centre(t->cards[i].corners_mm);
    int best = ours_of[i];
    if (best < 0) {
      char m[160];
      snprintf(m, sizeof m, "missed card %d (%s, %.0f%% visible)", i, scene->cards[i].type,
               100 * t->cards[i].visible_fraction);
      note(s, m);
      continue;
    }
    s->matched_cards++;
    add_err(s, dist(tc, v->cards[best].rect.center));
    if (v->cards[best].type >= 0 && !strcmp(vis_type_name(v->cards[best].type), scene->cards[i].type)) {
      s->right_types++;
    } else {
      char m[160];
      snprintf(m, sizeof m, "card %d %s seen as %s", i, scene->cards[i].type,
               v->cards[best].type >= 0 ? vis_type_name(v->cards[best].type) : "unknown");
      s->wrong_types++;
      s->wrong_types_marked += v->cards[best].uncertain;
      note_marked(s, m, v->cards[best].uncertain);
    }
  }
}

static bool in_list(const int *l, int n, int x) {
  for (int i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

/* Whether carpet c's decision about our card `card` was marked: the carpet
 * itself uncertain (its contact doubt names one card, but a player sees
 * the carpet's mark) or its overlap with that card. */
static bool stack_marked(const vis_result *v, const vis_carpet *c, int card) {
  if (c->uncertain) return true;
  int ci = (int)(c - v->carpets);
  for (int k = 0; k < v->n_overlaps; k++) {
    const vis_overlap *o = &v->overlaps[k];
    if (o->carpet == ci && !o->other_is_carpet && o->other == card && o->uncertain) return true;
  }
  return false;
}

/* n of our objects match nothing in the truth, `marked` of them marked
 * uncertain: counted, and noted once as `what`. */
static void count_phantoms(an_score *s, int n, int marked, const char *what) {
  if (!n) return;
  s->phantoms += n;
  s->phantoms_marked += marked;
  note_marked(s, what, marked == n);
}

/* Our cards that match no truth card (ours_of from an_match_truth_cards). */
static void phantom_cards(const rnd_scene *scene, const vis_result *v, const int *ours_of,
                          an_score *s) {
  int n = 0, marked = 0;
  for (int k = 0; k < v->n_cards; k++)
    if (!in_list(ours_of, scene->n_cards, k)) n++, marked += v->cards[k].uncertain;
  count_phantoms(s, n, marked, "a card where there is none");
}

/* Our carpets that match no truth carpet (matched[k]). */
static void phantom_carpets(const vis_result *v, const bool *matched, an_score *s) {
  int n = 0, marked = 0;
  for (int k = 0; k < v->n_carpets; k++)
    if (!matched[k]) n++, marked += v->carpets[k].uncertain;
  count_phantoms(s, n, marked, "a carpet where there is none");
}

void an_score_scene(const rnd_scene *scene, const an_report *r, an_score *s) {
  ft_rules rules;
  ft_rules_default(&rules);
  an_score_scene_contact(scene, r, ft_rules_contact_mm(&rules), s);
}

/* Carpet j's on-top decisions against the truth's (c: ours of its colour). */
static void score_stacks(const rnd_scene *scene, const rnd_truth *t, const vis_result *v,
                         const int *ours_of, int j, const vis_carpet *c, an_score *s) {
  for (int i = 0; i < scene->n_cards; i++) {
    bool truth_on = in_list(t->carpets[j].on_cards, t->carpets[j].n_on, i);
    bool ours_on = ours_of[i] >= 0 && in_list(c->on_cards, c->n_on_cards, ours_of[i]);
    bool under = ours_of[i] >= 0 && in_list(c->under_cards, c->n_under_cards, ours_of[i]);
    if (!truth_on && !ours_on && !under) continue;
    s->stack_decisions++;
    if (truth_on == ours_on) {
      s->stack_right++;
      continue;
    }
    char m[160];
    snprintf(m, sizeof m, "the %s carpet %s card %d (%s)", scene->carpets[j].colour,
             truth_on ? "lies on, not beside/under," : "does not lie on", i,
             scene->cards[i].type);
    if (ours_of[i] < 0) { /* the card was missed: that is its error */
      note(s, m);
      continue;
    }
    bool marked = stack_marked(v, c, ours_of[i]);
    s->wrong_stacks++;
    s->wrong_stacks_marked += marked;
    note_marked(s, m, marked);
  }
}

/* Truth carpet j: found (its position error, its on-top decisions) or
 * missed. Returns ours, or NULL. */
static const vis_carpet *score_carpet(const rnd_scene *scene, const rnd_truth *t,
                                      const vis_result *v, const int *ours_of, int j,
                                      an_score *s) {
  const vis_carpet *c = an_match_truth_carpet(scene, t, v, j);
  if (!c) {
    char m[160];
    static const char *const surface[] = {"plain", "wood", "felt", "cloth"};
    int sf = (int)scene->table.surface;
    snprintf(m, sizeof m, "missed the %s carpet (%s%s table)", scene->carpets[j].colour,
             scene->carpets[j].face_down ? "face down, " : "",
             sf >= 0 && sf < 4 ? surface[sf] : "?");
    note(s, m);
    return NULL;
  }
  s->matched_carpets++;
  add_err(s, dist(centre(t->carpets[j].corners_mm), c->rect.center));
  score_stacks(scene, t, v, ours_of, j, c, s);
  return c;
}

void an_score_scene_contact(const rnd_scene *scene, const an_report *r, double contact_mm,
                            an_score *s) {
  memset(s, 0, sizeof *s);
  s->exact = true;
  rnd_truth t;
  rnd_truth_compute_contact(scene, contact_mm, &t);
  const vis_result *v = &r->vis;
  s->truth_cards = scene->n_cards;
  s->found_cards = v->n_cards;
  s->truth_carpets = scene->n_carpets;
  s->found_carpets = v->n_carpets;
  for (int k = 0; k < v->n_cards; k++) s->uncertain += v->cards[k].uncertain;
  for (int k = 0; k < v->n_carpets; k++) s->uncertain += v->carpets[k].uncertain;
  int ours_of[RND_MAX_CARDS];
  match_cards(scene, &t, v, ours_of, s);
  phantom_cards(scene, v, ours_of, s);
  bool *matched = calloc((size_t)v->n_carpets + 1, sizeof *matched);
  for (int j = 0; j < scene->n_carpets; j++) {
    const vis_carpet *c = score_carpet(scene, &t, v, ours_of, j, s);
    if (c && matched) matched[c - v->carpets] = true;
  }
  if (matched) phantom_carpets(v, matched, s);
  else if (s->matched_carpets < v->n_carpets) note(s, "a carpet where there is none");
  free(matched);
}
