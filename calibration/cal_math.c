/* calibration: the little linear algebra the table fit needs. */
#include <math.h>
#include <string.h>

#include "cal_internal.h"

void cal__mat3_mul(const double a[9], const double b[9], double out[9]) {
  double r[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  memcpy(out, r, sizeof r);
}

bool cal__mat3_inv(const double a[9], double out[9]) {
  double c[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8],
                 a[1] * a[5] - a[2] * a[4], a[5] * a[6] - a[3] * a[8],
                 a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                 a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7],
                 a[0] * a[4] - a[1] * a[3]};
  double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  if (!isfinite(det) || fabs(det) < 1e-300) return false;
  for (int i = 0; i < 9; i++) out[i] = c[i] / det;
  return true;
}

bool cal__hom_apply(const double h[9], const double in[2], double out[2]) {
  double w = h[6] * in[0] + h[7] * in[1] + h[8];
  if (!isfinite(w) || fabs(w) < 1e-12) return false;
  out[0] = (h[0] * in[0] + h[1] * in[1] + h[2]) / w;
  out[1] = (h[3] * in[0] + h[4] * in[1] + h[5]) / w;
  return isfinite(out[0]) && isfinite(out[1]);
}

bool cal__solve(double *a, double *b, int n) {
  for (int col = 0; col < n; col++) {
    int piv = col;
    for (int r = col + 1; r < n; r++)
      if (fabs(a[r * n + col]) > fabs(a[piv * n + col])) piv = r;
    if (fabs(a[piv * n + col]) < 1e-300) return false;
    if (piv != col) {
      for (int k = 0; k < n; k++) {
        double t = a[col * n + k];
        a[col * n + k] = a[piv * n + k];
        a[piv * n + k] = t;
      }
      double t = b[col];
      b[col] = b[piv];
      b[piv] = t;
    }
    for (int r = col + 1; r < n; r++) {
      double f = a[r * n + col] / a[col * n + col];
      if (f == 0) continue;
      for (int k = col; k < n; k++) a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int k = r + 1; k < n; k++) s -= a[r * n + k] * b[k];
    b[r] = s / a[r * n + r];
    if (!isfinite(b[r])) return false;
  }
  return true;
}

bool cal__hom_from_4(const double src[4][2], const double dst[4][2], double h[9]) {
  double a[64], b[8];
  for (int i = 0; i < 4; i++) {
    double x = src[i][0], y = src[i][1], u = dst[i][0], v = dst[i][1];
    double r0[8] = {x, y, 1, 0, 0, 0, -u * x, -u * y};
    double r1[8] = {0, 0, 0, x, y, 1, -v * x, -v * y};
    memcpy(a + 16 * i, r0, sizeof r0);
    memcpy(a + 16 * i + 8, r1, sizeof r1);
    b[2 * i] = u;
    b[2 * i + 1] = v;
  }
  if (!cal__solve(a, b, 8)) return false;
  memcpy(h, b, sizeof b);
  h[8] = 1;
  return true;
}

void cal__square(double side, double out[4][2]) {
  double s = side / 2;
  const double k[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int i = 0; i < 4; i++) {
    out[i][0] = s * k[i][0];
    out[i][1] = s * k[i][1];
  }
}
