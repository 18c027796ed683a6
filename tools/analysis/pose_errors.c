/* pose_errors: the signed errors of the poses an analysis found against
 * the truth of a rendered scene, split into the directions a bias could
 * come from (eval --pose-errors): the scene's shadow direction (the
 * renderer offsets each object's shadow by 1.5 * lift_mm that way), the
 * direction from the picture's centre (lens distortion, tilt), and the
 * object's own axes (an outline fitted too small or too large). The
 * "picture" errors take our pose back to the table through the
 * renderer's own camera instead of the markers' mapping, so they are
 * what the fit got wrong, without the calibration's share. */
#include <math.h>
#include <string.h>

#include "analysis.h"

#define DEG (3.14159265358979323846 / 180.0)

typedef struct {
  double x, y;
} vec;

static double dot(vec a, vec b) { return a.x * b.x + a.y * b.y; }

static vec unit_of_deg(double deg) { return (vec){cos(deg * DEG), sin(deg * DEG)}; }

static vec perp(vec a) { return (vec){-a.y, a.x}; }

/* a - b folded into [-90, 90): rectangles are the same turned by 180. */
static double angle_diff(double a, double b) {
  double d = fmod(a - b, 180.0);
  if (d < -90) d += 180;
  if (d >= 90) d -= 180;
  return d;
}

/* Where the table point the analysis calls `ours` really is: through its
 * own mapping into the picture, and back through the renderer's camera.
 * False without a mapping (then the picture errors are NaN). */
static bool true_point(const rnd_scene *scene, const an_report *r, vis_pt ours, vec *out) {
  double mm[2] = {ours.x, ours.y}, px[2];
  if (!r->has_map || !r->map.table_to_image || !r->map.table_to_image(r->map.user, mm, px))
    return false;
  return rnd_camera_unproject(&scene->camera, px[0], px[1], &out->x, &out->y);
}

/* How much larger the table is than the analysis's mapping says around
 * `ours` (a fraction; 0.004: 4 mm per metre): a deck-sized outline is then
 * fitted 0.4 % too small in the picture, and the gap between two objects
 * measured short by 0.4 % of their centres' distance. NaN without a
 * mapping. */
static double map_scale_error(const rnd_scene *scene, const an_report *r, vis_pt ours) {
  const double h = 10; /* mm each way */
  vec a, b, c, d;
  if (!true_point(scene, r, (vis_pt){ours.x - h, ours.y}, &a) ||
      !true_point(scene, r, (vis_pt){ours.x + h, ours.y}, &b) ||
      !true_point(scene, r, (vis_pt){ours.x, ours.y - h}, &c) ||
      !true_point(scene, r, (vis_pt){ours.x, ours.y + h}, &d))
    return NAN;
  return (hypot(b.x - a.x, b.y - a.y) + hypot(d.x - c.x, d.y - c.y)) / (4 * h) - 1;
}

typedef struct {
  const char *kind, *name;
  const rnd_pose *pose;
  double visible;
  const vis_rect *ours;
} object_pose;

void an_pose_errors_header(FILE *f) {
  fputs("#pose\tlevel\tseed\tkind\tname\twidth_px\tvisible\tlift_mm\tshadow_deg\tsoft_mm"
        "\tshadow_strength\tblur_px\tspeed_mm\tspin_deg\terr_mm\tex\tey\talong_shadow"
        "\tacross_shadow\tradial\ttangential\tcentre_dist_mm\talong_long\talong_short"
        "\tangle_deg\tpic_along_shadow\tpic_across_shadow\tpic_radial\tpic_tangential"
        "\tpic_along_long\tpic_along_short\tmap_scale_pct\n",
        f);
  fputs("#contact\tlevel\tseed\tcarpet\tcard\ttype\tcarpet_above\ttruth_depth_mm"
        "\tour_depth_mm\tdepth_err_mm\tpic_depth_err_mm\tcarpet_share_mm\tcard_share_mm\tmap_scale_pct\tcentre_dist_mm\ttruth_on\tour_on\tdoubt"
        "\tscaled_depth_mm\tscaled_err_mm\tcarpet_visible\tscale_own\tcontact_scale_pct"
        "\tour_stack\tstack_uncertain\tstack_confidence\tour_area_mm2\tcard_visible\tvotes_on\tvotes_under\tvotes_hidden\n",
        f);
}

static void write_object(FILE *f, const char *level, unsigned long seed, const rnd_scene *scene,
                         const an_report *r, vec centre_of_view, const object_pose *o) {
  const rnd_look *l = &scene->look;
  vec truth = {o->pose->center_mm[0], o->pose->center_mm[1]};
  vec e = {o->ours->center.x - truth.x, o->ours->center.y - truth.y};
  vec shadow = unit_of_deg(l->shadow_deg), longx = unit_of_deg(o->pose->angle_deg);
  vec out = {truth.x - centre_of_view.x, truth.y - centre_of_view.y};
  double r_mm = hypot(out.x, out.y);
  vec radial = r_mm > 1e-9 ? (vec){out.x / r_mm, out.y / r_mm} : (vec){1, 0};
  vec seen, pe = {NAN, NAN};
  if (true_point(scene, r, o->ours->center, &seen)) pe = (vec){seen.x - truth.x, seen.y - truth.y};
  fprintf(f,
          "pose\t%s\t%lu\t%s\t%s\t%d\t%.3f\t%.3f\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f"
          "\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.4f\t%.4f\t%.4f"
          "\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
          level, seed, o->kind, o->name, scene->camera.width, o->visible, o->pose->lift_mm,
          l->shadow_deg, l->shadow_softness_mm, l->shadow_strength, l->blur_px,
          hypot(o->pose->velocity_mm[0], o->pose->velocity_mm[1]), o->pose->spin_deg,
          hypot(e.x, e.y), e.x, e.y, dot(e, shadow), dot(e, perp(shadow)), dot(e, radial),
          dot(e, perp(radial)), r_mm, dot(e, longx), dot(e, perp(longx)),
          angle_diff(o->ours->angle_deg, o->pose->angle_deg), dot(pe, shadow),
          dot(pe, perp(shadow)), dot(pe, radial), dot(pe, perp(radial)), dot(pe, longx),
          dot(pe, perp(longx)), 100 * map_scale_error(scene, r, o->ours->center));
}

static bool listed(const int *l, int n, int x) {
  for (int i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

/* Our rectangle's corners where they really are (true_point); false
 * without a mapping. */
static bool true_corners(const rnd_scene *scene, const an_report *r, const vis_rect *ours,
                         double out[4][2]) {
  vis_pt c[4];
  vis_rect_corners(ours, c);
  for (int k = 0; k < 4; k++) {
    vec p;
    if (!true_point(scene, r, c[k], &p)) return false;
    out[k][0] = p.x, out[k][1] = p.y;
  }
  return true;
}

/* Our overlap of carpet c with card k, or NULL. */
static const vis_overlap *our_overlap(const vis_result *v, const vis_carpet *c, int k) {
  for (int i = 0; i < v->n_overlaps; i++) {
    const vis_overlap *o = &v->overlaps[i];
    if (!o->other_is_carpet && o->other == k && o->carpet == (int)(c - v->carpets)) return o;
  }
  return NULL;
}

/* Carpet j against every matched card the truth or we put within 2 mm of
 * contact: the depths (positive: overlap) and the decisions; our depth
 * from the deck-sized outlines and the one the analysis decides by (at the
 * carpet's contact_scale, and whether that was read from its own face). */
static void write_contacts(FILE *f, const char *level, unsigned long seed, const rnd_scene *scene,
                           const an_report *r, const rnd_truth *t, const int *ours_of, int j,
                           const vis_carpet *c) {
  const vis_result *v = &r->vis;
  for (int i = 0; i < scene->n_cards; i++) {
    if (ours_of[i] < 0) continue;
    const vis_card *card = &v->cards[ours_of[i]];
    double truth = tp_rounded_rect_contact_depth(t->carpets[j].corners_mm, scene->corner_mm,
                                                 t->cards[i].corners_mm, scene->corner_mm);
    double ours = vis_rect_contact_depth(&c->rect, &card->rect, scene->corner_mm);
    const vis_overlap *ov = our_overlap(v, c, ours_of[i]);
    if (fabs(truth) > 2 && fabs(ours) > 2 && !(ov && ov->uncertain)) continue;
    double scaled = vis_rect_contact_depth_at(&c->rect, &card->rect, scene->corner_mm,
                                              c->contact_scale);
    /* in the picture; and with only the carpet's or only the card's pose ours */
    double a[4][2], b[4][2], seen = NAN, carpet_share = NAN, card_share = NAN;
    if (true_corners(scene, r, &c->rect, a) && true_corners(scene, r, &card->rect, b)) {
      double rc = scene->corner_mm;
      seen = tp_rounded_rect_contact_depth(a, rc, b, rc);
      carpet_share = tp_rounded_rect_contact_depth(a, rc, t->cards[i].corners_mm, rc) - truth;
      card_share = tp_rounded_rect_contact_depth(t->carpets[j].corners_mm, rc, b, rc) - truth;
    }
    fprintf(f, "contact\t%s\t%lu\t%s\t%d\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.2f"
            "\t%d\t%d\t%d\t%.4f\t%.4f\t%.3f\t%d\t%.4f\t%d\t%d\t%.3f\t%.3f\t%.4f\t%d\t%d\t%d\n",
            level, seed,
            scene->carpets[j].colour, i, scene->cards[i].type,
            scene->carpets[j].pose.z > scene->cards[i].pose.z, truth, ours, ours - truth,
            seen - truth, carpet_share, card_share,
            100 * map_scale_error(scene, r, (vis_pt){(c->rect.center.x + card->rect.center.x) / 2,
                                                     (c->rect.center.y + card->rect.center.y) / 2}),
            hypot(c->rect.center.x - card->rect.center.x, c->rect.center.y - card->rect.center.y),
            listed(t->carpets[j].on_cards, t->carpets[j].n_on, i),
            listed(c->on_cards, c->n_on_cards, ours_of[i]),
            c->contact_doubt && c->contact_doubt_card == ours_of[i], scaled, scaled - truth,
            c->visible_fraction, c->contact_scale_own, 100 * (c->contact_scale - 1),
            ov ? ov->carpet_on_top : -1, ov ? ov->uncertain : 0, ov ? ov->confidence : NAN,
            ov ? ov->area_mm2 : NAN, t->cards[i].visible_fraction, ov ? ov->votes_on : -1,
            ov ? ov->votes_under : -1, ov ? ov->votes_hidden : -1);
  }
}

void an_pose_errors_write(FILE *f, const char *level, unsigned long seed,
                          const rnd_scene *scene, const an_report *r, double contact_mm) {
  rnd_truth t;
  rnd_truth_compute_contact(scene, contact_mm, &t);
  const vis_result *v = &r->vis;
  vec centre_of_view = {0, 0};
  rnd_camera_unproject(&scene->camera, scene->camera.cx, scene->camera.cy, &centre_of_view.x,
                       &centre_of_view.y);
  int ours_of[RND_MAX_CARDS];
  an_match_truth_cards(scene, &t, v, ours_of);
  for (int i = 0; i < scene->n_cards; i++) {
    if (ours_of[i] < 0) continue;
    object_pose o = {"card", scene->cards[i].type, &scene->cards[i].pose,
                     t.cards[i].visible_fraction, &v->cards[ours_of[i]].rect};
    write_object(f, level, seed, scene, r, centre_of_view, &o);
  }
  for (int j = 0; j < scene->n_carpets; j++) {
    const vis_carpet *c = an_match_truth_carpet(scene, &t, v, j);
    if (!c) continue;
    object_pose o = {"carpet", scene->carpets[j].colour, &scene->carpets[j].pose, c->visible_fraction,
                     &c->rect};
    write_object(f, level, seed, scene, r, centre_of_view, &o);
    write_contacts(f, level, seed, scene, r, &t, ours_of, j, c);
  }
}
