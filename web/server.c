/* web server: the libmicrohttpd daemon and its routes. One thread per
 * connection (MHD_USE_THREAD_PER_CONNECTION), so a request may block: the
 * /events stream waits for changes and POST /answer for the owner's
 * verdict, each on the hub's condition variable. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "web_internal.h"

/* HTTP statuses by number: the macro names changed between
 * libmicrohttpd 0.9.75 (Debian 12) and 1.0 (Debian 13). */
enum {
  HTTP_OK = 200,
  HTTP_ACCEPTED = 202,
  HTTP_BAD_REQUEST = 400,
  HTTP_NOT_FOUND = 404,
  HTTP_METHOD_NOT_ALLOWED = 405,
  HTTP_TOO_LARGE = 413,
  HTTP_UNPROCESSABLE = 422,
  HTTP_UNAVAILABLE = 503
};

/* ---- responses ---- */

static void free_nothing(void *p) { (void)p; }

/* Who owns a response body: static page data is sent as is, a caller's
 * temporary is copied, and a malloc'ed copy is handed over to the
 * response, which frees it once sent. */
typedef enum { BODY_STATIC, BODY_COPY, BODY_HANDED_OVER } body_owner;

static enum MHD_Result send_bytes(web_server *s, struct MHD_Connection *c,
                                  unsigned status, const char *type,
                                  const void *data, size_t len,
                                  body_owner owner) {
  void *body = (void *)data;
  if (owner == BODY_COPY) {
    body = malloc(len ? len : 1);
    if (!body) return MHD_NO;
    memcpy(body, data, len);
  }
  bool owned = owner != BODY_STATIC;
  struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(
      len, body, owned ? free : free_nothing);
  if (!r) {
    if (owned) free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  if (status == HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD, POST");
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  pthread_mutex_lock(&s->mu);
  s->stats.requests++;
  if (status >= 400) s->stats.rejected++;
  pthread_mutex_unlock(&s->mu);
  return ok;
}

/* A one-line text answer ("ok", or what is wrong). */
static enum MHD_Result send_text(web_server *s, struct MHD_Connection *c,
                                 unsigned status, const char *text) {
  char line[WEB_LINE_MAX + 64];
  int n = snprintf(line, sizeof line, "%s\n", text);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
  return send_bytes(s, c, status, "text/plain; charset=utf-8", line,
                    (size_t)n, BODY_COPY);
}

/* ---- routes ---- */

/* Sends what the game published last, copied under the lock so that a
 * publish during the send cannot tear it. */
static enum MHD_Result send_published(web_server *s, struct MHD_Connection *c,
                                      bool frame) {
  pthread_mutex_lock(&s->mu);
  const void *data = frame ? (const void *)s->frame : (const void *)s->state;
  size_t len = frame ? s->frame_len : s->state_len;
  void *copy = data ? malloc(len ? len : 1) : NULL;
  if (copy) memcpy(copy, data, len);
  pthread_mutex_unlock(&s->mu);
  if (!data)
    return frame ? send_text(s, c, HTTP_NOT_FOUND, "no camera frame yet")
                 : send_text(s, c, HTTP_UNAVAILABLE, "no game state yet");
  if (!copy) return MHD_NO;
  return send_bytes(s, c, HTTP_OK, frame ? "image/jpeg" : "application/json",
                    copy, len, BODY_HANDED_OVER);
}

static enum MHD_Result get_events(web_server *s, struct MHD_Connection *c) {
  pthread_mutex_lock(&s->mu);
  bool full = s->streams >= s->cfg.max_streams;
  if (!full) {
    s->streams++;
    s->stats.streams++;
    s->stats.requests++;
  }
  pthread_mutex_unlock(&s->mu);
  if (full)
    return send_text(s, c, HTTP_UNAVAILABLE,
                     "too many event streams open; reload later");
  struct MHD_Response *r = web__events_response(s); /* owns the count now */
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                          "text/event-stream");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  enum MHD_Result ok = MHD_queue_response(c, HTTP_OK, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result post_answer(web_server *s, struct MHD_Connection *c,
                                   const char *body, size_t len) {
  char line[WEB_LINE_MAX], why[WEB_LINE_MAX];
  if (memchr(body, '\0', len) ||
      !web__clean_line(body, len, line, sizeof line, why, sizeof why))
    return send_text(s, c, HTTP_BAD_REQUEST,
                     memchr(body, '\0', len) ? "NUL byte in the answer line"
                                             : why);
  pthread_mutex_lock(&s->mu);
  int k = web__slot_queue(s, line);
  uint64_t id = k >= 0 ? s->slots[k].id : 0;
  bool failed = false;
  char message[WEB_LINE_MAX] = "";
  int done = k >= 0 ? web__slot_wait(s, k, id, s->cfg.answer_wait_ms,
                                     &failed, message, sizeof message)
                    : -1;
  pthread_mutex_unlock(&s->mu);
  if (done < 0)
    return send_text(s, c, HTTP_UNAVAILABLE,
                     "too many answers waiting; try again in a moment");
  if (done == 0) return send_text(s, c, HTTP_ACCEPTED, "queued");
  if (failed) return send_text(s, c, HTTP_UNPROCESSABLE, message);
  return send_text(s, c, HTTP_OK, "ok");
}

static enum MHD_Result get_route(web_server *s, struct MHD_Connection *c,
                                 const char *url) {
  if (!strcmp(url, "/state.json")) return send_published(s, c, false);
  if (!strcmp(url, "/events")) return get_events(s, c);
  if (!strcmp(url, "/frame.jpg")) return send_published(s, c, true);
  const char *path = !strcmp(url, "/") ? "/index.html" : url;
  for (const web__file *f = web__page_files; f->path; f++)
    if (!strcmp(path, f->path))
      return send_bytes(s, c, HTTP_OK, f->content_type, f->data, f->len,
                        BODY_STATIC);
  return send_text(s, c, HTTP_NOT_FOUND, "no such page");
}

/* ---- one request ---- */

/* Per request: the POST body collected so far. */
typedef struct {
  size_t len;
  bool too_big;
  char body[]; /* cfg.max_body bytes */
} request;

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_size, void **req_cls) {
  web_server *s = cls;
  bool post = !strcmp(method, MHD_HTTP_METHOD_POST);
  bool get = !strcmp(method, MHD_HTTP_METHOD_GET) ||
             !strcmp(method, MHD_HTTP_METHOD_HEAD);
  if (!*req_cls) { /* first call: headers only */
    request *r = calloc(1, sizeof *r + s->cfg.max_body);
    if (!r) return MHD_NO;
    *req_cls = r;
    if (!post) return MHD_YES;
    const char *length = MHD_lookup_connection_value(
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length && strtoull(length, NULL, 10) > s->cfg.max_body) {
      r->too_big = true; /* say so at once, do not read it */
      return send_text(s, c, HTTP_TOO_LARGE,
                       "answer too long: one short line please");
    }
    return MHD_YES;
  }
  request *r = *req_cls;
  if (*upload_size) { /* a piece of the body */
    if (!r->too_big && r->len + *upload_size <= s->cfg.max_body) {
      memcpy(r->body + r->len, upload_data, *upload_size);
      r->len += *upload_size;
    } else {
      r->too_big = true;
    }
    *upload_size = 0;
    return MHD_YES;
  }
  if (post && r->too_big)
    return send_text(s, c, HTTP_TOO_LARGE,
                     "answer too long: one short line please");
  bool is_answer = !strcmp(url, "/answer");
  if (post && is_answer) return post_answer(s, c, r->body, r->len);
  if (get && !is_answer) return get_route(s, c, url);
  return send_text(s, c, HTTP_METHOD_NOT_ALLOWED,
                   is_answer ? "POST one answer line to /answer"
                             : "only GET here");
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode why) {
  free(*req_cls);
  *req_cls = NULL;
}

/* ---- the server ---- */

tp_status web_parse_listen(const char *text, web_config *cfg, tp_error *err) {
  const char *colon = strrchr(text, ':');
  const char *port_text = colon ? colon + 1 : text;
  size_t addr_len = colon ? (size_t)(colon - text) : 0;
  char addr[sizeof cfg->address];
  snprintf(addr, sizeof addr, "%s", cfg->address);
  if (addr_len) {
    struct in_addr a;
    char tmp[64];
    if (addr_len >= sizeof tmp) goto bad;
    memcpy(tmp, text, addr_len);
    tmp[addr_len] = '\0';
    if (!strcmp(tmp, "localhost")) snprintf(tmp, sizeof tmp, "127.0.0.1");
    if (inet_pton(AF_INET, tmp, &a) != 1) goto bad;
    snprintf(addr, sizeof addr, "%s", tmp);
  }
  char *end = NULL;
  long port = strtol(port_text, &end, 10);
  if (!*port_text || *end || port < 0 || port > 65535) goto bad;
  snprintf(cfg->address, sizeof cfg->address, "%s", addr);
  cfg->port = (int)port;
  return TP_OK;
bad:
  return tp_error_set(err, TP_ERR_INVALID,
                      "listen address '%s': give ADDR:PORT with an IPv4 "
                      "address, e.g. 0.0.0.0:8080 or 127.0.0.1:0",
                      text);
}

static tp_status check_config(const web_config *cfg, tp_error *err) {
  if (cfg->port < 0 || cfg->port > 65535 || cfg->max_connections < 2 ||
      cfg->max_streams < 1 || cfg->max_body < 16 || cfg->max_queued < 1 ||
      cfg->answer_wait_ms < 0 || cfg->keepalive_ms < 10 ||
      cfg->max_state < 2 || cfg->max_frame < 4)
    return tp_error_set(err, TP_ERR_INVALID,
                        "web: a setting is out of range (port 0..65535, at "
                        "least 2 connections, 1 stream, 16 body bytes)");
  return TP_OK;
}

static tp_status start_daemon(web_server *s, tp_error *err) {
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)s->cfg.port);
  if (inet_pton(AF_INET, s->cfg.address, &sa.sin_addr) != 1)
    return tp_error_set(err, TP_ERR_INVALID,
                        "web: '%s' is not an IPv4 address", s->cfg.address);
  s->daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
      (uint16_t)s->cfg.port, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
      (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT,
      (unsigned)s->cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)60, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
      MHD_OPTION_END);
  if (!s->daemon)
    return tp_error_set(err, TP_ERR_IO,
                        "web: cannot listen on %s:%d (port in use, or not an "
                        "address of this machine); try another --port",
                        s->cfg.address, s->cfg.port);
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : s->cfg.port;
  return TP_OK;
}

tp_status web_create(const web_config *cfg, web_server **out, tp_error *err) {
  *out = NULL;
  tp_status st = check_config(cfg, err);
  if (st != TP_OK) return st;
  web_server *s = calloc(1, sizeof *s);
  if (s) s->slots = calloc((size_t)cfg->max_queued, sizeof *s->slots);
  if (!s || !s->slots) {
    free(s);
    return tp_error_set(err, TP_ERR_NOMEM, "web: out of memory");
  }
  s->cfg = *cfg;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* web__deadline */
  pthread_cond_init(&s->changed, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&s->mu, NULL);
  if ((st = start_daemon(s, err)) != TP_OK) {
    web_destroy(s);
    return st;
  }
  *out = s;
  return TP_OK;
}

void web_destroy(web_server *s) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->stopping = true; /* streams end, waiting answers give up */
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->mu);
  if (s->daemon) MHD_stop_daemon(s->daemon);
  pthread_cond_destroy(&s->changed);
  pthread_mutex_destroy(&s->mu);
  free(s->state);
  free(s->frame);
  free(s->slots);
  free(s);
}

int web_port(const web_server *s) { return s->port; }
