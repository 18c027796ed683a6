/* cap_make_fixtures FOLDER: the capture test frames, for the e2e test. */
#include <stdio.h>
#include <sys/stat.h>

#include "fixtures.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: cap_make_fixtures FOLDER\n");
    return 2;
  }
  mkdir(argv[1], 0777);
  return cap_test_make_fixtures(argv[1]) ? 0 : 1;
}
