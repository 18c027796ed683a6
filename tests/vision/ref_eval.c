/* vt_ref_eval: flights analysed against the layout reference versus plain
 * vis_analyze, on rendered scenes (a benchmark and accuracy measurement,
 * never a test: nothing is asserted).
 *
 *     vt_ref_eval [--seed N] [--count N] [--difficulty easy|normal|hard|all]
 *                 [--layout-analysis] [--no-bare-table] [--no-analyze]
 *                 [--verbose]
 *
 * Per seed: the random scene of tools/render (a layout with carpets thrown
 * on it) is the flight frame; the same scene without carpets is the layout
 * frame. The reference holds the layout's cards (from the truth, or with
 * --layout-analysis from vis_analyze of the layout frame: the cards it
 * found, matched to the truth by position) and their patches from the
 * layout frame. Both analyses use the renderer's true camera as the table
 * mapping, so only the vision differs. A flight is right when every
 * on-top decision, every card (found, type), every carpet colour and pose
 * are right (an_score_scene) and, for "coverage", every card's visible
 * fraction is within 0.1 of the truth.
 *
 * Two more frames per seed, analysed against the same reference:
 *   carpet-free  the layout again with fresh sensor noise and 5 % more
 *                light: right when no carpet is reported (phantoms) and
 *                no card is gone;
 *   cards taken  the flight frame without two cards that no carpet
 *                touches: right when exactly those two are gone.
 *
 * --no-analyze skips vis_analyze of the flight (half the time, when only
 * the reference is being looked at).
 *
 * Seeds >= 100000 are held out: never tune on them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cvw.h"
#include "ref_scene.h"
#include "vision.h"

typedef struct {
  int flights, exact, coverage, both, decisions, decisions_right, errors;
  double ms, mapping_ms, detect_ms, identify_ms, stacking_ms;
} tally;

/* The extra frames: carpet-free (phantoms) and cards taken. */
typedef struct {
  int free_frames, free_right, phantoms;
  int taken_frames, taken_right;
} extra_tally;

/* The layout cards as vis_analyze sees the layout frame, in the truth's
 * order (the controller's ids); a card it missed is left out. */
static int analysed_cards(vis_analyzer *an, const tp_image *img,
                          const vis_table_map *map, const rnd_scene *scene,
                          vis_card *cards) {
  vis_result r;
  tp_error err;
  if (vis_analyze(an, img, map, &r, &err)) return 0;
  rnd_truth t;
  rnd_truth_compute(scene, &t);
  int n = 0;
  for (int i = 0; i < scene->n_cards; i++) {
    vis_pt c = vt_centre(t.cards[i].corners_mm);
    for (int k = 0; k < r.n_cards; k++)
      if (r.cards[k].type >= 0 && hypot(r.cards[k].rect.center.x - c.x,
                                        r.cards[k].rect.center.y - c.y) < 15) {
        cards[n++] = r.cards[k];
        break;
      }
  }
  vis_result_free(&r);
  return n;
}

/* Every card's visible fraction within 0.1 of the truth (cards matched by
 * position as an_score_scene does). */
static bool coverage_right(const rnd_scene *scene, const vis_result *v) {
  rnd_truth t;
  rnd_truth_compute(scene, &t);
  for (int i = 0; i < scene->n_cards; i++) {
    vis_pt c = vt_centre(t.cards[i].corners_mm);
    int best = -1;
    for (int k = 0; k < v->n_cards; k++)
      if (v->cards[k].type >= 0 && hypot(v->cards[k].rect.center.x - c.x,
                                         v->cards[k].rect.center.y - c.y) < 15)
        best = k;
    if (best < 0 || fabs(v->cards[best].visible_fraction -
                         t.cards[i].visible_fraction) > 0.1)
      return false;
  }
  return true;
}

static void score(const rnd_scene *scene, const vis_result *v, tally *t,
                  const char *name, unsigned long seed, bool verbose) {
  an_report rep;
  memset(&rep, 0, sizeof rep);
  rep.vis = *v;
  an_score s;
  an_score_scene(scene, &rep, &s);
  bool cov = coverage_right(scene, v);
  t->flights++;
  t->exact += s.exact;
  t->coverage += cov;
  t->both += s.exact && cov;
  t->decisions += s.stack_decisions;
  t->decisions_right += s.stack_right;
  t->ms += v->profile.total_ms;
  t->mapping_ms += v->profile.mapping_ms;
  t->detect_ms += v->profile.detect_ms;
  t->identify_ms += v->profile.identify_ms;
  t->stacking_ms += v->profile.stacking_ms;
  if (verbose && (!s.exact || !cov))
    printf("  seed %lu %s: %s%s\n", seed, name, s.exact ? "" : s.errors,
           cov ? "" : " [coverage wrong]");
}

static void print_tally(const char *level, const char *name, const tally *t) {
  double n = t->flights ? t->flights : 1;
  printf("%-7s %-15s %3d flights  exact %5.1f%%  coverage %5.1f%%  both "
         "%5.1f%%  on-top %5.1f%%  "
         "%6.0f ms/frame (mapping %.0f, detection %.0f, identification %.0f, "
         "stacking %.0f)\n",
         level, name, t->flights, 100 * t->exact / n, 100 * t->coverage / n,
         100 * t->both / n,
         t->decisions ? 100.0 * t->decisions_right / t->decisions : 100.0,
         t->ms / n, t->mapping_ms / n, t->detect_ms / n, t->identify_ms / n,
         t->stacking_ms / n);
}

typedef struct {
  an_scenes *sc;
  vis_analyzer *an;
  bool layout_analysis, verbose, no_bare, no_analyze;
} ctx;

static int gone_count(const vis_result *r) {
  int n = 0;
  for (int i = 0; i < r->n_cards; i++)
    n += r->cards[i].gone;
  return n;
}

/* The layout again, fresh noise and a little more light: nothing flew. */
static tp_status carpet_free(ctx *c, const vis_reference *ref,
                             const rnd_scene *layout, const vis_table_map *map,
                             unsigned long seed, extra_tally *x,
                             tp_error *err) {
  rnd_scene s = *layout;
  s.look.noise_seed += 7919;
  s.look.brightness = (s.look.brightness > 0 ? s.look.brightness : 1) * 1.05;
  tp_image img = {0};
  vis_result r;
  tp_status st = an_scenes_photo(c->sc, &s, &img, err);
  if (!st) st = vis_analyze_with_reference(c->an, ref, &img, map, &r, err);
  if (!st) {
    x->free_frames++;
    x->phantoms += r.n_carpets;
    bool right = r.n_carpets == 0 && gone_count(&r) == 0;
    x->free_right += right;
    if (c->verbose && !right)
      for (int k = 0; k < r.n_carpets; k++)
        printf("  seed %lu carpet-free: phantom %s carpet at (%.0f, %.0f)%s\n",
               seed, r.carpets[k].colour, r.carpets[k].rect.center.x,
               r.carpets[k].rect.center.y,
               gone_count(&r) ? " [a card gone]" : "");
    vis_result_free(&r);
  }
  tp_image_free(&img);
  return st;
}

/* The flight without two cards no carpet touches (if it has two): are
 * exactly those reported gone? Reference slots follow the truth's order
 * (not with --layout-analysis, where a missed card shifts them). */
static tp_status cards_taken(ctx *c, const vis_reference *ref,
                             const rnd_scene *flight, const vis_table_map *map,
                             unsigned long seed, extra_tally *x,
                             tp_error *err) {
  rnd_truth t;
  rnd_truth_compute(flight, &t);
  int taken[2], n_taken = 0;
  for (int i = flight->n_cards - 1; i >= 0 && n_taken < 2; i--) {
    bool touched = t.cards[i].visible_fraction < 1;
    for (int j = 0; j < flight->n_carpets && !touched; j++)
      for (int k = 0; k < t.carpets[j].n_on; k++)
        touched |= t.carpets[j].on_cards[k] == i;
    if (!touched) taken[n_taken++] = i;
  }
  if (n_taken < 2 || c->layout_analysis) return TP_OK;
  rnd_scene s = *flight;
  s.n_cards = 0;
  for (int i = 0; i < flight->n_cards; i++)
    if (i != taken[0] && i != taken[1]) s.cards[s.n_cards++] = flight->cards[i];
  tp_image img = {0};
  vis_result r;
  tp_status st = an_scenes_photo(c->sc, &s, &img, err);
  if (!st) st = vis_analyze_with_reference(c->an, ref, &img, map, &r, err);
  if (!st) {
    bool right = gone_count(&r) == 2 && r.cards[taken[0]].gone &&
                 r.cards[taken[1]].gone;
    x->taken_frames++;
    x->taken_right += right;
    if (c->verbose && !right)
      printf("  seed %lu cards taken (%d, %d): %d gone\n", seed, taken[0],
             taken[1], gone_count(&r));
    vis_result_free(&r);
  }
  tp_image_free(&img);
  return st;
}

static tp_status one_flight(ctx *c, rnd_difficulty level, unsigned long seed,
                            tally *ref_t, tally *plain_t, extra_tally *x,
                            tp_error *err) {
  rnd_scene flight, layout;
  rnd_scene_random(seed, level, NULL, &flight);
  layout = flight;
  layout.n_carpets = 0;
  layout.n_hands = 0;
  tp_image limg = {0}, fimg = {0};
  vis_reference *ref = NULL;
  vis_card cards[RND_MAX_CARDS];
  vis_table_map map = an_scenes_true_map(&flight, NULL);
  tp_status st = an_scenes_photo(c->sc, &layout, &limg, err);
  if (!st) st = an_scenes_photo(c->sc, &flight, &fimg, err);
  if (!st) st = vis_reference_create(&ref, err);
  int n = 0;
  if (!st)
    n = c->layout_analysis ? analysed_cards(c->an, &limg, &map, &layout, cards)
                           : vt_truth_cards(&layout, cards);
  if (!st) st = vis_reference_add_cards(ref, c->an, &limg, &map, cards, n, err);
  if (!st && !c->no_bare)
    st = vis_reference_set_table(ref, c->an, &limg, &map, err);
  vis_result r;
  if (!st) st = vis_analyze_with_reference(c->an, ref, &fimg, &map, &r, err);
  if (!st) {
    score(&flight, &r, ref_t, "reference", seed, c->verbose);
    vis_result_free(&r);
  }
  if (!st) st = carpet_free(c, ref, &layout, &map, seed, x, err);
  if (!st) st = cards_taken(c, ref, &flight, &map, seed, x, err);
  if (!st && !c->no_analyze) st = vis_analyze(c->an, &fimg, &map, &r, err);
  if (!st && !c->no_analyze) {
    score(&flight, &r, plain_t, "vis_analyze", seed, c->verbose);
    vis_result_free(&r);
  }
  vis_reference_destroy(ref);
  tp_image_free(&limg);
  tp_image_free(&fimg);
  return st;
}

int main(int argc, char **argv) {
  unsigned long seed = 1000;
  int count = 10;
  const char *diff = "normal";
  ctx c = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--count") && i + 1 < argc)
      count = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--difficulty") && i + 1 < argc)
      diff = argv[++i];
    else if (!strcmp(argv[i], "--layout-analysis"))
      c.layout_analysis = true;
    else if (!strcmp(argv[i], "--verbose"))
      c.verbose = true;
    else if (!strcmp(argv[i], "--no-bare-table"))
      c.no_bare = true;
    else if (!strcmp(argv[i], "--no-analyze"))
      c.no_analyze = true;
    else {
      fprintf(stderr, "usage: vt_ref_eval [--seed N] [--count N] [--difficulty "
                      "easy|normal|hard|all] "
                      "[--layout-analysis] [--no-bare-table] [--no-analyze] "
                      "[--verbose]\n");
      return 2;
    }
  }
  tp_error err;
  an_session *s = NULL;
  an_options ao = {.image = "scene"};
  tp_status st = an_session_create(&ao, &s, &err);
  if (!st) st = an_scenes_create(&c.sc, &err);
  if (!st) st = vis_analyzer_create(an_session_deck(s), NULL, &c.an, &err);
  static const char *const names[3] = {"easy", "normal", "hard"};
  for (int l = 0; !st && l < 3; l++) {
    if (strcmp(diff, "all") && strcmp(diff, names[l])) continue;
    tally rt = {0}, pt = {0};
    extra_tally x = {0};
    for (int k = 0; k < count; k++) {
      tp_status fs = one_flight(&c, (rnd_difficulty)l, seed + (unsigned long)k,
                                &rt, &pt, &x, &err);
      if (fs) {
        fprintf(stderr, "seed %lu: %s\n", seed + (unsigned long)k, err.text);
        rt.errors++;
      }
    }
    print_tally(names[l], "with reference", &rt);
    print_tally(names[l], "vis_analyze", &pt);
    printf("%-7s carpet-free frames right %d/%d (phantom carpets %d); cards "
           "taken right %d/%d\n",
           names[l], x.free_right, x.free_frames, x.phantoms, x.taken_right,
           x.taken_frames);
    printf("%-7s speed: with reference %.0f ms, vis_analyze %.0f ms per frame "
           "(ratio %.2f)\n",
           names[l], rt.ms / (rt.flights ? rt.flights : 1),
           pt.ms / (pt.flights ? pt.flights : 1),
           pt.ms > 0 ? rt.ms / pt.ms : 0);
  }
  if (st) fprintf(stderr, "vt_ref_eval: %s\n", err.text);
  vis_analyzer_destroy(c.an);
  an_scenes_destroy(c.sc);
  an_session_destroy(s);
  return st ? 1 : 0;
}
