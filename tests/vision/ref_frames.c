/* vt_ref_frames: photos analysed against the layout reference, printed
 * (a tool for looking at failures on rendered games; ref_game.sh runs it
 * on game frames that were once analysed wrong).
 *
 *     vt_ref_frames LAYOUT.jpg FRAME.jpg...
 *
 * The layout photo is analysed with vis_analyze (its own markers); every
 * card it identified becomes the reference; each frame is then analysed
 * against it with that frame's own markers, and every card (gone, visible
 * fraction, uncertain) and carpet (colour, centre, the cards it lies on)
 * is printed. The layout photo is the bare table too
 * (vis_reference_set_table), unless REF_NO_BARE is set. With REF_DECIDED
 * set, each frame's result is the next one's baseline
 * (vis_reference_set_decided, as watch --incremental does). REF_REMOVE=
 * "0,4" removes those reference cards (their numbers as printed; cards
 * taken away, vis_reference_remove_card, as watch does after a flight);
 * REF_REMOVE_AT="234,65;144,189" removes the cards lying within 15 mm of
 * those table points (mm): the numbers follow the layout analysis's
 * order, which differs between OpenCV versions. Every card is printed
 * (its number, type and centre), so that a check can name a card by its
 * place. With REF_HOLD_MAP set, a frame whose markers lie where the
 * layout's did is mapped as the layout was (watch's still camera). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cvw.h"
#include "vision.h"

static void print_result(const char *name, const vis_result *v) {
  printf("%s: %d cards, %d carpets, %.0f ms (detect %.0f, identify %.0f)\n",
         name, v->n_cards, v->n_carpets, v->profile.total_ms,
         v->profile.detect_ms, v->profile.identify_ms);
  for (int i = 0; i < v->n_cards; i++) {
    const vis_card *c = &v->cards[i];
    printf("  card %2d %-14s (%4.0f, %4.0f) visible %.2f%s%s %s\n", i,
           c->type >= 0 ? vis_type_name(c->type) : "-", c->rect.center.x,
           c->rect.center.y, c->visible_fraction, c->gone ? " GONE" : "",
           c->uncertain ? " uncertain" : "", c->reason);
  }
  for (int k = 0; k < v->n_carpets; k++) {
    const vis_carpet *c = &v->carpets[k];
    printf("  carpet %-6s (%4.0f, %4.0f) %5.1f deg visible %.2f scale %+.2f %% %s on", c->colour,
           c->rect.center.x, c->rect.center.y, c->rect.angle_deg,
           c->visible_fraction, 100 * (c->contact_scale - 1),
           c->contact_scale_own ? "own" : "borrowed");
    for (int j = 0; j < c->n_on_cards; j++)
      printf(" %d", c->on_cards[j]);
    printf(c->uncertain ? " uncertain: %s\n" : "\n", c->reason);
  }
  for (int k = 0; k < v->n_overlaps; k++) {
    const vis_overlap *o = &v->overlaps[k];
    printf("  overlap carpet %d %s %s %d: %.0f mm^2 (%.2f mm deep), %s, confidence %.2f%s\n",
           o->carpet, o->carpet_on_top ? "over" : "under",
           o->other_is_carpet ? "carpet" : "card", o->other, o->area_mm2, o->depth_mm,
           o->carpet_on_top ? "carpet on top" : "other on top", o->confidence,
           o->uncertain ? " uncertain" : "");
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: vt_ref_frames LAYOUT.jpg FRAME.jpg...\n");
    return 2;
  }
  tp_error err;
  an_session *s = NULL;
  /* REF_HOLD_MAP: one map while the markers stay put, as watch keeps */
  an_options ao = {.image = argv[1], .threads = 1,
                   .hold_still_map = getenv("REF_HOLD_MAP") != NULL};
  an_report lay = {0};
  vis_reference *ref = NULL;
  tp_status st = an_session_create(&ao, &s, &err);
  if (!st) st = an_run_file(s, argv[1], &lay, &err);
  if (!st) st = vis_reference_create(&ref, &err);
  vis_card cards[64];
  int n = 0;
  for (int i = 0; !st && i < lay.vis.n_cards && n < 64; i++)
    if (lay.vis.cards[i].type >= 0) cards[n++] = lay.vis.cards[i];
  if (!st)
    st = vis_reference_add_cards(ref, an_session_analyzer(s), &lay.photo,
                                 &lay.map, cards, n, &err);
  if (!st && !getenv("REF_NO_BARE")) /* the layout frame: no carpet */
    st = vis_reference_set_table(ref, an_session_analyzer(s), &lay.photo,
                                 &lay.map, &err);
  /* REF_REMOVE="0,4": those reference slots taken away, as watch does
   * once a flight's cards are taken */
  for (const char *r = getenv("REF_REMOVE"); !st && r && *r;) {
    char *end;
    long i = strtol(r, &end, 10);
    if (end == r) break;
    if (i >= 0 && i < n) vis_reference_remove_card(ref, (int)i);
    r = *end == ',' ? end + 1 : end;
  }
  /* REF_REMOVE_AT="x,y;x,y": the cards within 15 mm of those points */
  for (const char *r = getenv("REF_REMOVE_AT"); !st && r && *r;) {
    char *end;
    double x = strtod(r, &end), y = 0;
    if (end == r || *end != ',') break;
    r = end + 1;
    y = strtod(r, &end);
    if (end == r) break;
    for (int i = 0; i < n; i++) /* the reference's slots: cards[] */
      if (hypot(cards[i].rect.center.x - x, cards[i].rect.center.y - y) < 15)
        vis_reference_remove_card(ref, i);
    r = *end == ';' ? end + 1 : end;
  }
  if (!st) print_result(argv[1], &lay.vis);
  for (int f = 2; !st && f < argc; f++) {
    tp_image img = {0};
    an_report rep = {0};
    st = cvw_image_read(argv[f], 3, &img, &err);
    if (!st) st = an_run_image_ref(s, ref, &img, NULL, &rep, &err);
    if (!st) print_result(argv[f], &rep.vis);
    if (!st && getenv("REF_DECIDED")) /* each frame the next one's baseline */
      st = vis_reference_set_decided(ref, an_session_analyzer(s), &rep.photo,
                                     &rep.map, &rep.vis, &err);
    an_report_free(&rep);
    tp_image_free(&img);
  }
  if (st) fprintf(stderr, "vt_ref_frames: %s\n", err.text);
  an_report_free(&lay);
  vis_reference_destroy(ref);
  an_session_destroy(s);
  return st ? 1 : 0;
}
