/* vt_ref_bench: one flight frame analysed for an instruction count under
 * valgrind's callgrind (a benchmark, never a test: nothing is asserted).
 *
 *     vt_ref_bench [--seed N] [--size WxH] [--mode reference|analyze|incremental]
 *                  [--threads N]
 *
 * The random scene of tools/render (normal difficulty) at the camera
 * size WxH (default 1280x720, field of view as `teppich render --size`)
 * is the flight; the same scene without carpets the layout, which is also
 * the bare table (vis_reference_set_table); the reference holds the
 * layout's cards from the truth. Modes:
 *   reference    the flight frame with vis_analyze_with_reference
 *   analyze      the flight frame with vis_analyze
 *   incremental  the carpets land one by one; each frame is analysed
 *                against the reference and then becomes the reference
 *                for the next (vis_reference_set_decided); the last is
 *                the one measured
 * --threads N: analysis workers (default 1, every stage's calls under its
 * function); with callgrind's --separate-threads=yes the main thread's
 * count is what one frame waits for on N cores (the serial work and its
 * share of the parallel items).
 * Each measured analysis runs inside a function of its own (measured_*)
 * so that callgrind_annotate's inclusive count of that function is the
 * frame's cost:
 *   valgrind --tool=callgrind --callgrind-out-file=cg build/tests/vision/vt_ref_bench
 *   callgrind_annotate --inclusive=yes cg | grep measured_
 * The result is scored against the truth (printed) so that a faster
 * variant that gets the flight wrong shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cvw.h"
#include "ref_scene.h"
#include "vision.h"

typedef struct {
  an_scenes *sc;
  vis_analyzer *an;
  vis_table_map map;
} bench;

__attribute__((noinline)) static tp_status
measured_reference(bench *b, const vis_reference *ref, const tp_image *img,
                   vis_result *r, tp_error *err) {
  return vis_analyze_with_reference(b->an, ref, img, &b->map, r, err);
}

__attribute__((noinline)) static tp_status
measured_analyze(bench *b, const tp_image *img, vis_result *r, tp_error *err) {
  return vis_analyze(b->an, img, &b->map, r, err);
}

__attribute__((noinline)) static tp_status
measured_set_table(bench *b, vis_reference *ref, const tp_image *img,
                   tp_error *err) {
  return vis_reference_set_table(ref, b->an, img, &b->map, err);
}

__attribute__((noinline)) static tp_status
measured_set_decided(bench *b, vis_reference *ref, const tp_image *img,
                     const vis_result *r, tp_error *err) {
  return vis_reference_set_decided(ref, b->an, img, &b->map, r, err);
}

__attribute__((noinline)) static tp_status
measured_incremental_last(bench *b, const vis_reference *ref,
                          const tp_image *img, vis_result *r, tp_error *err) {
  return vis_analyze_with_reference(b->an, ref, img, &b->map, r, err);
}

static void report(const rnd_scene *scene, const vis_result *r,
                   const char *what) {
  an_report rep;
  memset(&rep, 0, sizeof rep);
  rep.vis = *r;
  an_score s;
  an_score_scene(scene, &rep, &s);
  printf("%s: %d carpets, %s%s\n", what, r->n_carpets,
         s.exact ? "exact" : "NOT exact: ", s.exact ? "" : s.errors);
  if (getenv("VT_REF_BENCH_CARPETS")) /* debugging: where they lie */
    for (int k = 0; k < r->n_carpets; k++)
      printf("  %s at (%.1f, %.1f) %.1f deg, on %d cards\n",
             r->carpets[k].colour, r->carpets[k].rect.center.x,
             r->carpets[k].rect.center.y, r->carpets[k].rect.angle_deg,
             r->carpets[k].n_on_cards);
}

/* The carpets land one by one; every frame is decided and kept. */
static tp_status incremental(bench *b, vis_reference *ref,
                             const rnd_scene *flight, tp_error *err) {
  tp_status st = TP_OK;
  for (int k = 1; !st && k <= flight->n_carpets; k++) {
    rnd_scene s = *flight;
    s.n_carpets = k;
    tp_image img = {0};
    vis_result r;
    st = an_scenes_photo(b->sc, &s, &img, err);
    if (!st)
      st = k < flight->n_carpets
               ? vis_analyze_with_reference(b->an, ref, &img, &b->map, &r, err)
               : measured_incremental_last(b, ref, &img, &r, err);
    if (!st) {
      char what[64];
      snprintf(what, sizeof what, "incremental, %d of %d carpets", k,
               flight->n_carpets);
      report(&s, &r, what);
      st = measured_set_decided(b, ref, &img, &r, err);
      vis_result_free(&r);
    }
    tp_image_free(&img);
  }
  return st;
}

static tp_status run(bench *b, unsigned long seed, int w, int h,
                     const char *mode, tp_error *err) {
  rnd_scene flight, layout;
  rnd_scene_random(seed, RND_NORMAL, NULL, &flight);
  flight.camera.width = w, flight.camera.height = h;
  rnd_camera_set_hfov(&flight.camera, 66);
  flight.n_hands = 0;
  layout = flight;
  layout.n_carpets = 0;
  b->map = an_scenes_true_map(&flight, NULL);
  tp_image limg = {0}, fimg = {0};
  vis_reference *ref = NULL;
  vis_card cards[RND_MAX_CARDS];
  vis_result r;
  printf("seed %lu, %dx%d, %d cards, %d carpets\n", seed, w, h,
         flight.n_cards, flight.n_carpets);
  tp_status st = an_scenes_photo(b->sc, &layout, &limg, err);
  if (!st) st = an_scenes_photo(b->sc, &flight, &fimg, err);
  if (!st && !strcmp(mode, "analyze")) {
    st = measured_analyze(b, &fimg, &r, err);
    if (!st) report(&flight, &r, "vis_analyze");
    if (!st) vis_result_free(&r);
    goto done;
  }
  if (!st) st = vis_reference_create(&ref, err);
  if (!st)
    st = vis_reference_add_cards(ref, b->an, &limg, &b->map, cards,
                                 vt_truth_cards(&layout, cards), err);
  if (!st) st = measured_set_table(b, ref, &limg, err);
  if (!st && !strcmp(mode, "incremental")) {
    st = incremental(b, ref, &flight, err);
  } else if (!st) {
    st = measured_reference(b, ref, &fimg, &r, err);
    if (!st) report(&flight, &r, "with reference");
    if (!st) vis_result_free(&r);
  }
done:
  vis_reference_destroy(ref);
  tp_image_free(&limg);
  tp_image_free(&fimg);
  return st;
}

int main(int argc, char **argv) {
  unsigned long seed = 500001;
  int w = 1280, h = 720;
  const char *mode = "reference";
  int threads = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc &&
             sscanf(argv[i + 1], "%dx%d", &w, &h) == 2 && w >= 16 && h >= 16)
      i++;
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc &&
             (!strcmp(argv[i + 1], "reference") ||
              !strcmp(argv[i + 1], "analyze") ||
              !strcmp(argv[i + 1], "incremental")))
      mode = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc &&
             (threads = atoi(argv[i + 1])) >= 1 && threads <= 16)
      i++;
    else {
      fprintf(stderr, "usage: vt_ref_bench [--seed N] [--size WxH] [--mode "
                      "reference|analyze|incremental] [--threads 1..16]\n");
      return 2;
    }
  }
  tp_error err;
  an_session *s = NULL;
  an_options ao = {.image = "scene", .threads = threads};
  bench b = {0};
  tp_status st = an_session_create(&ao, &s, &err);
  if (!st) st = an_scenes_create(&b.sc, &err);
  if (!st) b.an = an_session_analyzer(s);
  if (!st) st = run(&b, seed, w, h, mode, &err);
  if (st) fprintf(stderr, "vt_ref_bench: %s\n", err.text);
  an_scenes_destroy(b.sc);
  an_session_destroy(s);
  return st ? 1 : 0;
}
