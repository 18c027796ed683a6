// cvw section 2b: ChArUco boards and camera (lens) calibration.
// OpenCV 4.6: contrib CharucoBoard::create, board->draw,
// interpolateCornersCharuco. 4.7+: CharucoBoard by value, generateImage,
// CharucoDetector. The split stays in this file.
#include "cvw_internal.hpp"

#include <cstring>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#if CVW__ARUCO_DETECTOR_API
#include <opencv2/objdetect/charuco_detector.hpp>
#else
#include <opencv2/aruco/charuco.hpp>
#endif

namespace aruco = cv::aruco;

struct cvw_charuco {
#if CVW__ARUCO_DETECTOR_API
  aruco::CharucoBoard board;
  aruco::CharucoDetector detector;
  cvw_charuco(const aruco::CharucoBoard &b) : board(b), detector(b) {}
  const std::vector<cv::Point3f> corners() const { return board.getChessboardCorners(); }
#else
  cv::Ptr<aruco::CharucoBoard> board;
  cv::Ptr<aruco::Dictionary> dict;
  const std::vector<cv::Point3f> &corners() const { return board->chessboardCorners; }
#endif
  int squares_x = 0, squares_y = 0;
};

extern "C" tp_status cvw_charuco_create(const cvw_dict *dict, int squares_x, int squares_y,
                                        double square_len, double marker_len,
                                        cvw_charuco **out, tp_error *err) {
  if (!out) return tp_error_set(err, TP_ERR_INVALID, "board: no output");
  *out = nullptr;
  if (!dict || squares_x < 3 || squares_y < 3 || squares_x > 40 || squares_y > 40 ||
      !(square_len > 0) || !(marker_len > 0) || marker_len >= square_len)
    return tp_error_set(err, TP_ERR_INVALID,
                        "board: need 3..40 squares each way and a marker smaller than a square");
  int needed = squares_x * squares_y / 2;
  if (needed > cvw_dict_marker_count(dict))
    return tp_error_set(err, TP_ERR_INVALID, "board: %dx%d squares need %d markers, %s has %d",
                        squares_x, squares_y, needed, cvw_dict_name(dict),
                        cvw_dict_marker_count(dict));
  return cvw__guard(err, "board", [&]() -> tp_status {
    cvw_dict *d = nullptr;
    tp_status st = cvw_dict_create(cvw_dict_name(dict), &d, err);
    if (st != TP_OK) return st;
    // Rebuild the OpenCV dictionary by id (cvw_dict's is private to
    // cvw_aruco.cpp); names map 1:1 to OpenCV's enum order.
    int cv_id = -1;
    for (int i = 0; cvw_dict_name_at(i); i++)
      if (!strcmp(cvw_dict_name_at(i), cvw_dict_name(dict))) cv_id = i;
    cvw_dict_destroy(d);
#if CVW__ARUCO_DETECTOR_API
    aruco::CharucoBoard b(cv::Size(squares_x, squares_y), (float)square_len,
                          (float)marker_len, aruco::getPredefinedDictionary(cv_id));
    // Same pattern as OpenCV 4.6 draws for boards with an even row count.
    b.setLegacyPattern(true);
    cvw_charuco *c = new cvw_charuco(b);
#else
    cvw_charuco *c = new cvw_charuco();
    c->dict = aruco::getPredefinedDictionary(cv_id);
    c->board = aruco::CharucoBoard::create(squares_x, squares_y, (float)square_len,
                                           (float)marker_len, c->dict);
#endif
    c->squares_x = squares_x;
    c->squares_y = squares_y;
    *out = c;
    return TP_OK;
  });
}

extern "C" void cvw_charuco_destroy(cvw_charuco *b) { delete b; }

extern "C" int cvw_charuco_corner_count(const cvw_charuco *b) {
  return b ? (b->squares_x - 1) * (b->squares_y - 1) : 0;
}

extern "C" bool cvw_charuco_corner_position(const cvw_charuco *b, int id, double xy[2]) {
  if (!b || id < 0 || id >= cvw_charuco_corner_count(b)) return false;
  cv::Point3f p = b->corners()[(size_t)id];
  xy[0] = p.x;
  xy[1] = p.y;
  return true;
}

extern "C" tp_status cvw_charuco_draw(const cvw_charuco *b, tp_image *out, tp_error *err) {
  if (!b || !cvw__image_valid(out) || out->channels != 1)
    return tp_error_set(err, TP_ERR_INVALID, "board: need a gray image to draw into");
  return cvw__guard(err, "board", [&]() -> tp_status {
    cv::Mat img;
#if CVW__ARUCO_DETECTOR_API
    b->board.generateImage(cv::Size(out->width, out->height), img, 0, 1);
#else
    b->board->draw(cv::Size(out->width, out->height), img, 0, 1);
#endif
    cv::Mat dst = cvw__mat_view(out);
    img.copyTo(dst);
    return TP_OK;
  });
}

extern "C" tp_status cvw_charuco_detect(const cvw_charuco *b, const tp_image *img, int *ids,
                                        double (*px)[2], size_t cap, size_t *found,
                                        tp_error *err) {
  if (found) *found = 0;
  if (!b || !found || !cvw__image_valid(img) || (cap && (!ids || !px)))
    return tp_error_set(err, TP_ERR_INVALID, "board: no image");
  return cvw__guard(err, "board", [&]() -> tp_status {
    cv::Mat gray = cvw__gray(img);
    std::vector<cv::Point2f> corners;
    std::vector<int> cids;
#if CVW__ARUCO_DETECTOR_API
    b->detector.detectBoard(gray, corners, cids);
#else
    std::vector<std::vector<cv::Point2f>> mcorners;
    std::vector<int> mids;
    cv::Ptr<aruco::DetectorParameters> params = aruco::DetectorParameters::create();
    params->cornerRefinementMethod = aruco::CORNER_REFINE_NONE;
    aruco::detectMarkers(gray, b->dict, mcorners, mids, params);
    if (!mids.empty())
      aruco::interpolateCornersCharuco(mcorners, mids, gray, b->board, corners, cids);
#endif
    for (size_t i = 0; i < cids.size() && i < cap; i++) {
      ids[i] = cids[i];
      px[i][0] = corners[i].x;
      px[i][1] = corners[i].y;
    }
    *found = cids.size();
    return TP_OK;
  });
}

extern "C" tp_status cvw_calibrate_camera(const double (*obj)[2], const double (*img)[2],
                                          const size_t *counts, size_t n_views, int width,
                                          int height, cvw_camera *out, tp_error *err) {
  if (!obj || !img || !counts || !out || n_views < 3 || width <= 0 || height <= 0)
    return tp_error_set(err, TP_ERR_INVALID, "lens calibration: need 3 or more views");
  return cvw__guard(err, "lens calibration", [&]() -> tp_status {
    std::vector<std::vector<cv::Point3f>> op(n_views);
    std::vector<std::vector<cv::Point2f>> ip(n_views);
    size_t k = 0;
    for (size_t v = 0; v < n_views; v++)
      for (size_t i = 0; i < counts[v]; i++, k++) {
        op[v].emplace_back((float)obj[k][0], (float)obj[k][1], 0.0f);
        ip[v].emplace_back((float)img[k][0], (float)img[k][1]);
      }
    cv::Mat K, dist;
    std::vector<cv::Mat> rvecs, tvecs;
    // k3 stays 0: with board photos that miss the image corners, a free k3
    // trades off against k2 and the model explodes where there was no
    // board. Camera lenses for a table camera need k1, k2 (and p1, p2).
    double rms = cv::calibrateCamera(op, ip, cv::Size(width, height), K, dist, rvecs, tvecs,
                                     cv::CALIB_FIX_K3);
    out->fx = K.at<double>(0, 0);
    out->fy = K.at<double>(1, 1);
    out->cx = K.at<double>(0, 2);
    out->cy = K.at<double>(1, 2);
    double d[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 5 && i < (int)dist.total(); i++) d[i] = dist.at<double>(i);
    out->k1 = d[0];
    out->k2 = d[1];
    out->p1 = d[2];
    out->p2 = d[3];
    out->k3 = d[4];
    out->rms_px = rms;
    return TP_OK;
  });
}
