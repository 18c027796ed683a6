/* capture: JPEG through libjpeg(-turbo): decoding MJPEG webcam frames and
 * writing snapshots and recorded frames. */
#include "cap_internal.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

/* libjpeg reports fatal errors through error_exit, which must not return:
 * jump back to the caller with the message instead of exiting. */
typedef struct {
  struct jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
} cap__jpeg_error;

static void on_jpeg_error(j_common_ptr cinfo) {
  cap__jpeg_error *e = (cap__jpeg_error *)cinfo->err;
  e->mgr.format_message(cinfo, e->message);
  longjmp(e->jump, 1);
}

/* Corrupt-data warnings would go to stderr; a damaged webcam frame is
 * reported by the caller as a dropped frame instead. */
static void on_jpeg_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static tp_status decode(struct jpeg_decompress_struct *cinfo,
                        const uint8_t *data, size_t len, int channels,
                        tp_image *out, tp_error *err) {
  jpeg_mem_src(cinfo, (unsigned char *)data, (unsigned long)len);
  if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK)
    return tp_error_set(err, TP_ERR_FORMAT, "JPEG frame has no image");
  cinfo->out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo->dct_method = JDCT_IFAST;
  jpeg_start_decompress(cinfo);
  if ((int)cinfo->output_components != channels ||
      cap__ensure_image(out, (int)cinfo->output_width,
                        (int)cinfo->output_height, channels) != TP_OK) {
    jpeg_abort_decompress(cinfo);
    return tp_error_set(err, TP_ERR_NOMEM, "JPEG frame cannot be decoded");
  }
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = tp_image_row(out, (int)cinfo->output_scanline);
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return TP_OK;
}

tp_status cap__jpeg_decode(const uint8_t *data, size_t len, int channels,
                           tp_image *out, tp_error *err) {
  struct jpeg_decompress_struct cinfo;
  cap__jpeg_error jerr;
  cinfo.err = jpeg_std_error(&jerr.mgr);
  jerr.mgr.error_exit = on_jpeg_error;
  jerr.mgr.emit_message = on_jpeg_message;
  jpeg_create_decompress(&cinfo);
  tp_status st;
  if (setjmp(jerr.jump)) {
    st = tp_error_set(err, TP_ERR_FORMAT, "corrupt JPEG frame: %s",
                      jerr.message);
  } else {
    st = decode(&cinfo, data, len, channels, out, err);
  }
  jpeg_destroy_decompress(&cinfo);
  return st;
}

static void encode(struct jpeg_compress_struct *cinfo, const tp_image *img,
                   int quality, unsigned char **buf, unsigned long *len) {
  jpeg_mem_dest(cinfo, buf, len);
  cinfo->image_width = (JDIMENSION)img->width;
  cinfo->image_height = (JDIMENSION)img->height;
  cinfo->input_components = img->channels;
  cinfo->in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality, TRUE);
  jpeg_start_compress(cinfo, TRUE);
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = tp_image_row(img, (int)cinfo->next_scanline);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
}

/* Encodes to memory; *buf is malloc'd by libjpeg (free it). */
static tp_status encode_to_memory(const tp_image *img, int quality,
                                  unsigned char **buf, unsigned long *len,
                                  const char *path, tp_error *err) {
  struct jpeg_compress_struct cinfo;
  cap__jpeg_error jerr;
  cinfo.err = jpeg_std_error(&jerr.mgr);
  jerr.mgr.error_exit = on_jpeg_error;
  jpeg_create_compress(&cinfo);
  tp_status st = TP_OK;
  if (setjmp(jerr.jump))
    st = tp_error_set(err, TP_ERR_INTERNAL, "cannot encode %s: %s", path,
                      jerr.message);
  else
    encode(&cinfo, img, quality, buf, len);
  jpeg_destroy_compress(&cinfo);
  return st;
}

tp_status cap_write_jpeg(const char *path, const tp_image *img, int quality,
                         tp_error *err) {
  if (!img->data || img->width <= 0 || img->height <= 0 ||
      (img->channels != 1 && img->channels != 3))
    return tp_error_set(err, TP_ERR_INVALID,
                        "cannot write %s: image must be gray or RGB", path);
  unsigned char *buf = NULL;
  unsigned long len = 0;
  tp_status st = encode_to_memory(img, quality >= 1 && quality <= 100 ? quality : 90,
                                  &buf, &len, path, err);
  if (st == TP_OK) st = tp_write_file_atomic(path, buf, len, err);
  free(buf);
  return st;
}
