/* web hub: what the owner pushes (state, frame), the answers it polls, and
 * the one mutex that keeps the server's threads and the owner apart. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "web_internal.h"

void web_config_default(web_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->address, sizeof cfg->address, "0.0.0.0");
  cfg->port = 8080;
  cfg->max_connections = 32;
  cfg->max_streams = 16;
  cfg->max_body = 1024;
  cfg->max_state = 1u << 20;
  cfg->max_frame = 16u << 20;
  cfg->max_queued = 32;
  cfg->answer_wait_ms = 3000;
  cfg->keepalive_ms = 15000;
}

/* A NUL-terminated copy of len bytes (NULL: out of memory). */
static char *copy_bytes(const void *src, size_t len) {
  char *copy = malloc(len + 1);
  if (copy) {
    memcpy(copy, src, len);
    copy[len] = '\0';
  }
  return copy;
}

tp_status web_publish_state(web_server *s, const char *json, size_t len,
                            tp_error *err) {
  if (!json || len == 0 || len > s->cfg.max_state)
    return tp_error_set(err, TP_ERR_INVALID,
                        "web: state of %zu bytes (1..%zu allowed)", len,
                        s->cfg.max_state);
  char *copy = copy_bytes(json, len);
  if (!copy) return tp_error_set(err, TP_ERR_NOMEM, "web: out of memory");
  pthread_mutex_lock(&s->mu);
  char *old = s->state;
  s->state = copy;
  s->state_len = len;
  s->state_version++;
  pthread_cond_broadcast(&s->changed); /* wakes the /events streams */
  pthread_mutex_unlock(&s->mu);
  free(old);
  return TP_OK;
}

tp_status web_publish_frame(web_server *s, const uint8_t *jpeg, size_t len,
                            tp_error *err) {
  if (!jpeg || len < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8)
    return tp_error_set(err, TP_ERR_INVALID,
                        "web: the frame is not a JPEG (no FF D8 start)");
  if (len > s->cfg.max_frame)
    return tp_error_set(err, TP_ERR_INVALID,
                        "web: frame of %zu bytes, at most %zu allowed", len,
                        s->cfg.max_frame);
  uint8_t *copy = (uint8_t *)copy_bytes(jpeg, len);
  if (!copy) return tp_error_set(err, TP_ERR_NOMEM, "web: out of memory");
  pthread_mutex_lock(&s->mu);
  uint8_t *old = s->frame;
  s->frame = copy;
  s->frame_len = len;
  s->frame_version++;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->mu);
  free(old);
  return TP_OK;
}

/* ---- the answer queue ---- */

int web__slot_queue(web_server *s, const char *line) {
  for (int k = 0; k < s->cfg.max_queued; k++) {
    web__slot *sl = &s->slots[k];
    if (sl->state != WEB__SLOT_FREE) continue;
    memset(sl, 0, sizeof *sl);
    sl->state = WEB__SLOT_QUEUED;
    sl->id = ++s->next_id;
    snprintf(sl->line, sizeof sl->line, "%s", line);
    s->stats.answers++;
    return k;
  }
  return -1;
}

bool web_poll_answer(web_server *s, web_answer *out) {
  pthread_mutex_lock(&s->mu);
  int best = -1;
  for (int k = 0; k < s->cfg.max_queued; k++)
    if (s->slots[k].state == WEB__SLOT_QUEUED &&
        (best < 0 || s->slots[k].id < s->slots[best].id))
      best = k; /* the oldest first: answers keep their order */
  if (best >= 0) {
    s->slots[best].state = WEB__SLOT_TAKEN;
    out->id = s->slots[best].id;
    memcpy(out->line, s->slots[best].line, sizeof out->line);
  }
  pthread_mutex_unlock(&s->mu);
  return best >= 0;
}

void web_answer_done(web_server *s, uint64_t id, const char *error) {
  pthread_mutex_lock(&s->mu);
  for (int k = 0; k < s->cfg.max_queued; k++) {
    web__slot *sl = &s->slots[k];
    if (sl->state != WEB__SLOT_TAKEN || sl->id != id) continue;
    if (sl->abandoned) {
      sl->state = WEB__SLOT_FREE; /* nobody waits for the verdict */
    } else {
      sl->state = WEB__SLOT_DONE;
      sl->failed = error != NULL;
      snprintf(sl->message, sizeof sl->message, "%s", error ? error : "");
      pthread_cond_broadcast(&s->changed);
    }
    break;
  }
  pthread_mutex_unlock(&s->mu);
}

int web__slot_wait(web_server *s, int k, uint64_t id, int wait_ms,
                   bool *failed, char *message, size_t cap) {
  struct timespec deadline;
  web__deadline(&deadline, wait_ms);
  web__slot *sl = &s->slots[k];
  while (sl->id == id && sl->state != WEB__SLOT_DONE && !s->stopping)
    if (!web__wait_until(s, &deadline)) break;
  if (sl->id == id && sl->state == WEB__SLOT_DONE) {
    *failed = sl->failed;
    snprintf(message, cap, "%s", sl->message);
    sl->state = WEB__SLOT_FREE;
    return 1;
  }
  sl->abandoned = true; /* still the owner's to take and decide */
  return 0;
}

void web_get_stats(web_server *s, web_stats *out) {
  pthread_mutex_lock(&s->mu);
  *out = s->stats;
  pthread_mutex_unlock(&s->mu);
}

/* ---- waiting ---- */

void web__deadline(struct timespec *ts, int ms) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec++;
    ts->tv_nsec -= 1000000000L;
  }
}

bool web__wait_until(web_server *s, const struct timespec *deadline) {
  return pthread_cond_timedwait(&s->changed, &s->mu, deadline) != ETIMEDOUT;
}

/* ---- answer lines ---- */

bool web__clean_line(const char *body, size_t len, char *line, size_t cap,
                     char *why, size_t why_cap) {
  size_t a = 0, b = len;
  while (a < b && (body[a] == ' ' || body[a] == '\t')) a++;
  while (b > a && (body[b - 1] == ' ' || body[b - 1] == '\t' ||
                   body[b - 1] == '\n' || body[b - 1] == '\r'))
    b--;
  if (a == b) {
    snprintf(why, why_cap, "empty answer: send one line such as "
                           "'reveal anna=7 ben=3'");
    return false;
  }
  if (b - a >= cap) {
    snprintf(why, why_cap, "answer line of %zu bytes, at most %zu", b - a,
             cap - 1);
    return false;
  }
  for (size_t i = a; i < b; i++) {
    unsigned char c = (unsigned char)body[i];
    if (c == '\n' || c == '\r') {
      snprintf(why, why_cap, "one answer line at a time, not several");
      return false;
    }
    if (c < 0x20 || c == 0x7f) {
      snprintf(why, why_cap, "control character 0x%02x in the answer line",
               c);
      return false;
    }
  }
  memcpy(line, body + a, b - a);
  line[b - a] = '\0';
  return true;
}
