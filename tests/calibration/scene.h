/* Shared scene set-up for the calibration tests and the accuracy tool:
 * four markers near the corners of a 900 x 600 mm play area, at odd
 * angles and positions (as players lay them), seen by a 1920x1080 camera. */
#ifndef TEPPICH_TEST_SCENE_H
#define TEPPICH_TEST_SCENE_H

#include <math.h>
#include <string.h>

#include "synth.h"

/* Marker 0 at the origin and marker 1 on the +x axis define the true
 * frame, so table coordinates here are the expected ones. */
static inline void scene_markers(synth_marker m[4], double side) {
  const synth_marker def[4] = {{0, {0, 0}, 17, 40},
                               {1, {905, 0}, -32, 40},
                               {2, {890, 610}, 141, 40},
                               {3, {-12, 596}, 75, 40}};
  memcpy(m, def, sizeof def);
  for (int i = 0; i < 4; i++) m[i].side_mm = side;
}

static inline void scene_camera(synth_camera *cam, double tilt, double azimuth, double k1) {
  memset(cam, 0, sizeof *cam);
  cam->width = 1920;
  cam->height = 1080;
  cam->f_px = 1480; /* about 66 degrees across, as a Pi Camera Module 3 */
  cam->k1 = k1;
  cam->k2 = k1 != 0 ? -0.5 * k1 : 0;
  cam->target[0] = 450;
  cam->target[1] = 300;
  cam->distance = 1150;
  cam->tilt_deg = tilt;
  cam->azimuth_deg = azimuth;
  cam->roll_deg = 2;
  synth_camera_init(cam);
}

#endif
