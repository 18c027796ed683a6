/* ftreport: what `teppich score` prints for a game transcript. Prefix ftr_.
 * Replays the transcript through the rules core (rules/ft) and renders
 * every flight, contest, round end and the final table, as text for
 * people or as JSON (docs/transcript.md describes both). */
#ifndef TEPPICH_FTREPORT_H
#define TEPPICH_FTREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "ft.h"

typedef enum { FTR_TEXT, FTR_JSON } ftr_format;

/* Replays `text` (named `name` in errors) under `rules` (NULL: defaults)
 * and returns the whole report in *out (malloc'd, NUL-terminated; free
 * it). A bad transcript: TP_ERR_FORMAT/INVALID/UNSUPPORTED with
 * "NAME: line N: problem" and *out NULL: nothing half-printed. */
tp_status ftr_score(const ft_rules *rules, const char *name, const char *text,
                    size_t len, ftr_format format, char **out, tp_error *err);

/* Internal: the JSON renderer (ftreport_json.c). */
tp_status ftr__score_json(ft_transcript *t, const char *name, char **out,
                          tp_error *err);

#endif
