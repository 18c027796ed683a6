/* teppich snapshot: one still from a source, after exposure has settled. */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "cli.h"

static int usage(FILE *out, int status) {
  fprintf(out,
          "usage: teppich snapshot --source SRC --out FILE.jpg [options]\n\n"
          "Takes one still from a camera (after auto exposure and white\n"
          "balance have settled and are locked) or from a recording.\n\n"
          "  --source SRC    libcamera[:N|:ID], v4l2:/dev/videoN, file:IMAGE,\n"
          "                  dir:FOLDER[@FPS], video:FILE\n"
          "  --out FILE.jpg  where the JPEG goes (written atomically)\n"
          "  --gray          write the gray image instead of colour\n"
          "%s",
          cap_options_help);
  return status;
}

static int run_snapshot(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) return usage(stdout, TP_EXIT_OK);
  const char *source = NULL, *out = NULL;
  cap_options opt;
  cap_options_init(&opt);
  opt.color = true;
  opt.fast = true;
  tp_error err;
  for (int i = 1; i < argc; i++) {
    int used = cap_options_parse_arg(&opt, argc, argv, i, &err);
    if (used < 0) return cli_fail(TP_EXIT_USAGE, "%s", err.text);
    if (used > 0) { i += used - 1; continue; }
    if (!strcmp(argv[i], "--gray")) opt.color = false;
    else if (!strcmp(argv[i], "--source") && i + 1 < argc) source = argv[++i];
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else
      return cli_fail(TP_EXIT_USAGE, "snapshot: unexpected '%s' (see "
                      "`teppich snapshot --help`)", argv[i]);
  }
  if (!source || !out)
    return cli_fail(TP_EXIT_USAGE,
                    "snapshot needs --source SRC and --out FILE.jpg");
  cap_source *src;
  tp_status st = cap_open(&src, source, &opt, &err);
  if (st != TP_OK) return cli_fail(cap_exit_code(source, st), "%s", err.text);
  cap_frame frame;
  int rc = cap_next(src, &frame, &err);
  if (rc == CAP_END) {
    cap_close(src);
    return cli_fail(TP_EXIT_USAGE, "source %s has no readable frame", source);
  }
  if (rc != CAP_FRAME) {
    cap_close(src);
    return cli_fail(cap_exit_code(source, rc), "%s", err.text);
  }
  const tp_image *img = frame.color.data ? &frame.color : &frame.gray;
  cap_settings set;
  cap_get_settings(src, &set);
  st = cap_write_jpeg(out, img, 92, &err);
  cap_close(src);
  if (st != TP_OK) return cli_fail(TP_EXIT_USAGE, "%s", err.text);
  printf("wrote %s (%dx%d from %s%s)\n", out, img->width, img->height,
         set.camera, set.locked ? ", exposure locked" : "");
  return TP_EXIT_OK;
}

const cli_command cli_command_snapshot = {
    "snapshot", "one still from a camera or recording, after exposure settled",
    run_snapshot};
