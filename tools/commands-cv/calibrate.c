/* teppich calibrate: the table frame from printed markers, and the lens.
 *
 *   teppich calibrate IMAGE|FOLDER [options]     from photos
 *   teppich calibrate --source SRC [options]     from a camera or recording
 *   teppich calibrate lens IMAGE...|FOLDER       lens model from board photos
 *
 * Frames from any of these go through calibrate_frame(), one function that
 * takes a tp_image: that is where capture plugs in. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "calibration.h"
#include "capture.h"
#include "cli.h"
#include "cvw.h"

static const char usage[] =
    "usage: teppich calibrate IMAGE|FOLDER [options]\n"
    "       teppich calibrate --source SRC [--frames N] [options]\n"
    "       teppich calibrate lens IMAGE...|FOLDER [--out lens.json] [board options]\n\n"
    "Finds the printed markers (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)\n"
    "and writes the table frame: image pixels <-> table millimetres.\n\n"
    "  --out FILE        calibration file to write (default calib.json)\n"
    "  --annotate OUT    draw markers, axes and a 10 cm grid onto the photo (.png/.jpg)\n"
    "  --marker-mm MM    printed side of the black square (default 40)\n"
    "  --dict NAME       marker dictionary (default 4X4_50)\n"
    "  --backend B       marker detector: auto (default: libapriltag for APRILTAG_*,\n"
    "                    OpenCV for the others), opencv or apriltag\n"
    "  --ids A,B,C,D     the four frame markers (default 0,1,2,3)\n"
    "  --lens FILE       lens model from `teppich calibrate lens` (else the lens\n"
    "                    distortion is estimated from the markers)\n"
    "  --all-markers     also fit markers other than the four frame ids (all printed\n"
    "                    at --marker-mm): more corners, better accuracy\n"
    "  --json            print the calibration file instead of the summary\n"
    "  --source SRC      camera or recording (libcamera, v4l2:/dev/videoN, video:FILE,\n"
    "                    dir:FOLDER); --frames N frames are used (default 5);\n"
    "                    with --size WxH, --fps N, --no-lock, --timeout MS,\n"
    "                    --reconnect MS as for `teppich snapshot`\n"
    "lens options: --dict 5X5_100 --squares 7x5 --square-mm 25 --marker-mm 18\n"
    "              (as printed by `teppich markers board`)\n"
    "See docs/calibration.md.\n";

/* Exit status for a failure while calibrating: files that cannot be read
 * are bad input (2); a scene without usable markers is a job that could
 * not be done (1). */
static int exit_for(tp_status st) {
  return st == TP_ERR_IO || st == TP_ERR_FORMAT || st == TP_ERR_NOMEM ? 2 : 1;
}

static bool is_image_name(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".jpg") ||
                 !strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".bmp"));
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The image files of a folder, sorted; *n 0 if none. Caller frees. */
static char **folder_images(const char *dir, size_t *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  size_t cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !is_image_name(e->d_name)) continue;
    if (*n == cap) {
      cap = cap * 2 + 16;
      char **grown = realloc(names, cap * sizeof *grown);
      if (!grown) break;
      names = grown;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[*n] = malloc(len))) break;
    snprintf(names[*n], len, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (*n) qsort(names, *n, sizeof *names, compare_names);
  return names;
}

static void free_names(char **names, size_t n) {
  if (!names) return;
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* ---- the table ---- */

typedef struct {
  cal_options opt;
  const char *out, *annotate, *source, *lens_file;
  cap_options cap; /* --size, --fps, --no-lock ... for --source */
  bool json;
  int frames;
  const char *inputs[1];
  int n_inputs;
  tp_image photo; /* the picture to annotate (RGB) */
} table_args;

/* One frame into the session: where files, folders and camera frames
 * meet. Keeps a colour copy of the first frame for --annotate. */
static tp_status calibrate_frame(cal_session *s, table_args *a, const tp_image *frame,
                                 const tp_image *color, const char *name, tp_error *err) {
  size_t seen;
  tp_status st = cal_session_add_frame(s, frame, name, &seen, err);
  if (st == TP_OK && a->annotate && !a->photo.data) {
    const tp_image *src = color && color->data ? color : frame;
    st = tp_image_alloc(&a->photo, src->width, src->height, src->channels);
    for (int y = 0; st == TP_OK && y < src->height; y++)
      memcpy(tp_image_row(&a->photo, y), tp_image_row(src, y),
             (size_t)src->width * (size_t)src->channels);
  }
  return st;
}

static tp_status calibrate_file(cal_session *s, table_args *a, const char *path,
                                tp_error *err) {
  tp_image img;
  tp_status st = cvw_image_read(path, a->annotate && !a->photo.data ? 3 : 1, &img, err);
  if (st != TP_OK) return st;
  st = calibrate_frame(s, a, &img, &img, path, err);
  tp_image_free(&img);
  return st;
}

static tp_status calibrate_source(cal_session *s, table_args *a, int *exit_code,
                                  tp_error *err) {
  cap_options opt = a->cap;
  opt.color = a->annotate != NULL;
  opt.fast = true;
  cap_source *src;
  tp_status st = cap_open(&src, a->source, &opt, err);
  if (st != TP_OK) {
    *exit_code = cap_exit_code(a->source, st);
    return st;
  }
  int used = 0;
  while (used < a->frames && st == TP_OK) {
    cap_frame f;
    int rc = cap_next(src, &f, err);
    if (rc == CAP_END) break;
    if (rc != CAP_FRAME) {
      *exit_code = cap_exit_code(a->source, rc);
      st = (tp_status)rc;
      break;
    }
    char name[64];
    snprintf(name, sizeof name, "frame %d", used + 1);
    st = calibrate_frame(s, a, &f.gray, &f.color, name, err);
    used++;
  }
  cap_close(src);
  if (st == TP_OK && !used) {
    *exit_code = 2;
    return tp_error_set(err, TP_ERR_FORMAT, "source %s gave no frame", a->source);
  }
  return st;
}

static tp_status calibrate_inputs(cal_session *s, table_args *a, tp_error *err) {
  const char *in = a->inputs[0];
  if (!is_dir(in)) return calibrate_file(s, a, in, err);
  size_t n;
  char **names = folder_images(in, &n);
  tp_status st = TP_OK;
  if (!n) st = tp_error_set(err, TP_ERR_IO, "%s: no .png/.jpg images in this folder", in);
  for (size_t i = 0; st == TP_OK && i < n; i++) st = calibrate_file(s, a, names[i], err);
  free_names(names, n);
  return st;
}

static void print_summary(const cal_calib *c, const char *out) {
  const cal_quality *q = cal_calib_quality(c);
  cal_marker_pose m[CAL_MAX_MARKERS];
  size_t n = cal_calib_markers(c, m, CAL_MAX_MARKERS);
  int w, h;
  cal_calib_image_size(c, &w, &h);
  printf("markers seen: %zu (", n);
  for (size_t i = 0; i < n && i < CAL_MAX_MARKERS; i++) printf("%s%d", i ? " " : "", m[i].id);
  printf(") in %d image%s of %dx%d\n", q->frames, q->frames == 1 ? "" : "s", w, h);
  printf("table area between the markers: %.0f x %.0f mm (%.0f%% of the image)\n",
         q->area_mm[0], q->area_mm[1], 100 * q->image_fraction);
  printf("estimated accuracy: %.2f mm (corner fit %.2f px RMS, %.2f mm per pixel, camera "
         "tilt %.0f deg)\n",
         q->accuracy_mm, q->rms_px, q->mm_per_px, q->tilt_deg);
  cal_lens lens;
  if (cal_calib_lens(c, &lens)) {
    if (lens.from_markers)
      printf("lens: distortion estimated from the markers (k1 %.3f, k2 %.3f)\n", lens.k1,
             lens.k2);
    else
      printf("lens: model from %d board photos (%.2f px RMS)\n", lens.images, lens.rms_px);
  }
  for (unsigned bit = 1; bit <= CAL_WARN_SMALL_AREA; bit <<= 1) {
    if (!(q->warnings & bit)) continue;
    char text[320];
    cal_warning_text(c, bit, text, sizeof text);
    printf("warning: %s\n", text);
  }
  if (out) printf("wrote %s\n", out);
}

static int parse_table_args(int argc, char **argv, table_args *a) {
  memset(a, 0, sizeof *a);
  cal_options_default(&a->opt);
  a->out = "calib.json";
  a->frames = 5;
  cap_options_init(&a->cap);
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    tp_error cap_err;
    int cap_used = cap_options_parse_arg(&a->cap, argc, argv, i, &cap_err);
    if (cap_used < 0) return cli_fail(2, "calibrate: %s", cap_err.text);
    if (cap_used > 0) {
      i += cap_used - 1;
    } else if (!strcmp(arg, "--json")) {
      a->json = true;
    } else if (!strcmp(arg, "--all-markers")) {
      a->opt.use_other_markers = true;
    } else if (arg[0] == '-' && arg[1] && !has_value) {
      return cli_fail(2, "calibrate: %s needs a value (see --help)", arg);
    } else if (!strcmp(arg, "--out")) {
      a->out = argv[++i];
    } else if (!strcmp(arg, "--annotate")) {
      a->annotate = argv[++i];
    } else if (!strcmp(arg, "--source")) {
      a->source = argv[++i];
    } else if (!strcmp(arg, "--lens")) {
      a->lens_file = argv[++i];
    } else if (!strcmp(arg, "--frames")) {
      long n;
      if (!cli_parse_long(argv[++i], 1, 1000, &n))
        return cli_fail(2, "--frames '%s' is not a number in 1..1000", argv[i]);
      a->frames = (int)n;
    } else if (!strcmp(arg, "--marker-mm")) {
      if (!cli_parse_double(argv[++i], 5, 1000, &a->opt.marker_mm))
        return cli_fail(2, "--marker-mm '%s' is not a size in 5..1000 mm (the side of the "
                           "black square)", argv[i]);
    } else if (!strcmp(arg, "--dict")) {
      snprintf(a->opt.dict, sizeof a->opt.dict, "%s", argv[++i]);
    } else if (!strcmp(arg, "--backend")) {
      if (!cal_backend_parse(argv[++i], &a->opt.backend))
        return cli_fail(2, "--backend '%s': use auto, opencv or apriltag", argv[i]);
    } else if (!strcmp(arg, "--ids")) {
      int ids[5], n;
      if (!cal_parse_ids(argv[++i], ids, &n, 5) || n != 4)
        return cli_fail(2, "--ids '%s': give four distinct marker ids, like 0,1,2,3", argv[i]);
      memcpy(a->opt.frame_ids, ids, sizeof a->opt.frame_ids);
    } else if (arg[0] == '-' && arg[1]) {
      return cli_fail(2, "calibrate: unknown option '%s' (see --help)", arg);
    } else if (a->n_inputs) {
      return cli_fail(2, "calibrate: one IMAGE or FOLDER only ('%s' is extra)", arg);
    } else {
      a->inputs[a->n_inputs++] = arg;
    }
  }
  if (!a->n_inputs && !a->source)
    return cli_fail(2, "calibrate: give an IMAGE, a FOLDER or --source SRC (see --help)");
  if (a->n_inputs && a->source)
    return cli_fail(2, "calibrate: give either an IMAGE/FOLDER or --source, not both");
  return 0;
}

static tp_status load_lens(table_args *a, tp_error *err) {
  if (!a->lens_file) return TP_OK;
  cal_calib *c;
  tp_status st = cal_calib_load(a->lens_file, &c, err);
  if (st != TP_OK) return st;
  a->opt.has_lens = cal_calib_lens(c, &a->opt.lens);
  cal_calib_destroy(c);
  if (!a->opt.has_lens)
    return tp_error_set(err, TP_ERR_FORMAT, "%s: holds no lens model", a->lens_file);
  return TP_OK;
}

static int run_table(int argc, char **argv) {
  table_args a;
  int rc = parse_table_args(argc, argv, &a);
  if (rc) return rc;
  tp_error err;
  tp_status st = load_lens(&a, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  cal_session *s;
  if ((st = cal_session_create(&a.opt, &s, &err)) != TP_OK) return cli_fail(2, "%s", err.text);
  cal_calib *c = NULL;
  int code = 0;
  st = a.source ? calibrate_source(s, &a, &code, &err) : calibrate_inputs(s, &a, &err);
  if (st != TP_OK && !code) code = exit_for(st);
  if (st == TP_OK && (st = cal_session_solve(s, &c, &err)) != TP_OK) code = exit_for(st);
  if (st == TP_OK && (st = cal_calib_save(c, a.out, &err)) != TP_OK) code = 2;
  if (st == TP_OK && a.annotate && (st = cal_annotate_write(c, &a.photo, a.annotate, &err)))
    code = 2;
  if (st == TP_OK) {
    char *text;
    if (a.json && cal_calib_to_json(c, &text, &err) == TP_OK) {
      fputs(text, stdout);
      free(text);
    } else if (!a.json) {
      print_summary(c, a.out);
      if (a.annotate) printf("wrote %s\n", a.annotate);
    }
  } else {
    cli_fail(code, "%s", err.text);
  }
  cal_calib_destroy(c);
  cal_session_destroy(s);
  tp_image_free(&a.photo);
  return st == TP_OK ? 0 : code;
}

/* ---- the lens ---- */

static int run_lens(int argc, char **argv) {
  cal_board board;
  cal_board_default(&board);
  const char *out = "lens.json";
  const char **inputs = calloc((size_t)argc, sizeof *inputs);
  int n_inputs = 0;
  if (!inputs) return cli_fail(2, "out of memory");
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    int bad = 0;
    if (arg[0] == '-' && arg[1] && !has_value) bad = cli_fail(2, "calibrate lens: %s needs a value", arg);
    else if (!strcmp(arg, "--out")) out = argv[++i];
    else if (!strcmp(arg, "--dict")) snprintf(board.dict, sizeof board.dict, "%s", argv[++i]);
    else if (!strcmp(arg, "--squares")) {
      char tail;
      if (sscanf(argv[++i], "%dx%d%c", &board.squares_x, &board.squares_y, &tail) != 2)
        bad = cli_fail(2, "--squares '%s': use COLSxROWS like 7x5", argv[i]);
    } else if (!strcmp(arg, "--square-mm")) {
      if (!cli_parse_double(argv[++i], 5, 200, &board.square_mm))
        bad = cli_fail(2, "--square-mm '%s' is not a size in 5..200 mm", argv[i]);
    } else if (!strcmp(arg, "--marker-mm")) {
      if (!cli_parse_double(argv[++i], 3, 200, &board.marker_mm))
        bad = cli_fail(2, "--marker-mm '%s' is not a size in 3..200 mm", argv[i]);
    } else if (arg[0] == '-' && arg[1]) bad = cli_fail(2, "calibrate lens: unknown option '%s'", arg);
    else inputs[n_inputs++] = arg;
    if (bad) {
      free(inputs);
      return bad;
    }
  }
  if (!n_inputs) {
    free(inputs);
    return cli_fail(2, "calibrate lens: give photos of the board (IMAGE... or FOLDER)");
  }
  tp_error err;
  cal_lens_session *s;
  tp_status st = cal_lens_session_create(&board, &s, &err);
  int used = 0, total = 0;
  for (int i = 0; st == TP_OK && i < n_inputs; i++) {
    size_t n = 1;
    char **names = NULL;
    if (is_dir(inputs[i])) {
      names = folder_images(inputs[i], &n);
      if (!n) st = tp_error_set(&err, TP_ERR_IO, "%s: no .png/.jpg images in this folder", inputs[i]);
    }
    for (size_t k = 0; st == TP_OK && k < n; k++) {
      const char *path = names ? names[k] : inputs[i];
      tp_image img;
      int corners = 0;
      if ((st = cvw_image_read(path, 1, &img, &err)) != TP_OK) break;
      st = cal_lens_session_add(s, &img, path, &corners, &err);
      tp_image_free(&img);
      total++;
      used += corners >= 6;
      printf("%s: %d board corners%s\n", path, corners, corners >= 6 ? "" : " (skipped)");
    }
    free_names(names, n);
  }
  cal_lens lens;
  cal_calib *c = NULL;
  if (st == TP_OK) st = cal_lens_session_solve(s, &lens, &err);
  if (st == TP_OK) st = cal_calib_from_lens(&lens, &c, &err);
  if (st == TP_OK) st = cal_calib_save(c, out, &err);
  int rc = 0;
  if (st == TP_OK)
    printf("lens model from %d of %d photos: fx %.1f fy %.1f, centre (%.1f, %.1f), k1 %.4f "
           "k2 %.4f, reprojection %.2f px\nwrote %s\n",
           used, total, lens.fx, lens.fy, lens.cx, lens.cy, lens.k1, lens.k2, lens.rms_px, out);
  else
    rc = cli_fail(tp_status_exit_code(st), "%s", err.text);
  cal_calib_destroy(c);
  cal_lens_session_destroy(s);
  free(inputs);
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "lens")) return run_lens(argc - 1, argv + 1);
  return run_table(argc, argv);
}

const cli_command cli_command_calibrate = {
    "calibrate", "find the table frame from printed markers (and the lens model)", run};
