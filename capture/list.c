/* capture: `teppich cameras`: what this machine has. */
#include "cap_internal.h"
#include "libcamera_shim.h"

int cap_list_cameras(FILE *out) {
  tp_error err;
  int lcam = cap__libcamera_list(out, NULL, &err);
  if (lcam < 0) fprintf(out, "libcamera: %s\n", err.text);
  int v4l2 = cap__v4l2_list(out, NULL);
  int found = (lcam > 0 ? lcam : 0) + v4l2;
  if (found == 0)
    fprintf(out,
            "no cameras found (libcamera %s, /dev/video*).\n"
            "  Pi camera: check the ribbon cable, camera_auto_detect=1 in "
            "/boot/firmware/config.txt and `rpicam-hello --list-cameras`.\n"
            "  USB webcam: plug it in, check `ls /dev/video*` and that you "
            "are in the group 'video'.\n"
            "  No camera at all: replay a recording with --source "
            "dir:FOLDER or file:IMAGE.\n",
            cap__lcam_built_version());
  return found;
}
