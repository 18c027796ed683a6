/* render: decks: the built-in demo deck and deck folders (spec section 2). */
#define _POSIX_C_SOURCE 200809L
#include <cairo.h>
#include <cjson/cJSON.h>
#include <fontconfig/fontconfig.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render_internal.h"

const char *const rnd_card_types[12] = {
    "palace",       "adventure-a",   "adventure-b",  "adventure-c",
    "adventure-d",  "adventure-e",   "spice-bazaar", "carpet-bazaar",
    "camel-bazaar", "treasure",      "lamp",         "desert"};
const char *const rnd_demo_colours[4] = {"red", "blue", "green", "yellow"};

enum { DECK_MAX_FACES = 64, DEMO_PX_PER_MM = 8 };

struct rnd_deck {
  double card_mm[2], carpet_mm[2];
  int n_faces;
  char stems[DECK_MAX_FACES][RND_NAME_LEN + 16];
  tp_image faces[DECK_MAX_FACES];
  tp_image back;
  int n_colours;
  char colours[DECK_MAX_FACES][RND_NAME_LEN];
};

static bool is_type(const char *stem) {
  for (int i = 0; i < 12; i++)
    if (!strcmp(stem, rnd_card_types[i])) return true;
  return false;
}

/* carpet-<colour> or carpet-<colour>-back with a lower-case colour name;
 * writes the colour (without -back) to colour. */
static bool carpet_stem(const char *stem, char colour[RND_NAME_LEN], bool *is_back) {
  if (strncmp(stem, "carpet-", 7)) return false;
  const char *c = stem + 7;
  size_t n = strlen(c);
  *is_back = n > 5 && !strcmp(c + n - 5, "-back");
  if (*is_back) n -= 5;
  if (n == 0 || n >= RND_NAME_LEN) return false;
  for (size_t i = 0; i < n; i++)
    if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
      return false;
  memcpy(colour, c, n);
  colour[n] = '\0';
  return true;
}

/* cairo's toy text keeps fontconfig's caches for the life of the process;
 * drop them after drawing so that leak checkers see a clean exit. Safe:
 * every cairo object of the drawing is gone by then, and both libraries
 * set themselves up again on their next use. */
static void release_text_caches(void) {
  cairo_debug_reset_static_data();
  FcFini();
}

tp_status rnd_deck_create(const double card_mm[2], const double carpet_mm[2],
                          rnd_deck **out, tp_error *err) {
  *out = NULL;
  rnd_deck *d = calloc(1, sizeof *d);
  if (!d) return tp_error_set(err, TP_ERR_NOMEM, "deck: out of memory");
  d->card_mm[0] = card_mm ? card_mm[0] : 59, d->card_mm[1] = card_mm ? card_mm[1] : 91;
  d->carpet_mm[0] = carpet_mm ? carpet_mm[0] : 59;
  d->carpet_mm[1] = carpet_mm ? carpet_mm[1] : 91;
  tp_status st = rnd__draw_back(256, 395, &d->back, err);
  release_text_caches();
  if (st != TP_OK) {
    free(d);
    return st;
  }
  *out = d;
  return TP_OK;
}

void rnd_deck_destroy(rnd_deck *deck) {
  if (!deck) return;
  for (int i = 0; i < deck->n_faces; i++) tp_image_free(&deck->faces[i]);
  tp_image_free(&deck->back);
  free(deck);
}

static int compare_names(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

/* A deck's carpet colours: the demo deck's four first, in its order
 * (rnd_demo_colours), the others by name after them, so that a random
 * scene made with a deck holding those colours (teppich render --random,
 * the built-in deck or its folder) is the scene teppich eval and bench
 * make without one: eval's failures can be rendered and looked at. */
static int demo_rank(const char *colour) {
  for (int i = 0; i < 4; i++)
    if (!strcmp(colour, rnd_demo_colours[i])) return i;
  return 4;
}

static int compare_colours(const void *a, const void *b) {
  int ra = demo_rank(a), rb = demo_rank(b);
  return ra != rb ? ra - rb : strcmp((const char *)a, (const char *)b);
}

static tp_status copy_rgb(const tp_image *img, tp_image *out) {
  tp_status st = tp_image_alloc(out, img->width, img->height, 3);
  if (st != TP_OK) return st;
  for (int y = 0; y < img->height; y++) {
    const uint8_t *s = tp_image_row(img, y);
    uint8_t *d = tp_image_row(out, y);
    for (int x = 0; x < img->width; x++)
      for (int c = 0; c < 3; c++)
        d[3 * x + c] = s[x * img->channels + (img->channels == 1 ? 0 : c)];
  }
  return TP_OK;
}

tp_status rnd_deck_set_face(rnd_deck *deck, const char *stem, const tp_image *img,
                            tp_error *err) {
  char colour[RND_NAME_LEN];
  bool back = false;
  /* "carpet-bazaar" is a destination type, not the carpet "bazaar" */
  bool type = is_type(stem), carpet = !type && carpet_stem(stem, colour, &back);
  if (!type && !carpet)
    return tp_error_set(err, TP_ERR_INVALID,
                        "%s: not a card type or carpet-<colour> name", stem);
  if (!img || !img->data || img->width < 4 || img->height < 4 ||
      (img->channels != 1 && img->channels != 3 && img->channels != 4))
    return tp_error_set(err, TP_ERR_INVALID, "%s: face image is empty or unusable", stem);
  int slot = deck->n_faces;
  for (int i = 0; i < deck->n_faces; i++)
    if (!strcmp(deck->stems[i], stem)) slot = i;
  if (slot == DECK_MAX_FACES)
    return tp_error_set(err, TP_ERR_INVALID, "%s: more than %d faces in one deck", stem,
                        DECK_MAX_FACES);
  tp_image copy;
  if (copy_rgb(img, &copy) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", stem);
  if (slot < deck->n_faces) tp_image_free(&deck->faces[slot]);
  else deck->n_faces++;
  deck->faces[slot] = copy;
  snprintf(deck->stems[slot], sizeof deck->stems[slot], "%s", stem);
  if (carpet && !back) {
    bool known = false;
    for (int i = 0; i < deck->n_colours; i++) known |= !strcmp(deck->colours[i], colour);
    if (!known) {
      memcpy(deck->colours[deck->n_colours++], colour, RND_NAME_LEN);
      qsort(deck->colours, (size_t)deck->n_colours, RND_NAME_LEN, compare_colours);
    }
  }
  return TP_OK;
}

const tp_image *rnd_deck_face(const rnd_deck *deck, const char *stem) {
  for (int i = 0; i < deck->n_faces; i++)
    if (!strcmp(deck->stems[i], stem)) return &deck->faces[i];
  return NULL;
}

const tp_image *rnd_deck_back(const rnd_deck *deck) { return &deck->back; }

void rnd_deck_sizes(const rnd_deck *deck, double card_mm[2], double carpet_mm[2]) {
  if (card_mm) card_mm[0] = deck->card_mm[0], card_mm[1] = deck->card_mm[1];
  if (carpet_mm) carpet_mm[0] = deck->carpet_mm[0], carpet_mm[1] = deck->carpet_mm[1];
}

int rnd_deck_colour_count(const rnd_deck *deck) { return deck->n_colours; }

const char *rnd_deck_colour(const rnd_deck *deck, int i) {
  return i >= 0 && i < deck->n_colours ? deck->colours[i] : NULL;
}

tp_status rnd_deck_create_demo(rnd_deck **out, tp_error *err) {
  rnd_deck *d;
  tp_status st = rnd_deck_create(NULL, NULL, &d, err);
  if (st != TP_OK) return st;
  int w = 59 * DEMO_PX_PER_MM, h = 91 * DEMO_PX_PER_MM;
  char stem[64];
  for (int i = 0; i < 16 && st == TP_OK; i++) {
    if (i < 12) snprintf(stem, sizeof stem, "%s", rnd_card_types[i]);
    else snprintf(stem, sizeof stem, "carpet-%s", rnd_demo_colours[i - 12]);
    tp_image img;
    st = rnd__draw_card(stem, w, h, &img, err);
    if (st == TP_OK) {
      st = rnd_deck_set_face(d, stem, &img, err);
      tp_image_free(&img);
    }
  }
  release_text_caches();
  if (st != TP_OK) {
    rnd_deck_destroy(d);
    return st;
  }
  *out = d;
  return TP_OK;
}

/* ---------------- folders ------------------------------------------- */

static tp_status parse_size(const cJSON *root, const char *key, const char *path,
                            double out[2], tp_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return TP_OK;
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 ||
      !cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(v, 1)))
    return tp_error_set(err, TP_ERR_FORMAT, "%s: %s must be [width, height] in mm", path, key);
  for (int i = 0; i < 2; i++) {
    double x = cJSON_GetArrayItem(v, i)->valuedouble;
    if (!(x >= 10 && x <= 500))
      return tp_error_set(err, TP_ERR_INVALID, "%s: %s values must be 10..500 mm", path, key);
    out[i] = x;
  }
  return TP_OK;
}

static tp_status read_deck_json(const char *dir, double card[2], double carpet[2],
                                tp_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/deck.json", dir);
  struct stat sb;
  if (stat(path, &sb) != 0) return TP_OK; /* optional */
  char *text;
  size_t len;
  tp_status st = tp_read_file(path, 1 << 20, &text, &len, err);
  if (st != TP_OK) return st;
  cJSON *root = cJSON_ParseWithLength(text, len);
  free(text);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return tp_error_set(err, TP_ERR_FORMAT, "%s: not a JSON object", path);
  }
  st = parse_size(root, "card_mm", path, card, err);
  if (st == TP_OK) st = parse_size(root, "carpet_mm", path, carpet, err);
  cJSON_Delete(root);
  return st;
}

static bool image_ext(const char *name, char *stem, size_t stem_size) {
  const char *dot = strrchr(name, '.');
  if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".jpg") && strcmp(dot, ".jpeg") &&
               strcmp(dot, ".PNG") && strcmp(dot, ".JPG") && strcmp(dot, ".JPEG")))
    return false;
  size_t n = (size_t)(dot - name);
  if (n + 1 > stem_size) n = stem_size - 1;
  memcpy(stem, name, n);
  stem[n] = '\0';
  return true;
}

tp_status rnd_deck_load_dir(const char *dir, rnd_image_read_fn read, void *user,
                            rnd_deck **out, tp_error *err) {
  *out = NULL;
  double card[2] = {59, 91}, carpet[2] = {59, 91};
  tp_status st = read_deck_json(dir, card, carpet, err);
  if (st != TP_OK) return st;
  DIR *dp = opendir(dir);
  if (!dp) return tp_error_set(err, TP_ERR_IO, "%s: cannot open deck folder: %s", dir, strerror(errno));
  /* Sorted names so that errors and results do not depend on readdir order. */
  char (*names)[256] = NULL;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "deck.json")) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      void *bigger = realloc(names, (size_t)cap * sizeof *names);
      if (!bigger) { st = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", dir); break; }
      names = bigger;
    }
    snprintf(names[n++], 256, "%s", e->d_name);
  }
  closedir(dp);
  rnd_deck *d = NULL;
  if (st == TP_OK) {
    qsort(names, (size_t)n, sizeof *names, compare_names);
    st = rnd_deck_create(card, carpet, &d, err);
  }
  for (int i = 0; st == TP_OK && i < n; i++) {
    char stem[256], colour[RND_NAME_LEN], path[4096];
    bool back;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (!image_ext(names[i], stem, sizeof stem)) {
      struct stat sb;
      if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) continue;
      st = tp_error_set(err, TP_ERR_INVALID,
                        "%s: not a deck file (expected <type>.png|.jpg, carpet-<colour>.png|.jpg or deck.json)",
                        path);
      break;
    }
    if (!is_type(stem) && !carpet_stem(stem, colour, &back)) {
      st = tp_error_set(err, TP_ERR_INVALID,
                        "%s: '%s' is not a card type or carpet-<colour> (see spec section 2)",
                        path, stem);
      break;
    }
    tp_image img = {0};
    st = read(user, path, &img, err);
    if (st == TP_OK) st = rnd_deck_set_face(d, stem, &img, err);
    tp_image_free(&img);
  }
  free(names);
  if (st == TP_OK && d->n_faces == 0)
    st = tp_error_set(err, TP_ERR_INVALID, "%s: deck folder has no card images", dir);
  if (st != TP_OK) {
    rnd_deck_destroy(d);
    return st;
  }
  *out = d;
  return TP_OK;
}

typedef struct {
  unsigned char *data;
  size_t len, cap;
  bool failed;
} png_buffer;

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int len) {
  png_buffer *b = closure;
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 65536;
    while (cap < b->len + len) cap *= 2;
    unsigned char *bigger = realloc(b->data, cap);
    if (!bigger) { b->failed = true; return CAIRO_STATUS_NO_MEMORY; }
    b->data = bigger, b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return CAIRO_STATUS_SUCCESS;
}

tp_status rnd_write_png(void *user, const char *path, const tp_image *img,
                        int jpeg_quality, tp_error *err) {
  (void)user, (void)jpeg_quality;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, img->width, img->height);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return tp_error_set(err, TP_ERR_NOMEM, "%s: cannot encode: out of memory", path);
  }
  cairo_surface_flush(s);
  uint8_t *dst = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < img->height; y++) {
    const uint8_t *src = tp_image_row(img, y);
    uint32_t *row = (uint32_t *)(void *)(dst + (size_t)y * (size_t)stride);
    for (int x = 0; x < img->width; x++) {
      const uint8_t *p = src + x * img->channels;
      uint32_t r = p[0], g = img->channels >= 3 ? p[1] : p[0], b = img->channels >= 3 ? p[2] : p[0];
      row[x] = 0xff000000u | r << 16 | g << 8 | b;
    }
  }
  cairo_surface_mark_dirty(s);
  png_buffer buf = {0};
  cairo_status_t cs = cairo_surface_write_to_png_stream(s, png_append, &buf);
  cairo_surface_destroy(s);
  tp_status st;
  if (cs != CAIRO_STATUS_SUCCESS || buf.failed)
    st = tp_error_set(err, TP_ERR_IO, "%s: PNG encoding failed", path);
  else
    st = tp_write_file_atomic(path, buf.data, buf.len, err);
  free(buf.data);
  return st;
}

tp_status rnd_deck_write_dir(const rnd_deck *deck, const char *dir,
                             rnd_image_write_fn write, void *user, tp_error *err) {
  if (!write) write = rnd_write_png;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return tp_error_set(err, TP_ERR_IO, "%s: cannot create folder: %s", dir, strerror(errno));
  char path[4096];
  for (int i = 0; i < deck->n_faces; i++) {
    snprintf(path, sizeof path, "%s/%s.png", dir, deck->stems[i]);
    tp_status st = write(user, path, &deck->faces[i], 95, err);
    if (st != TP_OK) return st;
  }
  char json[160];
  int n = snprintf(json, sizeof json, "{\"card_mm\": [%g, %g], \"carpet_mm\": [%g, %g]}\n",
                   deck->card_mm[0], deck->card_mm[1], deck->carpet_mm[0], deck->carpet_mm[1]);
  snprintf(path, sizeof path, "%s/deck.json", dir);
  return tp_write_file_atomic(path, json, (size_t)n, err);
}
