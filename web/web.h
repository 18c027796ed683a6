/* web: the game's web page for the players' phones. Prefix web_.
 *
 * A small HTTP server (libmicrohttpd, its own threads) that serves a page
 * built into the binary and knows nothing about the game: its owner (the
 * single-threaded `teppich watch` loop, or `teppich web --demo`) PUSHES a
 * snapshot of the state (a JSON object, see docs/web.md for the fields the
 * page shows) and the latest JPEG frame, and POLLS the answer lines people
 * send from their phones:
 *
 *   web_config cfg; web_config_default(&cfg);      // 0.0.0.0:8080
 *   web_server *s; web_create(&cfg, &s, &err);
 *   loop:
 *     web_publish_state(s, json, strlen(json), &err);  // after each change
 *     web_publish_frame(s, jpeg, jpeg_len, &err);      // now and then
 *     web_answer a;
 *     while (web_poll_answer(s, &a)) {                 // never blocks
 *       tp_status st = wch_answer(w, a.line, &e);      // or a command
 *       web_answer_done(s, a.id, st == TP_OK ? NULL : e.text);
 *     }
 *   web_destroy(s);
 *
 * Threads: every web_ function may be called from any one owner thread
 * while the server's threads run; the module copies what it is given and
 * guards its snapshot and queue with one mutex of its own. No callback into
 * the owner is ever made from a server thread.
 *
 * Endpoints:
 *   GET  /            the page (also /app.js, /style.css)
 *   GET  /state.json  the last published state (503 before the first)
 *   GET  /events      Server-Sent Events: `event: state` with the state
 *                     JSON whenever it changes, `event: frame` with the
 *                     frame number when a new frame is published
 *   GET  /frame.jpg   the last published JPEG (404 before the first)
 *   POST /answer      one answer line (text/plain, as spec section 6
 *                     --answers: `reveal anna=7 ben=3`). The request waits
 *                     up to answer_wait_ms for the owner's web_answer_done:
 *                     200 `ok`, 422 with the owner's message, or 202
 *                     `queued` when the owner did not decide in time.
 * Bad requests get 4xx (400 bad line, 404, 405, 413 body too large, 503
 * queue full / too many event streams), never a crash. */
#ifndef TEPPICH_WEB_H
#define TEPPICH_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WEB_LINE_MAX = 512 }; /* longest answer line, with its NUL */

typedef struct {
  char address[64];         /* IPv4 address to bind ("0.0.0.0": every
                               interface, for the phones on the LAN) */
  int port;                 /* 8080; 0 = any free port (see web_port) */
  unsigned max_connections; /* open connections at once (32); each is a
                               thread: more costs memory on a Pi */
  unsigned max_streams;     /* of them /events streams (16), so that the
                               page's other requests still get through */
  size_t max_body;          /* largest POST body in bytes (1024) */
  size_t max_state;         /* largest state JSON accepted (1 MiB) */
  size_t max_frame;         /* largest JPEG accepted (16 MiB) */
  int max_queued;           /* answers waiting for the owner (32) */
  int answer_wait_ms;       /* how long POST /answer waits for the
                               owner's verdict before 202 (3000) */
  int keepalive_ms;         /* /events comment every so often (15000), so
                               phones and proxies keep the stream open */
} web_config;

void web_config_default(web_config *cfg);

/* Parses "ADDR:PORT", ":PORT" or "PORT" (ADDR an IPv4 address or
 * "localhost") into cfg->address / cfg->port. TP_ERR_INVALID naming the
 * text otherwise; cfg is unchanged then. */
tp_status web_parse_listen(const char *text, web_config *cfg, tp_error *err);

typedef struct web_server web_server;

/* Starts serving. TP_ERR_IO when the address cannot be bound (in use,
 * not this machine's), naming it. */
tp_status web_create(const web_config *cfg, web_server **out, tp_error *err);
/* Stops the server: ends the event streams, waits for its threads. An
 * answer still waiting gets 202. NULL-safe. */
void web_destroy(web_server *s);

/* The port actually bound (useful with port 0). */
int web_port(const web_server *s);

/* Replaces the state snapshot (copied) and tells every /events stream.
 * json should be one JSON object; it is served as it is (not parsed).
 * TP_ERR_INVALID when longer than max_state. */
tp_status web_publish_state(web_server *s, const char *json, size_t len,
                            tp_error *err);

/* Replaces the frame (copied; a JPEG starting FF D8) and tells every
 * /events stream. TP_ERR_INVALID when not a JPEG or too large. */
tp_status web_publish_frame(web_server *s, const uint8_t *jpeg, size_t len,
                            tp_error *err);

/* One answer line from a phone: printable, one line, no newline. */
typedef struct {
  uint64_t id; /* for web_answer_done */
  char line[WEB_LINE_MAX];
} web_answer;

/* Takes the oldest answer line waiting (false: none). Never blocks. */
bool web_poll_answer(web_server *s, web_answer *out);

/* The owner's verdict on answer `id`: error NULL = taken, else a one-line
 * message saying what is wrong (sent back to the phone with 422). Unknown
 * or late ids are ignored. */
void web_answer_done(web_server *s, uint64_t id, const char *error);

/* Counters since web_create, for the report and tests. */
typedef struct {
  uint64_t requests;   /* requests answered */
  uint64_t rejected;   /* of them with 4xx/5xx */
  uint64_t answers;    /* answer lines queued */
  uint64_t streams;    /* /events streams opened */
} web_stats;

void web_get_stats(web_server *s, web_stats *out);

#ifdef __cplusplus
}
#endif
#endif
