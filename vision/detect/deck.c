/* deck: what the cards look like (spec section 2). A folder of face
 * images plus optional deck.json with the card sizes. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"

static const char *const type_names[VIS_TYPE_COUNT] = {
    "palace",      "adventure-a",   "adventure-b",  "adventure-c",
    "adventure-d", "adventure-e",   "spice-bazaar", "carpet-bazaar",
    "camel-bazaar", "treasure",     "lamp",         "desert"};

const char *vis_type_name(int type) {
  return type >= 0 && type < VIS_TYPE_COUNT ? type_names[type] : NULL;
}

int vis_type_from_name(const char *name) {
  for (int i = 0; name && i < VIS_TYPE_COUNT; i++)
    if (!strcmp(type_names[i], name)) return i;
  return -1;
}

tp_status vis_deck_create(vis_deck **out, tp_error *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return tp_error_set(err, TP_ERR_NOMEM, "out of memory for the deck");
  const double def[2] = {59, 91};
  vis_deck_set_sizes(*out, def, def);
  (*out)->corner_mm = VIS_DECK_CORNER_MM;
  return TP_OK;
}

void vis_deck_destroy(vis_deck *deck) {
  if (!deck) return;
  for (int i = 0; i < VIS_TYPE_COUNT; i++) tp_image_free(&deck->types[i]);
  for (int i = 0; i < deck->n_carpets; i++) {
    tp_image_free(&deck->carpets[i].face);
    tp_image_free(&deck->carpets[i].back);
  }
  free(deck);
}

void vis_deck_set_sizes(vis_deck *deck, const double card_mm[2],
                        const double carpet_mm[2]) {
  memcpy(deck->card_mm, card_mm, sizeof deck->card_mm);
  memcpy(deck->carpet_mm, carpet_mm, sizeof deck->carpet_mm);
}
void vis_deck_card_mm(const vis_deck *d, double out[2]) {
  memcpy(out, d->card_mm, sizeof d->card_mm);
}
void vis_deck_carpet_mm(const vis_deck *d, double out[2]) {
  memcpy(out, d->carpet_mm, sizeof d->carpet_mm);
}
double vis_deck_corner_mm(const vis_deck *d) { return d->corner_mm; }
bool vis_deck_has_type(const vis_deck *d, int type) {
  return type >= 0 && type < VIS_TYPE_COUNT && d->types[type].data;
}
const tp_image *vis_deck_type_face(const vis_deck *d, int type) {
  return vis_deck_has_type(d, type) ? &d->types[type] : NULL;
}
int vis_deck_carpet_count(const vis_deck *d) { return d->n_carpets; }
const char *vis_deck_carpet_colour(const vis_deck *d, int i) {
  return i >= 0 && i < d->n_carpets ? d->carpets[i].colour : NULL;
}
const tp_image *vis_deck_carpet_face(const vis_deck *d, int i) {
  return i >= 0 && i < d->n_carpets ? &d->carpets[i].face : NULL;
}
const tp_image *vis_deck_carpet_back(const vis_deck *d, int i) {
  return i >= 0 && i < d->n_carpets && d->carpets[i].back.data
             ? &d->carpets[i].back
             : NULL;
}

/* A size pair must be two finite numbers in a plausible card range. */
static tp_status parse_size(const cJSON *root, const char *key, double out[2],
                            const char *name, tp_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return TP_OK;
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: \"%s\" must be [width, height] in mm", name, key);
  double s[2];
  for (int i = 0; i < 2; i++) {
    const cJSON *n = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble) ||
        n->valuedouble < 10 || n->valuedouble > 400)
      return tp_error_set(err, TP_ERR_FORMAT,
                          "%s: \"%s\" values must be numbers from 10 to 400 mm",
                          name, key);
    s[i] = n->valuedouble;
  }
  out[0] = fmin(s[0], s[1]); /* width is the short side: faces are portrait */
  out[1] = fmax(s[0], s[1]);
  return TP_OK;
}

/* The corner radius: a number from 0 (sharp) to 20 mm. */
static tp_status parse_corner(const cJSON *root, double *out, const char *name,
                              tp_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "corner_mm");
  if (!v) return TP_OK;
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
      v->valuedouble > 20)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: \"corner_mm\" must be the radius of the cards' "
                        "rounded corners, a number from 0 to 20 mm", name);
  *out = v->valuedouble;
  return TP_OK;
}

tp_status vis_deck_parse_json(vis_deck *deck, const char *text, size_t len,
                              const char *name, tp_error *err) {
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: not valid JSON (expected {\"card_mm\": [59, 91]})",
                        name);
  tp_status st = TP_OK;
  double card[2], carpet[2], corner = deck->corner_mm;
  memcpy(card, deck->card_mm, sizeof card);
  memcpy(carpet, deck->carpet_mm, sizeof carpet);
  if (!cJSON_IsObject(root))
    st = tp_error_set(err, TP_ERR_FORMAT, "%s: must be a JSON object", name);
  if (!st) st = parse_size(root, "card_mm", card, name, err);
  if (!st) st = parse_size(root, "carpet_mm", carpet, name, err);
  if (!st) st = parse_corner(root, &corner, name, err);
  if (!st) vis_deck_set_sizes(deck, card, carpet);
  if (!st) deck->corner_mm = corner;
  cJSON_Delete(root);
  return st;
}

/* Copies a face into an owned RGB image (drops alpha). */
static tp_status copy_rgb(const tp_image *src, tp_image *dst, tp_error *err) {
  if (!src || !src->data || (src->channels != 3 && src->channels != 4))
    return tp_error_set(err, TP_ERR_INVALID, "face image must be RGB or RGBA");
  if (tp_image_alloc(dst, src->width, src->height, 3))
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory for a face image");
  for (int y = 0; y < src->height; y++) {
    const uint8_t *s = tp_image_row(src, y);
    uint8_t *d = tp_image_row(dst, y);
    for (int x = 0; x < src->width; x++)
      memcpy(d + 3 * x, s + src->channels * x, 3);
  }
  return TP_OK;
}

static bool valid_colour(const char *c, size_t n) {
  if (n == 0 || n >= VIS_COLOUR_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') ||
          c[i] == '_'))
      return false;
  return true;
}

static vis__carpet_face *carpet_slot(vis_deck *deck, const char *colour,
                                     size_t n) {
  for (int i = 0; i < deck->n_carpets; i++)
    if (strlen(deck->carpets[i].colour) == n &&
        !strncmp(deck->carpets[i].colour, colour, n))
      return &deck->carpets[i];
  if (deck->n_carpets >= VIS_MAX_CARPETS) return NULL;
  vis__carpet_face *c = &deck->carpets[deck->n_carpets++];
  memset(c, 0, sizeof *c);
  memcpy(c->colour, colour, n);
  return c;
}

tp_status vis_deck_add_face(vis_deck *deck, const char *stem,
                            const tp_image *face, tp_error *err) {
  int type = vis_type_from_name(stem);
  if (type >= 0) {
    tp_image_free(&deck->types[type]);
    return copy_rgb(face, &deck->types[type], err);
  }
  if (strncmp(stem, "carpet-", 7))
    return tp_error_set(err, TP_ERR_INVALID, "unknown card name '%s'", stem);
  const char *colour = stem + 7;
  size_t n = strlen(colour);
  bool back = n > 5 && !strcmp(colour + n - 5, "-back");
  if (back) n -= 5;
  if (!valid_colour(colour, n))
    return tp_error_set(err, TP_ERR_INVALID,
                        "'%s': carpet colour must be lower-case letters/digits",
                        stem);
  vis__carpet_face *c = carpet_slot(deck, colour, n);
  if (!c)
    return tp_error_set(err, TP_ERR_INVALID, "'%s': more than %d carpets",
                        stem, VIS_MAX_CARPETS);
  tp_image *dst = back ? &c->back : &c->face;
  tp_image_free(dst);
  return copy_rgb(face, dst, err);
}

/* Splits "name.ext" into stem and a known image extension. */
static bool image_stem(const char *file, char *stem, size_t cap) {
  const char *dot = strrchr(file, '.');
  if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".jpg") &&
               strcmp(dot, ".jpeg") && strcmp(dot, ".PNG") &&
               strcmp(dot, ".JPG") && strcmp(dot, ".JPEG")))
    return false;
  size_t n = (size_t)(dot - file);
  if (n == 0 || n >= cap) return false;
  memcpy(stem, file, n);
  stem[n] = 0;
  return true;
}

static tp_status load_one_face(vis_deck *deck, const char *dir,
                               const char *file, tp_error *err) {
  char stem[256], path[4096];
  if (!image_stem(file, stem, sizeof stem)) return TP_OK; /* not an image */
  snprintf(path, sizeof path, "%s/%s", dir, file);
  bool known = vis_type_from_name(stem) >= 0 || !strncmp(stem, "carpet-", 7);
  if (!known)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: unknown card name '%s' (use one of the 12 types, "
                        "carpet-<colour> or carpet-<colour>-back)",
                        path, stem);
  tp_image img = {0};
  tp_status st = vis__read_rgb(path, &img, err);
  if (st) return st;
  if (img.width < 8 || img.height < 8) {
    tp_image_free(&img);
    return tp_error_set(err, TP_ERR_FORMAT, "%s: image is too small", path);
  }
  st = vis_deck_add_face(deck, stem, &img, err);
  tp_image_free(&img);
  if (st && err) {
    char msg[sizeof err->text];
    memcpy(msg, err->text, sizeof msg);
    tp_error_set(err, st, "%.300s: %.200s", path, msg);
  }
  return st;
}

static tp_status load_deck_json(vis_deck *deck, const char *dir,
                                tp_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/deck.json", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return errno == ENOENT ? TP_OK : tp_error_set(err, TP_ERR_IO,
                                                        "%s: cannot read", path);
  fclose(f);
  char *text = NULL;
  size_t len = 0;
  tp_status st = tp_read_file(path, 1 << 20, &text, &len, err);
  if (!st) st = vis_deck_parse_json(deck, text, len, path, err);
  free(text);
  return st;
}

static int by_colour(const void *a, const void *b) {
  return strcmp(((const vis__carpet_face *)a)->colour,
                ((const vis__carpet_face *)b)->colour);
}

tp_status vis_deck_load(const char *dir, vis_deck **out, tp_error *err) {
  *out = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return tp_error_set(err, TP_ERR_IO, "%s: cannot open the deck folder (%s)",
                        dir, strerror(errno));
  vis_deck *deck = NULL;
  tp_status st = vis_deck_create(&deck, err);
  if (!st) st = load_deck_json(deck, dir, err);
  for (struct dirent *e; !st && (e = readdir(d));)
    if (e->d_name[0] != '.') st = load_one_face(deck, dir, e->d_name, err);
  closedir(d);
  /* readdir order is arbitrary: carpets in colour order, for stable output */
  if (!st) qsort(deck->carpets, (size_t)deck->n_carpets, sizeof *deck->carpets, by_colour);
  if (!st) st = vis__deck_check(deck, dir, err);
  if (st) {
    vis_deck_destroy(deck);
    return st;
  }
  *out = deck;
  return TP_OK;
}

/* A usable deck has at least one type and one carpet face. */
tp_status vis__deck_check(const vis_deck *deck, const char *dir,
                          tp_error *err) {
  int types = 0;
  for (int i = 0; i < VIS_TYPE_COUNT; i++) types += deck->types[i].data != NULL;
  if (!types)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: no destination card images (palace.png, ...)", dir);
  for (int i = 0; i < deck->n_carpets; i++)
    if (!deck->carpets[i].face.data)
      return tp_error_set(err, TP_ERR_FORMAT,
                          "%s: carpet-%s-back without carpet-%s.png", dir,
                          deck->carpets[i].colour, deck->carpets[i].colour);
  if (!deck->n_carpets)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: no carpet images (carpet-red.png, ...)", dir);
  return TP_OK;
}

tp_status vis__read_rgb(const char *path, tp_image *out, tp_error *err) {
  return cvw_image_read(path, 3, out, err);
}
