/* web internals: the server's shared state, guarded by one mutex. */
#ifndef TEPPICH_WEB_INTERNAL_H
#define TEPPICH_WEB_INTERNAL_H

#include <pthread.h>

#include "web.h"

/* A file of the page, embedded at build time (web/page/, embed.cmake). */
typedef struct {
  const char *path; /* "/app.js" */
  const char *content_type;
  const unsigned char *data;
  size_t len;
} web__file;

extern const web__file web__page_files[]; /* ends with path NULL */

/* One answer line on its way from a phone to the owner and back. */
typedef enum {
  WEB__SLOT_FREE,
  WEB__SLOT_QUEUED, /* waiting for web_poll_answer */
  WEB__SLOT_TAKEN,  /* the owner has it, waiting for web_answer_done */
  WEB__SLOT_DONE    /* verdict ready for the waiting request */
} web__slot_state;

typedef struct {
  web__slot_state state;
  bool abandoned; /* the request gave up waiting (202): free when done */
  uint64_t id;
  char line[WEB_LINE_MAX];
  bool failed;
  char message[WEB_LINE_MAX];
} web__slot;

struct web_server {
  web_config cfg;
  struct MHD_Daemon *daemon;
  int port;

  pthread_mutex_t mu; /* guards everything below */
  pthread_cond_t changed; /* state, frame, verdicts, stopping */
  bool stopping;
  char *state;
  size_t state_len;
  uint64_t state_version; /* 0: nothing published yet */
  uint8_t *frame;
  size_t frame_len;
  uint64_t frame_version;
  web__slot *slots; /* cfg.max_queued */
  uint64_t next_id;
  unsigned streams; /* /events streams open */
  web_stats stats;
};

/* hub.c: waiting with a deadline on s->changed (CLOCK_MONOTONIC). */
void web__deadline(struct timespec *ts, int ms);
/* false when the deadline passed. Call with s->mu held. */
bool web__wait_until(web_server *s, const struct timespec *deadline);

/* hub.c: the answer queue, all with s->mu held. */
int web__slot_queue(web_server *s, const char *line); /* -1: full */
/* Waits for the verdict on slot k until the deadline: 1 done (copies the
 * message, empty = ok), 0 still waiting (slot handed over to the owner). */
int web__slot_wait(web_server *s, int k, uint64_t id, int wait_ms,
                   bool *failed, char *message, size_t cap);

/* events.c: the /events stream response. NULL when out of memory. */
struct MHD_Response *web__events_response(web_server *s);

/* answer.c: checks and cleans one POSTed answer body into line; false
 * with a reason in why. */
bool web__clean_line(const char *body, size_t len, char *line, size_t cap,
                     char *why, size_t why_cap);

#endif
