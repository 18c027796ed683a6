// cvw section 1: image files. Formats are sniffed and their header sizes
// checked here before OpenCV decodes anything, so that a truncated file or
// a header claiming a gigapixel is refused with a clear message instead of
// a huge allocation or a half-gray picture.
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <vector>

#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cvw_codec.h"
#include "cvw_internal.hpp"

namespace {

enum class Format { unknown, png, jpeg, bmp };

struct Header {
  Format format = Format::unknown;
  long width = 0, height = 0;
  bool complete = false;  // the file's end marker is there
};

uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
unsigned le16(const uint8_t *p) { return (unsigned)p[1] << 8 | p[0]; }

// True if needle occurs within the last `tail` bytes of data.
bool ends_with_within(const uint8_t *data, size_t len, const char *needle,
                      size_t needle_len, size_t tail) {
  size_t start = len > tail ? len - tail : 0;
  for (size_t i = len >= needle_len ? len - needle_len + 1 : 0; i-- > start;)
    if (!memcmp(data + i, needle, needle_len)) return true;
  return false;
}

void sniff_png(const uint8_t *d, size_t len, Header *h) {
  if (len < 33 || memcmp(d + 12, "IHDR", 4)) return;
  h->width = be32(d + 16);
  h->height = be32(d + 20);
  h->complete = ends_with_within(d, len, "IEND", 4, 64);
}

// Walks the JPEG marker segments up to the first frame header (SOFn).
void sniff_jpeg(const uint8_t *d, size_t len, Header *h) {
  size_t i = 2;
  while (i + 4 <= len) {
    if (d[i] != 0xFF) return;
    uint8_t m = d[i + 1];
    if (m == 0xFF) { i++; continue; }  // fill byte
    if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) { i += 2; continue; }
    unsigned seg = be16(d + i + 2);
    if (seg < 2) return;
    bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > len) return;
      h->height = be16(d + i + 5);
      h->width = be16(d + i + 7);
      // Entropy-coded data never contains FF D9 (FF is stuffed), so an end
      // marker near the end means the file was not cut off.
      static const char eoi[2] = {(char)0xFF, (char)0xD9};
      h->complete = ends_with_within(d, len, eoi, 2, 4096);
      return;
    }
    if (m == 0xDA || m == 0xD9) return;  // scan or end before any frame
    i += 2 + seg;
  }
}

void sniff_bmp(const uint8_t *d, size_t len, Header *h) {
  if (len < 26) return;
  uint32_t info = le32(d + 14), offset = le32(d + 10);
  unsigned bpp;
  uint32_t compression = 0;
  if (info == 12) {
    h->width = le16(d + 18);
    h->height = le16(d + 20);
    bpp = le16(d + 24);
  } else {
    if (info < 40 || len < 34) return;
    h->width = (int32_t)le32(d + 18);
    long hh = (int32_t)le32(d + 22);
    h->height = hh < 0 ? -hh : hh;
    bpp = le16(d + 28);
    compression = le32(d + 30);
  }
  if (h->width <= 0 || bpp == 0 || bpp > 32) { h->width = 0; return; }
  // Uncompressed: the pixel rows must all be there.
  unsigned long long row = ((unsigned long long)h->width * bpp + 31) / 32 * 4;
  h->complete = compression != 0 ||
                (unsigned long long)offset + row * (unsigned long long)h->height <= len;
}

Header sniff(const uint8_t *d, size_t len) {
  Header h;
  if (len >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) {
    h.format = Format::png;
    sniff_png(d, len, &h);
  } else if (len >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) {
    h.format = Format::jpeg;
    sniff_jpeg(d, len, &h);
  } else if (len >= 2 && d[0] == 'B' && d[1] == 'M') {
    h.format = Format::bmp;
    sniff_bmp(d, len, &h);
  }
  return h;
}

const char *format_name(Format f) {
  switch (f) {
    case Format::png: return "PNG";
    case Format::jpeg: return "JPEG";
    case Format::bmp: return "BMP";
    default: return "image";
  }
}

tp_status check_header(const Header &h, const char *name, tp_error *err) {
  if (h.format == Format::unknown)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: not an image (expected PNG, JPEG or BMP)", name);
  if (h.width <= 0 || h.height <= 0)
    return tp_error_set(err, TP_ERR_FORMAT, "%s: damaged %s header", name,
                        format_name(h.format));
  if (h.width > CVW_IMAGE_MAX_PIXELS / h.height)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: image is %ldx%ld, more than the %ld megapixels "
                        "teppich reads; scale it down",
                        name, h.width, h.height, CVW_IMAGE_MAX_PIXELS / 1000000);
  if (!h.complete)
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: %s file is truncated or damaged", name,
                        format_name(h.format));
  return TP_OK;
}

// OpenCV's log lines (e.g. "imdecode: can't read header") would break the
// one-line error contract (spec section 5). PNG and JPEG bypass OpenCV.
void silence_opencv_log() {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
}

bool ext_is(const char *ext, const char *want) { return !strcasecmp(ext, want); }

// ".png" or ".jpg" for a path or bare extension; NULL if neither.
const char *encoder_ext(const char *path_or_ext) {
  const char *dot = strrchr(path_or_ext, '.');
  const char *slash = strrchr(path_or_ext, '/');
  if (!dot || (slash && dot < slash)) return nullptr;
  if (ext_is(dot, ".png")) return ".png";
  if (ext_is(dot, ".jpg") || ext_is(dot, ".jpeg")) return ".jpg";
  return nullptr;
}

tp_status encode(const tp_image *img, const char *ext, int quality,
                 std::vector<uchar> *buf, const char *name, tp_error *err) {
  if (!cvw__image_valid(img))
    return tp_error_set(err, TP_ERR_INVALID, "%s: no image to write", name);
  if (quality < 0 || quality > 100)
    return tp_error_set(err, TP_ERR_INVALID,
                        "%s: JPEG quality %d is not in 1..100", name, quality);
  cv::Mat src = cvw__mat_view(img), bgr;
  if (img->channels == 3) cv::cvtColor(src, bgr, cv::COLOR_RGB2BGR);
  else if (img->channels == 4) cv::cvtColor(src, bgr, cv::COLOR_RGBA2BGRA);
  else bgr = src;
  std::vector<int> params;
  if (!strcmp(ext, ".jpg")) {
    if (img->channels == 4) cv::cvtColor(bgr, bgr, cv::COLOR_BGRA2BGR);
    params = {cv::IMWRITE_JPEG_QUALITY, quality ? quality : 90};
  }
  if (!cv::imencode(ext, bgr, *buf, params))
    return tp_error_set(err, TP_ERR_INTERNAL, "%s: could not encode", name);
  return TP_OK;
}

}  // namespace

cv::Mat cvw__mat_view(const tp_image *img) {
  return cv::Mat(img->height, img->width, CV_8UC(img->channels), img->data,
                 (size_t)img->stride);
}

bool cvw__image_valid(const tp_image *img) {
  return img && img->data && img->width > 0 && img->height > 0 &&
         (img->channels == 1 || img->channels == 3 || img->channels == 4) &&
         img->stride >= img->width * img->channels;
}

cv::Mat cvw__gray(const tp_image *img) {
  cv::Mat src = cvw__mat_view(img), gray;
  if (img->channels == 1) return src;
  cv::cvtColor(src, gray, img->channels == 3 ? cv::COLOR_RGB2GRAY : cv::COLOR_RGBA2GRAY);
  return gray;
}

tp_status cvw__image_from_mat(const cv::Mat &m, tp_image *out, tp_error *err) {
  int ch = m.channels();
  tp_status st = tp_image_alloc(out, m.cols, m.rows, ch);
  if (st != TP_OK) return tp_error_set(err, st, "image: out of memory");
  cv::Mat dst = cvw__mat_view(out);
  if (ch == 3) cv::cvtColor(m, dst, cv::COLOR_BGR2RGB);
  else m.copyTo(dst);
  return TP_OK;
}

extern "C" const char *cvw_opencv_version(void) { return CV_VERSION; }

extern "C" void cvw_opencv_threads_set(int threads) {
  try {
    cv::setNumThreads(threads);
  } catch (...) {
    /* nothing to report: OpenCV keeps its previous setting */
  }
}

extern "C" tp_status cvw_image_decode(const void *data, size_t len,
                                      int channels, const char *name,
                                      tp_image *out, tp_error *err) {
  if (!name) name = "image data";
  return cvw__guard(err, name, [&]() -> tp_status {
    if (out) *out = tp_image{};
    if (!out || (channels != 1 && channels != 3))
      return tp_error_set(err, TP_ERR_INVALID, "%s: channels must be 1 or 3", name);
    if (!data || len == 0)
      return tp_error_set(err, TP_ERR_FORMAT, "%s: file is empty", name);
    Header h = sniff((const uint8_t *)data, len);
    tp_status st = check_header(h, name, err);
    if (st != TP_OK) return st;
    if (h.format == Format::png) return cvw__decode_png(data, len, channels, name, out, err);
    if (h.format == Format::jpeg) return cvw__decode_jpeg(data, len, channels, name, out, err);
    silence_opencv_log();
    cv::Mat raw(1, (int)len, CV_8U, const_cast<void *>(data));
    cv::Mat m = cv::imdecode(raw, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
    if (m.empty() || m.depth() != CV_8U)
      return tp_error_set(err, TP_ERR_FORMAT, "%s: %s data is damaged", name,
                          format_name(h.format));
    return cvw__image_from_mat(m, out, err);
  });
}

extern "C" tp_status cvw_image_read(const char *path, int channels,
                                    tp_image *out, tp_error *err) {
  if (out) *out = tp_image{};
  if (!path) return tp_error_set(err, TP_ERR_INVALID, "image: no file name");
  char *buf = nullptr;
  size_t len = 0;
  tp_status st = tp_read_file(path, CVW_IMAGE_MAX_FILE_BYTES, &buf, &len, err);
  if (st != TP_OK) return st;
  st = cvw_image_decode(buf, len, channels, path, out, err);
  free(buf);
  return st;
}

extern "C" tp_status cvw_image_encode(const tp_image *img, const char *ext,
                                      int jpeg_quality, uint8_t **out,
                                      size_t *out_len, tp_error *err) {
  return cvw__guard(err, "encode", [&]() -> tp_status {
    const char *e = ext ? encoder_ext(ext) : nullptr;
    if (!out || !out_len || !e)
      return tp_error_set(err, TP_ERR_INVALID,
                          "encode: format '%s' is not .png or .jpg", ext ? ext : "");
    *out = nullptr;
    *out_len = 0;
    std::vector<uchar> buf;
    tp_status st = encode(img, e, jpeg_quality, &buf, "encode", err);
    if (st != TP_OK) return st;
    *out = (uint8_t *)malloc(buf.size() ? buf.size() : 1);
    if (!*out) return tp_error_set(err, TP_ERR_NOMEM, "encode: out of memory");
    memcpy(*out, buf.data(), buf.size());
    *out_len = buf.size();
    return TP_OK;
  });
}

extern "C" tp_status cvw_image_write(const char *path, const tp_image *img,
                                     int jpeg_quality, tp_error *err) {
  if (!path) return tp_error_set(err, TP_ERR_INVALID, "image: no file name");
  return cvw__guard(err, path, [&]() -> tp_status {
    const char *e = encoder_ext(path);
    if (!e)
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s: unknown image type; use a .png or .jpg name", path);
    std::vector<uchar> buf;
    tp_status st = encode(img, e, jpeg_quality, &buf, path, err);
    if (st != TP_OK) return st;
    return tp_write_file_atomic(path, buf.data(), buf.size(), err);
  });
}
