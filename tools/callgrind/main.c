/* teppich-lean: `teppich analyze`, `markers` and `bench` without the
 * camera side, for valgrind (see CMakeLists.txt and scripts/callgrind-bench). */
#include <string.h>

#include "cli.h"
#include "cvw.h"

extern const cli_command cli_command_analyze, cli_command_bench, cli_command_markers;

int main(int argc, char **argv) {
  /* OpenCV's loops in the calling thread, so that callgrind's count of
   * that thread holds all of the work (scripts/callgrind-bench). */
  cvw_opencv_threads_set(1);
  const cli_command *const commands[] = {&cli_command_analyze, &cli_command_bench,
                                         &cli_command_markers};
  for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i]->name)) return commands[i]->run(argc - 1, argv + 1);
  return cli_fail(2, "usage: teppich-lean analyze|bench|markers ... (as teppich)");
}
