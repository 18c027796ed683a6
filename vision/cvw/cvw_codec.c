/* cvw internal: quiet PNG and JPEG decoders (see cvw_codec.h). */
#include "cvw_codec.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

tp_status cvw__decode_png(const void *data, size_t len, int channels,
                          const char *name, tp_image *out, tp_error *err) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, data, len))
    return tp_error_set(err, TP_ERR_FORMAT, "%s: damaged PNG: %s", name,
                        png.message);
  png.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  tp_status st = tp_image_alloc(out, (int)png.width, (int)png.height, channels);
  if (st != TP_OK) {
    png_image_free(&png);
    return tp_error_set(err, st, "%s: out of memory", name);
  }
  /* Transparent pixels are composited onto white, like paper. */
  png_color white = {255, 255, 255};
  if (!png_image_finish_read(&png, &white, out->data, out->stride, NULL)) {
    tp_image_free(out);
    png_image_free(&png);
    return tp_error_set(err, TP_ERR_FORMAT, "%s: damaged PNG: %s", name,
                        png.message);
  }
  png_image_free(&png);
  return TP_OK;
}

typedef struct {
  struct jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
} quiet_jpeg_error;

static void jpeg_error_exit(j_common_ptr cinfo) {
  quiet_jpeg_error *q = (quiet_jpeg_error *)cinfo->err;
  q->mgr.format_message(cinfo, q->message);
  longjmp(q->jump, 1);
}

/* Warnings (corrupt entropy data, extra bytes) are counted, not printed. */
static void jpeg_quiet_message(j_common_ptr cinfo, int level) {
  if (level < 0) cinfo->err->num_warnings++;
}

tp_status cvw__decode_jpeg(const void *data, size_t len, int channels,
                           const char *name, tp_image *out, tp_error *err) {
  struct jpeg_decompress_struct cinfo;
  quiet_jpeg_error q;
  memset(&q, 0, sizeof q);
  cinfo.err = jpeg_std_error(&q.mgr);
  q.mgr.error_exit = jpeg_error_exit;
  q.mgr.emit_message = jpeg_quiet_message;
  /* volatile: read after longjmp. */
  tp_image *volatile image = out;
  if (setjmp(q.jump)) {
    tp_image_free(image);
    jpeg_destroy_decompress(&cinfo);
    return tp_error_set(err, TP_ERR_FORMAT, "%s: damaged JPEG: %s", name,
                        q.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, (const unsigned char *)data, (unsigned long)len);
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    return tp_error_set(err, TP_ERR_FORMAT,
                        "%s: CMYK JPEG is not supported; save it as RGB", name);
  }
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  tp_status st = tp_image_alloc(out, (int)cinfo.output_width,
                                (int)cinfo.output_height, channels);
  if (st != TP_OK || cinfo.output_components != channels) {
    tp_image_free(out);
    jpeg_destroy_decompress(&cinfo);
    return tp_error_set(err, st != TP_OK ? st : TP_ERR_FORMAT,
                        "%s: cannot decode this JPEG", name);
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = tp_image_row(out, (int)cinfo.output_scanline);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return TP_OK;
}
