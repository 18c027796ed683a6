/* web: the server through real sockets on 127.0.0.1 (port 0: any free). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "http_client.h"
#include "web.h"

static web_server *start(web_config *cfg) {
  snprintf(cfg->address, sizeof cfg->address, "127.0.0.1");
  cfg->port = 0;
  web_server *s = NULL;
  tp_error err;
  assert_int_equal(web_create(cfg, &s, &err), TP_OK);
  assert_true(web_port(s) > 0);
  return s;
}

static web_server *start_default(void) {
  web_config cfg;
  web_config_default(&cfg);
  return start(&cfg);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void test_state_served(void **unused) {
  web_server *s = start_default();
  http_reply r;
  assert_int_equal(http_get(web_port(s), "/state.json", &r), 503);
  http_reply_free(&r);
  const char *json = "{\"round\":2,\"players\":[{\"name\":\"anna\"}]}";
  tp_error err;
  assert_int_equal(web_publish_state(s, json, strlen(json), &err), TP_OK);
  assert_int_equal(http_get(web_port(s), "/state.json", &r), 200);
  assert_string_equal(r.body, json);
  assert_non_null(strstr(r.head, "application/json"));
  http_reply_free(&r);
  assert_int_equal(web_publish_state(s, "", 0, &err), TP_ERR_INVALID);
  web_destroy(s);
}

static void test_page_served(void **unused) {
  web_server *s = start_default();
  http_reply r;
  assert_int_equal(http_get(web_port(s), "/", &r), 200);
  assert_non_null(strstr(r.body, "Fliegende Teppiche"));
  assert_non_null(strstr(r.head, "text/html"));
  http_reply_free(&r);
  assert_int_equal(http_get(web_port(s), "/app.js", &r), 200);
  assert_non_null(strstr(r.body, "EventSource"));
  http_reply_free(&r);
  assert_int_equal(http_get(web_port(s), "/style.css", &r), 200);
  http_reply_free(&r);
  web_destroy(s);
}

static void test_frame_served(void **unused) {
  web_server *s = start_default();
  http_reply r;
  assert_int_equal(http_get(web_port(s), "/frame.jpg", &r), 404);
  http_reply_free(&r);
  tp_error err;
  const uint8_t not_jpeg[] = {'G', 'I', 'F', '8', '9'};
  assert_int_equal(web_publish_frame(s, not_jpeg, sizeof not_jpeg, &err),
                   TP_ERR_INVALID);
  uint8_t jpeg[3000];
  for (size_t i = 0; i < sizeof jpeg; i++) jpeg[i] = (uint8_t)(i * 7);
  jpeg[0] = 0xFF, jpeg[1] = 0xD8;
  assert_int_equal(web_publish_frame(s, jpeg, sizeof jpeg, &err), TP_OK);
  assert_int_equal(http_get(web_port(s), "/frame.jpg", &r), 200);
  assert_int_equal(r.body_len, sizeof jpeg);
  assert_memory_equal(r.body, jpeg, sizeof jpeg);
  assert_non_null(strstr(r.head, "image/jpeg"));
  http_reply_free(&r);
  web_destroy(s);
}

/* ---- answers: a phone posts while the owner polls ---- */

typedef struct {
  int port;
  const char *body;
  http_reply reply;
} poster;

static void *post_thread(void *arg) {
  poster *p = arg;
  http_post(p->port, "/answer", p->body, strlen(p->body), &p->reply);
  return NULL;
}

/* Polls until an answer arrives (at most 10 s). */
static bool wait_answer(web_server *s, web_answer *a) {
  for (int i = 0; i < 2000; i++) {
    if (web_poll_answer(s, a)) return true;
    sleep_ms(5);
  }
  return false;
}

static void test_answer_taken_and_refused(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  cfg.answer_wait_ms = 10000;
  web_server *s = start(&cfg);
  poster p = {web_port(s), "reveal anna=7 ben=3\r\n", {0}};
  pthread_t t;
  pthread_create(&t, NULL, post_thread, &p);
  web_answer a;
  assert_true(wait_answer(s, &a));
  assert_string_equal(a.line, "reveal anna=7 ben=3"); /* newline gone */
  web_answer_done(s, a.id, NULL);
  pthread_join(t, NULL);
  assert_int_equal(p.reply.status, 200);
  assert_string_equal(p.reply.body, "ok\n");
  http_reply_free(&p.reply);

  p.body = "reveal anna=4";
  pthread_create(&t, NULL, post_thread, &p);
  assert_true(wait_answer(s, &a));
  web_answer_done(s, a.id, "answer 'reveal anna=4': ben must reveal too");
  pthread_join(t, NULL);
  assert_int_equal(p.reply.status, 422);
  assert_string_equal(p.reply.body,
                      "answer 'reveal anna=4': ben must reveal too\n");
  http_reply_free(&p.reply);
  web_stats st;
  web_get_stats(s, &st);
  assert_int_equal(st.answers, 2);
  web_destroy(s);
}

/* Nobody decides in time: 202, and the lines still come in order. */
static void test_answers_queued_in_order(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  cfg.answer_wait_ms = 0;
  cfg.max_queued = 2;
  web_server *s = start(&cfg);
  http_reply r;
  const char *lines[] = {"genies anna=8,1 ben=7,2", "lamps anna=1 ben=0"};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(http_post(web_port(s), "/answer", lines[k],
                               strlen(lines[k]), &r),
                     202);
    http_reply_free(&r);
  }
  assert_int_equal(http_post(web_port(s), "/answer", "x=1", 3, &r), 503);
  http_reply_free(&r);
  web_answer a;
  for (int k = 0; k < 2; k++) {
    assert_true(web_poll_answer(s, &a));
    assert_string_equal(a.line, lines[k]);
    web_answer_done(s, a.id, NULL); /* nobody waits: frees the slot */
  }
  assert_false(web_poll_answer(s, &a));
  assert_int_equal(http_post(web_port(s), "/answer", "x=1", 3, &r), 202);
  http_reply_free(&r);
  web_destroy(s);
}

static void expect_status(int port, const char *request, int status) {
  http_reply r;
  int got = http_raw(port, request, strlen(request), &r);
  if (got != status)
    fail_msg("'%.40s...': %d, expected %d (%s)", request, got, status,
             r.head ? r.head : "");
  http_reply_free(&r);
}

static void test_bad_requests(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  cfg.answer_wait_ms = 0;
  web_server *s = start(&cfg);
  int port = web_port(s);
  http_reply r;
  assert_int_equal(http_post(port, "/answer", "", 0, &r), 400);
  http_reply_free(&r);
  assert_int_equal(http_post(port, "/answer", "  \n", 3, &r), 400);
  http_reply_free(&r);
  assert_int_equal(http_post(port, "/answer", "reveal a=1\nlamps", 16, &r), 400);
  assert_non_null(strstr(r.body, "one answer line"));
  http_reply_free(&r);
  assert_int_equal(http_post(port, "/answer", "reveal\x01", 7, &r), 400);
  http_reply_free(&r);
  assert_int_equal(http_post(port, "/answer", "a\0b", 3, &r), 400);
  http_reply_free(&r);
  char big[2000];
  memset(big, 'a', sizeof big);
  assert_int_equal(http_post(port, "/answer", big, sizeof big, &r), 413);
  http_reply_free(&r);
  /* oversize without Content-Length (chunked): found while reading */
  char chunked[3000];
  int n = snprintf(chunked, sizeof chunked,
                   "POST /answer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n7d0\r\n");
  memset(chunked + n, 'b', 2000);
  memcpy(chunked + n + 2000, "\r\n0\r\n\r\n", 8);
  assert_int_equal(http_raw(port, chunked, (size_t)n + 2007, &r), 413);
  http_reply_free(&r);
  expect_status(port, "GET /answer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405);
  expect_status(port, "POST /state.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 405);
  expect_status(port, "DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405);
  expect_status(port, "GET /../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404);
  expect_status(port, "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404);
  http_reply g; /* not HTTP at all: 400 or closed, and nothing else */
  int got = http_raw_ex(port, "GARBAGE\r\n\r\n", 11, true, &g);
  assert_true(got == 0 || got == 400);
  http_reply_free(&g);
  /* still serving */
  assert_int_equal(http_get(port, "/", &r), 200);
  http_reply_free(&r);
  web_stats st;
  web_get_stats(s, &st);
  assert_true(st.rejected >= 12);
  web_destroy(s);
}

/* ---- /events ---- */

/* Reads from fd until buf holds needle (false after 10 s / close). */
static bool read_until(int fd, char *buf, size_t cap, size_t *len,
                       const char *needle) {
  while (!strstr(buf, needle)) {
    if (*len + 1 >= cap) return false;
    ssize_t n = recv(fd, buf + *len, cap - 1 - *len, 0);
    if (n <= 0) return false;
    *len += (size_t)n;
    buf[*len] = '\0';
  }
  return true;
}

static int open_events(int port) {
  int fd = http_connect(port);
  /* HTTP/1.0: the stream is sent as it is, not in chunks */
  const char *req = "GET /events HTTP/1.0\r\n\r\n";
  assert_true(send(fd, req, strlen(req), MSG_NOSIGNAL) > 0);
  return fd;
}

static void test_events_stream(void **unused) {
  web_server *s = start_default();
  tp_error err;
  assert_int_equal(web_publish_state(s, "{\"round\":1}", 11, &err), TP_OK);
  int fd = open_events(web_port(s));
  static char buf[65536];
  size_t len = 0;
  buf[0] = '\0';
  assert_true(read_until(fd, buf, sizeof buf, &len, "data: {\"round\":1}\n\n"));
  assert_non_null(strstr(buf, "text/event-stream"));
  /* a state over several lines arrives as several data: lines */
  assert_int_equal(web_publish_state(s, "{\n\"round\":2\n}", 13, &err), TP_OK);
  assert_true(read_until(fd, buf, sizeof buf, &len,
                         "event: state\ndata: {\ndata: \"round\":2\ndata: }\n\n"));
  uint8_t jpeg[] = {0xFF, 0xD8, 0xFF, 0xD9};
  assert_int_equal(web_publish_frame(s, jpeg, sizeof jpeg, &err), TP_OK);
  assert_true(read_until(fd, buf, sizeof buf, &len, "event: frame\ndata: 1\n\n"));
  close(fd);
  web_destroy(s);
}

static void test_streams_limited_and_ended(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  cfg.max_streams = 1;
  web_server *s = start(&cfg);
  int fd = open_events(web_port(s));
  static char buf[4096];
  size_t len = 0;
  buf[0] = '\0';
  assert_true(read_until(fd, buf, sizeof buf, &len, "retry: 2000"));
  http_reply r;
  assert_int_equal(http_get(web_port(s), "/events", &r), 503);
  http_reply_free(&r);
  web_stats st;
  web_get_stats(s, &st);
  assert_int_equal(st.streams, 1);
  web_destroy(s); /* must end the open stream, not hang */
  close(fd);
}

static void test_parse_listen(void **unused) {
  web_config cfg;
  web_config_default(&cfg);
  tp_error err;
  assert_int_equal(web_parse_listen("127.0.0.1:9000", &cfg, &err), TP_OK);
  assert_string_equal(cfg.address, "127.0.0.1");
  assert_int_equal(cfg.port, 9000);
  assert_int_equal(web_parse_listen(":0", &cfg, &err), TP_OK);
  assert_int_equal(cfg.port, 0);
  assert_string_equal(cfg.address, "127.0.0.1");
  assert_int_equal(web_parse_listen("8081", &cfg, &err), TP_OK);
  assert_int_equal(cfg.port, 8081);
  assert_int_equal(web_parse_listen("localhost:80", &cfg, &err), TP_OK);
  assert_string_equal(cfg.address, "127.0.0.1");
  const char *bad[] = {"", ":", "1.2.3:80", "host:80", "1.2.3.4:70000",
                       "1.2.3.4:-1", "1.2.3.4:8o", "::1:80"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_int_equal(web_parse_listen(bad[k], &cfg, &err), TP_ERR_INVALID);
    assert_non_null(strstr(err.text, bad[k]));
  }
  assert_int_equal(cfg.port, 80); /* unchanged by the bad ones */
}

static void test_port_in_use(void **unused) {
  web_server *s = start_default();
  web_config cfg;
  web_config_default(&cfg);
  snprintf(cfg.address, sizeof cfg.address, "127.0.0.1");
  cfg.port = web_port(s);
  web_server *t = NULL;
  tp_error err;
  assert_int_equal(web_create(&cfg, &t, &err), TP_ERR_IO);
  assert_null(t);
  assert_non_null(strstr(err.text, "cannot listen"));
  web_destroy(s);
  web_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_state_served),
      cmocka_unit_test(test_page_served),
      cmocka_unit_test(test_frame_served),
      cmocka_unit_test(test_answer_taken_and_refused),
      cmocka_unit_test(test_answers_queued_in_order),
      cmocka_unit_test(test_bad_requests),
      cmocka_unit_test(test_events_stream),
      cmocka_unit_test(test_streams_limited_and_ended),
      cmocka_unit_test(test_parse_listen),
      cmocka_unit_test(test_port_in_use),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
