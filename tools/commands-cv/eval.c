/* teppich eval: accuracy of `teppich analyze` on rendered scenes whose
 * truth is known, per difficulty, on seeds that were never used to tune. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "cli.h"
#include "cvw.h"

static const char usage[] =
    "usage: teppich eval [--count N] [--seed FIRST] [--difficulty easy|normal|hard|all]\n"
    "                    [--failures DIR] [--verbose] [--true-camera] [--deck DIR]\n"
    "                    [--threads N] [--rules FILE] [--truth-rules FILE]\n"
    "                    [--pose-errors FILE] [--size WxH]\n"
    "       teppich eval --scene SCENE.json [--deck DIR] [--true-camera] [--threads N]\n"
    "                    [--rules FILE]\n"
    "\n"
    "Renders N random scenes per difficulty (seeds FIRST, FIRST+1, ...; default\n"
    "100000, a range never used for tuning), runs the same code as `teppich\n"
    "analyze` on each (after a JPEG round trip at the scene's quality) and\n"
    "compares with the truth: scenes exactly right, card recall and precision,\n"
    "type accuracy, carpet recall, on-top decisions, position error in mm.\n"
    "--failures DIR writes each failed scene's annotated picture and scene\n"
    "JSON there (re-render with `teppich render SCENE.json`). --true-camera\n"
    "maps the table with the renderer's own camera instead of the markers:\n"
    "what the vision gets wrong with a perfect calibration. --scene checks one\n"
    "scene file (docs/render.md) and exits 1 unless everything is right;\n"
    "with --deck DIR it renders and analyses with that deck folder. With\n"
    "random scenes, --deck DIR analyses with that deck folder (the scenes are\n"
    "still drawn with the demo deck): how well an enrolled deck does on the\n"
    "same photos. `claims` counts scenes whose claims, contests and returned\n"
    "carpets (by card type) are the truth's; --verbose prints that per scene.\n"
    "A second line counts the wrong types, on-top decisions and phantoms the\n"
    "analysis marked uncertain, and the scenes whose claims are wrong with\n"
    "none of that marked: a wrong answer given as certain. A third counts the\n"
    "scenes where every card shows 5 % or more and the claims right among\n"
    "them: a card hidden all but a sliver cannot be told from a still photo\n"
    "(`teppich watch` knows it from the layout).\n"
    "--threads N: analysis workers (default: one per core, at most 4; the\n"
    "results are the same for any N). --rules FILE: the rules settings for\n"
    "the analysis and the truth alike (what \"lies on\" means:\n"
    "contact_depth_tenths_mm, edge_contact_counts); --truth-rules FILE reads\n"
    "the truth by other rules than the analysis (to measure against another\n"
    "reading, e.g. contact_depth_tenths_mm = 10: a corner under 1 mm touches).\n"
    "--pose-errors FILE writes every matched card's and carpet's signed pose\n"
    "error (along the scene's shadow, from the picture's centre, along its own\n"
    "axes; also through the renderer's camera) and the depths of the carpet/card\n"
    "pairs near contact, tab-separated, to find a bias (docs/analyze.md).\n"
    "--size WxH renders the random scenes at that camera resolution (with a\n"
    "66 degree field of view, as render --size and rendered games do), e.g.\n"
    "960x540: the watch's frames.\n";

typedef struct {
  int scenes, exact, errors, claims_right;
  /* claims wrong and none of the wrong decisions marked uncertain: the
   * players were given a wrong answer as certain */
  int claims_wrong_unmarked;
  an_score sum;
  double err_max;
  double ms;
  double map_err_sum, map_err_max; /* table mapping against the truth, mm */
  int map_n;
  int shown, shown_claims_right; /* scenes where every card shows (every_card_shows) */
} tally;

static void add(tally *t, const an_score *s, double ms) {
  t->scenes++;
  t->sum.wrong_types += s->wrong_types;
  t->sum.wrong_types_marked += s->wrong_types_marked;
  t->sum.wrong_stacks += s->wrong_stacks;
  t->sum.wrong_stacks_marked += s->wrong_stacks_marked;
  t->sum.phantoms += s->phantoms;
  t->sum.phantoms_marked += s->phantoms_marked;
  t->exact += s->exact;
  t->sum.truth_cards += s->truth_cards;
  t->sum.found_cards += s->found_cards;
  t->sum.matched_cards += s->matched_cards;
  t->sum.right_types += s->right_types;
  t->sum.truth_carpets += s->truth_carpets;
  t->sum.matched_carpets += s->matched_carpets;
  t->sum.stack_decisions += s->stack_decisions;
  t->sum.stack_right += s->stack_right;
  t->sum.pos_err_sum += s->pos_err_sum;
  t->sum.pos_n += s->pos_n;
  t->sum.uncertain += s->uncertain;
  t->err_max = fmax(t->err_max, s->pos_err_max);
  t->ms += ms;
}

static double pct(int a, int b) { return b ? 100.0 * a / b : 100.0; }

/* ---- the game's outcome by card type (ids differ between truth and us) */

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends the strings sorted, joined by sep. */
static void add_sorted(char *out, size_t cap, const char **items, int n, const char *sep) {
  qsort(items, (size_t)n, sizeof *items, by_name);
  for (int i = 0; i < n; i++) {
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s%s", i ? sep : "", items[i]);
  }
}

/* "claims blue:desert red:palace,treasure; contests camel-bazaar:blue+red;
 * returned green": comparable between the truth and an analysis. */
static void outcome(const ft_resolution *r, const char *const *types, int n_types, char *out,
                    size_t cap) {
  char parts[FT_MAX_CARDS + FT_MAX_PLAYERS][256];
  const char *items[FT_MAX_CARDS + FT_MAX_PLAYERS], *names[FT_MAX_CARDS];
  snprintf(out, cap, "claims ");
  for (int c = 0; c < r->n_claims; c++) {
    int n = 0;
    for (int k = 0; k < r->claims[c].n_cards; k++) {
      int id = r->claims[c].cards[k];
      names[n++] = id >= 0 && id < n_types ? types[id] : "?";
    }
    snprintf(parts[c], sizeof parts[c], "%s:", r->claims[c].player);
    add_sorted(parts[c], sizeof parts[c], names, n, ",");
    items[c] = parts[c];
  }
  add_sorted(out, cap, items, r->n_claims, " ");
  size_t len = strlen(out);
  snprintf(out + len, cap - len, "; contests ");
  for (int c = 0; c < r->n_contests; c++) {
    int id = r->contests[c].card, n = 0;
    for (int k = 0; k < r->contests[c].n_players; k++) names[n++] = r->contests[c].players[k];
    snprintf(parts[c], sizeof parts[c], "%s:", id >= 0 && id < n_types ? types[id] : "?");
    add_sorted(parts[c], sizeof parts[c], names, n, "+");
    items[c] = parts[c];
  }
  add_sorted(out, cap, items, r->n_contests, " ");
  len = strlen(out);
  snprintf(out + len, cap - len, "; returned ");
  for (int c = 0; c < r->n_returned; c++) items[c] = r->returned[c];
  add_sorted(out, cap, items, r->n_returned, ",");
}

/* Whether the analysis gives the truth's claims, contests and returned. */
static bool claims_right(const rnd_scene *scene, const an_report *rep, const ft_rules *rules,
                         char *ours, char *truth, size_t cap) {
  rnd_truth *t = malloc(sizeof *t);
  if (!t) return false;
  rnd_truth_compute_contact(scene, ft_rules_contact_mm(rules), t);
  ft_carpet_on on[RND_MAX_CARPETS];
  for (int k = 0; k < scene->n_carpets; k++)
    on[k] = (ft_carpet_on){scene->carpets[k].colour, scene->carpets[k].colour,
                           t->carpets[k].on_cards, t->carpets[k].n_on};
  ft_resolution truth_res;
  tp_error err;
  bool ok = ft_resolve(rules, on, scene->n_carpets, scene->n_cards, &truth_res, &err) == TP_OK;
  free(t);
  int n = scene->n_cards > rep->vis.n_cards ? scene->n_cards : rep->vis.n_cards;
  const char **types = malloc(sizeof *types * (size_t)(n + 1));
  if (!types) return false;
  for (int i = 0; i < scene->n_cards; i++) types[i] = scene->cards[i].type;
  if (ok) outcome(&truth_res, types, scene->n_cards, truth, cap);
  for (int i = 0; i < rep->vis.n_cards; i++)
    types[i] = rep->vis.cards[i].type >= 0 ? vis_type_name(rep->vis.cards[i].type) : "?";
  outcome(&rep->rules, types, rep->vis.n_cards, ours, cap);
  free(types);
  return ok && !strcmp(ours, truth);
}

/* A card a carpet hides all but SHOWN_MIN of cannot be told from a still
 * photo: a few millimetres of its border at most, too few samples for
 * any type (the matcher's smallest object is 3 % of a card). In a game
 * `teppich watch` knows it from the layout; `analyze` cannot. So eval
 * also counts the scenes where every card shows SHOWN_MIN or more, and
 * the claims right among them: what a still photo can be asked. */
#define SHOWN_MIN 0.05
static bool every_card_shows(const rnd_scene *scene) {
  rnd_truth *t = malloc(sizeof *t);
  if (!t) return false;
  rnd_truth_compute(scene, t);
  bool all = true;
  for (int i = 0; i < scene->n_cards; i++) all = all && t->cards[i].visible_fraction >= SHOWN_MIN;
  free(t);
  return all;
}

static void print_tally(const char *name, const tally *t) {
  const an_score *s = &t->sum;
  printf("%-7s %3d scenes  claims %5.1f%%  exact %5.1f%%  cards recall %5.1f%% precision %5.1f%%  "
         "types %5.1f%%  carpets %5.1f%%  on-top %5.1f%% (%d)  pos err mean %.2f max %.2f mm  "
         "uncertain %d  errors %d  %.0f ms/scene\n",
         name, t->scenes, pct(t->claims_right, t->scenes), pct(t->exact, t->scenes),
         pct(s->matched_cards, s->truth_cards),
         pct(s->matched_cards, s->found_cards), pct(s->right_types, s->matched_cards),
         pct(s->matched_carpets, s->truth_carpets), pct(s->stack_right, s->stack_decisions),
         s->stack_decisions, s->pos_n ? s->pos_err_sum / s->pos_n : 0, t->err_max,
         s->uncertain, t->errors, t->scenes ? t->ms / t->scenes : 0);
  printf("        wrong and marked uncertain: types %d of %d, on-top %d of %d, phantoms %d "
         "of %d; claims wrong with no mark %d of %d scenes\n",
         s->wrong_types_marked, s->wrong_types, s->wrong_stacks_marked, s->wrong_stacks,
         s->phantoms_marked, s->phantoms, t->claims_wrong_unmarked,
         t->scenes - t->claims_right);
  printf("        where every card shows %.0f %% or more: claims right in %d of %d scenes "
         "(%.1f%%)\n",
         100 * SHOWN_MIN, t->shown_claims_right, t->shown, pct(t->shown_claims_right, t->shown));
  if (t->map_n)
    printf("        table mapping error (markers vs true camera) mean %.2f max %.2f mm\n",
           t->map_err_sum / t->map_n, t->map_err_max);
}

/* How far the table mapping used by the analysis (the photo's own markers)
 * puts table points from where the renderer's camera puts them: a point's
 * image position by the analysis, taken back to the table by the true
 * camera. Over the card field on a 20 mm grid. */
static void mapping_error(const rnd_scene *scene, const an_report *rep, tally *t) {
  if (!rep->has_map || !rep->map.table_to_image || scene->n_markers < 1) return;
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  for (int i = 0; i < scene->n_markers; i++) {
    x0 = fmin(x0, scene->markers[i].center_mm[0]), x1 = fmax(x1, scene->markers[i].center_mm[0]);
    y0 = fmin(y0, scene->markers[i].center_mm[1]), y1 = fmax(y1, scene->markers[i].center_mm[1]);
  }
  for (double y = y0; y <= y1; y += 20)
    for (double x = x0; x <= x1; x += 20) {
      double mm[2] = {x, y}, px[2], back[2];
      if (!rep->map.table_to_image(rep->map.user, mm, px)) continue;
      if (!rnd_camera_unproject(&scene->camera, px[0], px[1], &back[0], &back[1])) continue;
      double e = hypot(back[0] - x, back[1] - y);
      t->map_err_sum += e;
      t->map_err_max = fmax(t->map_err_max, e);
      t->map_n++;
    }
}

static void save_failure(const char *dir, const char *level, unsigned long seed,
                         const rnd_scene *scene, an_session *s, const an_report *rep) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-%lu.png", dir, level, seed);
  tp_error err;
  if (an_annotate(s, rep, path, &err))
    fprintf(stderr, "eval: could not write '%s': %s\n", path, err.text);
  snprintf(path, sizeof path, "%s/%s-%lu.json", dir, level, seed);
  char *json = rnd_scene_to_json(scene);
  if (!json)
    fprintf(stderr, "eval: could not write '%s' (out of memory)\n", path);
  else if (tp_write_file_atomic(path, json, strlen(json), &err))
    fprintf(stderr, "eval: could not write '%s': %s\n", path, err.text);
  free(json);
}

/* What a run of random scenes does besides scoring them. */
typedef struct {
  const char *failures; /* folder for failed scenes, or NULL */
  bool verbose, true_camera;
  const ft_rules *truth_rules; /* what "lies on" means for the truth */
  FILE *pose_errors;           /* --pose-errors, or NULL */
  long width, height;          /* --size, or 0: the scene's own camera */
} run_options;

static int run_level(an_session *s, an_scenes *sc, rnd_difficulty level, const char *name,
                     unsigned long first, int count, const run_options *ro) {
  const char *failures = ro->failures;
  bool verbose = ro->verbose, true_camera = ro->true_camera;
  const ft_rules *truth_rules = ro->truth_rules;
  tally t = {0};
  for (int i = 0; i < count; i++) {
    unsigned long seed = first + (unsigned long)i;
    rnd_scene scene;
    rnd_scene_random(seed, level, NULL, &scene);
    if (ro->width > 0) {
      scene.camera.width = (int)ro->width, scene.camera.height = (int)ro->height;
      rnd_camera_set_hfov(&scene.camera, 66);
    }
    tp_image img = {0};
    tp_error err;
    an_report rep;
    memset(&rep, 0, sizeof rep);
    tp_status st = an_scenes_photo(sc, &scene, &img, &err);
    vis_table_map truth_map = an_scenes_true_map(&scene, NULL); /* --true-camera */
    if (!st) st = an_run_image(s, &img, true_camera ? &truth_map : NULL, &rep, &err);
    tp_image_free(&img);
    an_score score;
    if (st) {
      memset(&score, 0, sizeof score);
      score.truth_cards = scene.n_cards;
      score.truth_carpets = scene.n_carpets;
      snprintf(score.first_error, sizeof score.first_error, "%.150s", err.text);
      t.errors++;
    } else {
      an_score_scene_contact(&scene, &rep, ft_rules_contact_mm(truth_rules), &score);
      if (!true_camera) mapping_error(&scene, &rep, &t);
      if (ro->pose_errors)
        an_pose_errors_write(ro->pose_errors, name, seed, &scene, &rep,
                             ft_rules_contact_mm(truth_rules));
    }
    char ours[2048] = "", truth[2048] = "";
    bool claims = !st && claims_right(&scene, &rep, truth_rules, ours, truth, sizeof ours);
    t.claims_right += claims;
    if (every_card_shows(&scene)) t.shown++, t.shown_claims_right += claims;
    if (verbose && claims) printf("  %s seed %lu: claims right\n", name, seed);
    if (verbose && !claims)
      printf("  %s seed %lu: claims wrong: %s | truth: %s\n", name, seed, ours, truth);
    add(&t, &score, rep.vis.profile.total_ms);
    /* an analysis that failed said so: that is a mark */
    t.claims_wrong_unmarked += !st && !claims && !(score.wrong_types_marked +
                                                   score.wrong_stacks_marked +
                                                   score.phantoms_marked);
    if (!score.exact && verbose)
      printf("  %s seed %lu: %s\n", name, seed, score.errors[0] ? score.errors : score.first_error);
    if (!score.exact && failures && !st) save_failure(failures, name, seed, &scene, s, &rep);
    an_report_free(&rep);
  }
  print_tally(name, &t);
  fflush(stdout);
  return 0;
}

/* --scene FILE: one scene JSON (tests, regressions); exit 1 unless exact.
 * deck_dir: render and analyse with this deck folder (NULL: the demo deck);
 * its deck.json gives the sizes the scene does not set. */
static int run_scene_file(const char *path, const char *deck_dir, bool true_camera,
                          int threads, const ft_rules *rules) {
  char *text = NULL;
  size_t len = 0;
  tp_error err;
  rnd_scene scene;
  an_scenes *sc = NULL;
  tp_status st = tp_read_file(path, 1 << 20, &text, &len, &err);
  if (!st) st = an_scenes_create_deck(deck_dir, &sc, &err);
  double card[2], carpet[2];
  if (!st) an_scenes_sizes(sc, card, carpet);
  if (!st) st = rnd_scene_parse(text, len, path, card, carpet, &scene, &err);
  free(text);
  if (st) {
    an_scenes_destroy(sc);
    return cli_fail(2, "eval: %s", err.text);
  }
  an_options o = {0};
  o.deck_dir = deck_dir;
  o.threads = threads;
  o.rules = rules;
  an_session *s = NULL;
  tp_image img = {0};
  an_report rep;
  memset(&rep, 0, sizeof rep);
  st = an_session_create(&o, &s, &err);
  if (!st) st = an_scenes_photo(sc, &scene, &img, &err);
  vis_table_map truth_map = an_scenes_true_map(&scene, NULL);
  if (!st) st = an_run_image(s, &img, true_camera ? &truth_map : NULL, &rep, &err);
  an_score score;
  if (!st) an_score_scene_contact(&scene, &rep, ft_rules_contact_mm(rules), &score);
  tp_image_free(&img);
  an_report_free(&rep);
  an_scenes_destroy(sc);
  an_session_destroy(s);
  if (st) return cli_fail(1, "eval: %s: %s", path, err.text);
  if (!score.exact) return cli_fail(1, "eval: %s: %s", path, score.first_error);
  printf("%s: exactly right (%d cards, %d carpets)\n", path, score.matched_cards,
         score.matched_carpets);
  return 0;
}

/* The command line of eval. */
typedef struct {
  long count, first, threads, width, height;
  const char *level, *failures, *scene_file, *deck_dir, *rules_file, *truth_file, *pose_file;
  bool verbose, true_camera;
} eval_args;

/* An option that takes a value: stores it in *a; 0, or the exit status
 * after a one-line error. */
static int parse_value(const char *opt, const char *val, eval_args *a) {
  if (!strcmp(opt, "--count")) {
    if (!cli_parse_long(val, 1, 100000, &a->count))
      return cli_fail(2, "eval: --count wants 1..100000, not '%s'", val);
  } else if (!strcmp(opt, "--seed")) {
    if (!cli_parse_long(val, 0, 1L << 40, &a->first))
      return cli_fail(2, "eval: --seed wants a number, not '%s'", val);
  } else if (!strcmp(opt, "--size")) {
    if (!cli_parse_size(val, &a->width, &a->height))
      return cli_fail(2, "eval: --size wants WIDTHxHEIGHT (16..8192 each), not '%s'", val);
  } else if (!strcmp(opt, "--threads")) {
    if (!cli_parse_long(val, 1, 16, &a->threads))
      return cli_fail(2, "eval: --threads wants 1..16, not '%s'", val);
  } else {
    static const char *const names[] = {"--difficulty", "--failures", "--scene", "--deck",
                                        "--rules", "--truth-rules", "--pose-errors"};
    const char **dst[] = {&a->level, &a->failures, &a->scene_file, &a->deck_dir,
                          &a->rules_file, &a->truth_file, &a->pose_file};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
      if (!strcmp(opt, names[k])) {
        *dst[k] = val;
        return 0;
      }
    return -1;
  }
  return 0;
}

/* 0, or the exit status after a one-line error. */
static int parse_args(int argc, char **argv, eval_args *a) {
  *a = (eval_args){.count = 20, .first = 100000, .level = "all"};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--verbose")) {
      a->verbose = true;
      continue;
    }
    if (!strcmp(argv[i], "--true-camera")) {
      a->true_camera = true;
      continue;
    }
    int rc = i + 1 < argc ? parse_value(argv[i], argv[i + 1], a) : -1;
    if (rc < 0)
      return cli_fail(2, "eval: unknown or incomplete option '%s' (see teppich eval --help)",
                      argv[i]);
    if (rc) return rc;
    i++;
  }
  return 0;
}

/* The --failures folder exists (made now if need be) and is a folder: a
 * run of hundreds of scenes must not end with its failures silently
 * unwritten. False with errno set otherwise. */
static bool failures_folder(const char *dir) {
  struct stat sb;
  if (mkdir(dir, 0777) && errno != EEXIST) return false;
  if (stat(dir, &sb)) return false;
  if (!S_ISDIR(sb.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

/* Random scenes of the wanted levels (a->level). */
static int run_random(const eval_args *a, const ft_rules *rules, const ft_rules *truth_rules) {
  static const char *names[3] = {"easy", "normal", "hard"};
  bool want[3] = {false, false, false};
  for (int k = 0; k < 3; k++) want[k] = !strcmp(a->level, "all") || !strcmp(a->level, names[k]);
  if (!want[0] && !want[1] && !want[2])
    return cli_fail(2, "eval: --difficulty must be easy, normal, hard or all, not '%s'", a->level);
  if (a->failures && !failures_folder(a->failures))
    return cli_fail(2, "eval: cannot use --failures folder '%s': %s (give one that can be made)",
                    a->failures, strerror(errno));
  FILE *pose_errors = a->pose_file ? fopen(a->pose_file, "w") : NULL;
  if (a->pose_file && !pose_errors)
    return cli_fail(2, "eval: cannot write --pose-errors file '%s' (check the folder)",
                    a->pose_file);
  if (pose_errors) an_pose_errors_header(pose_errors);
  an_options o = {.deck_dir = a->deck_dir, .threads = (int)a->threads, .rules = rules};
  an_session *s = NULL;
  an_scenes *sc = NULL;
  tp_error err;
  tp_status st = an_session_create(&o, &s, &err);
  if (!st) st = an_scenes_create(&sc, &err);
  if (st) {
    an_session_destroy(s);
    if (pose_errors) fclose(pose_errors);
    return cli_fail(a->deck_dir ? tp_status_exit_code(st) : 1, "eval: %s", err.text);
  }
  /* seeds from 100000 on are never used for tuning (docs/analyze.md) */
  printf("seeds %ld..%ld per difficulty%s\n", a->first, a->first + a->count - 1,
         a->first >= 100000 ? " (held out)" : " (tuning range: seeds from 100000 on are held out)");
  run_options ro = {a->failures, a->verbose, a->true_camera, truth_rules, pose_errors,
                    a->width, a->height};
  for (int k = 0; k < 3; k++)
    if (want[k])
      run_level(s, sc, (rnd_difficulty)k, names[k], (unsigned long)a->first, (int)a->count, &ro);
  if (pose_errors && fclose(pose_errors))
    fprintf(stderr, "eval: could not finish writing '%s' (disk full?)\n", a->pose_file);
  an_scenes_destroy(sc);
  an_session_destroy(s);
  return 0;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  eval_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  ft_rules rules, truth_rules;
  tp_error err;
  if (ft_rules_load(a.rules_file, &rules, &err) != TP_OK ||
      ft_rules_load(a.truth_file ? a.truth_file : a.rules_file, &truth_rules, &err) != TP_OK)
    return cli_fail(2, "eval: %s", err.text);
  if (!a.scene_file) return run_random(&a, &rules, &truth_rules);
  if (a.truth_file) return cli_fail(2, "eval: --truth-rules is for random scenes, not --scene");
  if (a.pose_file || a.width)
    return cli_fail(2, "eval: --pose-errors and --size are for random scenes, not --scene");
  return run_scene_file(a.scene_file, a.deck_dir, a.true_camera, (int)a.threads, &rules);
}

const cli_command cli_command_eval = {
    "eval", "measure analyze's accuracy on rendered scenes with known truth", run};
