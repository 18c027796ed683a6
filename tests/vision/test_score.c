/* How eval scores an analysis against a rendered scene's truth
 * (tools/analysis/scenes.c): a perfect answer is exact, and every wrong
 * type, on-top decision and phantom is counted, with whether the analysis
 * marked it uncertain (a wrong answer given as certain is the worst
 * kind). The analyses here are made from the truth by hand, so no
 * rendering is needed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"

typedef struct {
  rnd_scene scene;
  rnd_truth truth;
  vis_card cards[RND_MAX_CARDS];
  vis_carpet carpets[RND_MAX_CARPETS + 1];
  vis_overlap overlaps[4];
  an_report rep;
  int carpet_on; /* a carpet that lies on a card, and that card */
  int card_under;
} scored_scene;

static vis_pt corners_centre(const double c[4][2]) {
  vis_pt p = {0, 0};
  for (int i = 0; i < 4; i++) p.x += c[i][0] / 4, p.y += c[i][1] / 4;
  return p;
}

/* The truth as an analysis would report it: the same cards, types,
 * carpets and "lies on" lists. */
static void answer_from_truth(scored_scene *f) {
  const rnd_scene *sc = &f->scene;
  for (int i = 0; i < sc->n_cards; i++) {
    f->cards[i].type = vis_type_from_name(sc->cards[i].type);
    f->cards[i].rect = (vis_rect){corners_centre(f->truth.cards[i].corners_mm),
                                  sc->card_mm[0], sc->card_mm[1], sc->cards[i].pose.angle_deg};
  }
  for (int j = 0; j < sc->n_carpets; j++) {
    vis_carpet *c = &f->carpets[j];
    snprintf(c->colour, sizeof c->colour, "%s", sc->carpets[j].colour);
    c->rect = (vis_rect){corners_centre(f->truth.carpets[j].corners_mm), sc->carpet_mm[0],
                         sc->carpet_mm[1], sc->carpets[j].pose.angle_deg};
    c->n_on_cards = f->truth.carpets[j].n_on;
    memcpy(c->on_cards, f->truth.carpets[j].on_cards, sizeof(int) * (size_t)c->n_on_cards);
  }
  f->rep.vis = (vis_result){.cards = f->cards, .n_cards = sc->n_cards,
                            .carpets = f->carpets, .n_carpets = sc->n_carpets,
                            .overlaps = f->overlaps};
}

/* The first normal scene from seed 3000 on where a carpet lies on a card. */
static int setup(void **state) {
  scored_scene *f = calloc(1, sizeof *f);
  if (!f) return -1;
  *state = f;
  for (uint64_t seed = 3000; seed < 3100; seed++) {
    rnd_scene_random(seed, RND_NORMAL, NULL, &f->scene);
    rnd_truth_compute(&f->scene, &f->truth);
    for (int j = 0; j < f->scene.n_carpets; j++)
      if (f->truth.carpets[j].n_on > 0) {
        f->carpet_on = j;
        f->card_under = f->truth.carpets[j].on_cards[0];
        answer_from_truth(f);
        return 0;
      }
  }
  return -1;
}

static int teardown(void **state) {
  free(*state);
  return 0;
}

static an_score score(const scored_scene *f) {
  an_score s;
  an_score_scene(&f->scene, &f->rep, &s);
  return s;
}

static void the_truth_itself_is_exact(void **state) {
  scored_scene *f = *state;
  an_score s = score(f);
  assert_true(s.exact);
  assert_int_equal(s.matched_cards, f->scene.n_cards);
  assert_int_equal(s.matched_carpets, f->scene.n_carpets);
  assert_int_equal(s.wrong_types + s.wrong_stacks + s.phantoms, 0);
  assert_string_equal(s.errors, "");
}

static void a_wrong_type_counts_and_says_whether_it_was_marked(void **state) {
  scored_scene *f = *state;
  int truth_type = f->cards[0].type;
  f->cards[0].type = (truth_type + 1) % 12;
  an_score s = score(f);
  assert_false(s.exact);
  assert_int_equal(s.wrong_types, 1);
  assert_int_equal(s.wrong_types_marked, 0);
  assert_null(strstr(s.errors, "marked uncertain"));
  f->cards[0].uncertain = true;
  s = score(f);
  assert_int_equal(s.wrong_types, 1);
  assert_int_equal(s.wrong_types_marked, 1);
  assert_non_null(strstr(s.errors, "seen as"));
  assert_non_null(strstr(s.errors, "(marked uncertain)"));
  f->cards[0].type = truth_type, f->cards[0].uncertain = false;
}

static void a_carpet_said_beside_its_card_is_a_wrong_stack(void **state) {
  scored_scene *f = *state;
  vis_carpet *c = &f->carpets[f->carpet_on];
  vis_carpet saved = *c;
  c->n_on_cards = 0;
  c->under_cards[c->n_under_cards++] = f->card_under; /* said: the card is on it */
  an_score s = score(f);
  assert_false(s.exact);
  assert_int_equal(s.wrong_stacks, 1);
  assert_int_equal(s.wrong_stacks_marked, 0);
  /* the overlap that decided it says it was unsure */
  f->overlaps[0] = (vis_overlap){.carpet = f->carpet_on, .other = f->card_under,
                                 .uncertain = true};
  f->rep.vis.n_overlaps = 1;
  s = score(f);
  assert_int_equal(s.wrong_stacks, 1);
  assert_int_equal(s.wrong_stacks_marked, 1);
  assert_non_null(strstr(s.errors, "lies on, not beside/under"));
  assert_non_null(strstr(s.errors, "(marked uncertain)"));
  /* an overlap with a carpet of the same index is not this card's */
  f->overlaps[0].other_is_carpet = true;
  assert_int_equal(score(f).wrong_stacks_marked, 0);
  f->rep.vis.n_overlaps = 0;
  *c = saved;
}

static void a_missed_card_is_not_a_wrong_stack(void **state) {
  scored_scene *f = *state;
  /* move our copy of the card under the carpet far away: missed, and a
   * card where there is none */
  vis_pt saved = f->cards[f->card_under].rect.center;
  f->cards[f->card_under].rect.center = (vis_pt){-500, -500};
  an_score s = score(f);
  assert_int_equal(s.matched_cards, f->scene.n_cards - 1);
  assert_int_equal(s.wrong_stacks, 0);
  assert_int_equal(s.phantoms, 1);
  assert_non_null(strstr(s.errors, "missed card"));
  assert_non_null(strstr(s.errors, "a card where there is none"));
  f->cards[f->card_under].rect.center = saved;
}

static void phantom_carpets_count_marked_or_not(void **state) {
  scored_scene *f = *state;
  int n = f->scene.n_carpets;
  f->carpets[n] = f->carpets[0];
  snprintf(f->carpets[n].colour, sizeof f->carpets[n].colour, "violet"); /* no such carpet */
  f->rep.vis.n_carpets = n + 1;
  an_score s = score(f);
  assert_int_equal(s.phantoms, 1);
  assert_int_equal(s.phantoms_marked, 0);
  assert_non_null(strstr(s.errors, "a carpet where there is none"));
  f->carpets[n].uncertain = true;
  s = score(f);
  assert_int_equal(s.phantoms_marked, 1);
  assert_non_null(strstr(s.errors, "a carpet where there is none (marked uncertain)"));
  f->rep.vis.n_carpets = n;
  assert_true(score(f).exact);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_truth_itself_is_exact),
      cmocka_unit_test(a_wrong_type_counts_and_says_whether_it_was_marked),
      cmocka_unit_test(a_carpet_said_beside_its_card_is_a_wrong_stack),
      cmocka_unit_test(a_missed_card_is_not_a_wrong_stack),
      cmocka_unit_test(phantom_carpets_count_marked_or_not),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
