/* teppich capture-bench: what reading a frame costs, per source. */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cli.h"

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(path);
}

static int run_capture_bench(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    printf("usage: teppich capture-bench [--frames N] [--size WxH]\n\n"
           "Prints the per-frame cost of each replay source (file:, dir:\n"
           "JPEG/PNG, video:), of MJPEG/YUYV webcam conversion and of the\n"
           "frame hand-off (the camera buffer as a view against a copy).\n"
           "Defaults: 100 frames of 1280x720. Uses a temporary folder.\n");
    return TP_EXIT_OK;
  }
  long frames = 100;
  cap_options size;
  cap_options_init(&size);
  size.width = 1280, size.height = 720;
  tp_error err;
  for (int i = 1; i < argc; i++) {
    int used = 0;
    if (!strcmp(argv[i], "--size"))
      used = cap_options_parse_arg(&size, argc, argv, i, &err);
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc &&
             cli_parse_long(argv[i + 1], 1, 100000, &frames))
      used = 2;
    if (used < 0) return cli_fail(TP_EXIT_USAGE, "%s", err.text);
    if (used == 0)
      return cli_fail(TP_EXIT_USAGE, "capture-bench: bad or unexpected '%s'",
                      argv[i]);
    i += used - 1;
  }
  char folder[] = "/tmp/teppich-capture-bench-XXXXXX";
  if (!mkdtemp(folder))
    return cli_fail(TP_EXIT_JOB, "capture-bench: cannot make a folder in /tmp");
  tp_status st = cap_bench(stdout, folder, (int)frames, size.width,
                           size.height, &err);
  nftw(folder, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (st != TP_OK) return cli_fail(TP_EXIT_JOB, "capture-bench: %s", err.text);
  return TP_EXIT_OK;
}

const cli_command cli_command_capture_bench = {
    "capture-bench", "per-frame cost of each capture source and hand-off",
    run_capture_bench};
