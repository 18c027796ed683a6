/* webdemo: a made-up game in the middle of round 2 for `teppich web
 * --demo`, so the page can be seen (and answered) without a camera.
 * Prefix wdemo_. Four players; the last flight ended in a genie contest
 * on the camel bazaar between anna and ben that waits for its reveal.
 * Answers are checked as the live controller checks them (right question,
 * right players, genies they hold) and change the state. */
#ifndef TEPPICH_WEBDEMO_H
#define TEPPICH_WEBDEMO_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wdemo wdemo;

tp_status wdemo_create(wdemo **out, tp_error *err);
void wdemo_destroy(wdemo *d); /* NULL-safe */

/* The state as the page reads it (docs/web.md), malloc'd, one line. */
char *wdemo_state_json(const wdemo *d);

/* An answer line (`reveal anna=8 ben=7`; the first word may be left out).
 * TP_ERR_INVALID with the reason when it does not fit; nothing changes. */
tp_status wdemo_answer(wdemo *d, const char *line, tp_error *err);

/* A drawn picture of the table (annotated like the live frames), as a
 * malloc'd JPEG. */
tp_status wdemo_frame_jpeg(const wdemo *d, uint8_t **jpeg, size_t *len,
                           tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
