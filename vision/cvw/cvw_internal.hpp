// cvw internal helpers shared by the wrapper's .cpp files (never installed,
// never included from C). Names cvw__*.
#ifndef TEPPICH_CVW_INTERNAL_HPP
#define TEPPICH_CVW_INTERNAL_HPP

#include <exception>
#include <new>
#include <utility>

#include <opencv2/core.hpp>

#include "cvw.h"

// True when OpenCV has the 4.7+ objdetect ArucoDetector API.
#if CV_VERSION_MAJOR > 4 || (CV_VERSION_MAJOR == 4 && CV_VERSION_MINOR >= 7)
#define CVW__ARUCO_DETECTOR_API 1
#else
#define CVW__ARUCO_DETECTOR_API 0
#endif

// Runs fn (returning tp_status) and turns every exception into a status
// with a one-line message: no exception ever crosses into C.
template <class Fn>
tp_status cvw__guard(tp_error *err, const char *what, Fn &&fn) noexcept {
  try {
    return std::forward<Fn>(fn)();
  } catch (const cv::Exception &e) {
    return tp_error_set(err, TP_ERR_INTERNAL, "%s: OpenCV error: %s", what,
                        e.err.c_str());
  } catch (const std::bad_alloc &) {
    return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", what);
  } catch (const std::exception &e) {
    return tp_error_set(err, TP_ERR_INTERNAL, "%s: %s", what, e.what());
  } catch (...) {
    return tp_error_set(err, TP_ERR_INTERNAL, "%s: unknown error", what);
  }
}

// A cv::Mat header over a tp_image (no copy). The image must stay alive.
cv::Mat cvw__mat_view(const tp_image *img);

// Checks a tp_image view: data, positive size, 1/3/4 channels, stride.
bool cvw__image_valid(const tp_image *img);

// Gray copy or view of img (1 channel: view; RGB/RGBA: converted).
cv::Mat cvw__gray(const tp_image *img);

// Copies a 1- or 3-channel (BGR) Mat into a newly allocated tp_image
// (gray or RGB).
tp_status cvw__image_from_mat(const cv::Mat &m, tp_image *out, tp_error *err);

#endif
