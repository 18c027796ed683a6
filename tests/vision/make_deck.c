/* make_deck: writes a deck folder (spec section 2) that is NOT the built-in
 * demo deck, for the vision tests of "the user's own deck":
 *
 *   make_deck OUT_DIR [--card W H] [--carpet W H] [--recolour] [--backs]
 *
 * --card / --carpet  card and carpet sizes in mm written to deck.json
 * --recolour         other art: every face mirrored left-right and its
 *                    colour channels rotated (r,g,b) -> (b,r,g), so that a
 *                    red carpet looks blue-ish and the types keep their
 *                    structure but none of the demo deck's colours
 * --backs            carpet-<colour>-back.png for every carpet: a dark
 *                    lattice in the carpet's mean colour (face-down carpets)
 *
 * The faces start from the demo deck's procedural art (tools/render). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static const char *const types[] = {
    "palace",       "adventure-a",   "adventure-b",  "adventure-c", "adventure-d", "adventure-e",
    "spice-bazaar", "carpet-bazaar", "camel-bazaar", "treasure",    "lamp",        "desert"};

typedef struct {
  const char *out;
  double card[2], carpet[2];
  bool recolour, backs;
} options;

static int usage(void) {
  fputs("usage: make_deck OUT_DIR [--card W H] [--carpet W H] [--recolour] [--backs]\n", stderr);
  return 2;
}

static bool parse_size(char **argv, int *i, int argc, double mm[2]) {
  if (*i + 2 >= argc) return false;
  char *end1, *end2;
  mm[0] = strtod(argv[*i + 1], &end1);
  mm[1] = strtod(argv[*i + 2], &end2);
  *i += 2;
  return !*end1 && !*end2 && mm[0] >= 20 && mm[1] >= 20 && mm[0] <= 200 && mm[1] <= 200;
}

static bool parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->card[0] = o->carpet[0] = 59;
  o->card[1] = o->carpet[1] = 91;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--card")) {
      if (!parse_size(argv, &i, argc, o->card)) return false;
    } else if (!strcmp(argv[i], "--carpet")) {
      if (!parse_size(argv, &i, argc, o->carpet)) return false;
    } else if (!strcmp(argv[i], "--recolour")) {
      o->recolour = true;
    } else if (!strcmp(argv[i], "--backs")) {
      o->backs = true;
    } else if (argv[i][0] != '-' && !o->out) {
      o->out = argv[i];
    } else {
      return false;
    }
  }
  return o->out != NULL;
}

/* Mirrored left-right, channels rotated: same structure, other colours. */
static tp_status recolour(const tp_image *src, tp_image *dst) {
  tp_status st = tp_image_alloc(dst, src->width, src->height, 3);
  for (int y = 0; !st && y < src->height; y++) {
    const uint8_t *s = tp_image_row(src, y);
    uint8_t *d = tp_image_row(dst, y);
    for (int x = 0; x < src->width; x++) {
      const uint8_t *p = s + 3 * (src->width - 1 - x);
      d[3 * x] = p[2], d[3 * x + 1] = p[0], d[3 * x + 2] = p[1];
    }
  }
  return st;
}

/* A carpet's back: its face's mean colour, darkened, with a lighter
 * diagonal lattice and a light border; nothing like its face. */
static tp_status draw_back(const tp_image *face, tp_image *dst) {
  double mean[3] = {0, 0, 0};
  for (int y = 0; y < face->height; y++)
    for (int x = 0; x < face->width; x++)
      for (int c = 0; c < 3; c++) mean[c] += tp_image_row(face, y)[3 * x + c];
  double n = (double)face->width * face->height;
  tp_status st = tp_image_alloc(dst, face->width, face->height, 3);
  int border = face->width / 20, cell = face->width / 6;
  for (int y = 0; !st && y < dst->height; y++) {
    uint8_t *d = tp_image_row(dst, y);
    for (int x = 0; x < dst->width; x++) {
      bool edge = x < border || y < border || x >= dst->width - border || y >= dst->height - border;
      bool line = (x + y) % cell < cell / 8 || (x - y + 4 * cell * 100) % cell < cell / 8;
      for (int c = 0; c < 3; c++) {
        double m = mean[c] / n;
        d[3 * x + c] = (uint8_t)(edge ? 230 : line ? 0.5 * (m + 255) : 0.45 * m);
      }
    }
  }
  return st;
}

static tp_status add_face(rnd_deck *deck, const char *stem, const tp_image *face, bool change,
                          tp_error *err) {
  if (!change) return rnd_deck_set_face(deck, stem, face, err);
  tp_image img = {0};
  if (recolour(face, &img)) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st = rnd_deck_set_face(deck, stem, &img, err);
  tp_image_free(&img);
  return st;
}

static tp_status add_carpet(rnd_deck *deck, const rnd_deck *demo, const char *colour,
                            const options *o, tp_error *err) {
  char stem[64];
  snprintf(stem, sizeof stem, "carpet-%s", colour);
  tp_status st = add_face(deck, stem, rnd_deck_face(demo, stem), o->recolour, err);
  if (st || !o->backs) return st;
  tp_image back = {0};
  if (draw_back(rnd_deck_face(deck, stem), &back))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  snprintf(stem, sizeof stem, "carpet-%s-back", colour);
  st = rnd_deck_set_face(deck, stem, &back, err);
  tp_image_free(&back);
  return st;
}

static tp_status make(const options *o, tp_error *err) {
  rnd_deck *demo = NULL, *deck = NULL;
  tp_status st = rnd_deck_create_demo(&demo, err);
  if (!st) st = rnd_deck_create(o->card, o->carpet, &deck, err);
  for (size_t i = 0; !st && i < sizeof types / sizeof *types; i++)
    st = add_face(deck, types[i], rnd_deck_face(demo, types[i]), o->recolour, err);
  for (int i = 0; !st && i < rnd_deck_colour_count(demo); i++)
    st = add_carpet(deck, demo, rnd_deck_colour(demo, i), o, err);
  if (!st) st = rnd_deck_write_dir(deck, o->out, NULL, NULL, err);
  rnd_deck_destroy(deck);
  rnd_deck_destroy(demo);
  return st;
}

int main(int argc, char **argv) {
  options o;
  if (!parse(argc, argv, &o)) return usage();
  tp_error err;
  if (make(&o, &err)) {
    fprintf(stderr, "make_deck: %s\n", err.text);
    return 1;
  }
  return 0;
}
