/* render: the photo-like table renderer and the built-in demo deck.
 * Prefix rnd_.
 *
 * There is no real table in CI and no photo set of this game, so every
 * vision test and accuracy number is measured on images made here: a scene
 * (table, markers, destination cards, carpets, a camera, light and sensor
 * defects) is ray-cast pixel by pixel through a pinhole camera with OpenCV's
 * lens model onto the table plane, and the ground truth (spec section 4
 * field names) is written beside it.
 *
 * Geometry is in the table frame of spec section 1: millimetres, origin at
 * the centre of marker 0, +x toward marker 1, +y toward markers 2 and 3
 * (seen from above: x right, y down). Heights above the table are positive.
 *
 * Typical use:
 *     rnd_deck *deck; rnd_deck_create_demo(&deck, &err);
 *     rnd_scene scene; rnd_scene_random(7, RND_NORMAL, deck, &scene);
 *     rnd_renderer *r; rnd_renderer_create(deck, &r, &err);
 *     tp_image img; tp_image_alloc(&img, scene.camera.width, scene.camera.height, 3);
 *     rnd_render(r, &scene, &img, NULL, &err);
 *     char *truth = rnd_truth_json(&scene, deck, &err);
 *
 * No global mutable state: the deck and the renderer are handles, scenes are
 * plain structs (fixed-size arrays, no heap), outputs are caller-owned. */
#ifndef TEPPICH_RENDER_H
#define TEPPICH_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "ft.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  RND_MAX_CARDS = 64,
  RND_MAX_CARPETS = 16,
  RND_MAX_MARKERS = 16,
  RND_MAX_HANDS = 4,
  RND_NAME_LEN = 32
};

/* The twelve destination types of spec section 2, in that order. */
extern const char *const rnd_card_types[12];
/* The demo deck's carpet colours. */
extern const char *const rnd_demo_colours[4];

/* ------------------------------------------------------------------ */
/* Scene                                                               */

/* Where a card lies. angle_deg turns the card's long axis from +x toward +y;
 * the face's top edge is at -long-axis, so angle 90 shows the card upright
 * in a top view. Any angle is allowed here (270 = upside down); the truth
 * reports it folded into [0, 180) as the spec does. */
typedef struct {
  double center_mm[2];
  double angle_deg;
  double z;               /* stacking order: larger lies on top */
  double lift_mm;         /* how far its edges stand above what lies below
                             (curl, thrown at a slant): sets its shadow */
  double velocity_mm[2];  /* movement during the exposure: motion blur */
  double spin_deg;        /* rotation during the exposure */
} rnd_pose;

typedef struct {
  char type[RND_NAME_LEN]; /* one of rnd_card_types */
  rnd_pose pose;
  bool face_down;          /* shows the common card back */
} rnd_card;

typedef struct {
  char colour[RND_NAME_LEN]; /* carpet-<colour> face of the deck */
  char player[RND_NAME_LEN]; /* owner; defaults to the colour */
  rnd_pose pose;
  bool face_down;            /* shows carpet-<colour>-back if the deck has it */
} rnd_carpet;

/* A printed fiducial marker lying flat on the table (below every card).
 * size_mm is the black square; quiet_mm the white margin around it. */
typedef struct {
  int id;
  double center_mm[2];
  double angle_deg; /* 0: the marker's top edge runs along +x */
  double size_mm;
  double quiet_mm;
} rnd_marker;

/* A hand reaching in: a skin-coloured blob with an arm that leaves the
 * picture, floating above everything (its shadow falls on the cards). */
typedef struct {
  double center_mm[2];  /* the palm */
  double radius_mm;
  double arm_deg;       /* direction from the palm toward the arm */
  double height_mm;     /* above the table, for the shadow */
  double velocity_mm[2];
} rnd_hand;

/* Pinhole camera with OpenCV's distortion model, looking from position_mm
 * (x, y, height above the table) at look_at_mm on the table, turned by
 * roll_deg about its optical axis. Pixel (0,0) is the centre of the
 * top-left pixel (spec section 3). */
typedef struct {
  int width, height;
  double fx, fy, cx, cy;   /* intrinsics in pixels */
  double dist[5];          /* k1 k2 p1 p2 k3 (OpenCV order) */
  double position_mm[3];
  double look_at_mm[2];
  double roll_deg;
} rnd_camera;

typedef enum {
  RND_SURFACE_PLAIN,  /* one colour with faint mottling */
  RND_SURFACE_WOOD,   /* planks with grain */
  RND_SURFACE_FELT,   /* fibrous noise */
  RND_SURFACE_CLOTH   /* woven table cloth with a printed pattern: hard */
} rnd_surface;

typedef struct {
  double rect_mm[4];       /* x0 y0 x1 y1 of the table top */
  rnd_surface surface;
  double colour[3];        /* linear-ish RGB 0..1 of the surface */
  double colour2[3];       /* second colour of the pattern */
  double pattern_mm;       /* pattern scale (plank width, print repeat) */
  double floor_colour[3];  /* what is seen beyond the table edge */
} rnd_table;

/* Everything about light and the sensor. Zero means "off" for each. */
typedef struct {
  double brightness;        /* overall gain, 1 = nominal */
  double gradient;          /* relative brightness fall-off across the picture */
  double gradient_deg;      /* direction (image angle) of getting darker */
  double vignette;          /* corner darkening, 0..1 */
  double tint[3];           /* white balance gains per channel */
  double glare_mm[2];       /* centre of the glare spot on the table */
  double glare_radius_mm;
  double glare_strength;    /* 0..1 added white at the centre */
  double shadow_strength;   /* 0..1 darkening under a lifted card */
  double shadow_deg;        /* direction the shadows fall (table angle) */
  double shadow_softness_mm;
  double noise_sigma;       /* sensor noise, grey levels (0..255) */
  double blur_px;           /* defocus blur sigma in pixels */
  uint64_t noise_seed;
  int jpeg_quality;         /* 1..100 for .jpg output */
} rnd_look;

typedef struct {
  double card_mm[2];       /* width, height of destination cards */
  double carpet_mm[2];     /* width, height of carpet cards */
  double corner_mm;        /* radius of the rounded card corners */
  char dictionary[RND_NAME_LEN]; /* marker dictionary, e.g. "4X4_50" */
  rnd_table table;
  rnd_camera camera;
  rnd_look look;
  int n_markers, n_cards, n_carpets, n_hands;
  rnd_marker markers[RND_MAX_MARKERS];
  rnd_card cards[RND_MAX_CARDS];
  rnd_carpet carpets[RND_MAX_CARPETS];
  rnd_hand hands[RND_MAX_HANDS];
} rnd_scene;

/* A scene with the defaults of docs/render.md: four markers 0..3 at the
 * corners of a 560 x 400 mm field, a camera 800 mm above its centre at
 * 1920x1080, no cards. */
void rnd_scene_defaults(rnd_scene *scene);

/* Parses the scene JSON of docs/render.md over the defaults. `name` (the
 * file name) starts every error message. Sizes default to deck_card_mm /
 * deck_carpet_mm (pass NULL for 59 x 91). */
tp_status rnd_scene_parse(const char *text, size_t len, const char *name,
                          const double deck_card_mm[2],
                          const double deck_carpet_mm[2], rnd_scene *scene,
                          tp_error *err);

/* The scene as JSON (malloc'd, caller frees); parses back to the same. */
char *rnd_scene_to_json(const rnd_scene *scene);

/* ------------------------------------------------------------------ */
/* Camera model                                                        */

typedef struct {
  double R[9];   /* world (table frame, z into the table) -> camera, row-major */
  double t[3];   /* X_cam = R * X_table + t  (OpenCV rvec/tvec convention) */
  double K[9];
} rnd_extrinsics;

/* The camera's pose as OpenCV sees it. Table points are (x, y, 0) and the
 * table frame's z axis points into the table (x right, y down). */
void rnd_camera_extrinsics(const rnd_camera *cam, rnd_extrinsics *out);
/* Table mm -> image pixel (distorted). False if behind the camera. */
bool rnd_camera_project(const rnd_camera *cam, double x_mm, double y_mm,
                        double *u_px, double *v_px);
/* Image pixel -> table mm. False if the ray misses the table plane. */
bool rnd_camera_unproject(const rnd_camera *cam, double u_px, double v_px,
                          double *x_mm, double *y_mm);
/* Sets fx = fy from a horizontal field of view; cx, cy to the centre. */
void rnd_camera_set_hfov(rnd_camera *cam, double hfov_deg);
/* Angle between the optical axis and straight down, degrees. */
double rnd_camera_tilt_deg(const rnd_camera *cam);

/* Card geometry: corners (top-left, top-right, bottom-right, bottom-left of
 * the face image) of a w x h card at `pose`. */
void rnd_pose_corners(const rnd_pose *pose, double w, double h,
                      double corners[4][2]);

/* ------------------------------------------------------------------ */
/* Deck                                                                */

typedef struct rnd_deck rnd_deck;

/* The built-in demo deck: original procedural art (cairo) for the twelve
 * types and the four carpets red, blue, green, yellow; 59 x 91 mm. Drawn
 * at run time, deterministic. */
tp_status rnd_deck_create_demo(rnd_deck **out, tp_error *err);
/* An empty deck of the given sizes (NULL: 59 x 91) to fill with faces. */
tp_status rnd_deck_create(const double card_mm[2], const double carpet_mm[2],
                          rnd_deck **out, tp_error *err);
void rnd_deck_destroy(rnd_deck *deck); /* NULL-safe */

/* Stores a copy of a face. stem: a type, carpet-<colour> or
 * carpet-<colour>-back. img: 1, 3 or 4 channels (kept as RGB). */
tp_status rnd_deck_set_face(rnd_deck *deck, const char *stem,
                            const tp_image *img, tp_error *err);
/* The face (RGB) or NULL if the deck lacks it. Valid until destroy. */
const tp_image *rnd_deck_face(const rnd_deck *deck, const char *stem);
/* The common back of destination cards (built in). */
const tp_image *rnd_deck_back(const rnd_deck *deck);
void rnd_deck_sizes(const rnd_deck *deck, double card_mm[2],
                    double carpet_mm[2]);
/* Carpet colours in the deck: red, blue, green, yellow (the demo deck's)
 * first in that order, others by name: i in [0, n). */
int rnd_deck_colour_count(const rnd_deck *deck);
const char *rnd_deck_colour(const rnd_deck *deck, int i);

/* Image file access, supplied by the caller (the command uses vision/cvw)
 * so that this library needs no image codec of its own. */
typedef tp_status (*rnd_image_read_fn)(void *user, const char *path,
                                       tp_image *out, tp_error *err);
typedef tp_status (*rnd_image_write_fn)(void *user, const char *path,
                                        const tp_image *img, int jpeg_quality,
                                        tp_error *err);

/* Reads a deck folder (spec section 2). Files that are neither a type nor
 * carpet-* are an error naming the file. */
tp_status rnd_deck_load_dir(const char *dir, rnd_image_read_fn read,
                            void *user, rnd_deck **out, tp_error *err);
/* Writes the deck as a folder: <type>.png, carpet-<colour>.png and
 * deck.json. write NULL: PNG through cairo, written atomically. */
tp_status rnd_deck_write_dir(const rnd_deck *deck, const char *dir,
                             rnd_image_write_fn write, void *user,
                             tp_error *err);

/* PNG encoding with cairo, atomic (fallback writer; ignores quality). */
tp_status rnd_write_png(void *user, const char *path, const tp_image *img,
                        int jpeg_quality, tp_error *err);

/* ------------------------------------------------------------------ */
/* Marker bits                                                          */

/* The caller supplies marker images (vision/cvw draws them). Writes the
 * cells of marker `id` including its black border, row-major, 1 = white,
 * into bits (cells x cells, cells <= 16). */
typedef tp_status (*rnd_marker_bits_fn)(void *user, const char *dictionary,
                                        int id, uint8_t *bits, int *cells,
                                        tp_error *err);

/* ------------------------------------------------------------------ */
/* Renderer                                                            */

typedef struct rnd_renderer rnd_renderer;

/* Prepares textures (mip levels) of every face in the deck. The deck must
 * outlive the renderer. marker_bits may be NULL: markers then render as a
 * plain grey square with a "no marker bits" checker (never for real use). */
tp_status rnd_renderer_create(const rnd_deck *deck,
                              rnd_marker_bits_fn marker_bits, void *user,
                              rnd_renderer **out, tp_error *err);
void rnd_renderer_destroy(rnd_renderer *r); /* NULL-safe */

typedef struct {
  double total_ms;
  double table_ms;     /* table surface texture */
  double raster_ms;    /* ray casting, textures, shadows, light */
  double post_ms;      /* blur, noise */
  long edge_pixels;    /* pixels that were supersampled */
} rnd_render_stats;

/* Renders the scene into img (caller-allocated RGB, camera size).
 * Deterministic: the same scene gives the same bytes. */
tp_status rnd_render(rnd_renderer *r, const rnd_scene *scene, tp_image *img,
                     rnd_render_stats *stats, tp_error *err);

/* ------------------------------------------------------------------ */
/* Ground truth                                                        */

typedef struct {
  double corners_mm[4][2];
  double visible_fraction; /* of its area, not hidden by things above */
} rnd_card_truth;

typedef struct {
  double corners_mm[4][2];
  int n_on;
  int on_cards[RND_MAX_CARDS]; /* card indices it lies on from above */
} rnd_carpet_truth;

typedef struct {
  rnd_card_truth cards[RND_MAX_CARDS];
  rnd_carpet_truth carpets[RND_MAX_CARPETS];
  /* Bottom to top: index >= 0 a card, -1 - index a carpet. */
  int n_stack;
  int stack[RND_MAX_CARDS + RND_MAX_CARPETS];
} rnd_truth;

/* Geometry truth: corners, visible fractions, on_cards, stacking. A
 * carpet lies on a card below it when it reaches deeper into it than the
 * rules' contact depth (tp_contact_lies_on, ft_rules_contact_mm; the
 * default rules' "any overlap" unless given, e.g. 1 mm: a shallower corner
 * or sliver then only touches). */
void rnd_truth_compute(const rnd_scene *scene, rnd_truth *out);
void rnd_truth_compute_contact(const rnd_scene *scene, double contact_mm, rnd_truth *out);
/* The truth JSON (malloc'd): analyze's fields of spec section 4 (with
 * claims, contests, returned from the rules core) plus stacking, poses,
 * camera. NULL on failure with err set. */
char *rnd_truth_json(const rnd_scene *scene, tp_error *err);
char *rnd_truth_json_contact(const rnd_scene *scene, double contact_mm, tp_error *err);

/* ------------------------------------------------------------------ */
/* Random scenes                                                       */

typedef enum { RND_EASY, RND_NORMAL, RND_HARD } rnd_difficulty;

/* A random scene that follows the layout rules (12 or fewer cards, at least
 * 10 mm apart, none more than a card width from its nearest neighbour) with
 * 1..5 carpets (at most the deck's colours) landing on one card, several,
 * none, under a card, on another carpet, two players on one card.
 * Deterministic in seed. */
void rnd_scene_random(uint64_t seed, rnd_difficulty difficulty,
                      const rnd_deck *deck, rnd_scene *scene);

/* ------------------------------------------------------------------ */
/* Rendered games                                                      */

typedef struct {
  uint64_t seed;
  int n_players;             /* 2..4: anna=red+yellow,ben=blue+green /
                                anna=red,ben=blue,cleo=green[,dirk=yellow] */
  rnd_difficulty difficulty;
  int width, height;         /* 0: the random stage's 1920x1080 */
  /* Only the game and its truth (transcript, answers, frames.txt), no
   * frames: to see at once what a change of the truth does to a game. */
  bool truth_only;
  /* The rules the game is played and its truth read by (what "lies on"
   * means: contact_depth_tenths_mm); NULL: the default rules. */
  const ft_rules *rules;
  /* n_frames > 0: only these frame numbers are rendered and written (the
   * same pixels as in the whole film: each frame's noise is its own), the
   * game and its truth as always: a test's few frames of a long game. */
  const int *frames;
  int n_frames;
} rnd_game_options;

typedef struct {
  int frames, rounds, flights;
  double ms;
} rnd_game_stats;

/* Plays a whole game with the rules core (random but legal decisions) and
 * films it into out_dir (which must exist): frame-NNNNN.jpg at 10 fps (a
 * hand laying each card, carpets flying in one by one with motion blur,
 * still frames after landing, claimed cards taken away, ...), plus
 * transcript.txt (docs/transcript.md), answers.txt (spec section 6
 * --answers) and frames.txt (what each frame shows). The deck needs the
 * carpets red, blue, green and yellow. write NULL: PNG (name stays .jpg). */
tp_status rnd_game_render(const rnd_game_options *opt, const rnd_deck *deck,
                          rnd_renderer *r, const char *out_dir,
                          rnd_image_write_fn write, void *user,
                          rnd_game_stats *stats, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
