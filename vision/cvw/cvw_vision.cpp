// cvw section 4: the OpenCV operations vision/detect needs, at task level:
// fit and apply a homography (table rectification, card patches), colour
// conversion, resizing, float plane smoothing and blob outlines.
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "cvw_internal.hpp"

namespace {

bool same_size(const tp_image *a, const tp_image *b) {
  return a->width == b->width && a->height == b->height;
}

}  // namespace

extern "C" tp_status cvw_homography_fit(const double (*from)[2],
                                        const double (*to)[2], int n,
                                        double H[9], tp_error *err) {
  return cvw__guard(err, "homography", [&]() -> tp_status {
    if (n < 4 || !from || !to)
      return tp_error_set(err, TP_ERR_INVALID, "homography needs 4 points");
    std::vector<cv::Point2d> a(n), b(n);
    for (int i = 0; i < n; i++) {
      a[i] = {from[i][0], from[i][1]};
      b[i] = {to[i][0], to[i][1]};
    }
    cv::Mat h = cv::findHomography(a, b, 0);
    if (h.empty() || h.rows != 3 || h.cols != 3)
      return tp_error_set(err, TP_ERR_INVALID,
                          "homography: the points are degenerate");
    for (int i = 0; i < 9; i++) H[i] = h.at<double>(i / 3, i % 3);
    return TP_OK;
  });
}

extern "C" tp_status cvw_warp_homography(const tp_image *src, const double H[9],
                                         tp_image *dst, tp_error *err) {
  return cvw__guard(err, "warp", [&]() -> tp_status {
    if (!cvw__image_valid(src) || !cvw__image_valid(dst) ||
        src->channels != dst->channels)
      return tp_error_set(err, TP_ERR_INVALID, "warp: bad image");
    cv::Mat h(3, 3, CV_64F);
    for (int i = 0; i < 9; i++) h.at<double>(i / 3, i % 3) = H[i];
    cv::Mat out = cvw__mat_view(dst);
    cv::warpPerspective(cvw__mat_view(src), out, h, out.size(),
                        cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                        cv::BORDER_CONSTANT, cv::Scalar::all(0));
    return TP_OK;
  });
}

extern "C" tp_status cvw_rgb_to_lab(const tp_image *src, tp_image *dst,
                                    tp_error *err) {
  return cvw__guard(err, "colour conversion", [&]() -> tp_status {
    if (!cvw__image_valid(src) || !cvw__image_valid(dst) ||
        src->channels != 3 || dst->channels != 3 || !same_size(src, dst))
      return tp_error_set(err, TP_ERR_INVALID, "lab: bad image");
    cv::Mat out = cvw__mat_view(dst);
    cv::cvtColor(cvw__mat_view(src), out, cv::COLOR_RGB2Lab);
    return TP_OK;
  });
}

extern "C" tp_status cvw_resize(const tp_image *src, tp_image *dst,
                                tp_error *err) {
  return cvw__guard(err, "resize", [&]() -> tp_status {
    if (!cvw__image_valid(src) || !cvw__image_valid(dst) ||
        src->channels != dst->channels)
      return tp_error_set(err, TP_ERR_INVALID, "resize: bad image");
    bool shrink = dst->width < src->width || dst->height < src->height;
    cv::Mat out = cvw__mat_view(dst);
    cv::resize(cvw__mat_view(src), out, out.size(), 0, 0,
               shrink ? cv::INTER_AREA : cv::INTER_LINEAR);
    return TP_OK;
  });
}

extern "C" tp_status cvw_box_blur_f32(float *data, int width, int height,
                                      int stride, int radius, tp_error *err) {
  return cvw__guard(err, "blur", [&]() -> tp_status {
    if (!data || width <= 0 || height <= 0 || stride < width || radius < 0)
      return tp_error_set(err, TP_ERR_INVALID, "blur: bad plane");
    cv::Mat m(height, width, CV_32F, data, (size_t)stride * sizeof(float));
    cv::blur(m, m, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1),
             cv::BORDER_REPLICATE);
    return TP_OK;
  });
}

extern "C" tp_status cvw_box_blur_f32_cols(const float *src, float *dst, int width, int height,
                                           int stride, int radius, int x0, int x1,
                                           tp_error *err) {
  return cvw__guard(err, "blur", [&]() -> tp_status {
    if (!src || !dst || src == dst || width <= 0 || height <= 0 || stride < width ||
        radius < 0 || x0 < 0 || x1 > width || x0 >= x1)
      return tp_error_set(err, TP_ERR_INVALID, "blur: bad planes or columns");
    size_t step = (size_t)stride * sizeof(float);
    /* views of the columns inside the whole planes: OpenCV reads the
     * columns beside them as the neighbours they are (no BORDER_ISOLATED) */
    cv::Rect band(x0, 0, x1 - x0, height);
    cv::Mat in = cv::Mat(height, width, CV_32F, (void *)src, step)(band);
    cv::Mat out = cv::Mat(height, width, CV_32F, dst, step)(band);
    cv::blur(in, out, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1),
             cv::BORDER_REPLICATE);
    return TP_OK;
  });
}

extern "C" tp_status cvw_mask_outlines(const tp_image *mask, double epsilon_px,
                                       double min_area_px, double **points,
                                       int **counts, int *n_polygons,
                                       tp_error *err) {
  *points = nullptr;
  *counts = nullptr;
  *n_polygons = 0;
  return cvw__guard(err, "outlines", [&]() -> tp_status {
    if (!cvw__image_valid(mask) || mask->channels != 1)
      return tp_error_set(err, TP_ERR_INVALID, "outlines: mask must be gray");
    cv::Mat m = cvw__mat_view(mask).clone();  // findContours may modify
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(m, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
    std::vector<std::vector<cv::Point>> polys;
    size_t total = 0;
    for (const auto &c : contours) {
      if (cv::contourArea(c) < min_area_px) continue;
      std::vector<cv::Point> p;
      cv::approxPolyDP(c, p, epsilon_px, true);
      if (p.size() < 3) continue;
      total += p.size();
      polys.push_back(std::move(p));
    }
    if (polys.empty()) return TP_OK;
    double *pts = (double *)malloc(total * 2 * sizeof(double));
    int *cnt = (int *)malloc(polys.size() * sizeof(int));
    if (!pts || !cnt) {
      free(pts);
      free(cnt);
      return tp_error_set(err, TP_ERR_NOMEM, "outlines: out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < polys.size(); i++) {
      cnt[i] = (int)polys[i].size();
      for (const auto &q : polys[i]) {
        pts[k++] = q.x;
        pts[k++] = q.y;
      }
    }
    *points = pts;
    *counts = cnt;
    *n_polygons = (int)polys.size();
    return TP_OK;
  });
}

extern "C" tp_status cvw_mask_fill_holes(tp_image *mask, double max_hole_px,
                                         tp_error *err) {
  return cvw__guard(err, "fill holes", [&]() -> tp_status {
    if (!cvw__image_valid(mask) || mask->channels != 1)
      return tp_error_set(err, TP_ERR_INVALID, "fill holes: mask must be gray");
    cv::Mat m = cvw__mat_view(mask);
    cv::Mat work = m.clone();
    std::vector<std::vector<cv::Point>> contours;
    std::vector<cv::Vec4i> tree;
    cv::findContours(work, contours, tree, cv::RETR_CCOMP, cv::CHAIN_APPROX_SIMPLE);
    for (size_t i = 0; i < contours.size(); i++)
      if (tree[i][3] >= 0 && cv::contourArea(contours[i]) <= max_hole_px)
        cv::drawContours(m, contours, (int)i, cv::Scalar(255), cv::FILLED);
    return TP_OK;
  });
}

extern "C" tp_status cvw_box_blur(tp_image *img, int radius, tp_error *err) {
  return cvw__guard(err, "blur", [&]() -> tp_status {
    if (!cvw__image_valid(img) || radius < 0)
      return tp_error_set(err, TP_ERR_INVALID, "blur: bad image");
    cv::Mat m = cvw__mat_view(img);
    cv::blur(m, m, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1),
             cv::BORDER_REPLICATE);
    return TP_OK;
  });
}

extern "C" tp_status cvw_box_blur_rows(const tp_image *src, tp_image *dst, int radius, int y0,
                                       int y1, tp_error *err) {
  return cvw__guard(err, "blur", [&]() -> tp_status {
    if (!cvw__image_valid(src) || !cvw__image_valid(dst) || radius < 0 ||
        src->width != dst->width || src->height != dst->height ||
        src->channels != dst->channels || src->data == dst->data || y0 < 0 || y1 > src->height ||
        y0 >= y1)
      return tp_error_set(err, TP_ERR_INVALID, "blur: bad images or rows");
    /* a view of the rows inside the whole image: OpenCV reads the rows
     * around it as the neighbours they are (no BORDER_ISOLATED) */
    cv::Rect band(0, y0, src->width, y1 - y0);
    cv::Mat in = cvw__mat_view(src)(band), out = cvw__mat_view(dst)(band);
    cv::blur(in, out, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1),
             cv::BORDER_REPLICATE);
    return TP_OK;
  });
}

extern "C" tp_status cvw_remap(const tp_image *src, const float *map_x,
                               const float *map_y, tp_image *dst, tp_error *err) {
  return cvw__guard(err, "remap", [&]() -> tp_status {
    if (!cvw__image_valid(src) || !cvw__image_valid(dst) || !map_x || !map_y ||
        src->channels != dst->channels)
      return tp_error_set(err, TP_ERR_INVALID, "remap: bad image or map");
    cv::Mat mx(dst->height, dst->width, CV_32F, (void *)map_x);
    cv::Mat my(dst->height, dst->width, CV_32F, (void *)map_y);
    cv::Mat out = cvw__mat_view(dst);
    cv::remap(cvw__mat_view(src), out, mx, my, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
              cv::Scalar::all(0));
    return TP_OK;
  });
}

extern "C" tp_status cvw_line_segments(const tp_image *img, double min_len,
                                       float **segs, int *n_segs, tp_error *err) {
  *segs = nullptr;
  *n_segs = 0;
  return cvw__guard(err, "line segments", [&]() -> tp_status {
    if (!cvw__image_valid(img))
      return tp_error_set(err, TP_ERR_INVALID, "line segments: bad image");
    cv::Mat gray = cvw__gray(img);
    cv::Ptr<cv::LineSegmentDetector> lsd = cv::createLineSegmentDetector(cv::LSD_REFINE_STD);
    std::vector<cv::Vec4f> lines;
    lsd->detect(gray, lines);
    size_t n = 0;
    for (const auto &l : lines)
      if (std::hypot(l[2] - l[0], l[3] - l[1]) >= min_len) n++;
    if (!n) return TP_OK;
    float *out = (float *)malloc(n * 4 * sizeof(float));
    if (!out) return tp_error_set(err, TP_ERR_NOMEM, "line segments: out of memory");
    size_t k = 0;
    for (const auto &l : lines)
      if (std::hypot(l[2] - l[0], l[3] - l[1]) >= min_len)
        for (int i = 0; i < 4; i++) out[k++] = l[i];
    *segs = out;
    *n_segs = (int)n;
    return TP_OK;
  });
}
