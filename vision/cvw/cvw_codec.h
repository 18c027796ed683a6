/* cvw internal: quiet PNG and JPEG decoders on libpng / libjpeg.
 *
 * OpenCV's own decoders let libpng and libjpeg print warnings and errors
 * on stderr, which would break the one-line error contract (spec section
 * 5) on damaged files. These report into a tp_error only. Plain C because
 * libjpeg reports errors by longjmp, which must not cross C++ frames. */
#ifndef TEPPICH_CVW_CODEC_H
#define TEPPICH_CVW_CODEC_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decode into *out (tp_image_alloc'd) as gray (1) or RGB (3). The caller
 * has already checked the header's size against the pixel limit. */
tp_status cvw__decode_png(const void *data, size_t len, int channels,
                          const char *name, tp_image *out, tp_error *err);
tp_status cvw__decode_jpeg(const void *data, size_t len, int channels,
                           const char *name, tp_image *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
