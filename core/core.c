/* core: statuses, error buffers, images, whole-file I/O. */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tp_status_exit_code(tp_status status) {
  switch (status) {
  case TP_OK: return TP_EXIT_OK;
  case TP_ERR_IO:
  case TP_ERR_FORMAT:
  case TP_ERR_INVALID: return TP_EXIT_USAGE;
  default: return TP_EXIT_JOB;
  }
}

const char *tp_status_name(tp_status status) {
  switch (status) {
  case TP_OK: return "ok";
  case TP_ERR_NOMEM: return "out of memory";
  case TP_ERR_IO: return "i/o error";
  case TP_ERR_FORMAT: return "bad format";
  case TP_ERR_INVALID: return "invalid value";
  case TP_ERR_NOTFOUND: return "not found";
  case TP_ERR_UNSUPPORTED: return "unsupported";
  case TP_ERR_INTERNAL: return "internal error";
  }
  return "unknown error";
}

tp_status tp_error_set(tp_error *err, tp_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
  }
  return status;
}

tp_status tp_image_alloc(tp_image *img, int width, int height, int channels) {
  memset(img, 0, sizeof *img);
  if (width <= 0 || height <= 0 || width > 65535 || height > 65535 ||
      (channels != 1 && channels != 3 && channels != 4))
    return TP_ERR_INVALID;
  size_t stride = (size_t)width * (size_t)channels;
  img->data = calloc((size_t)height, stride);
  if (!img->data) return TP_ERR_NOMEM;
  img->width = width;
  img->height = height;
  img->stride = (int)stride;
  img->channels = channels;
  return TP_OK;
}

void tp_image_free(tp_image *img) {
  if (!img) return;
  free(img->data);
  memset(img, 0, sizeof *img);
}

tp_status tp_read_file(const char *path, size_t max_bytes, char **out,
                       size_t *out_len, tp_error *err) {
  *out = NULL;
  if (out_len) *out_len = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
  /* Read up to max_bytes + 1 so that a file of exactly max_bytes passes
   * and a longer one is caught without reading all of it. */
  size_t limit = max_bytes + 1, cap = limit < 4096 ? limit : 4096, len = 0;
  char *buf = malloc(cap + 1);
  tp_status st = buf ? TP_OK : TP_ERR_NOMEM;
  while (st == TP_OK && len < limit) {
    if (len == cap) {
      cap = cap > limit / 2 ? limit : cap * 2;
      char *bigger = realloc(buf, cap + 1);
      if (!bigger) { st = TP_ERR_NOMEM; break; }
      buf = bigger;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) {
      if (ferror(f))
        st = tp_error_set(err, TP_ERR_IO, "%s: read error", path);
      break;
    }
  }
  if (st == TP_OK && len > max_bytes)
    st = tp_error_set(err, TP_ERR_FORMAT, "%s: file is larger than %zu bytes",
                      path, max_bytes);
  fclose(f);
  if (st != TP_OK) {
    free(buf);
    if (st == TP_ERR_NOMEM) tp_error_set(err, st, "%s: out of memory", path);
    return st;
  }
  buf[len] = '\0';
  *out = buf;
  if (out_len) *out_len = len;
  return TP_OK;
}

static tp_status write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return TP_ERR_IO;
    }
    p += n;
    len -= (size_t)n;
  }
  return TP_OK;
}

tp_status tp_write_file_atomic(const char *path, const void *data, size_t len,
                               tp_error *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", 12);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    tp_status st = tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s", path,
                                strerror(errno));
    free(tmp);
    return st;
  }
  fchmod(fd, 0644);
  tp_status st = write_all(fd, data, len);
  if (st == TP_OK && fsync(fd) != 0) st = TP_ERR_IO;
  if (close(fd) != 0) st = TP_ERR_IO;
  if (st == TP_OK && rename(tmp, path) != 0) st = TP_ERR_IO;
  if (st != TP_OK) {
    tp_error_set(err, st, "%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return st;
}

void tp_log(FILE *out, tp_log_level threshold, tp_log_level level,
            const char *fmt, ...) {
  static const char *const names[] = {"debug", "info", "warning", "error"};
  if (level < threshold || !out) return;
  fprintf(out, "teppich: %s: ", names[level]);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fputc('\n', out);
}
