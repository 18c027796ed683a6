/* mat3: 3x3 matrix helpers (homographies). The table mapping itself comes
 * from calibration/ through vis_table_map. */
#include <math.h>
#include <string.h>

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

