/* teppich render: photo-like table scenes with their ground truth, the
 * demo deck as a folder, rendered games, and the renderer benchmark.
 * The renderer itself is tools/render (render.h); this file wires it to
 * vision/cvw for marker bits and image files. See docs/render.md. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "cvw.h"
#include "render.h"

static const char usage[] =
    "usage: teppich render SCENE.json --out OUT.jpg|OUT.png [options]\n"
    "       teppich render --random SEED [--difficulty easy|normal|hard] --out OUT.jpg [options]\n"
    "       teppich render --game SEED --players N OUT/ [--size WxH] [--truth-only]\n"
    "                      [--rules FILE] [--frames N,N,...]\n"
    "       teppich render deck --out DIR\n"
    "       teppich render --bench N\n"
    "\n"
    "Renders a photo-like picture of cards and carpets on a table, as the\n"
    "camera would see it, and writes OUT.truth.json beside it: every card and\n"
    "carpet in table mm (spec section 1), what lies on what, the expected\n"
    "claims, contests and returned carpets, the stacking order and the camera.\n"
    "\n"
    "options:\n"
    "  --out FILE          the picture (.jpg or .png); truth goes to FILE's\n"
    "                      name with .truth.json instead of the extension\n"
    "  --deck DIR          render with this deck folder (spec section 2);\n"
    "                      default: the built-in demo deck\n"
    "  --random SEED       a random scene that follows the layout rules\n"
    "  --difficulty LEVEL  easy, normal (default) or hard: camera tilt, lens,\n"
    "                      noise, blur, glare, shadows, table cloth, occlusion\n"
    "  --scene-out FILE    also save the scene as JSON (to edit and re-render)\n"
    "  --size WxH          override the camera resolution\n"
    "  --game SEED         film a whole game into the folder OUT/: numbered\n"
    "                      JPEG frames at 10 fps, transcript.txt (teppich score),\n"
    "                      answers.txt (watch --answers) and frames.txt\n"
    "  --players N         players of the game, 2..4 (default 3)\n"
    "  --truth-only        with --game: play the game and write transcript.txt,\n"
    "                      answers.txt and frames.txt, but no frames (seconds\n"
    "                      instead of minutes: what a change of the truth does)\n"
    "  --rules FILE        with --game: the rules settings (docs/rules.md) the\n"
    "                      game is played and its truth read by, e.g.\n"
    "                      contact_depth_tenths_mm = 10\n"
    "  --frames N,N,...    with --game: render only these frames (numbers as\n"
    "                      in frames.txt; the same pixels as in the whole\n"
    "                      film): a few frames of a game for a test\n"
    "  deck --out DIR      write the built-in demo deck as a deck folder\n"
    "  --bench N           render N random scenes at 1920x1080 and 1280x720\n"
    "                      and print milliseconds per scene\n"
    "\n"
    "The scene format is in docs/render.md. Exit 0 ok, 2 bad usage or a bad\n"
    "scene/deck file (the message names it), 1 the render failed.\n";

/* ---------------- cvw glue ------------------------------------------ */

typedef struct {
  cvw_dict *dict;
  char name[RND_NAME_LEN];
} marker_source;

static tp_status marker_bits(void *user, const char *dictionary, int id, uint8_t *bits,
                             int *cells, tp_error *err) {
  marker_source *ms = user;
  if (!ms->dict || strcmp(ms->name, dictionary)) {
    cvw_dict_destroy(ms->dict);
    ms->dict = NULL;
    tp_status st = cvw_dict_create(dictionary, &ms->dict, err);
    if (st != TP_OK) return st;
    snprintf(ms->name, sizeof ms->name, "%s", dictionary);
  }
  if (id < 0 || id >= cvw_dict_marker_count(ms->dict))
    return tp_error_set(err, TP_ERR_INVALID, "marker id %d is not in dictionary %s (0..%d)", id,
                        dictionary, cvw_dict_marker_count(ms->dict) - 1);
  int n = cvw_dict_marker_bits(ms->dict) + 2;
  if (n > 16) return tp_error_set(err, TP_ERR_UNSUPPORTED, "dictionary %s: markers too fine", dictionary);
  tp_image img;
  if (tp_image_alloc(&img, n, n, 1) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "marker: out of memory");
  tp_status st = cvw_marker_draw(ms->dict, id, &img, err);
  for (int y = 0; st == TP_OK && y < n; y++)
    for (int x = 0; x < n; x++) bits[y * n + x] = tp_image_row(&img, y)[x] > 127;
  tp_image_free(&img);
  *cells = n;
  return st;
}

static tp_status read_image(void *user, const char *path, tp_image *out, tp_error *err) {
  (void)user;
  return cvw_image_read(path, 3, out, err);
}

static tp_status write_image(void *user, const char *path, const tp_image *img, int quality,
                             tp_error *err) {
  (void)user;
  return cvw_image_write(path, img, quality, err);
}

/* ---------------- options ------------------------------------------- */

typedef struct {
  const char *scene_path, *out, *deck_dir, *scene_out, *rules;
  bool random, deck_cmd, game, truth_only;
  long seed, bench, players;
  rnd_difficulty difficulty;
  long width, height;
  int frames[64]; /* --frames */
  int n_frames;
} options;

/* "116,207" into o->frames. */
static bool parse_frames(const char *text, options *o) {
  char buf[1024];
  if (strlen(text) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", text);
  o->n_frames = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long n;
    if (o->n_frames == 64 || !cli_parse_long(tok, 1, 1000000, &n)) return false;
    o->frames[o->n_frames++] = (int)n;
  }
  return o->n_frames > 0;
}

static int parse_options(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->difficulty = RND_NORMAL;
  o->bench = -1;
  o->players = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "--out") && has) o->out = argv[++i];
    else if (!strcmp(a, "--deck") && has) o->deck_dir = argv[++i];
    else if (!strcmp(a, "--scene-out") && has) o->scene_out = argv[++i];
    else if (!strcmp(a, "--truth-only")) o->truth_only = true;
    else if (!strcmp(a, "--rules") && has) o->rules = argv[++i];
    else if (!strcmp(a, "--frames") && has) {
      if (!parse_frames(argv[++i], o))
        return cli_fail(2, "--frames: '%s' is not a list of frame numbers (1,2,...; at most 64)",
                        argv[i]);
    }
    else if (!strcmp(a, "--random") && has) {
      o->random = true;
      if (!cli_parse_long(argv[++i], 0, 9007199254740991L, &o->seed))
        return cli_fail(2, "--random: '%s' is not a seed (a whole number >= 0)", argv[i]);
    } else if (!strcmp(a, "--game") && has) {
      o->game = true;
      if (!cli_parse_long(argv[++i], 0, 9007199254740991L, &o->seed))
        return cli_fail(2, "--game: '%s' is not a seed (a whole number >= 0)", argv[i]);
    } else if (!strcmp(a, "--players") && has) {
      if (!cli_parse_long(argv[++i], 2, 4, &o->players))
        return cli_fail(2, "--players: '%s' is not 2, 3 or 4", argv[i]);
    } else if (!strcmp(a, "--difficulty") && has) {
      const char *d = argv[++i];
      if (!strcmp(d, "easy")) o->difficulty = RND_EASY;
      else if (!strcmp(d, "normal")) o->difficulty = RND_NORMAL;
      else if (!strcmp(d, "hard")) o->difficulty = RND_HARD;
      else return cli_fail(2, "--difficulty: '%s' is not easy, normal or hard", d);
    } else if (!strcmp(a, "--size") && has) {
      if (!cli_parse_size(argv[++i], &o->width, &o->height))
        return cli_fail(2, "--size: '%s' is not WIDTHxHEIGHT (16..8192)", argv[i]);
    } else if (!strcmp(a, "--bench") && has) {
      if (!cli_parse_long(argv[++i], 1, 100000, &o->bench))
        return cli_fail(2, "--bench: '%s' is not a count 1..100000", argv[i]);
    } else if (!strcmp(a, "deck") && !o->scene_path && !o->deck_cmd) o->deck_cmd = true;
    else if (a[0] == '-' && a[1] != '\0')
      return cli_fail(2, "render: unknown or incomplete option '%s' (see teppich render --help)", a);
    else if (!o->scene_path && !o->deck_cmd) o->scene_path = a;
    else return cli_fail(2, "render: unexpected argument '%s' (see teppich render --help)", a);
  }
  if (o->bench > 0) return 0;
  if (o->truth_only && !o->game) return cli_fail(2, "render: --truth-only needs --game SEED");
  if (o->rules && !o->game) return cli_fail(2, "render: --rules needs --game SEED");
  if (o->n_frames && !o->game) return cli_fail(2, "render: --frames needs --game SEED");
  if (o->game) {
    if (!o->scene_path) return cli_fail(2, "render --game: give the output folder OUT/");
    if (o->random) return cli_fail(2, "render: --game and --random do not mix");
    return 0;
  }
  if (o->deck_cmd) return o->out ? 0 : cli_fail(2, "render deck: --out DIR is required");
  if (o->random && o->scene_path)
    return cli_fail(2, "render: give a SCENE.json or --random SEED, not both");
  if (!o->random && !o->scene_path)
    return cli_fail(2, "render: give a SCENE.json or --random SEED (see teppich render --help)");
  if (!o->out) return cli_fail(2, "render: --out OUT.jpg|OUT.png is required");
  const char *dot = strrchr(o->out, '.');
  if (!dot || (strcasecmp(dot, ".jpg") && strcasecmp(dot, ".jpeg") && strcasecmp(dot, ".png")))
    return cli_fail(2, "render: --out '%s' must end in .jpg, .jpeg or .png", o->out);
  return 0;
}

/* ---------------- jobs ---------------------------------------------- */

static int load_deck(const options *o, rnd_deck **deck) {
  tp_error err;
  tp_status st = o->deck_dir ? rnd_deck_load_dir(o->deck_dir, read_image, NULL, deck, &err)
                             : rnd_deck_create_demo(deck, &err);
  if (st != TP_OK) return cli_fail(o->deck_dir ? 2 : 1, "%s", err.text);
  return 0;
}

/* Frees what the render jobs draw with (any of it may be NULL). */
static void free_job(rnd_renderer *r, marker_source *ms, rnd_deck *deck) {
  rnd_renderer_destroy(r);
  cvw_dict_destroy(ms->dict);
  rnd_deck_destroy(deck);
}

static char *truth_path(const char *out) {
  size_t n = strlen(out);
  const char *dot = strrchr(out, '.');
  const char *slash = strrchr(out, '/');
  if (dot && (!slash || dot > slash)) n = (size_t)(dot - out);
  char *p = malloc(n + 16);
  if (p) snprintf(p, n + 16, "%.*s.truth.json", (int)n, out);
  return p;
}

static int write_text(const char *path, const char *text) {
  tp_error err;
  if (tp_write_file_atomic(path, text, strlen(text), &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  return 0;
}

static int get_scene(const options *o, rnd_deck **deckp, rnd_scene *scene) {
  rnd_deck *deck = *deckp;
  if (o->random) {
    if (!deck) {
      int rc = load_deck(o, deckp);
      if (rc) return rc;
      deck = *deckp;
    }
    rnd_scene_random((uint64_t)o->seed, o->difficulty, deck, scene);
  } else {
    char *text;
    size_t len;
    tp_error err;
    if (tp_read_file(o->scene_path, 4 << 20, &text, &len, &err) != TP_OK)
      return cli_fail(2, "%s", err.text);
    double card[2] = {59, 91}, carpet[2] = {59, 91}; /* the demo deck's */
    if (deck) rnd_deck_sizes(deck, card, carpet);
    tp_status st = rnd_scene_parse(text, len, o->scene_path, card, carpet, scene, &err);
    free(text);
    if (st != TP_OK) return cli_fail(2, "%s", err.text);
  }
  if (o->width > 0) {
    scene->camera.width = (int)o->width, scene->camera.height = (int)o->height;
    rnd_camera_set_hfov(&scene->camera, 66);
  }
  return 0;
}

static int render_one(const options *o) {
  rnd_deck *deck = NULL;
  rnd_scene *scene = malloc(sizeof *scene);
  marker_source ms = {0};
  rnd_renderer *r = NULL;
  tp_image img = {0};
  char *truth = NULL, *tpath = NULL, *scene_json = NULL;
  tp_error err;
  int rc = 0;
  if (!scene) { rc = cli_fail(1, "render: out of memory"); goto done; }
  /* A scene file is checked before the demo deck is drawn (fast errors);
   * a user's deck comes first because its deck.json sets the sizes. */
  if (o->deck_dir && (rc = load_deck(o, &deck))) goto done;
  if ((rc = get_scene(o, &deck, scene))) goto done;
  if (!deck && (rc = load_deck(o, &deck))) goto done;
  truth = rnd_truth_json(scene, &err);
  if (!truth) { rc = cli_fail(2, "%s: %s", o->random ? "random scene" : o->scene_path, err.text); goto done; }
  if (rnd_renderer_create(deck, marker_bits, &ms, &r, &err) != TP_OK) { rc = cli_fail(1, "%s", err.text); goto done; }
  if (tp_image_alloc(&img, scene->camera.width, scene->camera.height, 3) != TP_OK) {
    rc = cli_fail(1, "render: out of memory for %dx%d", scene->camera.width, scene->camera.height);
    goto done;
  }
  tp_status st = rnd_render(r, scene, &img, NULL, &err);
  if (st != TP_OK) {
    rc = cli_fail(tp_status_exit_code(st), "%s: %s", o->random ? "random scene" : o->scene_path, err.text);
    goto done;
  }
  if (cvw_image_write(o->out, &img, scene->look.jpeg_quality, &err) != TP_OK) {
    rc = cli_fail(2, "%s", err.text);
    goto done;
  }
  tpath = truth_path(o->out);
  if (!tpath || (rc = write_text(tpath, truth))) goto done;
  if (o->scene_out) {
    scene_json = rnd_scene_to_json(scene);
    if (!scene_json) { rc = cli_fail(1, "render: out of memory"); goto done; }
    rc = write_text(o->scene_out, scene_json);
  }
done:
  free(scene_json);
  free(tpath);
  free(truth);
  tp_image_free(&img);
  free(scene);
  free_job(r, &ms, deck);
  return rc;
}

static int write_deck(const options *o) {
  rnd_deck *deck = NULL;
  int rc = load_deck(o, &deck);
  if (rc) return rc;
  tp_error err;
  if (rnd_deck_write_dir(deck, o->out, write_image, NULL, &err) != TP_OK) rc = cli_fail(2, "%s", err.text);
  else printf("wrote the demo deck to %s\n", o->out);
  rnd_deck_destroy(deck);
  return rc;
}

/* Renders n random normal-difficulty scenes per resolution; prints the
 * mean and the split (table texture, raster, post) in milliseconds. */
static int bench(const options *o) {
  rnd_deck *deck = NULL;
  int rc = load_deck(o, &deck);
  if (rc) return rc;
  marker_source ms = {0};
  rnd_renderer *r = NULL;
  tp_error err;
  rnd_scene *scene = malloc(sizeof *scene);
  if (!scene || rnd_renderer_create(deck, marker_bits, &ms, &r, &err) != TP_OK) {
    rc = cli_fail(1, "render --bench: %s", scene ? err.text : "out of memory");
    goto done;
  }
  static const int sizes[2][2] = {{1920, 1080}, {1280, 720}};
  for (int k = 0; k < 2 && !rc; k++) {
    tp_image img;
    if (tp_image_alloc(&img, sizes[k][0], sizes[k][1], 3) != TP_OK) { rc = cli_fail(1, "out of memory"); break; }
    rnd_render_stats sum = {0}, s;
    double cpu_ms = 0;
    for (long i = 0; i < o->bench; i++) {
      rnd_scene_random((uint64_t)i, RND_NORMAL, deck, scene);
      scene->camera.width = sizes[k][0], scene->camera.height = sizes[k][1];
      rnd_camera_set_hfov(&scene->camera, 66);
      clock_t c0 = clock();
      if (rnd_render(r, scene, &img, &s, &err) != TP_OK) { rc = cli_fail(1, "%s", err.text); break; }
      cpu_ms += (double)(clock() - c0) * 1000.0 / CLOCKS_PER_SEC;
      sum.total_ms += s.total_ms, sum.table_ms += s.table_ms, sum.raster_ms += s.raster_ms;
      sum.post_ms += s.post_ms, sum.edge_pixels += s.edge_pixels;
    }
    double n = (double)o->bench;
    if (!rc)
      printf("render %dx%d: %.1f ms/scene wall, %.1f ms CPU (table %.1f, raster %.1f, "
             "blur+noise %.1f; %ld edge px) over %ld scenes\n",
             sizes[k][0], sizes[k][1], sum.total_ms / n, cpu_ms / n, sum.table_ms / n,
             sum.raster_ms / n, sum.post_ms / n, (long)(sum.edge_pixels / o->bench), o->bench);
    tp_image_free(&img);
  }
done:
  free(scene);
  free_job(r, &ms, deck);
  return rc;
}

static int game(const options *o) {
  ft_rules rules;
  tp_error err;
  if (ft_rules_load(o->rules, &rules, &err) != TP_OK) return cli_fail(2, "render: %s", err.text);
  if (mkdir(o->scene_path, 0777) != 0 && errno != EEXIST)
    return cli_fail(2, "%s: cannot create the folder: %s", o->scene_path, strerror(errno));
  rnd_deck *deck = NULL;
  int rc = load_deck(o, &deck);
  if (rc) return rc;
  marker_source ms = {0};
  rnd_renderer *r = NULL;
  if (rnd_renderer_create(deck, marker_bits, &ms, &r, &err) != TP_OK) {
    rc = cli_fail(1, "%s", err.text);
  } else {
    rnd_game_options go = {.seed = (uint64_t)o->seed, .n_players = (int)o->players,
                           .difficulty = o->difficulty, .width = (int)o->width,
                           .height = (int)o->height, .truth_only = o->truth_only,
                           .rules = &rules, .frames = o->frames, .n_frames = o->n_frames};
    if (go.width == 0) go.width = 1280, go.height = 720;
    rnd_game_stats stats;
    tp_status st = rnd_game_render(&go, deck, r, o->scene_path, write_image, NULL, &stats, &err);
    if (st != TP_OK) rc = cli_fail(tp_status_exit_code(st), "%s", err.text);
    else
      printf("%s: %d frames, %d rounds, %d flights (%.1f s); transcript.txt, answers.txt, frames.txt\n",
             o->scene_path, stats.frames, stats.rounds, stats.flights, stats.ms / 1000);
  }
  free_job(r, &ms, deck);
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) return rc;
  if (o.bench > 0) return bench(&o);
  if (o.game) return game(&o);
  if (o.deck_cmd) return write_deck(&o);
  return render_one(&o);
}

const cli_command cli_command_render = {"render", "render photo-like table scenes with ground truth", run};
