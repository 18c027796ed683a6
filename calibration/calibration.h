/* calibration: the table plane from printed markers. Prefix cal_
 * (internal: cal__).
 *
 * Players lay printed markers on the table (DICT_4X4_50 ids 0..3 by
 * default, 0 top-left, then clockwise). From one or more photos this module
 * estimates where every marker lies (positions and angles are estimated,
 * never measured by the player) and the homography between the table plane
 * in millimetres (spec section 1) and the image, optionally through a lens
 * model fitted from ChArUco board photos. The result is saved as a
 * versioned JSON file (docs/calibration.md) and mapped with
 * cal_image_to_table / cal_table_to_image.
 *
 * Use, from files or a camera:
 *     cal_options opt;  cal_options_default(&opt);
 *     cal_session *s;   cal_session_create(&opt, &s, &err);
 *     for each frame:   cal_session_add_frame(s, &gray, "frame 3", &seen, &err);
 *     cal_calib *c;     cal_session_solve(s, &c, &err);
 *     cal_calib_save(c, "calib.json", &err);
 * Markers sheets and the ChArUco board are drawn by cal_sheet_write. */
#ifndef TEPPICH_CALIBRATION_H
#define TEPPICH_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "cvw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the calibration file format written by cal_calib_save. */
#define CAL_FILE_VERSION 1
/* Most markers one calibration uses (ids beyond the frame's four are
 * welcome: every extra marker adds corners to the fit). */
#define CAL_MAX_MARKERS 64

/* ---- lens model -------------------------------------------------------- */

/* Pinhole camera with OpenCV's radial-tangential distortion
 * (k1 k2 p1 p2 k3), fitted at image size width x height. */
typedef struct {
  int width, height;
  double fx, fy, cx, cy;
  double k1, k2, p1, p2, k3;
  double rms_px; /* reprojection error of the fit */
  int images;    /* board photos used */
  /* Estimated by the table fit from the markers alone (radial terms
   * only, nominal focal length): no board photos were used. */
  bool from_markers;
} cal_lens;

/* Undistorted (ideal pinhole) pixel <-> distorted (recorded) pixel. */
void cal_lens_distort(const cal_lens *lens, const double ideal[2], double px[2]);
void cal_lens_undistort(const cal_lens *lens, const double px[2], double ideal[2]);

/* ---- marker detection: OpenCV's ArUco detector or libapriltag ----------- */

/* Which library finds the markers. libapriltag (Debian's AprilTag 3) finds
 * small AprilTag markers far more often than OpenCV's ArUco detector; for
 * the AprilTag dictionaries AUTO uses it (numbers: docs/calibration.md).
 * Every other dictionary is OpenCV's only. */
typedef enum {
  CAL_BACKEND_AUTO = 0, /* libapriltag for APRILTAG_*, OpenCV otherwise */
  CAL_BACKEND_OPENCV,   /* OpenCV's ArUco detector (cvw), any dictionary */
  CAL_BACKEND_APRILTAG  /* libapriltag; APRILTAG_* dictionaries only */
} cal_backend;

/* "auto", "opencv", "apriltag". */
const char *cal_backend_name(cal_backend backend);
/* Parses one of those names; false for anything else. */
bool cal_backend_parse(const char *text, cal_backend *backend);

/* Detector tunables for both backends; start from
 * cal_detector_params_default(). */
typedef struct {
  cal_backend backend;
  /* OpenCV's ArUco detector (also the fallback: see cal_detect_markers). */
  cvw_detector_params opencv;
  /* libapriltag: quads are looked for on the image shrunk by this factor
   * (1..4): 2 is ~10x faster on noisy 1920x1080 frames but misses tags
   * under ~20 px. 0: 1 on images up to 1280 px wide (where markers are
   * small), 2 on larger ones (as OpenCV's 2x pass, cvw_detector_params). */
  double april_decimate;
  /* Gaussian blur (sigma, px) before the quad search: helps on very noisy
   * images, costs small tags. */
  double april_sigma;
  /* libapriltag's own edge snapping, which pulls decimated quads back onto
   * the strongest gradient. Applied only when decimating: at full
   * resolution it loses small noisy tags (12 px, noise 10: 5 of 16 found
   * instead of 10; marker_bench). */
  bool april_refine_edges;
  /* Then teppich's edge-line fit (cvw_marker_refine_edges), the refinement
   * the OpenCV path uses: corners a few hundredths of a pixel from the
   * truth on sharp markers. */
  bool april_teppich_edges;
  /* Bits corrected per tag: -1 chooses as OpenCV does (16h5: 1, the
   * others 2); more finds damaged tags, admits more false ones. */
  int april_max_bits;
} cal_detector_params;

void cal_detector_params_default(cal_detector_params *p);

/* A marker detector for one dictionary. params NULL: the defaults. */
typedef struct cal_detector cal_detector;
tp_status cal_detector_create(const cvw_dict *dict,
                              const cal_detector_params *params,
                              cal_detector **out, tp_error *err);
void cal_detector_destroy(cal_detector *det);
/* The backend actually used (never AUTO). */
cal_backend cal_detector_backend(const cal_detector *det);

/* As cvw_detect_markers: same marker struct, corner order and pixel
 * convention, sorted by id, *found may exceed cap. With AUTO, markers that
 * libapriltag misses but OpenCV finds are added (the fallback), so AUTO
 * never finds fewer than OpenCV alone. */
tp_status cal_detect_markers(cal_detector *det, const tp_image *img,
                             cvw_marker *out, size_t cap, size_t *found,
                             tp_error *err);

/* ---- options ----------------------------------------------------------- */

typedef struct {
  char dict[32];   /* marker dictionary name, e.g. "4X4_50" */
  double marker_mm; /* printed side of the black square */
  /* The four frame markers: origin, +x direction, and the two on the +y
   * side (spec section 1). Default 0 1 2 3. */
  int frame_ids[4];
  bool has_lens;   /* apply `lens` to every corner before fitting */
  cal_lens lens;
  /* Markers with ids outside frame_ids are also used (they must then all
   * be printed at marker_mm). Off by default: card art can look like a
   * marker now and then, and one false marker spoils the fit. */
  bool use_other_markers;
  /* Without a lens model: radial distortion terms (0..2) to estimate from
   * the markers themselves (needs 3+ markers). */
  int radial_terms;
  /* Marker detector backend (default AUTO). */
  cal_backend backend;
} cal_options;

void cal_options_default(cal_options *opt);
/* Checks ranges (marker size 5..1000 mm, distinct ids within the
 * dictionary); the message names the bad option. */
tp_status cal_options_check(const cal_options *opt, tp_error *err);

/* ---- the calibration result -------------------------------------------- */

typedef struct cal_calib cal_calib;

/* One marker as estimated on the table (table frame, mm). */
typedef struct {
  int id;
  double center_mm[2];
  double angle_deg;      /* direction of the marker's own +x, from +x toward +y */
  double corners_mm[4][2];
  double residual_px;    /* RMS distance of its detected corners to the fit */
  int observations;      /* frames it was seen in */
} cal_marker_pose;

/* What a player needs to know about a calibration. */
enum {
  CAL_WARN_MISSING = 1 << 0,  /* a frame marker (2 or 3) was not seen */
  CAL_WARN_OBLIQUE = 1 << 1,  /* camera looks at the table too obliquely */
  CAL_WARN_FAR = 1 << 2,      /* too few pixels per millimetre */
  CAL_WARN_RESIDUAL = 1 << 3, /* corners do not fit one flat table */
  CAL_WARN_ORDER = 1 << 4,    /* markers placed counter-clockwise */
  CAL_WARN_SMALL_AREA = 1 << 5 /* markers cover little of the image */
};

typedef struct {
  int frames;            /* images used */
  int markers;           /* distinct markers used */
  double rms_px, max_px; /* corner residuals */
  /* Estimated position error (95 %) of a point inside the area spanned by
   * the markers, from the corner noise propagated through the fit. */
  double accuracy_mm;
  double mm_per_px;      /* at the centre of the marker area */
  double min_marker_px;  /* smallest marker side seen, pixels */
  double tilt_deg;       /* camera axis against the table normal (estimate) */
  double area_mm[2];     /* extent of the marker centres along +x and +y */
  double image_fraction; /* part of the image inside the markers' hull */
  unsigned warnings;     /* CAL_WARN_* */
  int missing_ids[4];    /* frame ids not seen, -1 terminated */
} cal_quality;

/* One-line, player-readable text of a warning bit for calibration c. */
void cal_warning_text(const cal_calib *c, unsigned warning, char *buf,
                      size_t len);

void cal_calib_destroy(cal_calib *c);

/* Image pixel (as recorded, distorted) -> table mm, and back. Return false
 * for points that do not map (beyond the horizon of the table plane). */
bool cal_image_to_table(const cal_calib *c, const double px[2], double mm[2]);
bool cal_table_to_image(const cal_calib *c, const double mm[2], double px[2]);

/* The homography table mm -> undistorted image pixels (row-major 3x3). */
void cal_calib_homography(const cal_calib *c, double table_to_image[9]);
/* Lens model, if any: true and *lens filled. */
bool cal_calib_lens(const cal_calib *c, cal_lens *lens);
void cal_calib_image_size(const cal_calib *c, int *width, int *height);
const cal_quality *cal_calib_quality(const cal_calib *c);
const char *cal_calib_dict(const cal_calib *c);
double cal_calib_marker_mm(const cal_calib *c);
/* Markers sorted by id; returns how many there are (may exceed cap). */
size_t cal_calib_markers(const cal_calib *c, cal_marker_pose *out, size_t cap);
/* A copy of c (malloc'd; NULL when out of memory or c is NULL). */
cal_calib *cal_calib_copy(const cal_calib *c);

/* ---- calibrating -------------------------------------------------------- */

typedef struct cal_session cal_session;

tp_status cal_session_create(const cal_options *opt, cal_session **out,
                             tp_error *err);
void cal_session_destroy(cal_session *s);

/* Detects the markers in one frame (gray or RGB) and keeps them. `name`
 * (file name, "frame 12") is used in messages. A marker id seen twice in
 * one frame is an error (TP_ERR_INVALID); a frame of another size than the
 * first is TP_ERR_INVALID. *seen (may be NULL) gets the number of markers
 * of the dictionary found. */
tp_status cal_session_add_frame(cal_session *s, const tp_image *frame,
                                const char *name, size_t *seen, tp_error *err);
/* The markers kept so far, in the order found (corners in pixels,
 * undistorted when a lens model is set); returns how many (may exceed
 * cap). */
size_t cal_session_markers(const cal_session *s, cvw_marker *out, size_t cap);
/* Whether the markers b lie where a do: of the markers in both, more
 * (and at least two) have each corner within tol_px than not. Two photos
 * of a still camera do; their fits differ inside the marker area by more
 * (a few markers pin the lens distortion loosely), so a still camera
 * keeps one fit. A moved camera moves every marker; one marker alone off
 * is its detection (a corner refined at the photo's edge jumps by
 * pixels) or the marker nudged on the table, neither a camera moved. */
bool cal_markers_in_place(const cvw_marker *a, size_t na, const cvw_marker *b,
                          size_t nb, double tol_px);
/* The same with markers found elsewhere (tests, other detectors). */
tp_status cal_session_add_markers(cal_session *s, const cvw_marker *markers,
                                  size_t n, int width, int height,
                                  const char *name, tp_error *err);

/* Fits the table frame to all frames. Errors (TP_ERR_NOTFOUND: exit 1):
 * no markers at all (with a hint when another dictionary's markers are
 * visible), marker 0 or 1 not seen, only one marker. */
tp_status cal_session_solve(cal_session *s, cal_calib **out, tp_error *err);

/* ---- the calibration file ---------------------------------------------- */

/* Reads and validates a calibration file (any malformed content:
 * TP_ERR_FORMAT naming the file and the field). A file holding only a lens
 * model (from `teppich calibrate lens`) loads with has_table false. */
tp_status cal_calib_load(const char *path, cal_calib **out, tp_error *err);
tp_status cal_calib_parse(const char *text, size_t len, const char *name,
                          cal_calib **out, tp_error *err);
/* True if c holds a table frame (false for a lens-only file). */
bool cal_calib_has_table(const cal_calib *c);
/* Writes c atomically as JSON. */
tp_status cal_calib_save(const cal_calib *c, const char *path, tp_error *err);
/* The JSON text (malloc'd, caller frees). */
tp_status cal_calib_to_json(const cal_calib *c, char **out, tp_error *err);

/* A lens-only calibration (for `teppich calibrate lens`). */
tp_status cal_calib_from_lens(const cal_lens *lens, cal_calib **out,
                              tp_error *err);

/* ---- lens calibration from ChArUco board photos ------------------------ */

/* The board `teppich markers board` prints. */
typedef struct {
  char dict[32];     /* default 5X5_100: never mistaken for table markers */
  int squares_x, squares_y; /* default 7 x 5 (odd rows: same board in
                               OpenCV 4.6 and 4.10) */
  double square_mm, marker_mm; /* default 30 and 22 */
} cal_board;
void cal_board_default(cal_board *b);

typedef struct cal_lens_session cal_lens_session;
tp_status cal_lens_session_create(const cal_board *board,
                                  cal_lens_session **out, tp_error *err);
void cal_lens_session_destroy(cal_lens_session *s);
/* Adds one board photo; *corners gets the board corners found (a photo
 * with fewer than 6 is skipped and not an error). */
tp_status cal_lens_session_add(cal_lens_session *s, const tp_image *frame,
                               const char *name, int *corners, tp_error *err);
/* Needs 3+ usable photos (10+ recommended). */
tp_status cal_lens_session_solve(cal_lens_session *s, cal_lens *out,
                                 tp_error *err);

/* ---- printing ---------------------------------------------------------- */

typedef enum { CAL_PAPER_A4, CAL_PAPER_LETTER } cal_paper;

typedef struct {
  char dict[32];
  int ids[CAL_MAX_MARKERS];
  int n_ids;
  double marker_mm;
  cal_paper paper;
  double png_dpi; /* PNG resolution (default 300) */
} cal_sheet;
void cal_sheet_default(cal_sheet *sheet);

/* Writes a print-ready marker sheet: PDF (pages as needed) or PNG (one
 * page at png_dpi) by the extension of path; atomically. */
tp_status cal_sheet_write(const cal_sheet *sheet, const char *path,
                          tp_error *err);
/* Writes the ChArUco board for `calibrate lens` (PDF, or PNG at png_dpi;
 * 0: 300). */
tp_status cal_board_write(const cal_board *board, cal_paper paper,
                          double png_dpi, const char *path, tp_error *err);

/* ---- annotation -------------------------------------------------------- */

/* Draws the detected markers, the table axes and a 10 cm grid onto a copy
 * of `photo` and writes it (PNG/JPEG) atomically. */
tp_status cal_annotate_write(const cal_calib *c, const tp_image *photo,
                             const char *path, tp_error *err);

/* ---- command-line helper ---------------------------------------------- */

/* Parses marker ids "0,1,2,3", "0-3" or a mix ("0-3,7") into ids (at most
 * max, all distinct, each 0..99999); false if the text is not that. */
bool cal_parse_ids(const char *text, int *ids, int *n, int max);

#ifdef __cplusplus
}
#endif
#endif
