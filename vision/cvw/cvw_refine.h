/* cvw internal: teppich's own corner refinement (C, no OpenCV). */
#ifndef TEPPICH_CVW_REFINE_H
#define TEPPICH_CVW_REFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Refines the four corners (clockwise in the image: TL TR BR BL) of a
 * marker's black square in place: each outer edge is located at many
 * points along its length as the sub-pixel 50 % crossing between the
 * black border and the white quiet zone, a straight line is fitted to
 * them, and neighbouring lines are intersected. Unlike cornerSubPix on an
 * L-shaped corner this has no systematic inward pull on blurred edges,
 * which matters because the marker's apparent size sets the scale of the
 * whole table frame. `cells` is the marker's side in cells (bits + 2).
 * Returns false and leaves the corners alone if an edge is not clear. */
bool cvw__refine_edges(const uint8_t *gray, int width, int height, size_t stride,
                       int cells, double corners[4][2]);

#ifdef __cplusplus
}
#endif
#endif
