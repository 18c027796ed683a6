/* render: random scenes that follow the game's layout rules.
 *
 * Layout (rules: 12 cards face up, at least 1 cm between neighbours, no card
 * more than one card width from another): a jittered grid or, for the
 * harder levels, a layout grown card by card at random angles; both are
 * checked against the rule and redrawn until they pass. Carpets land in the
 * situations the vision side must handle: on one card, across several, on
 * none, slid under a card, on another carpet, two players on one card.
 * Difficulty scales camera tilt, lens distortion, noise, blur, glare,
 * shadows, the table cloth and occlusion. */
#include <math.h>
#include <string.h>

#include "render_internal.h"

enum { LAND_ONE, LAND_SEVERAL, LAND_NONE, LAND_UNDER, LAND_ON_CARPET, LAND_SAME_CARD, LAND_KINDS };

typedef struct {
  rnd__rng g;
  rnd_difficulty diff;
  rnd_scene *s;
  double field[4]; /* where cards may lie: x0 y0 x1 y1 */
} gen;

static void card_poly(const rnd_scene *s, const rnd_pose *p, bool carpet, rnd__poly *out) {
  double c[4][2];
  rnd_pose_corners(p, carpet ? s->carpet_mm[0] : s->card_mm[0],
                   carpet ? s->carpet_mm[1] : s->card_mm[1], c);
  rnd__poly_from_corners(c, out);
}

/* ---------------- layout ------------------------------------------- */

static bool inside_field(const gen *G, const rnd__poly *p) {
  for (int i = 0; i < p->n; i++)
    if (p->p[i][0] < G->field[0] || p->p[i][0] > G->field[2] || p->p[i][1] < G->field[1] ||
        p->p[i][1] > G->field[3])
      return false;
  return true;
}

/* The layout rule: every pair at least 10 mm apart, and every card within
 * one card width of its nearest neighbour. */
static bool layout_ok(const rnd_scene *s, int n) {
  rnd__poly p[RND_MAX_CARDS];
  for (int i = 0; i < n; i++) card_poly(s, &s->cards[i].pose, false, &p[i]);
  for (int i = 0; i < n; i++) {
    double nearest = 1e9;
    for (int j = 0; j < n; j++) {
      if (j == i) continue;
      double d = rnd__poly_distance(&p[i], &p[j]);
      if (d < 10.0) return false;
      if (d < nearest) nearest = d;
    }
    if (n > 1 && nearest > s->card_mm[0]) return false;
  }
  return true;
}

static double face_angle(gen *G, double jitter) {
  double a = 90 + rnd__uniform(&G->g, -jitter, jitter);
  return rnd__unit(&G->g) < 0.5 ? a : a + 180; /* cards lie both ways up */
}

static bool grid_layout(gen *G, int n) {
  rnd_scene *s = G->s;
  double jitter = G->diff == RND_EASY ? 3 : G->diff == RND_NORMAL ? 8 : 14;
  int cols = n > 9 ? 4 : n > 4 ? 3 : 2, rows = (n + cols - 1) / cols;
  double gx = rnd__uniform(&G->g, 16, 34), gy = rnd__uniform(&G->g, 16, 34);
  double pitch_x = s->card_mm[0] + gx, pitch_y = s->card_mm[1] + gy;
  double w = cols * pitch_x, h = rows * pitch_y;
  double cx = 0.5 * (G->field[0] + G->field[2]) + rnd__uniform(&G->g, -20, 20);
  double cy = 0.5 * (G->field[1] + G->field[3]) + rnd__uniform(&G->g, -15, 15);
  for (int i = 0; i < n; i++) {
    rnd_pose *p = &s->cards[i].pose;
    int col = i % cols, row = i / cols;
    p->center_mm[0] = cx - 0.5 * w + (col + 0.5) * pitch_x + rnd__uniform(&G->g, -0.25, 0.25) * gx;
    p->center_mm[1] = cy - 0.5 * h + (row + 0.5) * pitch_y + rnd__uniform(&G->g, -0.25, 0.25) * gy;
    p->angle_deg = face_angle(G, jitter);
  }
  return layout_ok(s, n);
}

static bool grown_layout(gen *G, int n) {
  rnd_scene *s = G->s;
  rnd__poly polys[RND_MAX_CARDS];
  for (int i = 0; i < n; i++) {
    bool placed = false;
    for (int attempt = 0; attempt < 300 && !placed; attempt++) {
      rnd_pose *p = &s->cards[i].pose;
      if (i == 0) {
        p->center_mm[0] = 0.5 * (G->field[0] + G->field[2]) + rnd__uniform(&G->g, -40, 40);
        p->center_mm[1] = 0.5 * (G->field[1] + G->field[3]) + rnd__uniform(&G->g, -30, 30);
      } else {
        const rnd_pose *q = &s->cards[rnd__int(&G->g, 0, i - 1)].pose;
        double dir = rnd__uniform(&G->g, 0, 2 * M_PI), dist = rnd__uniform(&G->g, 55, 120);
        p->center_mm[0] = q->center_mm[0] + cos(dir) * dist;
        p->center_mm[1] = q->center_mm[1] + sin(dir) * dist;
      }
      p->angle_deg = rnd__unit(&G->g) < 0.5 ? face_angle(G, 25) : rnd__uniform(&G->g, 0, 360);
      card_poly(s, p, false, &polys[i]);
      if (!inside_field(G, &polys[i])) continue;
      double nearest = i == 0 ? 0 : 1e9;
      bool ok = true;
      for (int j = 0; j < i && ok; j++) {
        double d = rnd__poly_distance(&polys[i], &polys[j]);
        ok = d >= 10.0;
        if (d < nearest) nearest = d;
      }
      placed = ok && nearest <= s->card_mm[0];
    }
    if (!placed) return false;
  }
  return layout_ok(s, n);
}

/* Types drawn from the real 52-card deck without replacement, limited to
 * the types the deck has faces for. */
static void deal_types(gen *G, const rnd_deck *deck, int n) {
  static const int counts[12] = {12, 3, 3, 3, 3, 3, 5, 5, 4, 3, 4, 4};
  int pile[52], m = 0;
  for (int t = 0; t < 12; t++)
    if (!deck || rnd_deck_face(deck, rnd_card_types[t]))
      for (int k = 0; k < counts[t]; k++) pile[m++] = t;
  for (int i = 0; i < n; i++) {
    int t = 0;
    if (m > 0) {
      int k = rnd__int(&G->g, 0, m - 1);
      t = pile[k];
      pile[k] = pile[--m];
    }
    snprintf(G->s->cards[i].type, RND_NAME_LEN, "%s", rnd_card_types[t]);
    G->s->cards[i].pose.z = i;
    G->s->cards[i].pose.lift_mm = rnd__uniform(&G->g, 0.15, 0.5);
  }
}

static void make_layout(gen *G, const rnd_deck *deck) {
  rnd_scene *s = G->s;
  int n = rnd__unit(&G->g) < 0.6 ? 12 : rnd__int(&G->g, 4, 11);
  for (int attempt = 0; attempt < 400; attempt++) {
    bool grown = G->diff == RND_HARD ? rnd__unit(&G->g) < 0.7 : G->diff == RND_NORMAL && rnd__unit(&G->g) < 0.3;
    if (grown ? grown_layout(G, n) : grid_layout(G, n)) {
      s->n_cards = n;
      deal_types(G, deck, n);
      return;
    }
  }
  /* a plain grid with wide gaps always satisfies the rule */
  int cols = 4;
  for (int i = 0; i < n; i++) {
    rnd_pose *p = &s->cards[i].pose;
    p->center_mm[0] = G->field[0] + 60 + (i % cols) * (s->card_mm[0] + 25);
    p->center_mm[1] = G->field[1] + 60 + (i / cols) * (s->card_mm[1] + 25);
    p->angle_deg = 90;
  }
  s->n_cards = n;
  deal_types(G, deck, n);
}

/* ---------------- carpets ------------------------------------------ */

/* Cards a carpet at pose p overlaps (area > 1 mm^2), as a bit set. */
static uint64_t overlaps(const rnd_scene *s, const rnd_pose *p, double *area_total) {
  rnd__poly cp, kp;
  card_poly(s, p, true, &cp);
  uint64_t set = 0;
  double total = 0;
  for (int i = 0; i < s->n_cards; i++) {
    card_poly(s, &s->cards[i].pose, false, &kp);
    double a = rnd__convex_overlap(&cp, &kp);
    if (a > 1.0) set |= 1ull << i, total += a;
  }
  if (area_total) *area_total = total;
  return set;
}

static int popcount64(uint64_t x) {
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

static bool covers_marker(const rnd_scene *s, const rnd_pose *p) {
  rnd__poly cp, mp;
  card_poly(s, p, true, &cp);
  for (int i = 0; i < s->n_markers; i++) {
    const rnd_marker *m = &s->markers[i];
    rnd_pose mpose = {.center_mm = {m->center_mm[0], m->center_mm[1]}, .angle_deg = m->angle_deg};
    double c[4][2], side = m->size_mm + 2 * m->quiet_mm;
    rnd_pose_corners(&mpose, side, side, c);
    rnd__poly_from_corners(c, &mp);
    if (rnd__poly_distance(&cp, &mp) < 3) return true;
  }
  return false;
}

/* Tries to place carpet k for one landing kind; false if no pose fits. */
static bool land(gen *G, int k, int kind) {
  rnd_scene *s = G->s;
  rnd_carpet *c = &s->carpets[k];
  double cw = s->card_mm[0], ch = s->card_mm[1];
  for (int attempt = 0; attempt < 200; attempt++) {
    rnd_pose p = {.angle_deg = rnd__uniform(&G->g, 0, 360), .z = 1000 + k,
                  .lift_mm = rnd__uniform(&G->g, 0.4, 2.0)};
    int target = rnd__int(&G->g, 0, s->n_cards - 1);
    const rnd_pose *tp = &s->cards[target].pose;
    switch (kind) {
    case LAND_ONE:
      p.center_mm[0] = tp->center_mm[0] + rnd__uniform(&G->g, -0.2, 0.2) * cw;
      p.center_mm[1] = tp->center_mm[1] + rnd__uniform(&G->g, -0.2, 0.2) * ch;
      break;
    case LAND_SEVERAL:
    case LAND_UNDER: {
      int other = rnd__int(&G->g, 0, s->n_cards - 1);
      const rnd_pose *op = &s->cards[other].pose;
      double t = rnd__uniform(&G->g, 0.35, 0.65);
      p.center_mm[0] = tp->center_mm[0] * (1 - t) + op->center_mm[0] * t + rnd__uniform(&G->g, -15, 15);
      p.center_mm[1] = tp->center_mm[1] * (1 - t) + op->center_mm[1] * t + rnd__uniform(&G->g, -15, 15);
      if (kind == LAND_UNDER) {
        double dir = rnd__uniform(&G->g, 0, 2 * M_PI), d = rnd__uniform(&G->g, 0.55, 0.9) * ch;
        p.center_mm[0] = tp->center_mm[0] + cos(dir) * d;
        p.center_mm[1] = tp->center_mm[1] + sin(dir) * d;
        p.z = -100 + k; /* slid under the layout */
        p.lift_mm = 0.2;
      }
      break;
    }
    case LAND_NONE:
      p.center_mm[0] = rnd__uniform(&G->g, G->field[0] - 30, G->field[2] + 30);
      p.center_mm[1] = rnd__uniform(&G->g, G->field[1] - 30, G->field[3] + 30);
      break;
    case LAND_ON_CARPET:
    case LAND_SAME_CARD: {
      if (k == 0) return false;
      const rnd_carpet *below = &s->carpets[rnd__int(&G->g, 0, k - 1)];
      if (below->pose.z < 0) continue;
      double dir = rnd__uniform(&G->g, 0, 2 * M_PI);
      double d = kind == LAND_ON_CARPET ? rnd__uniform(&G->g, 0.3, 0.6) * ch : rnd__uniform(&G->g, 0.1, 0.3) * ch;
      p.center_mm[0] = below->pose.center_mm[0] + cos(dir) * d;
      p.center_mm[1] = below->pose.center_mm[1] + sin(dir) * d;
      break;
    }
    }
    if (covers_marker(s, &p)) continue;
    double area;
    uint64_t on = overlaps(s, &p, &area);
    int n_on = popcount64(on);
    bool ok = false;
    switch (kind) {
    case LAND_ONE: ok = n_on == 1; break;
    case LAND_SEVERAL: ok = n_on >= 2; break;
    case LAND_NONE: ok = n_on == 0; break;
    case LAND_UNDER: ok = n_on >= 1 && area < 0.6 * cw * ch; break;
    case LAND_ON_CARPET:
    case LAND_SAME_CARD: {
      /* overlaps an earlier carpet and shares a card with it */
      rnd__poly a, b;
      card_poly(s, &p, true, &a);
      for (int j = 0; j < k && !ok; j++) {
        if (s->carpets[j].pose.z < 0) continue;
        card_poly(s, &s->carpets[j].pose, true, &b);
        ok = rnd__convex_overlap(&a, &b) > 200 && (overlaps(s, &s->carpets[j].pose, NULL) & on);
      }
      break;
    }
    }
    if (ok) {
      c->pose = p;
      return true;
    }
  }
  return false;
}

static void make_carpets(gen *G, const rnd_deck *deck) {
  rnd_scene *s = G->s;
  int colours = deck ? rnd_deck_colour_count(deck) : 4;
  int max = colours < 5 ? colours : 5;
  if (max < 1 || s->n_cards == 0) return;
  int n = rnd__int(&G->g, 1, max);
  int order[RND_MAX_CARPETS];
  for (int i = 0; i < colours && i < RND_MAX_CARPETS; i++) order[i] = i;
  for (int i = colours - 1; i > 0; i--) {
    int j = rnd__int(&G->g, 0, i), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  s->n_carpets = 0;
  for (int k = 0; k < n; k++) {
    rnd_carpet *c = &s->carpets[k];
    memset(c, 0, sizeof *c);
    snprintf(c->colour, RND_NAME_LEN, "%s", deck ? rnd_deck_colour(deck, order[k]) : rnd_demo_colours[order[k]]);
    memcpy(c->player, c->colour, RND_NAME_LEN);
    s->n_carpets = k + 1;
    /* the first carpet lands on cards; later ones cover all the cases */
    int kind = k == 0 ? rnd__int(&G->g, LAND_ONE, LAND_SEVERAL) : rnd__int(&G->g, 0, LAND_KINDS - 1);
    if (!land(G, k, kind) && !land(G, k, LAND_ONE) && !land(G, k, LAND_NONE)) {
      s->n_carpets = k; /* nowhere to put it: fewer carpets */
      break;
    }
  }
}

/* ---------------- camera, light, table ----------------------------- */

static bool markers_in_view(const rnd_scene *s) {
  for (int i = 0; i < s->n_markers; i++)
    for (int dx = -1; dx <= 1; dx += 2)
      for (int dy = -1; dy <= 1; dy += 2) {
        double u, v, r = 0.5 * s->markers[i].size_mm + s->markers[i].quiet_mm + 10;
        if (!rnd_camera_project(&s->camera, s->markers[i].center_mm[0] + dx * r,
                                s->markers[i].center_mm[1] + dy * r, &u, &v))
          return false;
        if (u < 4 || v < 4 || u > s->camera.width - 5 || v > s->camera.height - 5) return false;
      }
  return true;
}

static void make_camera(gen *G, double fw, double fh) {
  rnd_camera *cam = &G->s->camera;
  static const double tilt_lo[3] = {0, 4, 14}, tilt_hi[3] = {4, 18, 32};
  static const double k1_lo[3] = {-0.02, -0.12, -0.28}, k1_hi[3] = {0.02, 0.05, 0.1};
  /* people line the camera up with the table, either way round */
  static const double roll[3] = {2, 8, 15}, flip[3] = {0.0, 0.25, 0.5};
  double tilt = rnd__uniform(&G->g, tilt_lo[G->diff], tilt_hi[G->diff]) * RND__DEG;
  double az = rnd__uniform(&G->g, 0, 2 * M_PI);
  rnd_camera_set_hfov(cam, rnd__uniform(&G->g, 62, 72));
  cam->dist[0] = rnd__uniform(&G->g, k1_lo[G->diff], k1_hi[G->diff]);
  cam->dist[1] = rnd__uniform(&G->g, -0.5, 0.5) * fabs(cam->dist[0]) * 0.5;
  cam->roll_deg = rnd__uniform(&G->g, -roll[G->diff], roll[G->diff]);
  if (rnd__unit(&G->g) < flip[G->diff]) cam->roll_deg += 180;
  cam->look_at_mm[0] = 0.5 * fw + rnd__uniform(&G->g, -20, 20);
  cam->look_at_mm[1] = 0.5 * fh + rnd__uniform(&G->g, -20, 20);
  /* rise until all markers are in the picture */
  for (double dist = 650; dist < 4000; dist *= 1.05) {
    cam->position_mm[0] = cam->look_at_mm[0] - sin(tilt) * cos(az) * dist;
    cam->position_mm[1] = cam->look_at_mm[1] - sin(tilt) * sin(az) * dist;
    cam->position_mm[2] = cos(tilt) * dist;
    if (markers_in_view(G->s)) break;
  }
}

static void make_look(gen *G) {
  rnd_look *l = &G->s->look;
  int d = G->diff;
  static const double noise[3] = {1.0, 2.5, 5.0}, blur[3] = {0.3, 0.6, 1.1};
  static const double glare[3] = {0.0, 0.25, 0.5}, gradient[3] = {0.05, 0.15, 0.35};
  static const double vignette[3] = {0.1, 0.25, 0.4}, shadow[3] = {0.25, 0.35, 0.5};
  static const int quality[3] = {95, 88, 72};
  l->brightness = rnd__uniform(&G->g, 0.92, 1.05);
  l->gradient = gradient[d] * rnd__uniform(&G->g, 0.5, 1.0);
  l->gradient_deg = rnd__uniform(&G->g, 0, 360);
  l->vignette = vignette[d] * rnd__uniform(&G->g, 0.5, 1.0);
  for (int c = 0; c < 3; c++) l->tint[c] = 1.0 + (d == RND_EASY ? 0.0 : rnd__uniform(&G->g, -0.06, 0.06) * d);
  l->glare_strength = glare[d] * rnd__uniform(&G->g, 0.5, 1.0);
  l->glare_radius_mm = rnd__uniform(&G->g, 40, 120);
  l->glare_mm[0] = rnd__uniform(&G->g, 50, 500);
  l->glare_mm[1] = rnd__uniform(&G->g, 50, 350);
  l->shadow_strength = shadow[d];
  l->shadow_deg = rnd__uniform(&G->g, 0, 360);
  l->shadow_softness_mm = rnd__uniform(&G->g, 0.8, 2.5);
  l->noise_sigma = noise[d] * rnd__uniform(&G->g, 0.6, 1.0);
  l->blur_px = blur[d] * rnd__uniform(&G->g, 0.6, 1.0);
  l->noise_seed = rnd__next(&G->g) >> 11; /* 53 bits: exact in JSON */
  l->jpeg_quality = quality[d];
}

static void make_table(gen *G) {
  rnd_table *t = &G->s->table;
  static const double woods[3][2][3] = {
      {{0.55, 0.36, 0.2}, {0.38, 0.22, 0.11}},
      {{0.72, 0.56, 0.38}, {0.56, 0.4, 0.24}},
      {{0.35, 0.22, 0.14}, {0.22, 0.13, 0.08}}};
  static const double plain[3][3] = {{0.78, 0.77, 0.74}, {0.3, 0.32, 0.35}, {0.62, 0.6, 0.55}};
  static const double felt[2][3] = {{0.12, 0.36, 0.2}, {0.16, 0.2, 0.38}};
  static const double cloth[3][2][3] = {
      {{0.85, 0.82, 0.74}, {0.62, 0.18, 0.16}},
      {{0.8, 0.78, 0.7}, {0.2, 0.3, 0.55}},
      {{0.88, 0.8, 0.55}, {0.25, 0.45, 0.25}}};
  double r = rnd__unit(&G->g);
  int pick = rnd__int(&G->g, 0, 2);
  if (G->diff == RND_EASY) t->surface = r < 0.5 ? RND_SURFACE_PLAIN : RND_SURFACE_FELT;
  else if (G->diff == RND_NORMAL) t->surface = r < 0.6 ? RND_SURFACE_WOOD : r < 0.8 ? RND_SURFACE_FELT : RND_SURFACE_PLAIN;
  else t->surface = r < 0.6 ? RND_SURFACE_CLOTH : RND_SURFACE_WOOD;
  switch (t->surface) {
  case RND_SURFACE_PLAIN:
    memcpy(t->colour, plain[pick], sizeof t->colour);
    memcpy(t->colour2, plain[pick], sizeof t->colour2);
    break;
  case RND_SURFACE_WOOD:
    memcpy(t->colour, woods[pick][0], sizeof t->colour);
    memcpy(t->colour2, woods[pick][1], sizeof t->colour2);
    t->pattern_mm = rnd__uniform(&G->g, 70, 140);
    break;
  case RND_SURFACE_FELT:
    memcpy(t->colour, felt[pick % 2], sizeof t->colour);
    for (int c = 0; c < 3; c++) t->colour2[c] = t->colour[c] * 0.7;
    break;
  case RND_SURFACE_CLOTH:
    memcpy(t->colour, cloth[pick][0], sizeof t->colour);
    memcpy(t->colour2, cloth[pick][1], sizeof t->colour2);
    t->pattern_mm = rnd__uniform(&G->g, 50, 110);
    break;
  }
}

static void maybe_hand(gen *G) {
  rnd_scene *s = G->s;
  double p = G->diff == RND_HARD ? 0.3 : 0.0;
  if (rnd__unit(&G->g) >= p) return;
  /* a hand resting at the edge of the field, its arm out of the picture */
  double side = rnd__int(&G->g, 0, 3);
  rnd_hand *h = &s->hands[s->n_hands++];
  *h = (rnd_hand){.radius_mm = rnd__uniform(&G->g, 38, 50), .height_mm = rnd__uniform(&G->g, 40, 150)};
  double x0 = G->field[0], y0 = G->field[1], x1 = G->field[2], y1 = G->field[3];
  double t = rnd__uniform(&G->g, 0.2, 0.8);
  if (side == 0) h->center_mm[0] = x0 + t * (x1 - x0), h->center_mm[1] = y0 - 10, h->arm_deg = 270;
  else if (side == 1) h->center_mm[0] = x1 + 10, h->center_mm[1] = y0 + t * (y1 - y0), h->arm_deg = 0;
  else if (side == 2) h->center_mm[0] = x0 + t * (x1 - x0), h->center_mm[1] = y1 + 10, h->arm_deg = 90;
  else h->center_mm[0] = x0 - 10, h->center_mm[1] = y0 + t * (y1 - y0), h->arm_deg = 180;
  h->arm_deg += rnd__uniform(&G->g, -25, 25);
}

void rnd_scene_random(uint64_t seed, rnd_difficulty difficulty, const rnd_deck *deck,
                      rnd_scene *scene) {
  rnd_scene_defaults(scene);
  if (deck) rnd_deck_sizes(deck, scene->card_mm, scene->carpet_mm);
  gen G = {.g = {seed ^ 0x7E99C1D5u}, .diff = difficulty, .s = scene};
  /* a field that holds 4 x 3 cards with room, markers at its corners */
  double fw = fmax(560, 9.0 * scene->card_mm[0]), fh = fmax(400, 4.2 * scene->card_mm[1]);
  double pos[4][2] = {{0, 0}, {fw, 0}, {fw, fh}, {0, fh}};
  for (int i = 0; i < 4; i++)
    scene->markers[i].center_mm[0] = pos[i][0], scene->markers[i].center_mm[1] = pos[i][1];
  /* a table that fills the picture, as a real one would */
  scene->table.rect_mm[0] = -350, scene->table.rect_mm[1] = -260;
  scene->table.rect_mm[2] = fw + 350, scene->table.rect_mm[3] = fh + 260;
  double margin = 0.5 * 40 + 8 + 12;
  G.field[0] = margin, G.field[1] = -10, G.field[2] = fw - margin, G.field[3] = fh + 10;
  make_table(&G);
  make_layout(&G, deck);
  make_carpets(&G, deck);
  make_camera(&G, fw, fh);
  make_look(&G);
  maybe_hand(&G);
}

/* ---------------- pieces for rendered games (game.c) ---------------- */

static void gen_init(gen *G, uint64_t seed, rnd_difficulty d, rnd_scene *s) {
  *G = (gen){.g = {seed ^ 0x5EED0F6A3Eull}, .diff = d, .s = s};
  double fw = s->n_markers > 1 ? s->markers[1].center_mm[0] : 560;
  double fh = s->n_markers > 2 ? s->markers[2].center_mm[1] : 400;
  double margin = 0.5 * 40 + 8 + 12;
  G->field[0] = margin, G->field[1] = -10, G->field[2] = fw - margin, G->field[3] = fh + 10;
}

void rnd__random_stage(uint64_t seed, rnd_difficulty difficulty, const rnd_deck *deck,
                       rnd_scene *scene) {
  rnd_scene_random(seed, difficulty, deck, scene);
  scene->n_cards = scene->n_carpets = scene->n_hands = 0;
}

bool rnd__random_layout(uint64_t seed, rnd_difficulty difficulty, rnd_scene *s, int n) {
  gen G;
  gen_init(&G, seed, difficulty, s);
  for (int attempt = 0; attempt < 400; attempt++) {
    bool grown = difficulty == RND_HARD && rnd__unit(&G.g) < 0.5;
    if (grown ? grown_layout(&G, n) : grid_layout(&G, n)) {
      s->n_cards = n;
      for (int i = 0; i < n; i++) s->cards[i].pose.z = i, s->cards[i].pose.lift_mm = 0.3;
      return true;
    }
  }
  return false;
}

bool rnd__random_landing(uint64_t seed, rnd_difficulty difficulty, rnd_scene *s, int k) {
  gen G;
  gen_init(&G, seed, difficulty, s);
  /* mostly on one card, as players aim; sometimes across two, on another
   * carpet, next to the layout or slid under a card */
  double r = rnd__unit(&G.g);
  int kind = r < 0.5 ? LAND_ONE : r < 0.68 ? LAND_SEVERAL : r < 0.8 ? LAND_NONE
           : r < 0.86 ? LAND_UNDER : r < 0.93 ? LAND_ON_CARPET : LAND_SAME_CARD;
  if (s->n_cards == 0) kind = LAND_NONE;
  return land(&G, k, kind) || (s->n_cards > 0 && land(&G, k, LAND_ONE)) || land(&G, k, LAND_NONE);
}
