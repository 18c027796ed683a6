#define _POSIX_C_SOURCE 200809L
#include "http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int http_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct timeval tv = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void parse(char *data, size_t len, http_reply *out) {
  char *end = NULL;
  for (size_t i = 0; i + 3 < len; i++)
    if (!memcmp(data + i, "\r\n\r\n", 4)) {
      end = data + i;
      break;
    }
  size_t head_len = end ? (size_t)(end - data) : len;
  out->head = malloc(head_len + 1);
  memcpy(out->head, data, head_len);
  out->head[head_len] = '\0';
  size_t body_at = end ? head_len + 4 : len;
  out->body_len = len - body_at;
  out->body = malloc(out->body_len + 1);
  memcpy(out->body, data + body_at, out->body_len);
  out->body[out->body_len] = '\0';
  int status = 0;
  if (sscanf(out->head, "HTTP/1.%*d %d", &status) == 1) out->status = status;
}

int http_raw_ex(int port, const void *request, size_t len, bool half_close,
                http_reply *out) {
  memset(out, 0, sizeof *out);
  int fd = http_connect(port);
  if (fd < 0) return -1;
  size_t sent = 0;
  while (sent < len) {
    ssize_t n = send(fd, (const char *)request + sent, len - sent, MSG_NOSIGNAL);
    if (n <= 0) break; /* the server may close early (413): read its answer */
    sent += (size_t)n;
  }
  if (half_close) shutdown(fd, SHUT_WR); /* no more is coming */
  size_t cap = 8192, got = 0;
  char *data = malloc(cap);
  for (;;) {
    if (got + 4096 > cap) data = realloc(data, cap *= 2);
    ssize_t n = recv(fd, data + got, cap - got, 0);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  parse(data, got, out);
  free(data);
  return out->status;
}

int http_raw(int port, const void *request, size_t len, http_reply *out) {
  return http_raw_ex(port, request, len, false, out);
}

int http_get(int port, const char *path, http_reply *out) {
  char req[1024];
  int n = snprintf(req, sizeof req,
                   "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                   path);
  return http_raw(port, req, (size_t)n, out);
}

int http_post(int port, const char *path, const void *body, size_t len,
              http_reply *out) {
  char head[1024];
  int n = snprintf(head, sizeof head,
                   "POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                   "Content-Type: text/plain\r\nContent-Length: %zu\r\n\r\n",
                   path, len);
  char *req = malloc((size_t)n + len);
  memcpy(req, head, (size_t)n);
  if (len) memcpy(req + n, body, len);
  int status = http_raw(port, req, (size_t)n + len, out);
  free(req);
  return status;
}

void http_reply_free(http_reply *r) {
  free(r->head);
  free(r->body);
  r->head = r->body = NULL;
}
