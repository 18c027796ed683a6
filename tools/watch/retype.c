/* watch retype: a layout card whose type was only guessed (no frame of
 * the layout was sure of it) that a later frame reads surely as another
 * type is retyped. The rules know the card by the layout line, so the
 * line is rewritten and the game rebuilt from the transcript; the change
 * is refused (the old type kept) when the rules reject the rebuilt game
 * or its phase, round or flight would not be the same. The transcript is
 * rewritten whole in one write (as a correction is: temporary file,
 * fsync, rename), so a kill leaves the old record or the new one, and
 * `teppich score` and --resume read the card as retyped. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

/* Where " ID=" of the round's layout (the last layout line) starts in the
 * transcript, where its type name ends (*name_end) and where the entry
 * ends (*to: after its "@X,Y" when it has one); false when not found. */
static bool find_layout_card(const char *log, size_t len, int id,
                             size_t *from, size_t *name_end, size_t *to) {
  const char *line = NULL;
  for (const char *p = log; p && p < log + len; p = strchr(p, '\n')) {
    if (*p == '\n') p++;
    if (!strncmp(p, "layout ", 7)) line = p;
  }
  if (!line) return false;
  const char *end = strchr(line, '\n');
  if (!end) end = log + len;
  char key[24];
  int n = snprintf(key, sizeof key, " %d=", id);
  for (const char *p = line; p && p < end; p = strstr(p + 1, key)) {
    if (strncmp(p, key, (size_t)n)) continue;
    const char *name = p + n, *entry = p + n;
    while (name < end && *name != '@' && *name != ' ' && *name != '\r' &&
           *name != '#')
      name++;
    entry = name;
    while (entry < end && *entry != ' ' && *entry != '\r' && *entry != '#')
      entry++;
    *from = (size_t)(p - log);
    *name_end = (size_t)(name - log);
    *to = (size_t)(entry - log);
    return true;
  }
  return false;
}

/* The game a transcript text replays to (NULL, with the reason in
 * `why`, when the rules reject a line). */
static ft_game *replay(const wch *w, const char *text, size_t len,
                       tp_error *why) {
  ft_transcript *t;
  if (ft_transcript_open(&w->rules, "transcript", text, len, 0, &t, why) !=
      TP_OK)
    return NULL;
  ft_event *ev = malloc(sizeof *ev);
  tp_status st = ev ? TP_OK : tp_error_set(why, TP_ERR_NOMEM, "out of memory");
  while (st == TP_OK) {
    st = ft_transcript_next(t, ev, why);
    if (st == TP_OK && ev->kind == FT_EV_END) break;
  }
  ft_game *g = st == TP_OK && ft_transcript_game(t)
                   ? ft_game_clone(ft_transcript_game(t)) : NULL;
  if (st == TP_OK && !g) tp_error_set(why, TP_ERR_NOMEM, "out of memory");
  free(ev);
  ft_transcript_close(t);
  return g;
}

/* The same phase, round and flight, with the same cards on the table. */
static bool same_stage(const ft_game *a, const ft_game *b) {
  ft_card ca[FT_MAX_CARDS], cb[FT_MAX_CARDS];
  int n = ft_game_table(a, ca);
  if (ft_game_phase(a) != ft_game_phase(b) ||
      ft_game_round(a) != ft_game_round(b) ||
      ft_game_flight_number(a) != ft_game_flight_number(b) ||
      ft_game_table(b, cb) != n)
    return false;
  for (int k = 0; k < n; k++)
    if (ca[k].id != cb[k].id) return false;
  return true;
}

/* The rewritten transcript and the games it gives, now and before the
 * last flight (NULL when there is none to keep). */
typedef struct {
  char *text;
  size_t len;
  ptrdiff_t shift; /* how far the lines after the layout's card moved */
  size_t card_at;  /* where the card's entry starts */
  ft_game *game, *before;
} retyped;

static void retyped_free(retyped *r) {
  free(r->text);
  ft_game_destroy(r->game);
  ft_game_destroy(r->before);
}

/* The transcript with card c as `type` in the round's layout line, with
 * its place when the line has none (a card unseen at the layout, seen
 * now), and a comment that says so at its end. */
static bool rewrite_text(const wch *w, const wch__card *c, int type,
                         retyped *r, tp_error *why) {
  size_t from, name_end, to;
  int id = c->id;
  if (!find_layout_card(w->log, w->log_len, id, &from, &name_end, &to)) {
    tp_error_set(why, TP_ERR_INVALID, "card %d is not in the layout line", id);
    return false;
  }
  char entry[96], note[160];
  int n_entry = snprintf(entry, sizeof entry, " %d=%s", id,
                         ft_card_type_name(type));
  if (to > name_end) /* its place, as laid out */
    n_entry += snprintf(entry + n_entry, sizeof entry - (size_t)n_entry,
                        "%.*s", (int)(to - name_end), w->log + name_end);
  else if (!c->unseen)
    n_entry += snprintf(entry + n_entry, sizeof entry - (size_t)n_entry,
                        "@%.1f,%.1f", c->x, c->y);
  int n_note = type != c->type
      ? snprintf(note, sizeof note, "# watch retyped card=%d %s->%s "
                 "frame=%lld\n", id, ft_card_type_name(c->type),
                 ft_card_type_name(type), (long long)w->frame)
      : snprintf(note, sizeof note, "# watch placed card=%d frame=%lld\n",
                 id, (long long)w->frame);
  r->len = w->log_len - (to - from) + (size_t)n_entry + (size_t)n_note;
  r->text = malloc(r->len + 1);
  if (!r->text) {
    tp_error_set(why, TP_ERR_NOMEM, "out of memory");
    return false;
  }
  memcpy(r->text, w->log, from);
  memcpy(r->text + from, entry, (size_t)n_entry);
  memcpy(r->text + from + n_entry, w->log + to, w->log_len - to);
  memcpy(r->text + r->len - n_note, note, (size_t)n_note + 1);
  r->shift = (ptrdiff_t)n_entry - (ptrdiff_t)(to - from);
  r->card_at = from;
  return true;
}

/* Replays the rewritten text: the game now must be at the same phase,
 * round and flight as the game followed so far (and so must the old
 * text's: else the record and the state differ, and nothing is rebuilt
 * from it). */
static bool rebuild_games(const wch *w, retyped *r, tp_error *why) {
  ft_game *old = replay(w, w->log, w->log_len, why);
  bool same = old && same_stage(old, w->game);
  ft_game_destroy(old);
  if (!same) {
    if (old) tp_error_set(why, TP_ERR_INVALID, "the transcript does not "
                          "give the game followed");
    return false;
  }
  r->game = replay(w, r->text, r->len, why);
  if (!r->game) return false;
  if (!same_stage(r->game, w->game)) {
    tp_error_set(why, TP_ERR_INVALID, "the game would be at another phase, "
                 "round or flight");
    return false;
  }
  bool keep_before = w->have_flight && w->before_flight &&
                     w->log_before > r->card_at;
  if (!keep_before) return true;
  size_t upto = (size_t)((ptrdiff_t)w->log_before + r->shift);
  r->before = replay(w, r->text, upto, why);
  return r->before && same_stage(r->before, w->before_flight);
}

static void set_type(wch__card *cards, int n, int id, int type) {
  for (int k = 0; k < n; k++)
    if (cards[k].id == id) cards[k].type = type, cards[k].type_guessed = false;
}

/* Takes the rebuilt games and writes the transcript in one rewrite. */
static tp_status take_retyped(wch *w, int id, int type, retyped *r,
                              tp_error *err) {
  ft_game_destroy(w->game);
  w->game = r->game;
  r->game = NULL;
  if (r->before) {
    ft_game_destroy(w->before_flight);
    w->before_flight = r->before;
    r->before = NULL;
    w->log_before = (size_t)((ptrdiff_t)w->log_before + r->shift);
  }
  set_type(w->ref, w->n_ref, id, type);
  set_type(w->ref_before, w->n_ref_before, id, type);
  wch__cut(w, 0);
  tp_status st = wch__append(w, r->text, err);
  return wch__commit(w, st, err);
}

static void retype_event(wch *w, int id, int from, int to) {
  char json[320];
  snprintf(json, sizeof json,
           "{\"event\": \"correction\", \"action\": \"retype\", \"round\": %d, "
           "\"frame\": %lld, \"card\": %d, \"from\": \"%s\", \"to\": \"%s\"}",
           ft_game_round(w->game), (long long)w->frame, id,
           ft_card_type_name(from), ft_card_type_name(to));
  wch__event(w, json);
}

/* The round's layout line rewritten with card k as `type` (and its place
 * when the line has none); false (why) when the game cannot take it. */
static bool relayout(wch *w, int k, int type, tp_status *st, tp_error *why,
                     tp_error *err) {
  retyped r = {0};
  *st = TP_OK;
  bool ok = rewrite_text(w, &w->ref[k], type, &r, why) &&
            rebuild_games(w, &r, why);
  if (ok) *st = take_retyped(w, w->ref[k].id, type, &r, err);
  retyped_free(&r);
  return ok;
}

tp_status wch__retype_card(wch *w, int k, int type, tp_error *err) {
  wch__card *c = &w->ref[k];
  int id = c->id, old = c->type;
  if (w->layout_pending) { /* not given to the rules yet */
    c->type = type;
    c->type_guessed = false;
    return TP_OK;
  }
  tp_status st;
  tp_error why = {{0}};
  if (relayout(w, k, type, &st, &why, err)) {
    if (st != TP_OK || type == old) return st;
    retype_event(w, id, old, type);
    wch__say(w, WCH_SAY_INFO, "Correction: card %d is %s, not %s (it was only "
             "guessed at the layout).", id, wch__card_label(type),
             wch__card_label(old));
    return TP_OK;
  }
  if (type == old) return TP_OK; /* the place stays unwritten */
  c->retype_refused |= 1u << type;
  wch__warn(w, "layout_retype_refused", "Card %d looks like %s now, not %s "
            "as it was guessed at the layout, but the game cannot take "
            "that (%s): it stays %s.", id, wch__card_label(type),
            wch__card_label(old), why.text, wch__card_label(old));
  return wch__place_card(w, k, err);
}

tp_status wch__place_card(wch *w, int k, tp_error *err) {
  size_t from, name_end, to;
  const wch__card *c = &w->ref[k];
  if (w->layout_pending || c->unseen ||
      !find_layout_card(w->log, w->log_len, c->id, &from, &name_end, &to) ||
      to > name_end) /* placed already */
    return TP_OK;
  tp_status st;
  tp_error why;
  relayout(w, k, c->type, &st, &why, err);
  return st;
}
