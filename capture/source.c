/* capture: parsing of source strings (see capture.h for the forms). */
#define _DEFAULT_SOURCE /* POSIX clocks, strdup, V4L2 headers */
#include "capture.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char cap__forms[] =
    "use libcamera[:INDEX|:ID], v4l2:/dev/videoN, file:IMAGE, "
    "dir:FOLDER[@FPS] or video:FILE";

static bool has_control_chars(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return true;
  return false;
}

static tp_status copy_path(cap_spec *out, const char *text, size_t len,
                           const char *whole, tp_error *err) {
  if (len == 0)
    return tp_error_set(err, TP_ERR_INVALID,
                        "source '%s' names no path; %s", whole, cap__forms);
  if (len >= sizeof out->path)
    return tp_error_set(err, TP_ERR_INVALID,
                        "source path is longer than %d bytes",
                        (int)sizeof out->path - 1);
  memcpy(out->path, text, len);
  out->path[len] = '\0';
  return TP_OK;
}

/* A whole decimal number without sign, at most 9 digits. */
static bool parse_index(const char *s, int *out) {
  size_t n = strlen(s);
  if (n == 0 || n > 9) return false;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  *out = atoi(s);
  return true;
}

/* A positive finite rate written plainly (digits, at most one dot). */
static bool parse_fps(const char *s, double *out) {
  size_t n = strlen(s);
  if (n == 0 || n > 12) return false;
  int dots = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '.') dots++;
    else if (!isdigit((unsigned char)s[i])) return false;
  }
  if (dots > 1 || s[0] == '.') return false;
  double v = strtod(s, NULL);
  if (!isfinite(v) || v <= 0 || v > 1000) return false;
  *out = v;
  return true;
}

static tp_status parse_libcamera(const char *rest, cap_spec *out,
                                 const char *whole, tp_error *err) {
  out->kind = CAP_KIND_LIBCAMERA;
  if (*rest == '\0') return TP_OK; /* first camera */
  if (*rest != ':')
    return tp_error_set(err, TP_ERR_INVALID, "source '%s' is not known; %s",
                        whole, cap__forms);
  rest++;
  if (parse_index(rest, &out->index)) return TP_OK;
  out->index = -1;
  return copy_path(out, rest, strlen(rest), whole, err);
}

static tp_status parse_v4l2(const char *rest, cap_spec *out,
                            const char *whole, tp_error *err) {
  out->kind = CAP_KIND_V4L2;
  int n;
  if (parse_index(rest, &n)) { /* v4l2:0 is short for v4l2:/dev/video0 */
    snprintf(out->path, sizeof out->path, "/dev/video%d", n);
    return TP_OK;
  }
  return copy_path(out, rest, strlen(rest), whole, err);
}

static tp_status parse_dir(const char *rest, cap_spec *out, const char *whole,
                           tp_error *err) {
  out->kind = CAP_KIND_DIR;
  const char *at = strrchr(rest, '@');
  size_t len = strlen(rest);
  if (at) {
    if (!parse_fps(at + 1, &out->fps))
      return tp_error_set(err, TP_ERR_INVALID,
                          "source '%s': the rate after '@' must be frames per "
                          "second in (0, 1000], e.g. dir:game@10",
                          whole);
    len = (size_t)(at - rest);
  }
  return copy_path(out, rest, len, whole, err);
}

static tp_status parse_bare(const char *text, cap_spec *out, tp_error *err) {
  struct stat st;
  if (stat(text, &st) == 0 && S_ISDIR(st.st_mode)) out->kind = CAP_KIND_DIR;
  else out->kind = CAP_KIND_FILE;
  return copy_path(out, text, strlen(text), text, err);
}

tp_status cap_parse_source(const char *text, cap_spec *out, tp_error *err) {
  memset(out, 0, sizeof *out);
  out->index = -1;
  if (!text || !*text)
    return tp_error_set(err, TP_ERR_INVALID, "empty source; %s", cap__forms);
  if (strlen(text) >= CAP_PATH_MAX + 16)
    return tp_error_set(err, TP_ERR_INVALID,
                        "source string is longer than %d bytes",
                        CAP_PATH_MAX + 15);
  if (has_control_chars(text))
    return tp_error_set(err, TP_ERR_INVALID,
                        "source string contains control characters; %s",
                        cap__forms);
  if (!strncmp(text, "libcamera", 9))
    return parse_libcamera(text + 9, out, text, err);
  if (!strncmp(text, "v4l2:", 5)) return parse_v4l2(text + 5, out, text, err);
  if (!strncmp(text, "dir:", 4)) return parse_dir(text + 4, out, text, err);
  if (!strncmp(text, "file:", 5)) {
    out->kind = CAP_KIND_FILE;
    return copy_path(out, text + 5, strlen(text + 5), text, err);
  }
  if (!strncmp(text, "video:", 6)) {
    out->kind = CAP_KIND_VIDEO;
    return copy_path(out, text + 6, strlen(text + 6), text, err);
  }
  /* "xyz:..." with an unknown scheme is a typo rather than a path. */
  const char *colon = strchr(text, ':');
  const char *slash = strchr(text, '/');
  if (colon && (!slash || colon < slash))
    return tp_error_set(err, TP_ERR_INVALID, "source '%s' is not known; %s",
                        text, cap__forms);
  return parse_bare(text, out, err);
}
