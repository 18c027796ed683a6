/* webdemo: the demo game's answers are checked like the controller's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "webdemo.h"

static void test_reveal(void **unused) {
  wdemo *d;
  tp_error err;
  assert_int_equal(wdemo_create(&d, &err), TP_OK);
  char *before = wdemo_state_json(d);
  assert_non_null(strstr(before, "\"kind\":\"reveal\""));
  const char *bad[] = {"reveal anna=3 ben=7", "lamps anna=1", "reveal anna=8",
                       "reveal anna=8 cleo=6", "reveal anna=8 anna=2 ben=7",
                       "reveal anna=x ben=7", "reveal"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_int_equal(wdemo_answer(d, bad[k], &err), TP_ERR_INVALID);
    assert_non_null(strstr(err.text, bad[k])); /* names the line */
  }
  char *same = wdemo_state_json(d);
  assert_string_equal(before, same); /* nothing changed */
  assert_int_equal(wdemo_answer(d, "anna=8 ben=7", &err), TP_OK);
  char *after = wdemo_state_json(d);
  assert_null(strstr(after, "\"ask\""));
  assert_non_null(strstr(after, "\"winner\":\"anna\""));
  /* the winner swaps genies with the loser: anna 7,2 and ben 8,1 */
  assert_non_null(strstr(after, "\"genies\":[7,2]"));
  assert_non_null(strstr(after, "\"genies\":[8,1]"));
  assert_int_equal(wdemo_answer(d, "reveal anna=7 ben=8", &err),
                   TP_ERR_INVALID);
  uint8_t *jpeg = NULL;
  size_t len = 0;
  assert_int_equal(wdemo_frame_jpeg(d, &jpeg, &len, &err), TP_OK);
  assert_true(len > 1000 && jpeg[0] == 0xFF && jpeg[1] == 0xD8);
  free(jpeg);
  free(before);
  free(same);
  free(after);
  wdemo_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_reveal)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
