/* table: the image -> table mm mapping from the four table markers when no
 * calibration is given, and 3x3 matrix helpers.
 *
 * Each marker is a 40 mm square whose position and turn on the table are
 * unknown; the frame is fixed by spec section 1 (origin marker 0, +x
 * toward marker 1). Starting from marker 0 alone, the marker squares are
 * placed where the current mapping sees them, squared up to their true
 * size, and the mapping is refitted to all 16 corners; a few rounds settle
 * the scale that one small marker cannot. */
#include <math.h>
#include <string.h>

#include "cvw.h"
#include "vision_internal.h"

void vis__mat3_mul(const double a[9], const double b[9], double out[9]) {
  double r[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  memcpy(out, r, sizeof r);
}

bool vis__mat3_inv(const double m[9], double out[9]) {
  double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
               m[2] * (m[3] * m[7] - m[4] * m[6]);
  if (fabs(det) < 1e-15) return false;
  double r[9] = {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                 m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                 m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
  for (int i = 0; i < 9; i++) out[i] = r[i] / det;
  return true;
}

vis_pt vis__apply_h(const double h[9], double x, double y) {
  double w = h[6] * x + h[7] * y + h[8];
  vis_pt p = {(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w};
  return p;
}

/* Ideal corners (TL, TR, BR, BL) of a side x side square at c turned by a. */
static void square_corners(vis_pt c, double a, double side, double out[4][2]) {
  static const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  double ca = cos(a), sa = sin(a), h = side / 2;
  for (int i = 0; i < 4; i++) {
    out[i][0] = c.x + h * (s[i][0] * ca - s[i][1] * sa);
    out[i][1] = c.y + h * (s[i][0] * sa + s[i][1] * ca);
  }
}

tp_status vis__table_from_markers(const double (*corners)[4][2], int n,
                                  double side_mm, double H[9], tp_error *err) {
  double img[16][2], mm[16][2];
  for (int k = 0; k < n; k++) memcpy(img[4 * k], corners[k], sizeof corners[k]);
  square_corners((vis_pt){0, 0}, 0, side_mm, (double(*)[2])mm);
  tp_status st = cvw_homography_fit((const double(*)[2])img, (const double(*)[2])mm, 4, H, err);
  for (int round = 0; !st && round < 200; round++) {
    for (int k = 0; k < n; k++) {
      vis_pt p[4], c = {0, 0};
      for (int i = 0; i < 4; i++) {
        p[i] = vis__apply_h(H, img[4 * k + i][0], img[4 * k + i][1]);
        c.x += p[i].x / 4, c.y += p[i].y / 4;
      }
      /* the turn: mean direction of the four edges, each rotated to +x */
      double sx = 0, sy = 0;
      for (int i = 0; i < 4; i++) {
        double a = atan2(p[(i + 1) % 4].y - p[i].y, p[(i + 1) % 4].x - p[i].x);
        a -= i * 3.14159265358979323846 / 2;
        sx += cos(a), sy += sin(a);
      }
      square_corners(c, atan2(sy, sx), side_mm, (double(*)[2])mm[4 * k]);
    }
    st = cvw_homography_fit((const double(*)[2])img, (const double(*)[2])mm, 4 * n, H, err);
  }
  if (st) return st;
  /* the frame of spec section 1: origin marker 0, +x toward marker 1, +y
   * toward markers 2 and 3 */
  vis_pt c[4];
  for (int k = 0; k < n; k++) {
    c[k] = (vis_pt){0, 0};
    for (int i = 0; i < 4; i++) c[k].x += mm[4 * k + i][0] / 4, c[k].y += mm[4 * k + i][1] / 4;
  }
  double a = atan2(c[1].y - c[0].y, c[1].x - c[0].x);
  double ca = cos(a), sa = sin(a);
  double R[9] = {ca, sa, -(ca * c[0].x + sa * c[0].y), -sa, ca, -(-sa * c[0].x + ca * c[0].y), 0, 0, 1};
  double side = 0; /* which side markers 2, 3 lie on */
  for (int k = 2; k < n; k++) side += vis__apply_h(R, c[k].x, c[k].y).y;
  if (side < 0) R[3] = -R[3], R[4] = -R[4], R[5] = -R[5];
  vis__mat3_mul(R, H, H);
  return TP_OK;
}
