/* core: the few things every teppich module shares.
 *
 * Prefix tp_. Images as explicit views with stride (as AprilTag's
 * image_u8_t), the exit-status contract of spec section 5, a bounded error
 * message buffer, file writes that never leave half a file behind and a
 * seedable random generator.
 * No global mutable state: everything is passed in by the caller. */
#ifndef TEPPICH_CORE_H
#define TEPPICH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of every subcommand (spec section 5). */
enum {
  TP_EXIT_OK = 0,
  TP_EXIT_JOB = 1,   /* input read, job not possible (no markers, no camera) */
  TP_EXIT_USAGE = 2  /* bad usage, unreadable or invalid input file */
};

/* Result codes of library functions: 0 ok, negative on error (libuv style). */
typedef enum {
  TP_OK = 0,
  TP_ERR_NOMEM = -1,
  TP_ERR_IO = -2,       /* a file could not be read or written */
  TP_ERR_FORMAT = -3,   /* input is malformed */
  TP_ERR_INVALID = -4,  /* a value is out of range or not allowed */
  TP_ERR_NOTFOUND = -5, /* what was asked for is not there */
  TP_ERR_UNSUPPORTED = -6,
  TP_ERR_INTERNAL = -7
} tp_status;

/* Maps a status to the process exit code of spec section 5. */
int tp_status_exit_code(tp_status status);
const char *tp_status_name(tp_status status);

/* A caller-owned message buffer. Functions that can fail take one and
 * write a single line (no newline) naming the file or value and the fix. */
typedef struct {
  char text[512];
} tp_error;

/* printf into err (if err is not NULL); returns status for `return` chains. */
tp_status tp_error_set(tp_error *err, tp_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An image: 8-bit, 1 (gray), 3 (RGB) or 4 (RGBA) channels, row stride in
 * bytes. `owned` images come from tp_image_alloc and go to tp_image_free;
 * views point into someone else's memory and are never freed. */
typedef struct {
  uint8_t *data;
  int width;
  int height;
  int stride;
  int channels;
} tp_image;

tp_status tp_image_alloc(tp_image *img, int width, int height, int channels);
void tp_image_free(tp_image *img); /* NULL-safe, resets the struct */
static inline uint8_t *tp_image_row(const tp_image *img, int y) {
  return img->data + (size_t)y * (size_t)img->stride;
}

/* Reads a whole file (at most max_bytes) into a malloc'd, NUL-terminated
 * buffer. *out must be freed by the caller. */
tp_status tp_read_file(const char *path, size_t max_bytes, char **out,
                       size_t *out_len, tp_error *err);

/* Writes data to path atomically: a temporary file in the same folder,
 * fsync, then rename. On failure nothing at path changes. */
tp_status tp_write_file_atomic(const char *path, const void *data, size_t len,
                               tp_error *err);

/* Log levels for tp_log; the threshold is the caller's (no global). */
typedef enum { TP_LOG_DEBUG, TP_LOG_INFO, TP_LOG_WARN, TP_LOG_ERROR } tp_log_level;
void tp_log(FILE *out, tp_log_level threshold, tp_log_level level,
            const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A small seedable random generator (splitmix64); the state is the
 * caller's, so runs replay exactly from their seed. */
typedef struct {
  uint64_t state;
} tp_rng;

void tp_rng_seed(tp_rng *rng, uint64_t seed);
uint64_t tp_rng_next(tp_rng *rng);
/* Uniform in [0, n) without modulo bias; 0 for n <= 1. */
uint32_t tp_rng_below(tp_rng *rng, uint32_t n);

/* Contact of two convex outlines (table mm, corners in order, either
 * winding): the penetration depth, the shortest move that separates them
 * (separating axes over both outlines' edge normals). Positive: they
 * overlap that deep (a corner poking 1 mm into a card: 1; a thin sliver
 * along an edge: its width); 0: they touch; negative: a gap of at least
 * that much. Fewer than 3 corners: -DBL_MAX. The rules call a carpet "on"
 * a card only when it reaches deeper than a setting (ft_rules_contact_mm):
 * a depth, not an area, because a long sliver has area but no depth. */
double tp_convex_contact_depth(const double (*a)[2], int na,
                               const double (*b)[2], int nb);
/* The same for two rectangles (4 corners in order) with rounded corners
 * of radius ra and rb mm (each at most half its short side), as cards are
 * cut: a carpet corner that pokes into a card's corner meets nothing there
 * (its 3 mm rounding takes about 1.24 mm of depth away), while along an
 * edge the depth is the sharp one. Radius 0: tp_convex_contact_depth,
 * except that a gap is the true distance instead of the widest axis gap. */
double tp_rounded_rect_contact_depth(const double a[4][2], double ra,
                                     const double b[4][2], double rb);
/* The one comparison both the truth and the vision make: deeper than
 * min_depth_mm (negative: touching counts too). */
bool tp_contact_lies_on(double depth_mm, double min_depth_mm);

#ifdef __cplusplus
}
#endif
#endif
