/* A tiny HTTP/1.1 client for the tests: one request per connection
 * (Connection: close), read to the end, with a 10 s receive timeout so a
 * hanging server fails the test instead of blocking it. */
#ifndef TEPPICH_TEST_HTTP_CLIENT_H
#define TEPPICH_TEST_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  int status; /* 0: no answer (connection closed or timed out) */
  char *head; /* status line and headers, NUL-terminated */
  char *body; /* NUL-terminated (may hold NULs before that) */
  size_t body_len;
} http_reply;

/* A socket connected to 127.0.0.1:port (-1 on failure). */
int http_connect(int port);
/* Sends raw bytes on a new connection and reads the whole answer. */
int http_raw(int port, const void *request, size_t len, http_reply *out);
/* ... and with half_close, shuts the sending side after the request, so a
 * request cut short (a body shorter than its Content-Length) ends. */
int http_raw_ex(int port, const void *request, size_t len, bool half_close,
                http_reply *out);
int http_get(int port, const char *path, http_reply *out);
int http_post(int port, const char *path, const void *body, size_t len,
              http_reply *out);
void http_reply_free(http_reply *r);

#endif
