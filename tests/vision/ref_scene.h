/* ref_scene: the layout reference's cards from a rendered scene's truth,
 * shared by the measurements of the reference analysis (vt_ref_eval,
 * vt_ref_bench). */
#ifndef TEPPICH_VT_REF_SCENE_H
#define TEPPICH_VT_REF_SCENE_H

#include "render.h"
#include "vision.h"

/* The centre of four corners (table mm, as rnd_truth gives them). */
vis_pt vt_centre(const double corners[4][2]);

/* The scene's cards as the watch controller knows them after the layout:
 * the truth's types and poses (the scene's card size). cards must hold
 * scene->n_cards; returns that count. */
int vt_truth_cards(const rnd_scene *scene, vis_card *cards);

#endif
