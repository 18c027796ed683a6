/* ref_scene: see ref_scene.h. */
#include "ref_scene.h"

#include <string.h>

vis_pt vt_centre(const double corners[4][2]) {
  vis_pt p = {0, 0};
  for (int i = 0; i < 4; i++)
    p.x += corners[i][0] / 4, p.y += corners[i][1] / 4;
  return p;
}

int vt_truth_cards(const rnd_scene *scene, vis_card *cards) {
  rnd_truth t;
  rnd_truth_compute(scene, &t);
  for (int i = 0; i < scene->n_cards; i++) {
    memset(&cards[i], 0, sizeof cards[i]);
    cards[i].type = vis_type_from_name(scene->cards[i].type);
    cards[i].rect.center = vt_centre(t.cards[i].corners_mm);
    cards[i].rect.w = scene->card_mm[0];
    cards[i].rect.h = scene->card_mm[1];
    cards[i].rect.angle_deg =
        vis_normalize_angle180(scene->cards[i].pose.angle_deg);
  }
  return scene->n_cards;
}
