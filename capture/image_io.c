/* capture: image files for replay, read through the OpenCV wrapper. */
#include "cap_internal.h"
#include "cvw.h"

tp_status cap__read_image(const char *path, int channels, tp_image *out,
                          tp_error *err) {
  tp_image fresh = {0};
  tp_status st = cvw_image_read(path, channels, &fresh, err);
  if (st != TP_OK) return st;
  tp_image_free(out);
  *out = fresh;
  return TP_OK;
}
