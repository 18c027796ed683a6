/* teppich bench: how long `teppich analyze` takes per stage, on rendered
 * 1920x1080 and 1280x720 scenes with 12 cards and 4 carpets, against
 * OpenCV's own marker detection on the same frames (the baseline). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "cli.h"
#include "cvw.h"

static const char usage[] =
    "usage: teppich bench [--frames N] [--seed FIRST] [--threads N]\n"
    "\n"
    "Renders N scenes (default 3) with 12 cards and 4 carpets at 1920x1080 and\n"
    "at 1280x720, JPEG-encodes them, and times `teppich analyze`'s stages on\n"
    "each (decode, markers, table mapping, detection, identification, stacking,\n"
    "rules) plus, on the same frames, OpenCV's own ArUco marker detection with\n"
    "its default parameters: the baseline. Prints milliseconds per frame and\n"
    "the ratio total / baseline. --threads N: analysis workers (default 1:\n"
    "single-threaded, the figure to compare between machines; OpenCV's\n"
    "baseline uses its own threads either way). Numbers are measured, never\n"
    "checked.\n";

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A normal-difficulty scene with 12 cards and 4 carpets, at w x h. */
static void bench_scene(unsigned long *seed, int w, int h, rnd_scene *scene) {
  for (;; (*seed)++) {
    rnd_scene_random(*seed, RND_NORMAL, NULL, scene);
    if (scene->n_cards == 12 && scene->n_carpets == 4) break;
  }
  (*seed)++;
  double k = (double)w / scene->camera.width;
  scene->camera.fx *= k;
  scene->camera.fy *= k;
  scene->camera.cx = (scene->camera.cx + 0.5) * k - 0.5;
  scene->camera.cy = (scene->camera.cy + 0.5) * k - 0.5;
  scene->camera.width = w;
  scene->camera.height = h;
}

typedef struct {
  double decode, markers, mapping, detect, identify, stacking, rules, total, baseline;
  int frames, found_cards, found_carpets;
} sums;

static tp_status one_frame(an_session *s, an_scenes *sc, cvw_detector *base,
                           const rnd_scene *scene, sums *sum, tp_error *err) {
  tp_image img = {0}, dec = {0};
  uint8_t *jpg = NULL;
  size_t len = 0;
  tp_status st = an_scenes_render(sc, scene, &img, err);
  if (!st) st = cvw_image_encode(&img, ".jpg", 90, &jpg, &len, err);
  tp_image_free(&img);
  double t0 = now_ms();
  if (!st) st = cvw_image_decode(jpg, len, 3, "frame", &dec, err);
  double decode = now_ms() - t0;
  free(jpg);
  if (st) return st;
  an_report rep;
  st = an_run_image(s, &dec, NULL, &rep, err);
  if (!st) {
    const vis_profile *p = &rep.vis.profile;
    sum->decode += decode;
    sum->markers += p->markers_ms;
    sum->mapping += p->mapping_ms;
    sum->detect += p->detect_ms;
    sum->identify += p->identify_ms;
    sum->stacking += p->stacking_ms;
    sum->rules += p->rules_ms;
    sum->total += p->total_ms + decode;
    sum->found_cards += rep.vis.n_cards;
    sum->found_carpets += rep.vis.n_carpets;
  }
  an_report_free(&rep);
  cvw_marker mk[64];
  size_t found = 0;
  t0 = now_ms();
  if (!st) st = cvw_detect_markers(base, &dec, mk, 64, &found, err);
  sum->baseline += now_ms() - t0 + decode; /* the baseline decodes too */
  sum->frames += !st;
  tp_image_free(&dec);
  return st;
}

static void print_sums(int w, int h, const sums *s) {
  double n = s->frames ? s->frames : 1;
  printf("%dx%d, %d frames, ms per frame:\n", w, h, s->frames);
  printf("  decode %.1f  markers %.1f  mapping %.1f  detection %.1f  identification %.1f  "
         "stacking %.1f  rules %.2f\n",
         s->decode / n, s->markers / n, s->mapping / n, s->detect / n, s->identify / n,
         s->stacking / n, s->rules / n);
  printf("  total %.1f   baseline (decode + OpenCV ArUco defaults) %.1f   ratio %.2f\n",
         s->total / n, s->baseline / n, s->baseline > 0 ? s->total / s->baseline : 0);
  printf("  found %.1f cards and %.1f carpets per frame (12 and 4 on the table)\n",
         s->found_cards / n, s->found_carpets / n);
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  long frames = 3, first = 500000, threads = 1;
  for (int i = 1; i < argc; i++) {
    bool v = i + 1 < argc;
    if (!strcmp(argv[i], "--frames") && v) {
      if (!cli_parse_long(argv[++i], 1, 1000, &frames))
        return cli_fail(2, "bench: --frames wants 1..1000, not '%s'", argv[i]);
    } else if (!strcmp(argv[i], "--seed") && v) {
      if (!cli_parse_long(argv[++i], 0, 1L << 40, &first))
        return cli_fail(2, "bench: --seed wants a number, not '%s'", argv[i]);
    } else if (!strcmp(argv[i], "--threads") && v) {
      if (!cli_parse_long(argv[++i], 1, 16, &threads))
        return cli_fail(2, "bench: --threads wants 1..16, not '%s'", argv[i]);
    } else {
      return cli_fail(2, "bench: unknown or incomplete option '%s' (see teppich bench --help)",
                      argv[i]);
    }
  }
  tp_error err;
  an_options o = {.threads = (int)threads};
  an_session *s = NULL;
  an_scenes *sc = NULL;
  cvw_dict *dict = NULL;
  cvw_detector *base = NULL;
  cvw_detector_params params;
  cvw_detector_params_opencv(&params);
  tp_status st = an_session_create(&o, &s, &err);
  if (!st) st = an_scenes_create(&sc, &err);
  if (!st) st = cvw_dict_create("4X4_50", &dict, &err);
  if (!st) st = cvw_detector_create(dict, &params, &base, &err);
  static const int sizes[2][2] = {{1920, 1080}, {1280, 720}};
  for (int k = 0; !st && k < 2; k++) {
    sums sum = {0};
    unsigned long seed = (unsigned long)first;
    for (int f = 0; !st && f < frames; f++) {
      rnd_scene scene;
      bench_scene(&seed, sizes[k][0], sizes[k][1], &scene);
      st = one_frame(s, sc, base, &scene, &sum, &err);
    }
    if (!st) print_sums(sizes[k][0], sizes[k][1], &sum);
  }
  cvw_detector_destroy(base);
  cvw_dict_destroy(dict);
  an_scenes_destroy(sc);
  an_session_destroy(s);
  return st ? cli_fail(1, "bench: %s", err.text) : 0;
}

const cli_command cli_command_bench = {
    "bench", "time analyze's stages against OpenCV's bare marker detection", run};
