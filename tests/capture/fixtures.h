/* Test frames for the capture tests, made with cvw and capture itself so
 * that no binary fixture has to be committed. */
#ifndef TEPPICH_TEST_CAPTURE_FIXTURES_H
#define TEPPICH_TEST_CAPTURE_FIXTURES_H

#include <stdbool.h>

/* Writes into folder (which must exist):
 *   game/frame-000001.jpg .. frame-000010.jpg   10 colour frames, 64x48
 *   gaps/ frames 1 2 4 5 6, where 4 is garbage (3 is missing)
 *   empty/ (no frames), still.jpg, still.png, corrupt.jpg, clip.avi
 *   (8 frames, 5 fps).
 * Returns false (and prints why) on failure. */
bool cap_test_make_fixtures(const char *folder);

/* Writes count copies of one small JPEG as folder/frame-NNNNNN.jpg. */
bool cap_test_make_many(const char *folder, int count);

#endif
