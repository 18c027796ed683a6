/* watch confirm: announce at once, confirm after. A flight is announced on
 * the first still frame that shows its last carpet (100 ms after it came
 * to rest at 10 fps, instead of 300 ms); a hand resting for a moment or a
 * frame the eyes got wrong would then decide alone, so the next still
 * frames of the same scene vote again, card by card, and two frames of
 * three against the announcement correct it out loud instead of keeping
 * quiet. */
#include <stdio.h>
#include <string.h>

#include "watch_internal.h"

enum { CONFIRM_FRAMES = 2 }; /* still frames after the announced one */

/* One frame's vote: per landing, whether the frame shows its carpet and
 * the cards `seen` (the landings computed from the frame) puts under it. */
static int landing_of(const wch__landings *l, const char *colour) {
  for (int k = 0; k < l->n; k++)
    if (!strcmp(l->colour[k], colour)) return k;
  return -1;
}

static void add_votes(wch *w, const wch_obs *obs, const wch__landings *seen) {
  for (int k = 0; k < w->landings.n; k++) {
    int i = landing_of(seen, w->landings.colour[k]);
    if (i < 0 || !wch__carpet_in(obs, w->landings.colour[k])) continue;
    w->vote_seen[k]++;
    /* the contacts this frame was not sure of: measured within the pose
     * error (barely), or hidden by another carpet where they meet (unsure) */
    uint64_t doubt = seen->barely[i] | seen->unsure[i];
    for (int j = 0; j < seen->n_cards[i]; j++) {
      int id = seen->cards[i][j];
      if (id >= 0 && id < FT_DECK_SIZE) w->votes[k][id]++;
      if (id >= 0 && id < FT_DECK_SIZE && (doubt >> id & 1)) w->doubted_on[k][id]++;
    }
    for (int id = 0; id < FT_DECK_SIZE && id < 64; id++)
      w->doubted[k][id] += (unsigned char)(doubt >> id & 1);
  }
}

static void clear_votes(wch *w) {
  w->confirm_frames = 0;
  memset(w->vote_seen, 0, sizeof w->vote_seen);
  memset(w->votes, 0, sizeof w->votes);
  memset(w->doubted, 0, sizeof w->doubted);
  memset(w->doubted_on, 0, sizeof w->doubted_on);
}

void wch__confirm_begin(wch *w, const wch_obs *obs) {
  w->confirming = true;
  clear_votes(w);
  add_votes(w, obs, &w->landings); /* just set from this frame */
}

/* After a resume whose transcript ends with a flight (no answer since):
 * the process was stopped between the announcement and its second look,
 * which the frames after the resumed one give. The announced landings
 * (from the flight line) are one frame's vote. */
void wch__confirm_resumed(wch *w) {
  w->confirming = w->have_flight && w->before_flight && w->landings.n > 0;
  clear_votes(w);
  for (int k = 0; k < w->landings.n; k++) {
    w->vote_seen[k] = 1;
    for (int j = 0; j < w->landings.n_cards[k]; j++) {
      int id = w->landings.cards[k][j];
      if (id >= 0 && id < FT_DECK_SIZE) w->votes[k][id] = 1;
    }
  }
}

bool wch_confirm_pending(const wch *w) { return w->confirming; }

int wch_corrections(const wch *w) { return w->corrections; }

/* The landings this frame shows, seen as at the moment of the flight
 * (the cards it claimed are still table cards there). */
static void landings_before_flight(const wch *w, const wch_obs *obs,
                                   wch__landings *seen) {
  wch__known before = {w->before_flight, w->ref_before, w->n_ref_before,
                       w->ghost_before, w->n_ghost_before};
  wch__landings_seen(w, &before, obs, seen);
}

bool wch__has_id(const int *ids, int n, int id) {
  for (int j = 0; j < n; j++)
    if (ids[j] == id) return true;
  return false;
}

/* Landing k's cards by majority of the frames that showed its carpet; a
 * tie keeps what was announced. Where some frames measured the carpet's
 * depth into a card within the pose error (barely on or off) and others
 * beyond it, those sure of the contact decide: each frame's pose is an
 * independent measurement, and one beyond the doubt band outweighs two
 * at its edge (DEV game 4:697 round 4 flight 2: yellow "0.0 mm into the
 * palace" in the announced frame and the last, 0.64 mm in the middle one;
 * truth: on, and the palace's contest went without dirk). So too where
 * some frames could not see the contact (another carpet hides where they
 * meet: "taken as lying on it") and others could: the demo game (3:7)
 * round 1 flight 3, blue slid under the adventure A, seen under it in the
 * announced frame and "on, unsure" in one or both of the next, as the
 * carpets' poses came out a few tenths of a millimetre apart. Returns how
 * many. */
static int majority(const wch *w, int k, int *out) {
  const int *now = w->landings.cards[k];
  int n_now = w->landings.n_cards[k], n = 0, s = w->vote_seen[k];
  for (int j = 0; j < n_now; j++) /* not voted on: kept */
    if (s == 0 || now[j] < 0 || now[j] >= FT_DECK_SIZE) out[n++] = now[j];
  if (s == 0) return n;
  for (int id = 0; id < FT_DECK_SIZE && n < FT_MAX_CARDS; id++) {
    int voters = s, on = w->votes[k][id];
    if (w->doubted[k][id] < s) { /* some frame is sure: the sure ones */
      voters = s - w->doubted[k][id];
      on -= w->doubted_on[k][id];
    }
    int twice = 2 * on;
    if (twice > voters || (twice == voters && wch__has_id(now, n_now, id)))
      out[n++] = id;
  }
  return n;
}

static bool same_cards(const int *a, int na, const int *b, int nb) {
  if (na != nb) return false;
  for (int j = 0; j < na; j++)
    if (!wch__has_id(b, nb, a[j])) return false;
  return true;
}

/* The flight resolved again with the voted landings, reveals already
 * given kept (as `give` does), said and written as a correction. */
static tp_status correct(wch *w, int (*cards)[FT_MAX_CARDS], const int *n,
                         const wch_obs *obs, tp_error *err) {
  if (!w->have_flight || !w->before_flight) return TP_OK;
  for (int k = 0; k < w->landings.n; k++) {
    memcpy(w->landings.cards[k], cards[k], (size_t)n[k] * sizeof cards[k][0]);
    w->landings.n_cards[k] = n[k];
  }
  if (obs->n_carpets > 0) wch__remember_flight_carpets(w, obs);
  w->corrections++;
  wch__correction_event(w, "recheck", -1, "");
  char note[128];
  snprintf(note, sizeof note, "# watch corrected round=%d flight=%d "
           "frame=%lld\n", w->report.round, w->report.flight,
           (long long)w->frame);
  wch__say(w, WCH_SAY_RESULT, "Correction: on a second look, round %d, "
           "flight %d goes differently.", w->report.round, w->report.flight);
  return wch__resolve_again(w, note, err);
}

tp_status wch_confirm(wch *w, const wch_obs *obs, bool *corrected,
                      tp_error *err) {
  if (corrected) *corrected = false;
  if (!w->confirming || !w->before_flight) return TP_OK;
  wch_obs shown = *obs;
  wch__hide_stray_slivers(w, &shown);
  obs = &shown;
  wch__landings seen;
  landings_before_flight(w, obs, &seen);
  add_votes(w, obs, &seen);
  w->frame = obs->frame;
  bool more = ++w->confirm_frames < CONFIRM_FRAMES;
  int cards[FT_MAX_CARPETS][FT_MAX_CARDS], n[FT_MAX_CARPETS];
  bool differ = false;
  for (int k = 0; k < w->landings.n; k++) {
    n[k] = majority(w, k, cards[k]);
    differ |= !same_cards(cards[k], n[k], w->landings.cards[k],
                          w->landings.n_cards[k]);
  }
  tp_status st = differ ? correct(w, cards, n, obs, err) : TP_OK;
  if (corrected) *corrected = differ && st == TP_OK;
  w->confirming = more && st == TP_OK && w->have_flight;
  return st;
}
