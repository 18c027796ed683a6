/* render: the demo deck's card art, drawn with cairo.
 *
 * Original procedural art for the twelve destination types, four carpets
 * and the common back. Every face is a printed-card look: cream edge, a
 * framed panel with an ornamental gold border, a background pattern that
 * covers the whole panel, a title ribbon, a central icon and four corner
 * badges. Families share their frame and palette (the three bazaars an
 * awning, the five adventures a teal field), while each type has its own
 * pattern, accent colour and corner badge, so that a corner peeking out from
 * under a carpet still tells it apart. Drawing happens in card millimetres
 * (59 x 91) scaled to the requested pixel size. */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

enum { PAT_STARS, PAT_WAVES, PAT_SCALES, PAT_ZIGZAG, PAT_BRICKS, PAT_DIAMONDS,
       PAT_DOTS, PAT_CHECKER, PAT_TRIANGLES, PAT_COINS, PAT_SPARKS, PAT_RIPPLES };
enum { ICON_PALACE, ICON_SHIP, ICON_SERPENT, ICON_MOUNTAIN, ICON_TOWER,
       ICON_KEY, ICON_SPICE, ICON_ROLLS, ICON_CAMEL, ICON_CHEST, ICON_LAMP,
       ICON_DUNES };

typedef struct {
  const char *stem, *title, *badge;
  uint32_t bg_top, bg_bottom, accent, pattern_colour;
  int pattern, icon;
  bool awning; /* the bazaar family's striped awning */
} card_style;

static const card_style card_styles[12] = {
  {"palace", "PALACE", "P", 0x3b1f6e, 0x1d0f3d, 0xd9a520, 0x5a3a9a, PAT_STARS, ICON_PALACE, false},
  {"adventure-a", "ADVENTURE", "A", 0x1f6f6a, 0x0f3f3c, 0xd2452e, 0x2f8f88, PAT_WAVES, ICON_SHIP, false},
  {"adventure-b", "ADVENTURE", "B", 0x1f6f6a, 0x0f3f3c, 0xe08a1e, 0x2f8f88, PAT_SCALES, ICON_SERPENT, false},
  {"adventure-c", "ADVENTURE", "C", 0x1f6f6a, 0x0f3f3c, 0x9b5fd0, 0x2f8f88, PAT_ZIGZAG, ICON_MOUNTAIN, false},
  {"adventure-d", "ADVENTURE", "D", 0x1f6f6a, 0x0f3f3c, 0x3f7fe0, 0x2f8f88, PAT_BRICKS, ICON_TOWER, false},
  {"adventure-e", "ADVENTURE", "E", 0x1f6f6a, 0x0f3f3c, 0x8fd04a, 0x2f8f88, PAT_DIAMONDS, ICON_KEY, false},
  {"spice-bazaar", "SPICE BAZAAR", "5", 0xe8c98f, 0xc99a5a, 0xc0391b, 0xd9ae6e, PAT_DOTS, ICON_SPICE, true},
  {"carpet-bazaar", "CARPET BAZAAR", "6", 0xe8c98f, 0xc99a5a, 0x2a55b0, 0xd9ae6e, PAT_CHECKER, ICON_ROLLS, true},
  {"camel-bazaar", "CAMEL BAZAAR", "7", 0xe8c98f, 0xc99a5a, 0x3d8a3a, 0xd9ae6e, PAT_TRIANGLES, ICON_CAMEL, true},
  {"treasure", "TREASURE", "+3", 0x8a1c1c, 0x4a0c10, 0xf0c030, 0xa83030, PAT_COINS, ICON_CHEST, false},
  {"lamp", "MAGIC LAMP", "*", 0x123a78, 0x081a3a, 0xf2c84b, 0x2050a0, PAT_SPARKS, ICON_LAMP, false},
  {"desert", "DESERT", "-5", 0xf0a040, 0xc8652a, 0x6b3a1a, 0xe08f3a, PAT_RIPPLES, ICON_DUNES, false},
};

static void set_hex(cairo_t *cr, uint32_t hex) {
  cairo_set_source_rgb(cr, ((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0,
                       (hex & 255) / 255.0);
}
static void set_hexa(cairo_t *cr, uint32_t hex, double a) {
  cairo_set_source_rgba(cr, ((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0,
                        (hex & 255) / 255.0, a);
}

static void rounded_rect(cairo_t *cr, double x, double y, double w, double h, double r) {
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
  cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
  cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
  cairo_arc(cr, x + r, y + r, r, M_PI, 1.5 * M_PI);
  cairo_close_path(cr);
}

static void fill_stroke(cairo_t *cr, uint32_t fill, uint32_t line, double width) {
  set_hex(cr, fill);
  cairo_fill_preserve(cr);
  set_hex(cr, line);
  cairo_set_line_width(cr, width);
  cairo_stroke(cr);
}

/* Centred text that shrinks to fit max_w. */
static void text_centered(cairo_t *cr, const char *s, double x, double y,
                          double size, double max_w, uint32_t colour) {
  cairo_select_font_face(cr, "DejaVu Serif", CAIRO_FONT_SLANT_NORMAL,
                         CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t ext;
  cairo_text_extents(cr, s, &ext);
  if (ext.width > max_w && ext.width > 0) {
    cairo_set_font_size(cr, size * max_w / ext.width);
    cairo_text_extents(cr, s, &ext);
  }
  cairo_move_to(cr, x - ext.width / 2 - ext.x_bearing, y - ext.height / 2 - ext.y_bearing);
  set_hex(cr, colour);
  cairo_show_text(cr, s);
}

/* ---------------- background patterns (cover the whole panel) -------- */

static void star_path(cairo_t *cr, double x, double y, double r, int points) {
  for (int i = 0; i < 2 * points; i++) {
    double a = M_PI * i / points - M_PI / 2, rr = i % 2 ? r * 0.45 : r;
    if (i == 0) cairo_move_to(cr, x + rr * cos(a), y + rr * sin(a));
    else cairo_line_to(cr, x + rr * cos(a), y + rr * sin(a));
  }
  cairo_close_path(cr);
}

static void draw_pattern(cairo_t *cr, int pattern, uint32_t colour, double x0,
                         double y0, double w, double h) {
  cairo_save(cr);
  cairo_rectangle(cr, x0, y0, w, h);
  cairo_clip(cr);
  set_hex(cr, colour);
  cairo_set_line_width(cr, 0.6);
  switch (pattern) {
  case PAT_STARS:
    for (int j = 0; j < 14; j++)
      for (int i = 0; i < 9; i++) {
        double x = x0 + 3 + i * 6.5 + (j % 2) * 3.25, y = y0 + 3 + j * 6.5;
        star_path(cr, x, y, 1.4, 5);
      }
    cairo_fill(cr);
    break;
  case PAT_WAVES:
    for (double y = y0 + 2; y < y0 + h + 3; y += 3.2) {
      cairo_move_to(cr, x0, y);
      for (double x = x0; x < x0 + w + 4; x += 4)
        cairo_curve_to(cr, x + 1, y - 1.4, x + 3, y - 1.4, x + 4, y);
    }
    cairo_stroke(cr);
    break;
  case PAT_SCALES:
    for (int j = 0; j < 30; j++)
      for (int i = 0; i < 14; i++) {
        double x = x0 + i * 4 + (j % 2) * 2, y = y0 + j * 3;
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, 2, 0, M_PI);
      }
    cairo_stroke(cr);
    break;
  case PAT_ZIGZAG:
    for (double y = y0 + 1; y < y0 + h + 3; y += 3.5) {
      cairo_move_to(cr, x0, y);
      for (double x = x0; x < x0 + w + 3; x += 3) cairo_line_to(cr, x + 1.5, y - 1.5), cairo_line_to(cr, x + 3, y);
    }
    cairo_stroke(cr);
    break;
  case PAT_BRICKS:
    for (int j = 0; j < 30; j++) {
      double y = y0 + j * 3;
      cairo_move_to(cr, x0, y), cairo_line_to(cr, x0 + w, y);
      for (int i = 0; i < 12; i++) {
        double x = x0 + i * 5 + (j % 2) * 2.5;
        cairo_move_to(cr, x, y), cairo_line_to(cr, x, y + 3);
      }
    }
    cairo_stroke(cr);
    break;
  case PAT_DIAMONDS:
    for (int j = 0; j < 24; j++)
      for (int i = 0; i < 12; i++) {
        double x = x0 + i * 5 + (j % 2) * 2.5, y = y0 + j * 4;
        cairo_move_to(cr, x, y - 1.5), cairo_line_to(cr, x + 1.2, y);
        cairo_line_to(cr, x, y + 1.5), cairo_line_to(cr, x - 1.2, y);
        cairo_close_path(cr);
      }
    cairo_fill(cr);
    break;
  case PAT_DOTS:
    for (int j = 0; j < 32; j++)
      for (int i = 0; i < 18; i++) {
        cairo_new_sub_path(cr);
        cairo_arc(cr, x0 + i * 3.2 + (j % 2) * 1.6, y0 + j * 3.2, 0.7, 0, 2 * M_PI);
      }
    cairo_fill(cr);
    break;
  case PAT_CHECKER:
    for (int j = 0; j < 30; j++)
      for (int i = 0; i < 16; i++)
        if ((i + j) % 2) cairo_rectangle(cr, x0 + i * 3.5, y0 + j * 3.5, 3.5, 3.5);
    cairo_fill(cr);
    break;
  case PAT_TRIANGLES:
    for (int j = 0; j < 24; j++)
      for (int i = 0; i < 14; i++) {
        double x = x0 + i * 4.5 + (j % 2) * 2.25, y = y0 + j * 4;
        cairo_move_to(cr, x, y - 1.3), cairo_line_to(cr, x + 1.5, y + 1.3);
        cairo_line_to(cr, x - 1.5, y + 1.3), cairo_close_path(cr);
      }
    cairo_fill(cr);
    break;
  case PAT_COINS:
    for (int j = 0; j < 20; j++)
      for (int i = 0; i < 10; i++) {
        cairo_new_sub_path(cr);
        cairo_arc(cr, x0 + i * 6 + (j % 2) * 3, y0 + j * 5, 1.8, 0, 2 * M_PI);
      }
    cairo_stroke(cr);
    break;
  case PAT_SPARKS:
    for (int k = 0; k < 90; k++) {
      uint32_t hsh = rnd__hash2(k, 7, 99);
      double x = x0 + (hsh % 1000) / 1000.0 * w, y = y0 + ((hsh >> 10) % 1000) / 1000.0 * h;
      star_path(cr, x, y, 0.5 + ((hsh >> 20) % 100) / 100.0, 4);
    }
    cairo_fill(cr);
    break;
  case PAT_RIPPLES:
    for (double y = y0 + 1; y < y0 + h + 3; y += 2.6) {
      cairo_move_to(cr, x0, y);
      for (double x = x0; x < x0 + w + 8; x += 8)
        cairo_curve_to(cr, x + 2, y + 0.8, x + 6, y - 0.8, x + 8, y);
    }
    cairo_stroke(cr);
    break;
  }
  cairo_restore(cr);
}

/* ---------------- icons, drawn in a box centred at (x, y) of size s ---- */

static void icon_palace(cairo_t *cr, double x, double y, double s, uint32_t gold) {
  uint32_t line = 0x2a1a08;
  double lw = s * 0.018;
  /* minarets */
  for (int side = -1; side <= 1; side += 2) {
    double mx = x + side * s * 0.38;
    cairo_rectangle(cr, mx - s * 0.04, y - s * 0.2, s * 0.08, s * 0.55);
    fill_stroke(cr, 0xf3e6c4, line, lw);
    cairo_move_to(cr, mx - s * 0.06, y - s * 0.2);
    cairo_line_to(cr, mx, y - s * 0.42);
    cairo_line_to(cr, mx + s * 0.06, y - s * 0.2);
    cairo_close_path(cr);
    fill_stroke(cr, gold, line, lw);
  }
  /* main hall */
  cairo_rectangle(cr, x - s * 0.3, y, s * 0.6, s * 0.35);
  fill_stroke(cr, 0xf3e6c4, line, lw);
  /* onion dome */
  cairo_move_to(cr, x - s * 0.2, y);
  cairo_curve_to(cr, x - s * 0.32, y - s * 0.15, x - s * 0.05, y - s * 0.25, x, y - s * 0.4);
  cairo_curve_to(cr, x + s * 0.05, y - s * 0.25, x + s * 0.32, y - s * 0.15, x + s * 0.2, y);
  cairo_close_path(cr);
  fill_stroke(cr, gold, line, lw);
  /* small domes */
  for (int side = -1; side <= 1; side += 2) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + side * s * 0.22, y, s * 0.07, M_PI, 2 * M_PI);
    fill_stroke(cr, gold, line, lw);
  }
  /* door and windows */
  cairo_move_to(cr, x - s * 0.07, y + s * 0.35);
  cairo_line_to(cr, x - s * 0.07, y + s * 0.2);
  cairo_arc(cr, x, y + s * 0.2, s * 0.07, M_PI, 2 * M_PI);
  cairo_line_to(cr, x + s * 0.07, y + s * 0.35);
  cairo_close_path(cr);
  fill_stroke(cr, 0x3b1f6e, line, lw);
  for (int i = -1; i <= 1; i += 2) {
    cairo_rectangle(cr, x + i * s * 0.19 - s * 0.03, y + s * 0.09, s * 0.06, s * 0.1);
    fill_stroke(cr, 0x3b1f6e, line, lw);
  }
}

static void icon_ship(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x102020;
  double lw = s * 0.018;
  cairo_move_to(cr, x - s * 0.42, y + s * 0.08);
  cairo_line_to(cr, x + s * 0.42, y + s * 0.08);
  cairo_curve_to(cr, x + s * 0.3, y + s * 0.28, x - s * 0.3, y + s * 0.28, x - s * 0.42, y + s * 0.08);
  fill_stroke(cr, 0x7a4a22, line, lw);
  cairo_rectangle(cr, x - s * 0.015, y - s * 0.42, s * 0.03, s * 0.5);
  fill_stroke(cr, 0x5a3a1a, line, lw);
  cairo_move_to(cr, x + s * 0.03, y - s * 0.38);
  cairo_curve_to(cr, x + s * 0.32, y - s * 0.2, x + s * 0.3, y - s * 0.05, x + s * 0.03, y + s * 0.03);
  cairo_close_path(cr);
  fill_stroke(cr, 0xf4ecd8, line, lw);
  cairo_move_to(cr, x - s * 0.03, y - s * 0.3);
  cairo_line_to(cr, x - s * 0.28, y + s * 0.03);
  cairo_line_to(cr, x - s * 0.03, y + s * 0.03);
  cairo_close_path(cr);
  fill_stroke(cr, accent, line, lw);
  set_hex(cr, 0xbfe8f0);
  cairo_set_line_width(cr, s * 0.03);
  for (int k = 0; k < 2; k++) {
    double wy = y + s * (0.3 + 0.09 * k);
    cairo_move_to(cr, x - s * 0.45, wy);
    for (double wx = -0.45; wx < 0.45; wx += 0.15)
      cairo_curve_to(cr, x + s * (wx + 0.04), wy - s * 0.05, x + s * (wx + 0.11), wy - s * 0.05, x + s * (wx + 0.15), wy);
    cairo_stroke(cr);
  }
}

static void icon_serpent(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_move_to(cr, x - s * 0.38, y + s * 0.36);
  cairo_curve_to(cr, x + s * 0.5, y + s * 0.3, x - s * 0.5, y - s * 0.05, x + s * 0.2, y - s * 0.2);
  cairo_curve_to(cr, x + s * 0.35, y - s * 0.26, x + s * 0.2, y - s * 0.36, x + s * 0.1, y - s * 0.3);
  set_hex(cr, 0x102020);
  cairo_set_line_width(cr, s * 0.14);
  cairo_stroke_preserve(cr);
  set_hex(cr, accent);
  cairo_set_line_width(cr, s * 0.1);
  cairo_stroke(cr);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.06, y - s * 0.3, s * 0.09, 0, 2 * M_PI);
  fill_stroke(cr, accent, 0x102020, s * 0.02);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.04, y - s * 0.33, s * 0.025, 0, 2 * M_PI);
  set_hex(cr, 0xfff4c0);
  cairo_fill(cr);
  cairo_move_to(cr, x - s * 0.03, y - s * 0.28);
  cairo_line_to(cr, x - s * 0.14, y - s * 0.25);
  cairo_line_to(cr, x - s * 0.1, y - s * 0.3);
  set_hex(cr, 0xd02020);
  cairo_set_line_width(cr, s * 0.015);
  cairo_stroke(cr);
}

static void icon_mountain(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x102020;
  double lw = s * 0.018;
  cairo_move_to(cr, x - s * 0.45, y + s * 0.35);
  cairo_line_to(cr, x - s * 0.15, y - s * 0.2);
  cairo_line_to(cr, x + s * 0.05, y + s * 0.35);
  cairo_close_path(cr);
  fill_stroke(cr, 0x6a5a7a, line, lw);
  cairo_move_to(cr, x - s * 0.2, y + s * 0.35);
  cairo_line_to(cr, x + s * 0.12, y - s * 0.4);
  cairo_line_to(cr, x + s * 0.45, y + s * 0.35);
  cairo_close_path(cr);
  fill_stroke(cr, accent, line, lw);
  cairo_move_to(cr, x + s * 0.02, y - s * 0.17);
  cairo_line_to(cr, x + s * 0.12, y - s * 0.4);
  cairo_line_to(cr, x + s * 0.22, y - s * 0.17);
  cairo_line_to(cr, x + s * 0.16, y - s * 0.2);
  cairo_line_to(cr, x + s * 0.12, y - s * 0.14);
  cairo_line_to(cr, x + s * 0.07, y - s * 0.2);
  cairo_close_path(cr);
  fill_stroke(cr, 0xffffff, line, lw);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x - s * 0.3, y - s * 0.3, s * 0.08, 0, 2 * M_PI);
  fill_stroke(cr, 0xf8e070, line, lw);
}

static void icon_tower(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x102020;
  double lw = s * 0.018;
  cairo_move_to(cr, x - s * 0.18, y + s * 0.4);
  cairo_line_to(cr, x - s * 0.14, y - s * 0.25);
  for (int i = 0; i < 4; i++) {
    double bx = x - s * 0.14 + i * s * 0.07;
    cairo_line_to(cr, bx, y - s * 0.35), cairo_line_to(cr, bx + s * 0.035, y - s * 0.35);
    cairo_line_to(cr, bx + s * 0.035, y - s * 0.25), cairo_line_to(cr, bx + s * 0.07, y - s * 0.25);
  }
  cairo_line_to(cr, x + s * 0.18, y + s * 0.4);
  cairo_close_path(cr);
  fill_stroke(cr, 0xc8b89a, line, lw);
  for (int i = 0; i < 3; i++) {
    double wy = y - s * 0.15 + i * s * 0.17;
    cairo_move_to(cr, x - s * 0.04, wy + s * 0.08);
    cairo_line_to(cr, x - s * 0.04, wy);
    cairo_arc(cr, x, wy, s * 0.04, M_PI, 2 * M_PI);
    cairo_line_to(cr, x + s * 0.04, wy + s * 0.08);
    cairo_close_path(cr);
    fill_stroke(cr, 0x1a2030, line, lw);
  }
  cairo_move_to(cr, x + s * 0.14, y - s * 0.35);
  cairo_line_to(cr, x + s * 0.14, y - s * 0.55 + s * 0.05);
  set_hex(cr, line);
  cairo_set_line_width(cr, lw);
  cairo_stroke(cr);
  cairo_move_to(cr, x + s * 0.14, y - s * 0.5);
  cairo_line_to(cr, x + s * 0.34, y - s * 0.44);
  cairo_line_to(cr, x + s * 0.14, y - s * 0.38);
  cairo_close_path(cr);
  fill_stroke(cr, accent, line, lw);
}

static void icon_key(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x102020;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -M_PI / 4);
  cairo_new_sub_path(cr);
  cairo_arc(cr, -s * 0.25, 0, s * 0.15, 0, 2 * M_PI);
  cairo_new_sub_path(cr);
  cairo_arc_negative(cr, -s * 0.25, 0, s * 0.07, 2 * M_PI, 0);
  cairo_rectangle(cr, -s * 0.11, -s * 0.035, s * 0.5, s * 0.07);
  cairo_rectangle(cr, s * 0.25, s * 0.03, s * 0.05, s * 0.1);
  cairo_rectangle(cr, s * 0.33, s * 0.03, s * 0.05, s * 0.14);
  cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
  fill_stroke(cr, accent, line, s * 0.018);
  cairo_restore(cr);
}

static void icon_spice(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  static const uint32_t spice[3] = {0xc0391b, 0xe8b21e, 0x8a4a1e};
  uint32_t line = 0x2a1a08;
  for (int i = 0; i < 3; i++) {
    double bx = x + (i - 1) * s * 0.3, by = y + (i == 1 ? s * 0.05 : s * 0.2);
    cairo_move_to(cr, bx - s * 0.14, by);
    cairo_curve_to(cr, bx - s * 0.05, by - s * 0.25, bx + s * 0.05, by - s * 0.25, bx + s * 0.14, by);
    cairo_close_path(cr);
    fill_stroke(cr, spice[i], line, s * 0.015);
    cairo_move_to(cr, bx - s * 0.15, by);
    cairo_line_to(cr, bx + s * 0.15, by);
    cairo_curve_to(cr, bx + s * 0.14, by + s * 0.18, bx - s * 0.14, by + s * 0.18, bx - s * 0.15, by);
    fill_stroke(cr, 0x9a6a3a, line, s * 0.015);
  }
  (void)accent;
}

static void icon_rolls(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  static const uint32_t roll[3] = {0x2a55b0, 0xb02a2a, 0x2a8a5a};
  uint32_t line = 0x1a1008;
  for (int i = 0; i < 3; i++) {
    double ry = y + s * (0.22 - i * 0.2), rx = x + (i == 1 ? s * 0.04 : -s * 0.04);
    cairo_rectangle(cr, rx - s * 0.36, ry - s * 0.09, s * 0.66, s * 0.18);
    fill_stroke(cr, roll[i], line, s * 0.015);
    set_hex(cr, 0xf0d090);
    for (int k = 1; k < 6; k++) {
      cairo_rectangle(cr, rx - s * 0.36 + k * s * 0.11, ry - s * 0.09, s * 0.02, s * 0.18);
    }
    cairo_fill(cr);
    cairo_save(cr);
    cairo_translate(cr, rx + s * 0.3, ry);
    cairo_scale(cr, s * 0.05, s * 0.09);
    cairo_arc(cr, 0, 0, 1, 0, 2 * M_PI);
    cairo_restore(cr);
    fill_stroke(cr, 0xe0c080, line, s * 0.015);
    cairo_save(cr);
    cairo_translate(cr, rx + s * 0.3, ry);
    cairo_scale(cr, s * 0.02, s * 0.04);
    cairo_arc(cr, 0, 0, 1, 0, 2 * M_PI);
    cairo_restore(cr);
    set_hex(cr, roll[i]);
    cairo_fill(cr);
  }
  (void)accent;
}

static void icon_camel(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  cairo_move_to(cr, x - s * 0.32, y + s * 0.05);
  cairo_curve_to(cr, x - s * 0.3, y - s * 0.2, x - s * 0.18, y - s * 0.22, x - s * 0.1, y - s * 0.08);
  cairo_curve_to(cr, x - s * 0.02, y - s * 0.28, x + s * 0.12, y - s * 0.24, x + s * 0.16, y - s * 0.05);
  cairo_line_to(cr, x + s * 0.26, y - s * 0.28);
  cairo_curve_to(cr, x + s * 0.3, y - s * 0.36, x + s * 0.42, y - s * 0.34, x + s * 0.42, y - s * 0.28);
  cairo_line_to(cr, x + s * 0.32, y - s * 0.24);
  cairo_line_to(cr, x + s * 0.22, y + s * 0.08);
  cairo_line_to(cr, x + s * 0.2, y + s * 0.38);
  cairo_line_to(cr, x + s * 0.15, y + s * 0.38);
  cairo_line_to(cr, x + s * 0.13, y + s * 0.12);
  cairo_line_to(cr, x - s * 0.2, y + s * 0.12);
  cairo_line_to(cr, x - s * 0.22, y + s * 0.38);
  cairo_line_to(cr, x - s * 0.27, y + s * 0.38);
  cairo_close_path(cr);
  fill_stroke(cr, 0xb07a3a, 0x2a1a08, s * 0.018);
  cairo_rectangle(cr, x - s * 0.16, y - s * 0.1, s * 0.22, s * 0.06);
  fill_stroke(cr, accent, 0x2a1a08, s * 0.012);
}

static void icon_chest(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x2a1006;
  double lw = s * 0.018;
  for (int i = 0; i < 7; i++) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + (i - 3) * s * 0.12, y + s * 0.36 - (i % 2) * s * 0.03, s * 0.07, 0, 2 * M_PI);
    fill_stroke(cr, accent, line, lw * 0.7);
  }
  cairo_rectangle(cr, x - s * 0.34, y - s * 0.02, s * 0.68, s * 0.32);
  fill_stroke(cr, 0x8a4a1a, line, lw);
  cairo_move_to(cr, x - s * 0.34, y - s * 0.02);
  cairo_curve_to(cr, x - s * 0.34, y - s * 0.3, x + s * 0.34, y - s * 0.3, x + s * 0.34, y - s * 0.02);
  cairo_close_path(cr);
  fill_stroke(cr, 0x9a5a22, line, lw);
  set_hex(cr, accent);
  cairo_rectangle(cr, x - s * 0.26, y - s * 0.22, s * 0.05, s * 0.52);
  cairo_rectangle(cr, x + s * 0.21, y - s * 0.22, s * 0.05, s * 0.52);
  cairo_fill(cr);
  cairo_rectangle(cr, x - s * 0.06, y - s * 0.06, s * 0.12, s * 0.14);
  fill_stroke(cr, accent, line, lw);
  for (int i = 0; i < 5; i++) {
    star_path(cr, x + (i - 2) * s * 0.16, y - s * 0.34 - (i % 2) * s * 0.06, s * 0.05, 4);
  }
  set_hex(cr, 0xfff6c0);
  cairo_fill(cr);
}

static void icon_lamp(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x2a1a06;
  double lw = s * 0.018;
  cairo_move_to(cr, x - s * 0.05, y - s * 0.05);
  cairo_curve_to(cr, x - s * 0.15, y - s * 0.3, x + s * 0.2, y - s * 0.28, x + s * 0.05, y - s * 0.42);
  cairo_curve_to(cr, x - s * 0.05, y - s * 0.5, x + s * 0.15, y - s * 0.52, x + s * 0.12, y - s * 0.45);
  set_hexa(cr, 0xd0d8ff, 0.8);
  cairo_set_line_width(cr, s * 0.04);
  cairo_stroke(cr);
  cairo_move_to(cr, x - s * 0.3, y + s * 0.12);
  cairo_curve_to(cr, x - s * 0.3, y - s * 0.08, x + s * 0.2, y - s * 0.08, x + s * 0.22, y + s * 0.05);
  cairo_curve_to(cr, x + s * 0.32, y + s * 0.0, x + s * 0.4, y - s * 0.08, x + s * 0.46, y - s * 0.12);
  cairo_curve_to(cr, x + s * 0.42, y + s * 0.02, x + s * 0.32, y + s * 0.14, x + s * 0.2, y + s * 0.18);
  cairo_curve_to(cr, x + s * 0.1, y + s * 0.25, x - s * 0.2, y + s * 0.25, x - s * 0.3, y + s * 0.12);
  cairo_close_path(cr);
  fill_stroke(cr, accent, line, lw);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x - s * 0.32, y + s * 0.1, s * 0.09, M_PI * 0.5, M_PI * 1.5);
  set_hex(cr, line);
  cairo_set_line_width(cr, s * 0.035);
  cairo_stroke(cr);
  cairo_rectangle(cr, x - s * 0.14, y + s * 0.22, s * 0.22, s * 0.06);
  fill_stroke(cr, accent, line, lw);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x - s * 0.04, y - s * 0.06, s * 0.05, M_PI, 2 * M_PI);
  fill_stroke(cr, accent, line, lw);
}

static void icon_dunes(cairo_t *cr, double x, double y, double s, uint32_t accent) {
  uint32_t line = 0x5a2a0a;
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.18, y - s * 0.2, s * 0.14, 0, 2 * M_PI);
  fill_stroke(cr, 0xfff0a0, 0xe08020, s * 0.02);
  cairo_move_to(cr, x - s * 0.48, y + s * 0.05);
  cairo_curve_to(cr, x - s * 0.2, y - s * 0.12, x, y + s * 0.02, x + s * 0.48, y + s * 0.0);
  cairo_line_to(cr, x + s * 0.48, y + s * 0.4);
  cairo_line_to(cr, x - s * 0.48, y + s * 0.4);
  cairo_close_path(cr);
  fill_stroke(cr, 0xe0a050, line, s * 0.015);
  cairo_move_to(cr, x - s * 0.48, y + s * 0.22);
  cairo_curve_to(cr, x - s * 0.1, y + s * 0.05, x + s * 0.2, y + s * 0.25, x + s * 0.48, y + s * 0.15);
  cairo_line_to(cr, x + s * 0.48, y + s * 0.4);
  cairo_line_to(cr, x - s * 0.48, y + s * 0.4);
  cairo_close_path(cr);
  fill_stroke(cr, 0xc07838, line, s * 0.015);
  /* a cactus */
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  set_hex(cr, accent == 0 ? 0x2a6a2a : 0x2f6a2a);
  cairo_set_line_width(cr, s * 0.07);
  cairo_move_to(cr, x - s * 0.25, y + s * 0.2), cairo_line_to(cr, x - s * 0.25, y - s * 0.15);
  cairo_move_to(cr, x - s * 0.25, y + s * 0.02), cairo_line_to(cr, x - s * 0.35, y + s * 0.02);
  cairo_line_to(cr, x - s * 0.35, y - s * 0.08);
  cairo_move_to(cr, x - s * 0.25, y - s * 0.03), cairo_line_to(cr, x - s * 0.16, y - s * 0.03);
  cairo_line_to(cr, x - s * 0.16, y - s * 0.1);
  cairo_stroke(cr);
  /* a bleached skull, the -5 */
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.2, y + s * 0.25, s * 0.07, 0, 2 * M_PI);
  fill_stroke(cr, 0xf6f0e0, line, s * 0.012);
  set_hex(cr, line);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.175, y + s * 0.245, s * 0.018, 0, 2 * M_PI);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s * 0.225, y + s * 0.245, s * 0.018, 0, 2 * M_PI);
  cairo_fill(cr);
}

static void draw_icon(cairo_t *cr, const card_style *st, double x, double y, double s) {
  cairo_save(cr);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  switch (st->icon) {
  case ICON_PALACE: icon_palace(cr, x, y, s, st->accent); break;
  case ICON_SHIP: icon_ship(cr, x, y, s, st->accent); break;
  case ICON_SERPENT: icon_serpent(cr, x, y, s, st->accent); break;
  case ICON_MOUNTAIN: icon_mountain(cr, x, y, s, st->accent); break;
  case ICON_TOWER: icon_tower(cr, x, y, s, st->accent); break;
  case ICON_KEY: icon_key(cr, x, y, s, st->accent); break;
  case ICON_SPICE: icon_spice(cr, x, y, s, st->accent); break;
  case ICON_ROLLS: icon_rolls(cr, x, y, s, st->accent); break;
  case ICON_CAMEL: icon_camel(cr, x, y, s, st->accent); break;
  case ICON_CHEST: icon_chest(cr, x, y, s, st->accent); break;
  case ICON_LAMP: icon_lamp(cr, x, y, s, st->accent); break;
  case ICON_DUNES: icon_dunes(cr, x, y, s, st->accent); break;
  }
  cairo_restore(cr);
}

/* ---------------- the shared card frame ------------------------------- */

static void draw_gold_border(cairo_t *cr, double x, double y, double w, double h,
                             uint32_t accent) {
  set_hex(cr, 0xc9a040);
  cairo_set_line_width(cr, 0.9);
  rounded_rect(cr, x, y, w, h, 2.2);
  cairo_stroke(cr);
  set_hex(cr, 0x6a4a10);
  cairo_set_line_width(cr, 0.25);
  rounded_rect(cr, x + 1.1, y + 1.1, w - 2.2, h - 2.2, 1.6);
  cairo_stroke(cr);
  /* a row of little diamonds along every edge: fine print-like detail */
  set_hex(cr, accent);
  for (double t = x + 4; t < x + w - 3; t += 3.2) {
    for (int e = 0; e < 2; e++) {
      double yy = e ? y + h : y;
      cairo_move_to(cr, t, yy - 0.7), cairo_line_to(cr, t + 0.7, yy);
      cairo_line_to(cr, t, yy + 0.7), cairo_line_to(cr, t - 0.7, yy);
      cairo_close_path(cr);
    }
  }
  for (double t = y + 4; t < y + h - 3; t += 3.2) {
    for (int e = 0; e < 2; e++) {
      double xx = e ? x + w : x;
      cairo_move_to(cr, xx, t - 0.7), cairo_line_to(cr, xx + 0.7, t);
      cairo_line_to(cr, xx, t + 0.7), cairo_line_to(cr, xx - 0.7, t);
      cairo_close_path(cr);
    }
  }
  cairo_fill(cr);
}

static void draw_badge(cairo_t *cr, double x, double y, const card_style *st) {
  cairo_new_sub_path(cr);
  cairo_arc(cr, x, y, 3.6, 0, 2 * M_PI);
  fill_stroke(cr, 0xf6ecd0, 0x6a4a10, 0.5);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x, y, 2.9, 0, 2 * M_PI);
  set_hex(cr, st->accent);
  cairo_set_line_width(cr, 0.5);
  cairo_stroke(cr);
  text_centered(cr, st->badge, x, y, 3.8, 5.0, 0x2a1a08);
}

static void draw_awning(cairo_t *cr, double x, double y, double w, uint32_t accent) {
  int stripes = 8;
  double sw = w / stripes;
  for (int i = 0; i < stripes; i++) {
    double sx = x + i * sw;
    cairo_move_to(cr, sx, y);
    cairo_line_to(cr, sx + sw, y);
    cairo_line_to(cr, sx + sw, y + 7);
    cairo_curve_to(cr, sx + sw, y + 9.5, sx, y + 9.5, sx, y + 7);
    cairo_close_path(cr);
    set_hex(cr, i % 2 ? 0xf6ecd8 : accent);
    cairo_fill_preserve(cr);
    set_hex(cr, 0x3a2210);
    cairo_set_line_width(cr, 0.25);
    cairo_stroke(cr);
  }
}

static void draw_ribbon(cairo_t *cr, double cx, double cy, double w, const char *text) {
  double h = 6.0;
  cairo_move_to(cr, cx - w / 2 - 3, cy - h / 2 + 1);
  cairo_line_to(cr, cx - w / 2, cy - h / 2 + 1);
  cairo_line_to(cr, cx - w / 2, cy + h / 2 + 1);
  cairo_line_to(cr, cx - w / 2 - 3, cy + h / 2 + 1);
  cairo_line_to(cr, cx - w / 2 - 1.6, cy + 1);
  cairo_close_path(cr);
  cairo_move_to(cr, cx + w / 2 + 3, cy - h / 2 + 1);
  cairo_line_to(cr, cx + w / 2, cy - h / 2 + 1);
  cairo_line_to(cr, cx + w / 2, cy + h / 2 + 1);
  cairo_line_to(cr, cx + w / 2 + 3, cy + h / 2 + 1);
  cairo_line_to(cr, cx + w / 2 + 1.6, cy + 1);
  cairo_close_path(cr);
  fill_stroke(cr, 0xb08a30, 0x4a3008, 0.3);
  rounded_rect(cr, cx - w / 2, cy - h / 2, w, h, 1.0);
  fill_stroke(cr, 0xf6ecd0, 0x4a3008, 0.4);
  text_centered(cr, text, cx, cy, 3.9, w - 3, 0x2a1808);
}

static void draw_destination(cairo_t *cr, const card_style *st) {
  const double W = 59, H = 91, m = 3.2;
  /* cream paper with a faint tooth */
  set_hex(cr, 0xf4ecd6);
  cairo_paint(cr);
  /* family-coloured panel with a vertical gradient */
  cairo_pattern_t *g = cairo_pattern_create_linear(0, m, 0, H - m);
  cairo_pattern_add_color_stop_rgb(g, 0, ((st->bg_top >> 16) & 255) / 255.0,
                                    ((st->bg_top >> 8) & 255) / 255.0, (st->bg_top & 255) / 255.0);
  cairo_pattern_add_color_stop_rgb(g, 1, ((st->bg_bottom >> 16) & 255) / 255.0,
                                    ((st->bg_bottom >> 8) & 255) / 255.0,
                                    (st->bg_bottom & 255) / 255.0);
  rounded_rect(cr, m, m, W - 2 * m, H - 2 * m, 2.2);
  cairo_set_source(cr, g);
  cairo_fill(cr);
  cairo_pattern_destroy(g);
  draw_pattern(cr, st->pattern, st->pattern_colour, m, m, W - 2 * m, H - 2 * m);
  /* accent band across the lower third: the type's colour everywhere */
  set_hexa(cr, st->accent, 0.85);
  cairo_rectangle(cr, m, 66, W - 2 * m, 3);
  cairo_rectangle(cr, m, 24, W - 2 * m, 1.2);
  cairo_fill(cr);
  if (st->awning) draw_awning(cr, m + 0.5, m + 0.5, W - 2 * m - 1, st->accent);
  /* medallion behind the icon */
  cairo_new_sub_path(cr);
  cairo_arc(cr, W / 2, 45, 17, 0, 2 * M_PI);
  set_hexa(cr, 0xfff6dc, 0.22);
  cairo_fill_preserve(cr);
  set_hex(cr, 0xc9a040);
  cairo_set_line_width(cr, 0.6);
  cairo_stroke(cr);
  draw_icon(cr, st, W / 2, 45, 30);
  draw_gold_border(cr, m, m, W - 2 * m, H - 2 * m, st->accent);
  draw_ribbon(cr, W / 2, st->awning ? 17 : 11, 42, st->title);
  /* lower label: the adventure letter or the family's word */
  const char *sub = st->badge;
  char lower[40];
  if (!strncmp(st->stem, "adventure-", 10)) {
    snprintf(lower, sizeof lower, "KIND %s", st->badge);
    sub = lower;
  } else if (!strcmp(st->stem, "desert")) sub = "-5 POINTS";
  else if (!strcmp(st->stem, "treasure")) sub = "+3 POINTS";
  else if (!strcmp(st->stem, "palace")) sub = "+5 / -5";
  else if (!strcmp(st->stem, "lamp")) sub = "WILD";
  else {
    snprintf(lower, sizeof lower, "PAIR %s", st->badge);
    sub = lower;
  }
  rounded_rect(cr, W / 2 - 13, 72.5, 26, 6, 1.2);
  fill_stroke(cr, 0xf6ecd0, 0x4a3008, 0.4);
  text_centered(cr, sub, W / 2, 75.5, 3.4, 23, 0x2a1808);
  /* bazaars: the ribbon sits under the awning, so the badges go below it */
  double badge_y = st->awning ? 26.5 : m + 5.5;
  draw_badge(cr, m + 5.5, badge_y, st);
  draw_badge(cr, W - m - 5.5, badge_y, st);
  draw_badge(cr, m + 5.5, H - m - 5.5, st);
  draw_badge(cr, W - m - 5.5, H - m - 5.5, st);
}

/* ---------------- carpets -------------------------------------------- */

typedef struct {
  const char *colour;
  uint32_t base, light, dark;
} carpet_style;

static const carpet_style carpet_styles[] = {
  {"red", 0xb3161b, 0xe8a23a, 0x4a0608},
  {"blue", 0x1c3fa8, 0x8ac4ef, 0x0a1540},
  {"green", 0x16803a, 0xe3d65a, 0x063018},
  {"yellow", 0xe8b814, 0xfff0b0, 0x7a4a08},
};

static void draw_carpet(cairo_t *cr, const carpet_style *st) {
  const double W = 59, H = 91;
  set_hex(cr, 0xf1ead8);
  cairo_paint(cr);
  /* the rug, with fringes at both short ends */
  double rx = 4, ry = 7, rw = W - 8, rh = H - 14;
  set_hex(cr, 0xf8f2e0);
  cairo_set_line_width(cr, 0.4);
  for (double x = rx + 0.8; x < rx + rw; x += 1.3) {
    cairo_move_to(cr, x, ry - 4.5), cairo_line_to(cr, x, ry);
    cairo_move_to(cr, x, ry + rh), cairo_line_to(cr, x, ry + rh + 4.5);
  }
  cairo_stroke(cr);
  cairo_rectangle(cr, rx, ry, rw, rh);
  set_hex(cr, st->base);
  cairo_fill(cr);
  /* border bands */
  for (int k = 0; k < 3; k++) {
    double in = 1.2 + k * 2.6;
    cairo_rectangle(cr, rx + in, ry + in, rw - 2 * in, rh - 2 * in);
    set_hex(cr, k == 1 ? st->light : st->dark);
    cairo_set_line_width(cr, k == 1 ? 1.4 : 0.7);
    cairo_stroke(cr);
  }
  /* small motifs over the whole field */
  set_hexa(cr, st->light, 0.75);
  for (int j = 0; j < 13; j++)
    for (int i = 0; i < 7; i++) {
      double x = rx + 9 + i * 5.6 + (j % 2) * 2.8, y = ry + 10 + j * 4.8;
      if (x > rx + rw - 8 || y > ry + rh - 8) continue;
      cairo_move_to(cr, x, y - 1.2), cairo_line_to(cr, x + 1.2, y);
      cairo_line_to(cr, x, y + 1.2), cairo_line_to(cr, x - 1.2, y);
      cairo_close_path(cr);
    }
  cairo_fill(cr);
  /* the central medallion: nested diamonds */
  double cx = W / 2, cy = H / 2;
  for (int k = 0; k < 4; k++) {
    double sx = 17 - k * 4, sy = 26 - k * 6;
    cairo_move_to(cr, cx, cy - sy), cairo_line_to(cr, cx + sx, cy);
    cairo_line_to(cr, cx, cy + sy), cairo_line_to(cr, cx - sx, cy);
    cairo_close_path(cr);
    set_hex(cr, k % 2 ? st->base : (k == 0 ? st->dark : st->light));
    cairo_fill_preserve(cr);
    set_hex(cr, st->dark);
    cairo_set_line_width(cr, 0.4);
    cairo_stroke(cr);
  }
  star_path(cr, cx, cy, 2.6, 8);
  set_hex(cr, 0xf8f2e0);
  cairo_fill(cr);
  /* corner triangles of the field */
  set_hex(cr, st->dark);
  for (int c = 0; c < 4; c++) {
    double x = c % 2 ? rx + rw - 7.5 : rx + 7.5, y = c / 2 ? ry + rh - 7.5 : ry + 7.5;
    double dx = c % 2 ? -1 : 1, dy = c / 2 ? -1 : 1;
    cairo_move_to(cr, x, y), cairo_line_to(cr, x + dx * 8, y);
    cairo_line_to(cr, x, y + dy * 8), cairo_close_path(cr);
  }
  cairo_fill(cr);
}

static void draw_back(cairo_t *cr) {
  const double W = 59, H = 91;
  set_hex(cr, 0xf4ecd6);
  cairo_paint(cr);
  rounded_rect(cr, 3, 3, W - 6, H - 6, 2.2);
  set_hex(cr, 0x5a1a4a);
  cairo_fill(cr);
  set_hex(cr, 0x8a3a7a);
  for (int j = 0; j < 16; j++)
    for (int i = 0; i < 10; i++) star_path(cr, 5 + i * 5.6 + (j % 2) * 2.8, 5 + j * 5.6, 1.6, 8);
  cairo_fill(cr);
  draw_gold_border(cr, 3, 3, W - 6, H - 6, 0xd9a520);
  cairo_new_sub_path(cr);
  cairo_arc(cr, W / 2, H / 2, 14, 0, 2 * M_PI);
  fill_stroke(cr, 0x3a0a2a, 0xd9a520, 0.8);
  text_centered(cr, "TEPPICH", W / 2, H / 2, 4.2, 24, 0xd9a520);
}

/* ---------------- surfaces to images --------------------------------- */

static tp_status surface_to_image(cairo_surface_t *s, tp_image *out, tp_error *err) {
  cairo_surface_flush(s);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  if (tp_image_alloc(out, w, h, 3) != TP_OK)
    return tp_error_set(err, TP_ERR_NOMEM, "demo deck: out of memory");
  const uint8_t *src = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h; y++) {
    const uint32_t *row = (const uint32_t *)(const void *)(src + (size_t)y * (size_t)stride);
    uint8_t *dst = tp_image_row(out, y);
    for (int x = 0; x < w; x++) {
      dst[3 * x] = (uint8_t)(row[x] >> 16);
      dst[3 * x + 1] = (uint8_t)(row[x] >> 8);
      dst[3 * x + 2] = (uint8_t)row[x];
    }
  }
  return TP_OK;
}

typedef void (*draw_fn)(cairo_t *cr, const void *style);

static void draw_destination_v(cairo_t *cr, const void *st) { draw_destination(cr, st); }
static void draw_carpet_v(cairo_t *cr, const void *st) { draw_carpet(cr, st); }
static void draw_back_v(cairo_t *cr, const void *st) { (void)st; draw_back(cr); }

static tp_status draw_with(draw_fn fn, const void *style, int w_px, int h_px,
                           tp_image *out, tp_error *err) {
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w_px, h_px);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return tp_error_set(err, TP_ERR_NOMEM, "demo deck: cannot make a %dx%d surface", w_px, h_px);
  }
  cairo_t *cr = cairo_create(s);
  cairo_scale(cr, w_px / 59.0, h_px / 91.0);
  fn(cr, style);
  cairo_destroy(cr);
  tp_status st = surface_to_image(s, out, err);
  cairo_surface_destroy(s);
  return st;
}

tp_status rnd__draw_card(const char *stem, int w_px, int h_px, tp_image *out,
                         tp_error *err) {
  for (size_t i = 0; i < sizeof card_styles / sizeof *card_styles; i++)
    if (!strcmp(stem, card_styles[i].stem))
      return draw_with(draw_destination_v, &card_styles[i], w_px, h_px, out, err);
  if (!strncmp(stem, "carpet-", 7))
    for (size_t i = 0; i < sizeof carpet_styles / sizeof *carpet_styles; i++)
      if (!strcmp(stem + 7, carpet_styles[i].colour))
        return draw_with(draw_carpet_v, &carpet_styles[i], w_px, h_px, out, err);
  return tp_error_set(err, TP_ERR_NOTFOUND, "demo deck: no art for '%s'", stem);
}

tp_status rnd__draw_back(int w_px, int h_px, tp_image *out, tp_error *err) {
  return draw_with(draw_back_v, NULL, w_px, h_px, out, err);
}
