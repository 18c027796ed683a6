// cvw section 2: fiducial marker dictionaries, drawing and detection.
// The OpenCV 4.6 (contrib aruco: free functions, Ptr<Dictionary>) versus
// 4.7+ (objdetect: ArucoDetector, Dictionary by value) split is here only.
#include <algorithm>
#include <cctype>
#include <string>
#include <strings.h>
#include <vector>

#include "cvw_internal.hpp"
#include "cvw_refine.h"

#include <opencv2/imgproc.hpp>
#if CVW__ARUCO_DETECTOR_API
#include <opencv2/objdetect/aruco_detector.hpp>
#else
#include <opencv2/aruco.hpp>
#endif

namespace aruco = cv::aruco;

namespace {

struct DictEntry {
  const char *name;
  int cv_id;
};

// OpenCV's predefined dictionaries, names as in spec section 3.
const DictEntry kDicts[] = {
    {"4X4_50", aruco::DICT_4X4_50},       {"4X4_100", aruco::DICT_4X4_100},
    {"4X4_250", aruco::DICT_4X4_250},     {"4X4_1000", aruco::DICT_4X4_1000},
    {"5X5_50", aruco::DICT_5X5_50},       {"5X5_100", aruco::DICT_5X5_100},
    {"5X5_250", aruco::DICT_5X5_250},     {"5X5_1000", aruco::DICT_5X5_1000},
    {"6X6_50", aruco::DICT_6X6_50},       {"6X6_100", aruco::DICT_6X6_100},
    {"6X6_250", aruco::DICT_6X6_250},     {"6X6_1000", aruco::DICT_6X6_1000},
    {"7X7_50", aruco::DICT_7X7_50},       {"7X7_100", aruco::DICT_7X7_100},
    {"7X7_250", aruco::DICT_7X7_250},     {"7X7_1000", aruco::DICT_7X7_1000},
    {"ARUCO_ORIGINAL", aruco::DICT_ARUCO_ORIGINAL},
    {"APRILTAG_16h5", aruco::DICT_APRILTAG_16h5},
    {"APRILTAG_25h9", aruco::DICT_APRILTAG_25h9},
    {"APRILTAG_36h10", aruco::DICT_APRILTAG_36h10},
    {"APRILTAG_36h11", aruco::DICT_APRILTAG_36h11},
#if CVW__ARUCO_DETECTOR_API
    {"ARUCO_MIP_36h12", aruco::DICT_ARUCO_MIP_36h12},
#endif
};
const int kDictCount = (int)(sizeof kDicts / sizeof kDicts[0]);

#if CVW__ARUCO_DETECTOR_API
using DictHandle = aruco::Dictionary;
using ParamHandle = aruco::DetectorParameters;
const aruco::Dictionary &dict_ref(const DictHandle &d) { return d; }
DictHandle make_dict(int cv_id) { return aruco::getPredefinedDictionary(cv_id); }
#else
using DictHandle = cv::Ptr<aruco::Dictionary>;
using ParamHandle = cv::Ptr<aruco::DetectorParameters>;
const aruco::Dictionary &dict_ref(const DictHandle &d) { return *d; }
DictHandle make_dict(int cv_id) { return aruco::getPredefinedDictionary(cv_id); }
#endif

// SUBPIX (and EDGES, which starts from it) asks OpenCV for the contour
// corners and runs cornerSubPix itself (subpix_corners): OpenCV 4.7+'s
// ArucoDetector shrinks the window to 0.3 of a cell, which moved a 51 px
// marker's corners 0.23 px from 4.6's, the edge fit's 0.004 px, the whole
// rectified table a level in 7 % of its pixels and the decision of hard
// scenes between Debian 12 and 13 (hard 3031: a camel bazaar 31 % visible).
int refine_method(cvw_refine r) {
  switch (r) {
    case CVW_REFINE_CONTOUR: return aruco::CORNER_REFINE_CONTOUR;
    case CVW_REFINE_APRILTAG: return aruco::CORNER_REFINE_APRILTAG;
    default: return aruco::CORNER_REFINE_NONE; /* SUBPIX, EDGES: subpix_corners */
  }
}

// OpenCV 4.6's SUBPIX step, whatever the version: the window's half side
// refine_window_px, and 4.6's DetectorParameters defaults (30 iterations,
// 0.1 px), on the image the markers were found in.
void subpix_corners(const cvw_detector_params &c, const cv::Mat &img,
                    std::vector<std::vector<cv::Point2f>> *corners) {
  if (c.refine != CVW_REFINE_SUBPIX && c.refine != CVW_REFINE_EDGES) return;
  const cv::TermCriteria stop(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS, 30, 0.1);
  for (std::vector<cv::Point2f> &q : *corners)
    cv::cornerSubPix(img, q, cv::Size(c.refine_window_px, c.refine_window_px), cv::Size(-1, -1),
                     stop);
}

void apply_params(aruco::DetectorParameters &p, const cvw_detector_params &c) {
  p.cornerRefinementMethod = refine_method(c.refine);
  p.cornerRefinementWinSize = c.refine_window_px;
  p.minMarkerPerimeterRate = c.min_perimeter_rate;
  p.adaptiveThreshWinSizeMin = c.thresh_win_min;
  p.adaptiveThreshWinSizeMax = c.thresh_win_max;
  p.adaptiveThreshWinSizeStep = c.thresh_win_step;
  p.maxErroneousBitsInBorderRate = c.max_border_error_rate;
}

tp_status check_params(const cvw_detector_params &c, tp_error *err) {
  bool ok = c.refine >= CVW_REFINE_NONE && c.refine <= CVW_REFINE_EDGES &&
            c.refine_window_px >= 1 && c.refine_window_px <= 50 &&
            c.min_perimeter_rate > 0 && c.min_perimeter_rate < 4 &&
            c.thresh_win_min >= 3 && c.thresh_win_max >= c.thresh_win_min &&
            c.thresh_win_step >= 1 && c.max_border_error_rate >= 0 &&
            c.max_border_error_rate <= 1 && c.n_needed >= 0 && c.n_needed <= 4;
  return ok ? TP_OK
            : tp_error_set(err, TP_ERR_INVALID, "marker detector: parameter out of range");
}

}  // namespace

struct cvw_dict {
  std::string name;
  int bits = 0;
  int count = 0;
  bool apriltag = false;
  DictHandle dict;
};

struct cvw_detector {
  DictHandle dict;
  int cells; /* marker side in cells: bits + 2 */
  cvw_detector_params params;
#if CVW__ARUCO_DETECTOR_API
  aruco::ArucoDetector detector;
#else
  ParamHandle cv_params;
#endif
};

extern "C" const char *cvw_dict_name_at(int index) {
  return index >= 0 && index < kDictCount ? kDicts[index].name : nullptr;
}

extern "C" tp_status cvw_dict_create(const char *name, cvw_dict **out, tp_error *err) {
  if (!out) return tp_error_set(err, TP_ERR_INVALID, "dictionary: no output");
  *out = nullptr;
  if (!name) name = "";
  const char *bare = strncasecmp(name, "DICT_", 5) ? name : name + 5;
  const DictEntry *entry = nullptr;
  for (const DictEntry &e : kDicts)
    if (!strcasecmp(e.name, bare)) entry = &e;
  if (!entry)
    return tp_error_set(err, TP_ERR_INVALID,
                        "unknown marker dictionary '%s' (use e.g. 4X4_50, 6X6_250, "
                        "ARUCO_ORIGINAL, APRILTAG_36h11)", name);
  return cvw__guard(err, name, [&]() -> tp_status {
    cvw_dict *d = new cvw_dict();
    d->name = entry->name;
    d->dict = make_dict(entry->cv_id);
    d->bits = dict_ref(d->dict).markerSize;
    d->count = dict_ref(d->dict).bytesList.rows;
    d->apriltag = !strncmp(entry->name, "APRILTAG", 8);
    *out = d;
    return TP_OK;
  });
}

extern "C" void cvw_dict_destroy(cvw_dict *dict) { delete dict; }
extern "C" const char *cvw_dict_name(const cvw_dict *d) { return d ? d->name.c_str() : ""; }
extern "C" int cvw_dict_marker_count(const cvw_dict *d) { return d ? d->count : 0; }
extern "C" int cvw_dict_marker_bits(const cvw_dict *d) { return d ? d->bits : 0; }
extern "C" bool cvw_dict_is_apriltag(const cvw_dict *d) { return d && d->apriltag; }

extern "C" tp_status cvw_marker_draw(const cvw_dict *dict, int id, tp_image *out,
                                     tp_error *err) {
  if (!dict || !cvw__image_valid(out) || out->channels != 1 || out->width != out->height)
    return tp_error_set(err, TP_ERR_INVALID, "draw marker: need a square gray image");
  if (id < 0 || id >= dict->count)
    return tp_error_set(err, TP_ERR_INVALID, "marker id %d is not in %s (0..%d)", id,
                        dict->name.c_str(), dict->count - 1);
  if (out->width < dict->bits + 2)
    return tp_error_set(err, TP_ERR_INVALID, "draw marker: %d px is too small for %s",
                        out->width, dict->name.c_str());
  return cvw__guard(err, "draw marker", [&]() -> tp_status {
    cv::Mat img;
#if CVW__ARUCO_DETECTOR_API
    aruco::generateImageMarker(dict->dict, id, out->width, img, 1);
#else
    aruco::drawMarker(dict->dict, id, out->width, img, 1);
#endif
    cv::Mat dst = cvw__mat_view(out);
    img.copyTo(dst);
    return TP_OK;
  });
}

extern "C" void cvw_detector_params_opencv(cvw_detector_params *p) {
  if (!p) return;
  *p = cvw_detector_params{};
  p->refine = CVW_REFINE_NONE;
  p->refine_window_px = 5;
  p->min_perimeter_rate = 0.03;
  p->thresh_win_min = 3;
  p->thresh_win_max = 23;
  p->thresh_win_step = 10;
  p->max_border_error_rate = 0.35;
}

extern "C" void cvw_detector_params_default(cvw_detector_params *p) {
  if (!p) return;
  cvw_detector_params_opencv(p);
  p->refine = CVW_REFINE_EDGES;
  p->small_marker_pass = true;
  p->refine_window_px = 3;
  p->min_perimeter_rate = 0.02;
}

extern "C" tp_status cvw_detector_create(const cvw_dict *dict,
                                         const cvw_detector_params *params,
                                         cvw_detector **out, tp_error *err) {
  if (!out) return tp_error_set(err, TP_ERR_INVALID, "marker detector: no output");
  *out = nullptr;
  if (!dict) return tp_error_set(err, TP_ERR_INVALID, "marker detector: no dictionary");
  cvw_detector_params p;
  if (params) p = *params;
  else cvw_detector_params_default(&p);
  tp_status st = check_params(p, err);
  if (st != TP_OK) return st;
  return cvw__guard(err, "marker detector", [&]() -> tp_status {
    cvw_detector *d = new cvw_detector();
    d->dict = dict->dict;
    d->cells = dict->bits + 2;
    d->params = p;
#if CVW__ARUCO_DETECTOR_API
    aruco::DetectorParameters cp;
    apply_params(cp, p);
    d->detector = aruco::ArucoDetector(dict->dict, cp);
#else
    d->cv_params = aruco::DetectorParameters::create();
    apply_params(*d->cv_params, p);
#endif
    *out = d;
    return TP_OK;
  });
}

extern "C" void cvw_detector_destroy(cvw_detector *det) { delete det; }

// One detection pass on gray scaled by `scale` (1 or 2), corners mapped
// back to gray's pixel-centre coordinates.
static std::vector<cvw_marker> detect_pass(cvw_detector *det, const cv::Mat &gray, double scale) {
  cv::Mat img = gray;
  if (scale != 1.0) cv::resize(gray, img, cv::Size(), scale, scale, cv::INTER_CUBIC);
  std::vector<std::vector<cv::Point2f>> corners;
  std::vector<int> ids;
#if CVW__ARUCO_DETECTOR_API
  det->detector.detectMarkers(img, corners, ids);
#else
  aruco::detectMarkers(img, det->dict, corners, ids, det->cv_params);
#endif
  subpix_corners(det->params, img, &corners);
  std::vector<cvw_marker> ms(ids.size());
  for (size_t i = 0; i < ids.size(); i++) {
    ms[i].id = ids[i];
    for (int k = 0; k < 4; k++) {
      // Pixel centres: x_scaled = scale * x + (scale - 1) / 2.
      ms[i].corners[k][0] = (corners[i][k].x - (scale - 1) / 2) / scale;
      ms[i].corners[k][1] = (corners[i][k].y - (scale - 1) / 2) / scale;
    }
  }
  return ms;
}

// Whether ms holds every id the caller needs (none needed: false).
static bool has_needed_ids(const cvw_detector_params &p, const std::vector<cvw_marker> &ms) {
  if (p.n_needed <= 0) return false;
  for (int i = 0; i < p.n_needed; i++) {
    bool seen = false;
    for (const cvw_marker &m : ms) seen |= m.id == p.needed_ids[i];
    if (!seen) return false;
  }
  return true;
}

// Adds the markers of `more` whose id is not in *ms yet.
static void add_new_ids(std::vector<cvw_marker> *ms, const std::vector<cvw_marker> &more) {
  for (const cvw_marker &m : more) {
    bool known = false;
    for (const cvw_marker &k : *ms) known |= k.id == m.id;
    if (!known) ms->push_back(m);
  }
}

extern "C" tp_status cvw_detect_markers(cvw_detector *det, const tp_image *img,
                                        cvw_marker *out, size_t cap, size_t *found,
                                        tp_error *err) {
  if (found) *found = 0;
  if (!det || !found || (cap && !out) || !cvw__image_valid(img))
    return tp_error_set(err, TP_ERR_INVALID, "detect markers: no image");
  return cvw__guard(err, "detect markers", [&]() -> tp_status {
    cv::Mat gray = cvw__gray(img);
    std::vector<cvw_marker> ms = detect_pass(det, gray, 1.0);
    // Small frames are where markers are small; on big ones a 2x pass costs
    // too much for a live loop (about 0.4 s more at 1920x1080 on x86).
    // It adds only ids the first pass missed: none the caller needs once
    // it has them all (4x a pass: 0.33 G of 0.44 G at 1280x720).
    if (det->params.small_marker_pass && std::max(gray.cols, gray.rows) <= 1280 &&
        !has_needed_ids(det->params, ms))
      add_new_ids(&ms, detect_pass(det, gray, 2.0));
    if (det->params.refine == CVW_REFINE_EDGES)
      for (cvw_marker &m : ms)
        cvw__refine_edges(gray.ptr<uint8_t>(), gray.cols, gray.rows, gray.step[0], det->cells,
                          m.corners);
    std::sort(ms.begin(), ms.end(), [](const cvw_marker &a, const cvw_marker &b) {
      if (a.id != b.id) return a.id < b.id;
      if (a.corners[0][1] != b.corners[0][1]) return a.corners[0][1] < b.corners[0][1];
      return a.corners[0][0] < b.corners[0][0];
    });
    std::copy_n(ms.begin(), std::min(cap, ms.size()), out);
    *found = ms.size();
    return TP_OK;
  });
}
