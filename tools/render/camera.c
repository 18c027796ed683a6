/* render: the pinhole camera with OpenCV's lens model. */
#include <math.h>
#include <string.h>

#include "render_internal.h"

static void normalize3(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* World frame: the table frame with z pointing into the table, so that a
 * camera straight above with image x along +x has the identity rotation
 * (x right, y down, z forward as OpenCV's camera frame). */
void rnd_camera_extrinsics(const rnd_camera *cam, rnd_extrinsics *out) {
  double c[3] = {cam->position_mm[0], cam->position_mm[1], -cam->position_mm[2]};
  double f[3] = {cam->look_at_mm[0] - c[0], cam->look_at_mm[1] - c[1], -c[2]};
  normalize3(f);
  /* Image-down follows +y of the table as far as the tilt allows. */
  double ref[3] = {0, 1, 0};
  double d = ref[0] * f[0] + ref[1] * f[1] + ref[2] * f[2];
  double y[3] = {ref[0] - d * f[0], ref[1] - d * f[1], ref[2] - d * f[2]};
  if (y[0] * y[0] + y[1] * y[1] + y[2] * y[2] < 1e-9) {
    double alt[3] = {-1, 0, 0}; /* looking along y: image-down = -x */
    memcpy(y, alt, sizeof y);
  }
  normalize3(y);
  double x[3];
  cross3(y, f, x);
  double cr = cos(cam->roll_deg * RND__DEG), sr = sin(cam->roll_deg * RND__DEG);
  for (int i = 0; i < 3; i++) {
    double xi = x[i], yi = y[i];
    out->R[i] = cr * xi + sr * yi;
    out->R[3 + i] = -sr * xi + cr * yi;
    out->R[6 + i] = f[i];
  }
  for (int i = 0; i < 3; i++)
    out->t[i] = -(out->R[3 * i] * c[0] + out->R[3 * i + 1] * c[1] +
                  out->R[3 * i + 2] * c[2]);
  double K[9] = {cam->fx, 0, cam->cx, 0, cam->fy, cam->cy, 0, 0, 1};
  memcpy(out->K, K, sizeof K);
}

static void distort(const double *k, double x, double y, double *xd, double *yd) {
  double r2 = x * x + y * y;
  double radial = 1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]));
  *xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x);
  *yd = y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y;
}

bool rnd_camera_project(const rnd_camera *cam, double x_mm, double y_mm,
                        double *u_px, double *v_px) {
  rnd_extrinsics e;
  rnd_camera_extrinsics(cam, &e);
  double X[3];
  for (int i = 0; i < 3; i++)
    X[i] = e.R[3 * i] * x_mm + e.R[3 * i + 1] * y_mm + e.t[i];
  if (X[2] <= 1e-9) return false;
  double xd, yd;
  distort(cam->dist, X[0] / X[2], X[1] / X[2], &xd, &yd);
  *u_px = cam->fx * xd + cam->cx;
  *v_px = cam->fy * yd + cam->cy;
  return true;
}

/* Inverts the lens model by Newton steps on the 2x2 Jacobian (numerical):
 * robust for the moderate distortions that real lenses have. */
static void undistort(const double *k, double xd, double yd, double *x,
                      double *y) {
  double ux = xd, uy = yd;
  for (int it = 0; it < 20; it++) {
    double fx, fy, ax, ay, bx, by, h = 1e-6;
    distort(k, ux, uy, &fx, &fy);
    double ex = fx - xd, ey = fy - yd;
    if (fabs(ex) + fabs(ey) < 1e-12) break;
    distort(k, ux + h, uy, &ax, &ay);
    distort(k, ux, uy + h, &bx, &by);
    double j00 = (ax - fx) / h, j10 = (ay - fy) / h;
    double j01 = (bx - fx) / h, j11 = (by - fy) / h;
    double det = j00 * j11 - j01 * j10;
    if (fabs(det) < 1e-12) break;
    ux -= (j11 * ex - j01 * ey) / det;
    uy -= (-j10 * ex + j00 * ey) / det;
  }
  *x = ux;
  *y = uy;
}

bool rnd_camera_unproject(const rnd_camera *cam, double u_px, double v_px,
                          double *x_mm, double *y_mm) {
  rnd_extrinsics e;
  rnd_camera_extrinsics(cam, &e);
  double xn, yn;
  undistort(cam->dist, (u_px - cam->cx) / cam->fx, (v_px - cam->cy) / cam->fy,
            &xn, &yn);
  /* Ray in world coordinates: R^T * (xn, yn, 1) from the camera centre. */
  double dir[3], c[3];
  for (int i = 0; i < 3; i++) {
    dir[i] = e.R[i] * xn + e.R[3 + i] * yn + e.R[6 + i];
    c[i] = -(e.R[i] * e.t[0] + e.R[3 + i] * e.t[1] + e.R[6 + i] * e.t[2]);
  }
  if (dir[2] <= 1e-9) return false; /* parallel to or away from the table */
  double s = -c[2] / dir[2];
  *x_mm = c[0] + s * dir[0];
  *y_mm = c[1] + s * dir[1];
  return true;
}

void rnd_camera_set_hfov(rnd_camera *cam, double hfov_deg) {
  cam->fx = cam->fy = 0.5 * cam->width / tan(0.5 * hfov_deg * RND__DEG);
  cam->cx = 0.5 * (cam->width - 1);
  cam->cy = 0.5 * (cam->height - 1);
}

double rnd_camera_tilt_deg(const rnd_camera *cam) {
  double dx = cam->look_at_mm[0] - cam->position_mm[0];
  double dy = cam->look_at_mm[1] - cam->position_mm[1];
  return atan2(sqrt(dx * dx + dy * dy), cam->position_mm[2]) / RND__DEG;
}

void rnd_pose_corners(const rnd_pose *pose, double w, double h,
                      double corners[4][2]) {
  double a = pose->angle_deg * RND__DEG;
  /* column (face-right) and row (face-down) directions on the table */
  double cx = sin(a), cy = -cos(a), rx = cos(a), ry = sin(a);
  static const double su[4] = {-0.5, 0.5, 0.5, -0.5};
  static const double sv[4] = {-0.5, -0.5, 0.5, 0.5};
  for (int i = 0; i < 4; i++) {
    corners[i][0] = pose->center_mm[0] + su[i] * w * cx + sv[i] * h * rx;
    corners[i][1] = pose->center_mm[1] + su[i] * w * cy + sv[i] * h * ry;
  }
}
