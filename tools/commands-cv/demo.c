/* teppich demo: the main job on the built-in demo, no camera needed.
 *
 * It is `teppich watch --demo`: the built-in game replayed through the
 * live-game pipeline with its answers, commentary and final table. The
 * README's first command runs this, so it stays one word that never
 * changes even when what the demo shows grows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern const cli_command cli_command_watch;

static int run_demo(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    printf("usage: teppich demo [--simulated] [--fast] [--events FILE|-] "
           "[--web ADDR:PORT]\n\n"
           "Plays the built-in demo game of Fliegende Teppiche through "
           "`teppich\nwatch --demo` with its answers, commentary and the "
           "final score table.\nNo camera needed: the game is rendered once "
           "(about a minute, kept in\n~/.cache/teppich) and its frames are "
           "watched with the whole chain\n(stillness, analysis against the "
           "layout, controller), as from a\ncamera; the end compares the "
           "final table with the game's truth.\n--simulated plays a "
           "simulated game instead (exact observations, no\npixels). "
           "Options are those of `teppich watch --demo`.\n");
    return 0;
  }
  /* argv[0] is "demo"; hand the rest to watch behind "--demo". */
  char **watch_argv = calloc((size_t)argc + 2, sizeof *watch_argv);
  if (!watch_argv) return cli_fail(1, "out of memory");
  watch_argv[0] = "watch";
  watch_argv[1] = "--demo";
  for (int i = 1; i < argc; i++) watch_argv[i + 1] = argv[i];
  int status = cli_command_watch.run(argc + 1, watch_argv);
  free(watch_argv);
  return status;
}

const cli_command cli_command_demo = {
    "demo", "play the built-in demo game (no camera needed)", run_demo};
