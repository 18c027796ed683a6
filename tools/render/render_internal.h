/* render internals: shared by the files of tools/render only. Prefix rnd__. */
#ifndef TEPPICH_RENDER_INTERNAL_H
#define TEPPICH_RENDER_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "render.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define RND__DEG (M_PI / 180.0)

/* A small deterministic generator (splitmix64 seeded xorshift*): the
 * renderer's randomness must not depend on libc's rand(). */
typedef struct {
  uint64_t s;
} rnd__rng;

static inline uint64_t rnd__next(rnd__rng *g) {
  uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline double rnd__unit(rnd__rng *g) {
  return (double)(rnd__next(g) >> 11) * (1.0 / 9007199254740992.0);
}
static inline double rnd__uniform(rnd__rng *g, double lo, double hi) {
  return lo + (hi - lo) * rnd__unit(g);
}
static inline int rnd__int(rnd__rng *g, int lo, int hi_inclusive) {
  return lo + (int)(rnd__unit(g) * (double)(hi_inclusive - lo + 1));
}
double rnd__gauss(rnd__rng *g);

/* Integer hash noise for procedural textures. */
static inline uint32_t rnd__hash2(int32_t x, int32_t y, uint32_t seed) {
  uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^
               seed * 0xcb1ab31fu;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return h;
}
/* Smooth value noise in [0, 1]. */
float rnd__value_noise(float x, float y, uint32_t seed);

/* Convex polygons (up to 16 vertices, counter- or clockwise). */
typedef struct {
  int n;
  double p[16][2];
} rnd__poly;

void rnd__poly_from_corners(const double corners[4][2], rnd__poly *out);
double rnd__poly_area(const rnd__poly *p);
/* Area of the intersection of two convex polygons. */
double rnd__convex_overlap(const rnd__poly *a, const rnd__poly *b);
/* Smallest distance between two convex polygons (0 if they overlap). */
double rnd__poly_distance(const rnd__poly *a, const rnd__poly *b);

/* Signed distance (mm) to a hand (palm centre, palm radius, unit arm
 * direction); *sleeve set where the forearm is clothed. */
double rnd__hand_sd(double cx, double cy, double r, double ax, double ay, double x, double y,
                    int *sleeve);

/* Stacking order of a scene, bottom to top (see rnd_truth.stack). */
int rnd__stacking(const rnd_scene *scene, int *stack);

/* Demo card art (deck_art.c): draws one face into an RGB image. */
tp_status rnd__draw_card(const char *stem, int w_px, int h_px, tp_image *out,
                         tp_error *err);
tp_status rnd__draw_back(int w_px, int h_px, tp_image *out, tp_error *err);

/* Table surface texture (table.c). */
tp_status rnd__table_texture(const rnd_table *table, double px_per_mm,
                             tp_image *out, tp_error *err);

double rnd__now_ms(void);

/* Pieces of random scenes for rendered games (random.c): the stage (table,
 * markers, camera, light) without objects; poses for cards[0..n) that
 * follow the layout rules (types are the caller's); a landing pose for
 * carpets[k] (colour is the caller's; carpets 0..k-1 lie already). */
void rnd__random_stage(uint64_t seed, rnd_difficulty difficulty, const rnd_deck *deck,
                       rnd_scene *scene);
bool rnd__random_layout(uint64_t seed, rnd_difficulty difficulty, rnd_scene *s, int n);
bool rnd__random_landing(uint64_t seed, rnd_difficulty difficulty, rnd_scene *s, int k);

/* The scene as a cJSON tree (scene.c); the truth embeds it. */
struct cJSON;
struct cJSON *rnd__scene_json_object(const rnd_scene *s);

#endif
