/* teppich markers: print marker sheets and the lens board, detect markers.
 *
 *   teppich markers sheet --out FILE.pdf|FILE.png [--dict NAME] [--ids LIST]
 *                         [--size-mm MM] [--paper a4|letter]
 *   teppich markers detect IMAGE [--dict NAME] [--json]
 *   teppich markers board --out FILE.pdf|FILE.png [--paper a4|letter]
 *                         [--dict NAME] [--squares 7x5] [--square-mm MM]
 *                         [--marker-mm MM]                                  */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibration.h"
#include "cli.h"
#include "cvw.h"

static const char usage[] =
    "usage: teppich markers sheet --out FILE.pdf|FILE.png [--dict NAME] [--ids 0,1,2,3]\n"
    "                             [--size-mm 40] [--paper a4|letter] [--dpi 300]\n"
    "       teppich markers detect IMAGE [--dict NAME] [--json] [--refine METHOD]\n"
    "                              [--backend auto|opencv|apriltag]\n"
    "       teppich markers board --out FILE.pdf|FILE.png [--paper a4|letter]\n"
    "                             [--dict 5X5_100] [--squares 7x5] [--square-mm 25]\n"
    "                             [--marker-mm 18] [--dpi 300]\n\n"
    "sheet   print-ready calibration markers (default 4X4_50 ids 0-3, 40 mm) with ids,\n"
    "        an \"up\" arrow, a ruler to check the printer's scale, and cut lines\n"
    "detect  find markers in a photo; --json prints\n"
    "        {\"markers\": [{\"id\": N, \"corners_px\": [[x,y],...]}]} (spec section 3);\n"
    "        --refine: corner refinement, edges (default, most accurate), subpix,\n"
    "        contour, apriltag, none, or opencv (OpenCV's default detector settings);\n"
    "        --backend: which library finds the markers: auto (default: libapriltag\n"
    "        for the APRILTAG_* dictionaries, OpenCV adding what it missed; OpenCV's\n"
    "        ArUco detector for the others), opencv, or apriltag\n"
    "board   the ChArUco board for `teppich calibrate lens`\n"
    "Dictionaries: OpenCV's names without DICT_ (4X4_50, 6X6_250, ARUCO_ORIGINAL,\n"
    "APRILTAG_36h11, ...). See docs/calibration.md.\n";

/* Value of option argv[*i] (which needs one); NULL after printing why. */
static const char *option_value(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    cli_fail(2, "option %s needs a value (see `teppich markers --help`)", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

static bool parse_paper(const char *text, cal_paper *paper) {
  if (!strcasecmp(text, "a4")) *paper = CAL_PAPER_A4;
  else if (!strcasecmp(text, "letter") || !strcasecmp(text, "us-letter")) *paper = CAL_PAPER_LETTER;
  else return false;
  return true;
}

static int run_sheet(int argc, char **argv) {
  cal_sheet sheet;
  cal_sheet_default(&sheet);
  const char *out = NULL, *v;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out")) {
      if (!(out = option_value(argc, argv, &i))) return 2;
    } else if (!strcmp(argv[i], "--dict")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      snprintf(sheet.dict, sizeof sheet.dict, "%s", v);
    } else if (!strcmp(argv[i], "--ids")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cal_parse_ids(v, sheet.ids, &sheet.n_ids, CAL_MAX_MARKERS))
        return cli_fail(2, "--ids '%s' is not a list of distinct ids like 0,1,2,3 or 0-3 "
                           "(at most %d)", v, CAL_MAX_MARKERS);
    } else if (!strcmp(argv[i], "--size-mm") || !strcmp(argv[i], "--marker-mm")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cli_parse_double(v, 5, 180, &sheet.marker_mm))
        return cli_fail(2, "%s '%s' is not a size in 5..180 mm", argv[i - 1], v);
    } else if (!strcmp(argv[i], "--paper")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!parse_paper(v, &sheet.paper)) return cli_fail(2, "--paper '%s': use a4 or letter", v);
    } else if (!strcmp(argv[i], "--dpi")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cli_parse_double(v, 50, 1200, &sheet.png_dpi))
        return cli_fail(2, "--dpi '%s' is not in 50..1200", v);
    } else {
      return cli_fail(2, "markers sheet: unknown argument '%s' (see --help)", argv[i]);
    }
  }
  if (!out) return cli_fail(2, "markers sheet: --out FILE.pdf or FILE.png is required");
  tp_error err;
  tp_status st = cal_sheet_write(&sheet, out, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  printf("wrote %s: %d marker%s of %s, %g mm\n", out, sheet.n_ids, sheet.n_ids > 1 ? "s" : "",
         sheet.dict, sheet.marker_mm);
  return 0;
}

static bool parse_squares(const char *text, int *x, int *y) {
  char tail;
  return sscanf(text, "%dx%d%c", x, y, &tail) == 2 && *x >= 3 && *y >= 3 && *x <= 40 &&
         *y <= 40;
}

static int run_board(int argc, char **argv) {
  cal_board board;
  cal_board_default(&board);
  cal_paper paper = CAL_PAPER_A4;
  double dpi = 300;
  const char *out = NULL, *v;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out")) {
      if (!(out = option_value(argc, argv, &i))) return 2;
    } else if (!strcmp(argv[i], "--dict")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      snprintf(board.dict, sizeof board.dict, "%s", v);
    } else if (!strcmp(argv[i], "--squares")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!parse_squares(v, &board.squares_x, &board.squares_y))
        return cli_fail(2, "--squares '%s': use COLSxROWS like 7x5 (3..40 each)", v);
    } else if (!strcmp(argv[i], "--square-mm")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cli_parse_double(v, 5, 200, &board.square_mm))
        return cli_fail(2, "--square-mm '%s' is not a size in 5..200 mm", v);
    } else if (!strcmp(argv[i], "--marker-mm")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cli_parse_double(v, 3, 200, &board.marker_mm))
        return cli_fail(2, "--marker-mm '%s' is not a size in 3..200 mm", v);
    } else if (!strcmp(argv[i], "--paper")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!parse_paper(v, &paper)) return cli_fail(2, "--paper '%s': use a4 or letter", v);
    } else if (!strcmp(argv[i], "--dpi")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cli_parse_double(v, 50, 1200, &dpi)) return cli_fail(2, "--dpi '%s' is not in 50..1200", v);
    } else {
      return cli_fail(2, "markers board: unknown argument '%s' (see --help)", argv[i]);
    }
  }
  if (!out) return cli_fail(2, "markers board: --out FILE.pdf or FILE.png is required");
  tp_error err;
  if (cal_board_write(&board, paper, dpi, out, &err) != TP_OK) return cli_fail(2, "%s", err.text);
  printf("wrote %s: ChArUco board %s, %dx%d squares of %g mm, markers %g mm\n", out, board.dict,
         board.squares_x, board.squares_y, board.square_mm, board.marker_mm);
  return 0;
}

static void print_json(const cvw_marker *m, size_t n) {
  printf("{\"markers\": [");
  for (size_t i = 0; i < n; i++) {
    printf("%s\n  {\"id\": %d, \"corners_px\": [", i ? "," : "", m[i].id);
    for (int c = 0; c < 4; c++)
      printf("%s[%.3f, %.3f]", c ? ", " : "", m[i].corners[c][0], m[i].corners[c][1]);
    printf("]}");
  }
  printf("%s]}\n", n ? "\n" : "");
}

static void print_text(const char *path, const char *dict, const cvw_marker *m, size_t n) {
  printf("%zu marker%s of %s in %s\n", n, n == 1 ? "" : "s", dict, path);
  for (size_t i = 0; i < n; i++) {
    double cx = 0, cy = 0, side = 0;
    for (int c = 0; c < 4; c++) {
      cx += m[i].corners[c][0] / 4;
      cy += m[i].corners[c][1] / 4;
      double dx = m[i].corners[(c + 1) % 4][0] - m[i].corners[c][0];
      double dy = m[i].corners[(c + 1) % 4][1] - m[i].corners[c][1];
      side += sqrt(dx * dx + dy * dy) / 4;
    }
    printf("  id %3d  centre (%.1f, %.1f) px  side %.1f px\n", m[i].id, cx, cy, side);
  }
}

static bool parse_refine(const char *text, cvw_detector_params *p) {
  static const char *const names[] = {"none", "subpix", "contour", "apriltag", "edges"};
  for (int i = 0; i < 5; i++)
    if (!strcmp(text, names[i])) {
      p->refine = (cvw_refine)i;
      return true;
    }
  if (strcmp(text, "opencv")) return false;
  cvw_detector_params_opencv(p);
  return true;
}

static int run_detect(int argc, char **argv) {
  const char *image = NULL, *dict_name = "4X4_50", *v;
  bool json = false;
  cal_detector_params params;
  cal_detector_params_default(&params);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dict")) {
      if (!(dict_name = option_value(argc, argv, &i))) return 2;
    } else if (!strcmp(argv[i], "--refine")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!parse_refine(v, &params.opencv))
        return cli_fail(2, "--refine '%s': use edges, subpix, contour, apriltag, none or opencv", v);
    } else if (!strcmp(argv[i], "--backend")) {
      if (!(v = option_value(argc, argv, &i))) return 2;
      if (!cal_backend_parse(v, &params.backend))
        return cli_fail(2, "--backend '%s': use auto, opencv or apriltag", v);
    } else if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_fail(2, "markers detect: unknown option '%s' (see --help)", argv[i]);
    } else if (image) {
      return cli_fail(2, "markers detect: one IMAGE only ('%s' is extra)", argv[i]);
    } else {
      image = argv[i];
    }
  }
  if (!image) return cli_fail(2, "markers detect: IMAGE is required (see --help)");
  tp_error err;
  cvw_dict *dict = NULL;
  cal_detector *det = NULL;
  if (cvw_dict_create(dict_name, &dict, &err) != TP_OK) return cli_fail(2, "%s", err.text);
  if (cal_detector_create(dict, &params, &det, &err) != TP_OK) {
    cvw_dict_destroy(dict);
    return cli_fail(2, "%s", err.text);
  }
  tp_image img;
  tp_status st = cvw_image_read(image, 1, &img, &err);
  /* Room for 64 markers: one detection (what `scripts/callgrind-bench`
   * counts as the baseline); a second only for a crowded image. */
  size_t cap = 64, found = 0;
  cvw_marker *m = malloc(cap * sizeof *m);
  if (st == TP_OK && !m) st = tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
  if (st == TP_OK) st = cal_detect_markers(det, &img, m, cap, &found, &err);
  if (st == TP_OK && found > cap) {
    cvw_marker *more = realloc(m, found * sizeof *m);
    st = more ? cal_detect_markers(det, &img, more, found, &found, &err)
              : tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
    if (more) m = more;
  }
  int rc = 0;
  if (st != TP_OK) {
    rc = cli_fail(tp_status_exit_code(st), "%s", err.text);
  } else {
    if (json) print_json(m, found);
    else print_text(image, cvw_dict_name(dict), m, found);
    if (!found)
      rc = cli_fail(1, "no %s markers found in %s (wrong --dict? too small or blurred?)",
                    cvw_dict_name(dict), image);
  }
  free(m);
  tp_image_free(&img);
  cal_detector_destroy(det);
  cvw_dict_destroy(dict);
  return rc;
}

static int run(int argc, char **argv) {
  if (argc < 2 || (cli_wants_help(argc, argv) && argc == 2)) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "sheet")) return run_sheet(argc - 1, argv + 1);
  if (!strcmp(sub, "detect")) return run_detect(argc - 1, argv + 1);
  if (!strcmp(sub, "board")) return run_board(argc - 1, argv + 1);
  return cli_fail(2, "markers: unknown subcommand '%s'; use sheet, detect or board", sub);
}

const cli_command cli_command_markers = {"markers",
                                         "print marker sheets and the lens board, detect markers",
                                         run};
