/* teppich cameras: the cameras this machine has, with their modes. */
#include <stdio.h>

#include "capture.h"
#include "cli.h"

static int run_cameras(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    printf("usage: teppich cameras\n\n"
           "Lists the Pi cameras (libcamera) and USB webcams (V4L2) found,\n"
           "with the source string to use and their formats and sizes.\n"
           "Exit status 1 when there is none (with what to check).\n");
    return TP_EXIT_OK;
  }
  if (argc > 1)
    return cli_fail(TP_EXIT_USAGE, "cameras takes no arguments (got '%s')",
                    argv[1]);
  int found = cap_list_cameras(stdout);
  fflush(stdout); /* the hints before the error, also in one log of both */
  if (found == 0)
    return cli_fail(TP_EXIT_JOB, "no camera found (see the hints above)");
  return TP_EXIT_OK;
}

const cli_command cli_command_cameras = {
    "cameras", "list Pi cameras and USB webcams with their modes",
    run_cameras};
