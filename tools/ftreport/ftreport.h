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

/* Internal: one walk over the replayed game feeds both reports. An
 * emitter has one handler per event (ctx is the emitter's own state); the
 * walker sets *game to the game being replayed before each handler runs.
 * Returns what ft_transcript_next returned (TP_OK at the end). */
typedef struct {
  void (*players)(void *ctx);
  void (*genies)(void *ctx);
  void (*layout)(void *ctx);
  void (*flight)(void *ctx, const ft_flight_report *f);
  void (*contest)(void *ctx, const ft_contest_result *r);
  void (*round_end)(void *ctx, const ft_round_report *r);
  void (*final)(void *ctx, const ft_final *f);
} ftr__emitter;

tp_status ftr__walk(ft_transcript *t, const ftr__emitter *e, void *ctx,
                    const ft_game **game, tp_error *err);

/* Internal: the JSON report (ftreport_json.c). */
tp_status ftr__score_json(ft_transcript *t, const char *name, char **out,
                          tp_error *err);

#endif
