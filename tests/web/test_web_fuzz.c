/* web: random and mutated answer bodies and raw requests. The server must
 * answer each with a 2xx/4xx/5xx it documents (or close a broken request)
 * and keep serving; queued lines must be clean (printable, one line). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http_client.h"
#include "web.h"

static uint64_t next(uint64_t *s) { /* xorshift64*: repeatable */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static const char *const seeds[] = {
    "reveal anna=7 ben=3", "genies anna=8,1 ben=7,2 cleo=6,3 dirk=5,4",
    "lamps anna=1 ben=0 cleo=0 dirk=0", "anna=7 ben=3", "undo"};

/* A body: a mutated seed line or random bytes, sometimes long. */
static size_t make_body(uint64_t *rng, char *buf, size_t cap) {
  size_t len;
  if (next(rng) % 2) {
    const char *seed = seeds[next(rng) % 5];
    len = strlen(seed);
    memcpy(buf, seed, len);
    int edits = (int)(next(rng) % 4);
    for (int e = 0; e < edits && len; e++)
      buf[next(rng) % len] = (char)(next(rng) & 0xFF);
  } else {
    len = (size_t)(next(rng) % (next(rng) % 8 ? 64 : cap));
    for (size_t i = 0; i < len; i++) buf[i] = (char)(next(rng) & 0xFF);
  }
  return len;
}

static void check_queue_clean(web_server *s) {
  web_answer a;
  while (web_poll_answer(s, &a)) {
    size_t n = strlen(a.line);
    assert_true(n > 0 && n < WEB_LINE_MAX);
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)a.line[i];
      assert_true(c >= 0x20 && c != 0x7f);
    }
    assert_true(a.line[0] != ' ' && a.line[n - 1] != ' ');
    web_answer_done(s, a.id, (a.id % 2) ? "no" : NULL);
  }
}

static void test_fuzz_answers(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  snprintf(cfg.address, sizeof cfg.address, "127.0.0.1");
  cfg.port = 0;
  cfg.answer_wait_ms = 0; /* nobody decides: 202 at once */
  web_server *s = NULL;
  tp_error err;
  assert_int_equal(web_create(&cfg, &s, &err), TP_OK);
  uint64_t rng = 0x7e99c1ULL;
  static char body[3000];
  int counts[600] = {0};
  for (int i = 0; i < 1500; i++) {
    size_t len = make_body(&rng, body, sizeof body);
    http_reply r;
    int status = http_post(web_port(s), "/answer", body, len, &r);
    http_reply_free(&r);
    if (status != 202 && status != 400 && status != 413)
      fail_msg("body %d (%zu bytes): status %d", i, len, status);
    counts[status]++;
    check_queue_clean(s);
  }
  print_message("202: %d, 400: %d, 413: %d\n", counts[202], counts[400],
                counts[413]);
  assert_true(counts[202] > 100 && counts[400] > 100 && counts[413] > 10);
  web_destroy(s);
}

static void test_fuzz_raw_requests(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  snprintf(cfg.address, sizeof cfg.address, "127.0.0.1");
  cfg.port = 0;
  cfg.answer_wait_ms = 0;
  web_server *s = NULL;
  tp_error err;
  assert_int_equal(web_create(&cfg, &s, &err), TP_OK);
  uint64_t rng = 42;
  static char req[4096];
  const char *start = "POST /answer HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n"
                      "Connection: close\r\n\r\nreveal a=1\r\n";
  for (int i = 0; i < 300; i++) {
    size_t len = strlen(start);
    memcpy(req, start, len);
    int edits = 1 + (int)(next(&rng) % 6);
    for (int e = 0; e < edits; e++)
      req[next(&rng) % len] = (char)(next(&rng) & 0xFF);
    http_reply r;
    int status = http_raw_ex(web_port(s), req, len, true, &r); /* 0: closed */
    http_reply_free(&r);
    assert_true(status == 0 || (status >= 200 && status < 600));
    check_queue_clean(s);
  }
  http_reply r;
  assert_int_equal(http_get(web_port(s), "/", &r), 200); /* still alive */
  http_reply_free(&r);
  web_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fuzz_answers),
      cmocka_unit_test(test_fuzz_raw_requests),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
