/* cvw: the thin OpenCV wrapper. Prefix cvw_ (internal: cvw__).
 *
 * OpenCV 4 has no C API; this C++17 layer is the ONLY code in teppich that
 * includes OpenCV. It wraps tasks ("detect markers in this gray image"),
 * not single cv:: calls. Rules every function here follows:
 *   - images cross as tp_image views (core/core.h): 8-bit, 1 channel gray
 *     or 3 channel RGB (never BGR), explicit stride;
 *   - handles are opaque with _create / _destroy; destroy is NULL-safe;
 *   - every function catches every C++ exception and returns a tp_status,
 *     with a one-line message in the caller's tp_error (may be NULL);
 *   - output buffers are the caller's (or, where noted, allocated with
 *     tp_image_alloc / malloc and handed to the caller to free);
 *   - the OpenCV 4.6 (Debian 12: contrib aruco free functions) versus 4.7+
 *     (Debian 13: cv::aruco::ArucoDetector) split lives only inside the .cpp
 *     files.
 *
 * Sections, one per source file, so that engineers do not collide:
 *   1. images: file read/write, encode/decode            cvw_image.cpp
 *   2. markers: dictionaries, drawing, detection         cvw_aruco.cpp
 *      (corner refinement by edge fitting: cvw_refine.c)
 *   2b. ChArUco boards, lens calibration                 cvw_charuco.cpp
 *   3. video: OpenCV VideoCapture (capture engineer)     cvw_video.cpp
 *   4. vision tasks (vision engineer)                    cvw_<task>.cpp
 * Add a new section at the end with its own heading; keep one file each. */
#ifndef TEPPICH_CVW_H
#define TEPPICH_CVW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the OpenCV library the wrapper was built against, "4.6.0". */
const char *cvw_opencv_version(void);

/* Sets how many threads OpenCV's own parallel loops use (cv::setNumThreads);
 * 1 runs them in the calling thread. OpenCV 4.6's parallel_for runs in
 * parallel whenever this is left at its default, whatever
 * OPENCV_FOR_THREADS_NUM says (that variable only sizes the pool), so a
 * profiler counting one thread (scripts/callgrind-bench, teppich-lean)
 * needs 1 here to see all of the work. Process-wide (OpenCV's setting);
 * results do not depend on it. */
void cvw_opencv_threads_set(int threads);

/* ======================================================================
 * 1. Images (cvw_image.cpp)
 * ====================================================================== */

/* Largest image the readers decode: 50 megapixels (a 12 MP camera frame
 * fits four times). Bigger images are refused before any pixel is decoded,
 * so that a hostile header cannot make us allocate gigabytes. */
#define CVW_IMAGE_MAX_PIXELS (50L * 1000L * 1000L)
/* Largest image file read (bytes). */
#define CVW_IMAGE_MAX_FILE_BYTES (256UL * 1024UL * 1024UL)

/* Reads a PNG, JPEG or BMP file into *out (allocated with tp_image_alloc;
 * free with tp_image_free) as gray (channels 1) or RGB (channels 3).
 * Errors (TP_ERR_IO unreadable, TP_ERR_FORMAT not an image, truncated, too
 * large) name the file. */
tp_status cvw_image_read(const char *path, int channels, tp_image *out,
                         tp_error *err);

/* As cvw_image_read, from memory (an MJPEG frame, a fuzz input). `name`
 * is used in messages (NULL: "image data"). */
tp_status cvw_image_decode(const void *data, size_t len, int channels,
                           const char *name, tp_image *out, tp_error *err);

/* Writes img (gray, RGB or RGBA) atomically (temporary file + rename) as
 * PNG or JPEG, chosen by the extension of path (.png, .jpg, .jpeg; any
 * case). jpeg_quality 1..100 (0: 90); ignored for PNG. */
tp_status cvw_image_write(const char *path, const tp_image *img,
                          int jpeg_quality, tp_error *err);

/* Encodes img to memory as ".png" or ".jpg". *out is malloc'd; the caller
 * frees it. */
tp_status cvw_image_encode(const tp_image *img, const char *ext,
                           int jpeg_quality, uint8_t **out, size_t *out_len,
                           tp_error *err);

/* ======================================================================
 * 2. Fiducial markers: dictionaries, drawing, detection (cvw_aruco.cpp)
 * ====================================================================== */

/* A predefined marker dictionary (ArUco / AprilTag family). */
typedef struct cvw_dict cvw_dict;

/* Looks a dictionary up by OpenCV's name without the DICT_ prefix
 * ("4X4_50", "6X6_250", "ARUCO_ORIGINAL", "APRILTAG_36h11"); case does not
 * matter and a leading "DICT_" is accepted. Unknown names:
 * TP_ERR_INVALID with the list of valid names' pattern. */
tp_status cvw_dict_create(const char *name, cvw_dict **out, tp_error *err);
void cvw_dict_destroy(cvw_dict *dict);

/* The canonical name ("4X4_50", "APRILTAG_36h11"). */
const char *cvw_dict_name(const cvw_dict *dict);
/* Number of markers (ids 0 .. count-1). */
int cvw_dict_marker_count(const cvw_dict *dict);
/* Data bits per side, without the black border (4 for 4X4_50). */
int cvw_dict_marker_bits(const cvw_dict *dict);
/* True for the APRILTAG_* families. */
bool cvw_dict_is_apriltag(const cvw_dict *dict);

/* Names of all dictionaries this build knows, one per index; NULL past the
 * end. (ARUCO_MIP_36h12 exists only with OpenCV 4.7+.) */
const char *cvw_dict_name_at(int index);

/* Draws marker `id` into `out`, which must be a caller-allocated square
 * gray image (width == height == side in pixels; a view into a bigger image
 * is fine, its stride is respected). The black square with a one-bit
 * border fills the whole side: the marker's outer corners are at
 * (-0.5, -0.5) and (side - 0.5, side - 0.5) in pixel-centre coordinates.
 * side must be at least bits + 2. */
tp_status cvw_marker_draw(const cvw_dict *dict, int id, tp_image *out,
                          tp_error *err);

/* One detected marker. Corners in the marker's own order (top-left,
 * top-right, bottom-right, bottom-left of the printed marker), sub-pixel,
 * in image pixel coordinates with (0,0) the centre of the top-left pixel
 * (spec section 3). */
typedef struct {
  int id;
  double corners[4][2];
} cvw_marker;

/* Corner refinement after the ArUco contour stage. */
typedef enum {
  CVW_REFINE_NONE = 0,  /* contour corners: biased about half a pixel inward */
  CVW_REFINE_SUBPIX,    /* cornerSubPix on the image gradient: best on sharp
                           markers, can slide on blurred or tiny ones */
  CVW_REFINE_CONTOUR,   /* line fit on the contour points: robust, coarse */
  CVW_REFINE_APRILTAG,  /* AprilTag 2 quad fitting (slow) */
  CVW_REFINE_EDGES      /* teppich: SUBPIX, then a line fitted to each outer
                           edge's sub-pixel crossings, lines intersected: no
                           inward bias on blur (the marker's apparent size
                           sets the table scale) */
} cvw_refine;

/* Detector tunables. Start from cvw_detector_params_default() and change
 * fields; each carries its trade-off. */
typedef struct {
  /* How corners are refined (see cvw_refine). */
  cvw_refine refine;
  /* Half window of SUBPIX refinement in pixels: larger follows blurred
   * edges further, but on small markers reaches into the neighbour bits. */
  int refine_window_px;
  /* Smallest marker perimeter as a fraction of the larger image side:
   * lower finds smaller (farther) markers but checks more candidates. */
  double min_perimeter_rate;
  /* Adaptive threshold window sizes (odd pixels, min..max step): more
   * windows find markers under uneven light, each costs one pass. */
  int thresh_win_min, thresh_win_max, thresh_win_step;
  /* Bits of the border that may be wrong (fraction of border bits):
   * higher tolerates blur and glare, risks false markers. */
  double max_border_error_rate;
  /* A second pass on the image enlarged 2x for markers the first missed,
   * on images up to 1280 px wide only: finds more markers of 15-25 px
   * side, costs about 4x the time of a pass. */
  bool small_marker_pass;
  /* The ids the caller needs (needed_ids[0..n_needed), up to 4; the
   * calibration's frame markers): the 2x pass is skipped when the first
   * pass found them all. It only adds ids the first pass missed, so the
   * needed markers come out the same, corner for corner; only other ids
   * it would have added are left out. n_needed 0: no such shortcut. */
  int needed_ids[4];
  int n_needed;
} cvw_detector_params;

/* OpenCV's own defaults (the reference the issue compares against). */
void cvw_detector_params_opencv(cvw_detector_params *p);
/* teppich's tuned defaults: OpenCV's plus corner refinement and settings
 * for small and blurred markers (measured in tests/cvw and the bench). */
void cvw_detector_params_default(cvw_detector_params *p);

/* A marker detector for one dictionary. params NULL: the teppich
 * defaults. The dictionary is copied; it may be destroyed afterwards. */
typedef struct cvw_detector cvw_detector;
tp_status cvw_detector_create(const cvw_dict *dict,
                              const cvw_detector_params *params,
                              cvw_detector **out, tp_error *err);
void cvw_detector_destroy(cvw_detector *det);

/* Detects markers in img (gray, or RGB which is converted). Writes at most
 * `cap` markers sorted by id (then by position) to out and sets *found to
 * the number detected, which may exceed cap (call again with more room). */
tp_status cvw_detect_markers(cvw_detector *det, const tp_image *img,
                             cvw_marker *out, size_t cap, size_t *found,
                             tp_error *err);

/* teppich's edge refinement (CVW_REFINE_EDGES) on corners found by any
 * detector (libapriltag in calibration/): corners clockwise in the image
 * (TL TR BR BL of the marker), refined in place in a gray image; `cells` is
 * the marker's side in cells (bits + 2). False (corners untouched) when an
 * edge is not clear. */
bool cvw_marker_refine_edges(const tp_image *gray, int cells, double corners[4][2]);

/* ======================================================================
 * 2b. ChArUco boards and lens calibration (cvw_charuco.cpp)
 * ====================================================================== */

/* A ChArUco board: a chessboard of squares_x x squares_y squares with
 * markers of `dict` in the white squares (OpenCV's layout; boards with an
 * even row count use the OpenCV 4.6 "legacy" pattern in every version).
 * Lengths in any unit (teppich uses mm). */
typedef struct cvw_charuco cvw_charuco;
tp_status cvw_charuco_create(const cvw_dict *dict, int squares_x, int squares_y,
                             double square_len, double marker_len,
                             cvw_charuco **out, tp_error *err);
void cvw_charuco_destroy(cvw_charuco *board);
/* Inner chessboard corners: (squares_x - 1) * (squares_y - 1). */
int cvw_charuco_corner_count(const cvw_charuco *board);
/* Position of inner corner `id` on the board plane, in board units. */
bool cvw_charuco_corner_position(const cvw_charuco *board, int id, double xy[2]);
/* Draws the board, no margin, into a caller-sized gray image (its aspect
 * should match the board's). */
tp_status cvw_charuco_draw(const cvw_charuco *board, tp_image *out, tp_error *err);
/* Finds inner corners in a photo: ids and sub-pixel positions (at most
 * cap written; *found = number found). */
tp_status cvw_charuco_detect(const cvw_charuco *board, const tp_image *img,
                             int *ids, double (*px)[2], size_t cap,
                             size_t *found, tp_error *err);

/* Pinhole + radial-tangential (k1 k2 p1 p2 k3) camera, OpenCV's model. */
typedef struct {
  double fx, fy, cx, cy;
  double k1, k2, p1, p2, k3;
  double rms_px; /* reprojection error */
} cvw_camera;

/* Calibrates a camera from n_views views of planar points: obj (board
 * plane) and img (pixels) hold counts[0] + counts[1] + ... points. k3 is
 * kept at 0 (normal lenses; it overfits where the board never was). */
tp_status cvw_calibrate_camera(const double (*obj)[2], const double (*img)[2],
                               const size_t *counts, size_t n_views, int width,
                               int height, cvw_camera *out, tp_error *err);

/* ======================================================================
 * 3. Video: OpenCV VideoCapture / VideoWriter (cvw_video.cpp; used by
 *    capture/ for `video:FILE` sources and by its tests)
 * ====================================================================== */

/* A video file being read, frame by frame. */
typedef struct cvw_video cvw_video;

/* Opens a video file. TP_ERR_NOTFOUND when it does not exist,
 * TP_ERR_FORMAT when OpenCV cannot decode it; the message names it. */
tp_status cvw_video_create(const char *path, cvw_video **out, tp_error *err);
void cvw_video_destroy(cvw_video *video);

/* The file's frame rate, 0 when it does not say. */
double cvw_video_fps(const cvw_video *video);

/* Reads the next frame as gray (channels 1) or RGB (3) into *out, which
 * is reused when its shape fits and (re)allocated with tp_image_alloc
 * otherwise (free with tp_image_free). TP_ERR_NOTFOUND at the end. */
tp_status cvw_video_read(cvw_video *video, int channels, tp_image *out,
                         tp_error *err);

/* Writes a Motion-JPEG .avi (always available in OpenCV's own writer),
 * atomically: frames go to a temporary file that cvw_video_writer_close
 * renames into place. Every frame must have the size given here. */
typedef struct cvw_video_writer cvw_video_writer;
tp_status cvw_video_writer_create(const char *path, double fps, int width,
                                  int height, cvw_video_writer **out,
                                  tp_error *err);
tp_status cvw_video_writer_write(cvw_video_writer *writer,
                                 const tp_image *img, tp_error *err);
/* Finishes and renames the file (TP_OK), or removes it on failure.
 * NULL-safe; frees the writer either way. */
tp_status cvw_video_writer_close(cvw_video_writer *writer, tp_error *err);

/* ======================================================================
 * 4. Vision tasks: table rectification, colour, blobs (cvw_vision.cpp)
 *    (vision engineer; used by vision/detect)
 * ====================================================================== */

/* Fits the homography H (row-major 3x3) with to ~ H * from, from n >= 4
 * point pairs (least squares over all points; exact for 4). */
tp_status cvw_homography_fit(const double (*from)[2], const double (*to)[2],
                             int n, double H[9], tp_error *err);

/* Fills the caller-allocated dst (same channels as src) by sampling src
 * at H * (x, y, 1) for every dst pixel (x, y): H maps dst pixels to src
 * pixels. Bilinear; samples outside src are 0. */
tp_status cvw_warp_homography(const tp_image *src, const double H[9],
                              tp_image *dst, tp_error *err);

/* Fills the caller-allocated dst (same channels as src) with src sampled
 * at (map_x[i], map_y[i]) for dst pixel i (row-major, width*height floats
 * each, no padding). Bilinear; samples outside src are 0. */
tp_status cvw_remap(const tp_image *src, const float *map_x,
                    const float *map_y, tp_image *dst, tp_error *err);

/* RGB -> CIE Lab in OpenCV's 8-bit scaling (L*255/100, a+128, b+128) into
 * the caller-allocated 3-channel dst of the same size. */
tp_status cvw_rgb_to_lab(const tp_image *src, tp_image *dst, tp_error *err);

/* Resizes src into the caller-allocated dst (its size is the target, same
 * channels): area averaging when shrinking, bilinear when enlarging. */
tp_status cvw_resize(const tp_image *src, tp_image *dst, tp_error *err);

/* In-place box filter (mean over a (2r+1)^2 window, borders replicated)
 * of an 8-bit image (any channels). */
tp_status cvw_box_blur(tp_image *img, int radius, tp_error *err);

/* Rows y0..y1-1 of cvw_box_blur(src) written to the same rows of dst (the
 * same size and channels, not src): neighbouring rows are read from src,
 * borders replicated at the image's edges only, so bands of rows give the
 * whole image's result (workers may each do a band). */
tp_status cvw_box_blur_rows(const tp_image *src, tp_image *dst, int radius, int y0, int y1,
                            tp_error *err);

/* In-place box filter (mean over a (2r+1)^2 window, borders replicated) of
 * a float plane with `stride` floats per row. */
tp_status cvw_box_blur_f32(float *data, int width, int height, int stride,
                           int radius, tp_error *err);

/* Columns x0..x1-1 of cvw_box_blur_f32(src) written to the same columns
 * of dst (another plane of the same size and stride): neighbouring
 * columns are read from src, borders replicated at the plane's edges
 * only. For radius 1 and 2 bands of columns give the whole plane's
 * result bit for bit (workers may each do a band): OpenCV sums each row's
 * window of 3 or 5 anew per pixel and runs each column's sum down the
 * whole plane (test_blur_f32_cols_equal_whole); a wider window's row sum
 * runs along the row from the band's first column, so it may differ in
 * the last bit. */
tp_status cvw_box_blur_f32_cols(const float *src, float *dst, int width, int height,
                                int stride, int radius, int x0, int x1, tp_error *err);

/* Straight edges of an image (gray or RGB; OpenCV's LSD line segment
 * detector), at least min_len pixels long. *segs (x1, y1, x2, y2 per
 * segment) is malloc'd for the caller to free. */
tp_status cvw_line_segments(const tp_image *img, double min_len, float **segs,
                            int *n_segs, tp_error *err);

/* Fills the holes (zero regions enclosed by non-zero pixels) of a gray
 * mask in place, up to max_hole_px pixels each. */
tp_status cvw_mask_fill_holes(tp_image *mask, double max_hole_px,
                              tp_error *err);

/* Outer outlines of the blobs (non-zero pixels) of a gray mask, each
 * simplified to a polygon (Douglas-Peucker, epsilon_px). Blobs under
 * min_area_px are skipped. *points (x,y pairs) and *counts (points per
 * polygon) are malloc'd for the caller to free. */
tp_status cvw_mask_outlines(const tp_image *mask, double epsilon_px,
                            double min_area_px, double **points, int **counts,
                            int *n_polygons, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
