/* watch resume: continue a game from its transcript after a crash, a kill
 * or a power cut. The rules replay the transcript; the `# watch` comments
 * written with it give what the rules do not keep (card angles, the frame
 * of the last decision, how many answers were used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

/* "# watch poses 3@12.5 4@90.0" and "# watch frame=N answers=K" */
static void read_comment(wch *w, const char *line, size_t n) {
  char buf[2048];
  if (n >= sizeof buf) return;
  memcpy(buf, line, n);
  buf[n] = '\0';
  long long frame;
  int answers;
  if (sscanf(buf, "# watch frame=%lld answers=%d", &frame, &answers) == 2) {
    w->resume_frame = frame;
    w->answers_used = answers;
    return;
  }
  if (strncmp(buf, "# watch poses", 13)) return;
  for (char *tok = strtok(buf + 13, " "); tok; tok = strtok(NULL, " ")) {
    int id;
    double angle;
    if (sscanf(tok, "%d@%lf", &id, &angle) != 2) continue;
    for (int k = 0; k < w->n_ref; k++)
      if (w->ref[k].id == id) w->ref[k].angle = angle;
  }
}

/* Comments of the lines [from, to) of the text. */
static void read_comments(wch *w, const char *text, size_t from, size_t to) {
  while (from < to) {
    const char *nl = memchr(text + from, '\n', to - from);
    size_t end = nl ? (size_t)(nl - text) : to;
    if (!strncmp(text + from, "# watch", 7)) read_comment(w, text + from,
                                                          end - from);
    from = end + 1;
  }
}

static void set_ref_from_game(wch *w) {
  ft_card cards[FT_MAX_CARDS];
  int n = ft_game_table(w->game, cards);
  w->n_ref = n;
  for (int k = 0; k < n; k++) {
    w->ref[k] = (wch__card){.id = cards[k].id, .type = cards[k].type,
                            .x = cards[k].has_pos ? cards[k].x_mm : -1e4,
                            .y = cards[k].has_pos ? cards[k].y_mm : -1e4,
                            .angle = 90, .unseen = !cards[k].has_pos};
    if (cards[k].id >= w->next_id) w->next_id = cards[k].id + 1;
  }
  w->n_ghost = 0;
}

static tp_status take_game(wch *w, const ft_transcript *t, tp_error *err) {
  ft_game *g = ft_game_clone(ft_transcript_game(t));
  if (!g) return tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  ft_game_destroy(w->game);
  w->game = g;
  return TP_OK;
}

/* The landings of a flight line ("flight red=3,4 blue=-"; checked by the
 * rules already), for the second look after a resume and for `give`. */
static void read_landings(wch *w, const char *line, size_t n) {
  w->landings.n = 0;
  memset(w->landings.unsure, 0, sizeof w->landings.unsure);
  if (n < 6 || strncmp(line, "flight", 6)) return;
  size_t i = 6;
  while (i < n && w->landings.n < FT_MAX_CARPETS) {
    while (i < n && (line[i] == ' ' || line[i] == '\r')) i++;
    size_t from = i;
    while (i < n && line[i] != '=' && line[i] != ' ') i++;
    if (i >= n || line[i] != '=' || i - from >= FT_NAME_MAX) break;
    int k = w->landings.n++;
    snprintf(w->landings.colour[k], FT_NAME_MAX, "%.*s", (int)(i - from),
             line + from);
    w->landings.n_cards[k] = 0;
    for (i++; i < n && line[i] != ' ' && line[i] != '\r'; i++) {
      if (line[i] < '0' || line[i] > '9') continue; /* '-' or ',' */
      int id = 0;
      while (i < n && line[i] >= '0' && line[i] <= '9' && id < 1000)
        id = id * 10 + (line[i++] - '0');
      if (id < FT_DECK_SIZE && w->landings.n_cards[k] < FT_MAX_CARDS)
        w->landings.cards[k][w->landings.n_cards[k]++] = id;
      i--;
    }
  }
}

/* Feeds one transcript event into the controller's own state. */
static tp_status apply_event(wch *w, const ft_transcript *t,
                             const ft_event *ev, ft_game **prev,
                             const char *line, size_t line_len,
                             size_t line_start, tp_error *err) {
  tp_status st = take_game(w, t, err);
  if (st != TP_OK) return st;
  switch (ev->kind) {
  case FT_EV_LAYOUT:
    set_ref_from_game(w);
    w->have_flight = false;
    break;
  case FT_EV_FLIGHT:
    /* the game before this flight, for undo / give after the resume */
    ft_game_destroy(w->before_flight);
    w->before_flight = *prev;
    *prev = NULL;
    w->n_ref_before = w->n_ref;
    memcpy(w->ref_before, w->ref, sizeof w->ref);
    w->n_ghost_before = 0;
    w->log_before = line_start;
    read_landings(w, line, line_len);
    w->report = ev->flight;
    w->have_flight = true;
    w->flights_total++;
    w->n_results = w->n_reveals = 0;
    for (int p = 0; p < w->players.n_players; p++)
      for (int k = 0; k < ev->flight.n_claimed[p]; k++)
        wch__ref_to_ghost(w, ev->flight.claimed[p][k], p);
    break;
  case FT_EV_CONTEST:
    if (w->n_results >= 0 && w->n_results < FT_MAX_CARDS)
      w->results[w->n_results++] = ev->contest;
    wch__ref_to_ghost(w, ev->contest.card, ev->contest.winner);
    break;
  case FT_EV_ROUND_END:
    w->have_flight = false;
    w->n_ref = 0;
    break;
  default:
    break;
  }
  if (ev->kind != FT_EV_FLIGHT) {
    ft_game_destroy(*prev);
    *prev = NULL;
  }
  *prev = ft_game_clone(w->game);
  return *prev ? TP_OK
               : tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
}

static void set_stage(wch *w, ft_event_kind last) {
  switch (ft_game_phase(w->game)) {
  case FT_PHASE_GENIES:
    w->stage = WCH_WAIT_GENIES;
    break;
  case FT_PHASE_LAYOUT:
    w->stage = WCH_WAIT_LAYOUT;
    break;
  case FT_PHASE_FLIGHT:
    w->stage = last == FT_EV_FLIGHT || last == FT_EV_CONTEST ? WCH_WAIT_TAKING
                                                              : WCH_WAIT_THROWS;
    break;
  case FT_PHASE_CONTEST:
    w->stage = WCH_WAIT_ANSWER;
    break;
  case FT_PHASE_LAMPS: /* after the round's last flight: its taking first */
    w->stage = w->have_flight ? WCH_WAIT_TAKING : WCH_WAIT_ANSWER;
    break;
  case FT_PHASE_OVER:
    w->stage = WCH_GAME_OVER;
    break;
  }
  if (w->stage == WCH_WAIT_TAKING || w->stage == WCH_WAIT_ANSWER)
    w->n_results = w->have_flight ? w->n_results : -1;
  w->n_landed = 0;
  w->n_track = 0;
  w->layout_frames = 0;
}

static bool same_players(const ft_players *a, const ft_players *b) {
  char sa[1024], sb[1024];
  ft_players_format(a, sa, sizeof sa);
  ft_players_format(b, sb, sizeof sb);
  return !strcmp(sa, sb);
}

tp_status wch_resume(wch *w, const char *name, const char *text, size_t len,
                     size_t *good_bytes, tp_error *err) {
  /* every line is written whole with its newline: anything after the last
   * newline was cut off while being written */
  while (len > 0 && text[len - 1] != '\n') len--;
  ft_transcript *t;
  tp_status st = ft_transcript_open(&w->rules, name, text, len,
                                    FT_TRANSCRIPT_ALLOW_TRUNCATED, &t, err);
  if (st != TP_OK) return st;
  w->replaying = true;
  ft_game *prev = NULL;
  ft_event *ev = malloc(sizeof *ev);
  ft_event_kind last = FT_EV_END;
  size_t done = 0;
  bool players_ok = false;
  if (!ev) st = tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
  while (st == TP_OK) {
    st = ft_transcript_next(t, ev, err);
    if (st != TP_OK || ev->kind == FT_EV_END) break;
    size_t upto = ft_transcript_good_bytes(t);
    /* where the event's own line starts; the comments before it belong
     * to the event before */
    size_t line_start = upto;
    if (line_start > done && text[line_start - 1] == '\n') line_start--;
    while (line_start > done && text[line_start - 1] != '\n') line_start--;
    read_comments(w, text, done, line_start);
    if (ev->kind == FT_EV_PLAYERS) {
      if (!same_players(ft_game_players(ft_transcript_game(t)), &w->players))
        st = tp_error_set(err, TP_ERR_INVALID, "%s: the players of the "
                          "transcript are not those of --players", name);
      players_ok = true;
    } else if (ev->kind != FT_EV_FINAL) {
      const char *nl = memchr(text + line_start, '\n', len - line_start);
      size_t line_len = nl ? (size_t)(nl - text) - line_start : 0;
      st = apply_event(w, t, ev, &prev, text + line_start, line_len,
                       line_start, err);
      if (ev->kind != FT_EV_ROUND) last = ev->kind;
    } else {
      st = take_game(w, t, err);
    }
    done = line_start;
  }
  if (st == TP_OK && !players_ok)
    st = tp_error_set(err, TP_ERR_FORMAT, "%s: no players line: not a "
                      "transcript of a game", name);
  if (st == TP_OK) {
    size_t good = ft_transcript_good_bytes(t);
    read_comments(w, text, done, good);
    st = take_game(w, t, err);
    w->log_len = 0;
    if (st == TP_OK) {
      char *copy = malloc(good + 1);
      if (!copy) {
        st = tp_error_set(err, TP_ERR_NOMEM, "watch: out of memory");
      } else {
        memcpy(copy, text, good);
        copy[good] = '\0';
        st = wch__append(w, copy, err);
        free(copy);
      }
    }
    if (good_bytes) *good_bytes = good;
    set_stage(w, last);
    if (last == FT_EV_FLIGHT) wch__confirm_resumed(w);
  }
  ft_game_destroy(prev);
  free(ev);
  ft_transcript_close(t);
  w->replaying = false;
  return st;
}
