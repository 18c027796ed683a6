/* Unit tests of the Marrakech rules core against ../shared/rules/marrakech.md:
 * every border exit, every example of the rules doc, payments, placement
 * legality, the 2-player colours, end, scores and winners, settings. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "marrakech.h"

static mk_assam at(int x, int y, mk_dir d) {
  return (mk_assam){x, y, d};
}

static void assert_assam(mk_assam got, int x, int y, mk_dir d) {
  if (got.x != x || got.y != y || got.dir != d)
    fail_msg("Assam at %d %d %d, expected %d %d %d", got.x, got.y, got.dir, x,
             y, d);
}

/* ---- movement ---------------------------------------------------------- */

/* The border table of the rules doc written out as its 28 exits: from the
 * edge square facing off the board, one step lands here. */
static const struct {
  int x, y;
  mk_dir leaving;
  int to_x, to_y;
  mk_dir facing;
} exits[28] = {
    /* north (y=0): pairs (0,0)/(1,0), (2,0)/(3,0), (4,0)/(5,0) -> S */
    {0, 0, MK_N, 1, 0, MK_S},
    {1, 0, MK_N, 0, 0, MK_S},
    {2, 0, MK_N, 3, 0, MK_S},
    {3, 0, MK_N, 2, 0, MK_S},
    {4, 0, MK_N, 5, 0, MK_S},
    {5, 0, MK_N, 4, 0, MK_S},
    {6, 0, MK_N, 6, 0, MK_W}, /* the top-right corner arc */
    /* east (x=6) */
    {6, 0, MK_E, 6, 0, MK_S}, /* the top-right corner arc */
    {6, 1, MK_E, 6, 2, MK_W},
    {6, 2, MK_E, 6, 1, MK_W},
    {6, 3, MK_E, 6, 4, MK_W},
    {6, 4, MK_E, 6, 3, MK_W},
    {6, 5, MK_E, 6, 6, MK_W},
    {6, 6, MK_E, 6, 5, MK_W},
    /* south (y=6) */
    {0, 6, MK_S, 0, 6, MK_E}, /* the bottom-left corner arc */
    {1, 6, MK_S, 2, 6, MK_N},
    {2, 6, MK_S, 1, 6, MK_N},
    {3, 6, MK_S, 4, 6, MK_N},
    {4, 6, MK_S, 3, 6, MK_N},
    {5, 6, MK_S, 6, 6, MK_N},
    {6, 6, MK_S, 5, 6, MK_N},
    /* west (x=0) */
    {0, 0, MK_W, 0, 1, MK_E},
    {0, 1, MK_W, 0, 0, MK_E},
    {0, 2, MK_W, 0, 3, MK_E},
    {0, 3, MK_W, 0, 2, MK_E},
    {0, 4, MK_W, 0, 5, MK_E},
    {0, 5, MK_W, 0, 4, MK_E},
    {0, 6, MK_W, 0, 6, MK_N}, /* the bottom-left corner arc */
};

static void test_all_28_border_exits(void **state) {
  (void)state;
  for (int i = 0; i < 28; i++) {
    mk_assam got = mk_step(at(exits[i].x, exits[i].y, exits[i].leaving));
    if (got.x != exits[i].to_x || got.y != exits[i].to_y ||
        got.dir != exits[i].facing)
      fail_msg("exit %d: from %d %d facing %d got %d %d %d", i, exits[i].x,
               exits[i].y, exits[i].leaving, got.x, got.y, got.dir);
    /* ... and a step after the exit goes on inside, one square at a time */
    mk_assam next = mk_step(got);
    int dist = abs(next.x - got.x) + abs(next.y - got.y);
    assert_true(dist <= 1);
  }
}

static void test_inner_steps_go_straight(void **state) {
  (void)state;
  assert_assam(mk_step(at(3, 3, MK_N)), 3, 2, MK_N);
  assert_assam(mk_step(at(3, 3, MK_E)), 4, 3, MK_E);
  assert_assam(mk_step(at(3, 3, MK_S)), 3, 4, MK_S);
  assert_assam(mk_step(at(3, 3, MK_W)), 2, 3, MK_W);
  assert_assam(mk_step(at(6, 3, MK_N)), 6, 2, MK_N); /* along the edge */
}

static void test_rules_doc_examples(void **state) {
  (void)state;
  /* "x y facing, steps, result" from the rules doc, in order. */
  assert_assam(mk_walk(at(6, 0, MK_N), 1), 6, 0, MK_W);
  assert_assam(mk_walk(at(0, 0, MK_W), 1), 0, 1, MK_E);
  assert_assam(mk_walk(at(3, 0, MK_N), 1), 2, 0, MK_S);
  assert_assam(mk_walk(at(0, 1, MK_W), 2), 1, 0, MK_E);
  assert_assam(mk_walk(at(0, 0, MK_N), 4), 1, 3, MK_S);
  assert_assam(mk_walk(at(3, 3, MK_E), 4), 6, 4, MK_W);
}

static void test_stepping_is_a_permutation(void **state) {
  (void)state;
  /* Every position is reached from exactly one position: the tracks are
   * closed loops (what makes long walks by modulo correct). */
  int hits[7][7][4] = {{{0}}};
  for (int x = 0; x < 7; x++)
    for (int y = 0; y < 7; y++)
      for (int d = 0; d < 4; d++) {
        mk_assam a = mk_step(at(x, y, (mk_dir)d));
        assert_true(a.x >= 0 && a.x < 7 && a.y >= 0 && a.y < 7);
        hits[a.x][a.y][a.dir]++;
      }
  for (int x = 0; x < 7; x++)
    for (int y = 0; y < 7; y++)
      for (int d = 0; d < 4; d++)
        assert_int_equal(hits[x][y][d], 1);
}

static void test_long_walks_match_single_steps(void **state) {
  (void)state;
  for (int d = 0; d < 4; d++) {
    mk_assam a = at(2, 5, (mk_dir)d);
    for (long s = 1; s <= 1500; s++) {
      a = mk_step(a);
      mk_assam w = mk_walk(at(2, 5, (mk_dir)d), s);
      assert_assam(w, a.x, a.y, a.dir);
    }
  }
  assert_assam(mk_walk(at(4, 4, MK_S), 0), 4, 4, MK_S);
}

static void test_rotation(void **state) {
  (void)state;
  mk_game *g = mk_game_create(NULL, 1);
  assert_non_null(g);
  assert_true(mk_game_first_turn(g));
  assert_true(mk_game_can_face(g, MK_S)); /* any facing on the first turn */
  assert_int_equal(mk_game_face(g, MK_S, NULL), TP_OK);
  mk_game_move(g, 1);
  assert_false(mk_game_first_turn(g));
  assert_false(mk_game_can_face(g, MK_N)); /* never 180 afterwards */
  tp_error err;
  assert_int_equal(mk_game_face(g, MK_N, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "180"));
  assert_true(mk_game_can_face(g, MK_E));
  assert_true(mk_game_can_face(g, MK_W));
  assert_true(mk_game_can_face(g, MK_S));
  mk_game_rotate(g, MK_TURN_LEFT);
  assert_int_equal(mk_game_assam(g).dir, MK_E);
  mk_game_rotate(g, MK_TURN_RIGHT);
  mk_game_rotate(g, MK_TURN_RIGHT);
  assert_int_equal(mk_game_assam(g).dir, MK_W);
  mk_game_rotate(g, MK_TURN_NONE);
  assert_int_equal(mk_game_assam(g).dir, MK_W);
  mk_game_destroy(g);
  mk_game_destroy(NULL);
}

/* ---- a small game builder for the remaining tests ----------------------- */

/* Players anna=red, ben=blue, cleo=green with the given dirhams. */
static mk_game *three_players(int anna, int ben, int cleo) {
  mk_game *g = mk_game_create(NULL, 7);
  const int rugs[2] = {15, 0};
  assert_int_equal(mk_game_set_player(g, "anna", "red", anna, rugs, true, NULL),
                   TP_OK);
  assert_int_equal(mk_game_set_player(g, "ben", "blue", ben, rugs, true, NULL),
                   TP_OK);
  assert_int_equal(
      mk_game_set_player(g, "cleo", "green", cleo, rugs, true, NULL), TP_OK);
  return g;
}

/* Lays out rows of a picture: '.' empty, letters a rug half. Each letter
 * names colour and rug: r/R red rugs 1/2, b/B blue 1/2, g/G green 1/2,
 * y yellow 1. */
static void lay(mk_game *g, const char *rows[7]) {
  for (int y = 0; y < 7; y++)
    for (int x = 0; x < 7; x++) {
      char c = rows[y][x];
      const char *colour = c == 'r' || c == 'R'   ? "red"
                           : c == 'b' || c == 'B' ? "blue"
                           : c == 'g' || c == 'G' ? "green"
                           : c == 'y'             ? "yellow"
                                                  : NULL;
      int rug = c >= 'A' && c <= 'Z' ? 2 : 1;
      int colour_index = colour ? mk_game_colour(g, colour) : -1;
      assert_int_equal(mk_game_set_cell(g, x, y, colour_index, rug, NULL),
                       TP_OK);
    }
}

static void put_assam(mk_game *g, int x, int y) {
  assert_int_equal(mk_game_set_assam(g, x, y, MK_N, NULL), TP_OK);
}

/* ---- payment ----------------------------------------------------------- */

static void test_payment_counts_the_4_connected_area(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  const char *rows[7] = {"bb.....", "bB.....", ".Bb....", "...b...",
                         ".......", ".......", "......."};
  lay(g, rows);
  /* (0,0)(1,0)(0,1)(1,1)(1,2)(2,2) are connected; (3,3) only touches
   * (2,2) diagonally and is not part of the area. */
  assert_int_equal(mk_game_area(g, 0, 0), 6);
  assert_int_equal(mk_game_area(g, 3, 3), 1);
  assert_int_equal(mk_game_area(g, 4, 4), 0);
  put_assam(g, 3, 3);
  mk_game_set_turn(g, 0, NULL);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.payer, 0);
  assert_int_equal(p.payee, 1);
  assert_int_equal(p.paid, 1);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 29);
  assert_int_equal(mk_game_player(g, 1)->dirhams, 31);
  put_assam(g, 1, 1);
  p = mk_game_pay(g);
  assert_int_equal(p.paid, 6);
  assert_false(p.eliminated);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 23);
  mk_game_destroy(g);
}

static void test_diagonal_only_contact_pays_one_rug(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  /* green rug 1 on (1,0)(1,1), green rug 2 on (2,2)(2,3): the two rugs
   * touch only diagonally, at (1,1)/(2,2), so they are two areas. */
  const char *rows[7] = {".g.....", ".g.....", "..G....", "..G....",
                         ".......", ".......", "......."};
  lay(g, rows);
  assert_int_equal(mk_game_area(g, 1, 1), 2);
  assert_int_equal(mk_game_area(g, 2, 2), 2);
  put_assam(g, 2, 2);
  mk_game_set_turn(g, 1, NULL);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.payee, 2);
  assert_int_equal(p.paid, 2);
  mk_game_destroy(g);
}

static void test_own_rugs_and_empty_squares_cost_nothing(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  const char *rows[7] = {".......", ".......", ".......", "...rr..",
                         ".......", ".......", "......."};
  lay(g, rows);
  put_assam(g, 3, 3);
  mk_game_set_turn(g, 0, NULL);
  assert_int_equal(mk_game_pay(g).payer, -1);
  put_assam(g, 0, 0);
  mk_game_set_turn(g, 1, NULL);
  assert_int_equal(mk_game_pay(g).payer, -1);
  for (int i = 0; i < 3; i++)
    assert_int_equal(mk_game_player(g, i)->dirhams, 30);
  mk_game_destroy(g);
}

static void test_eliminated_owners_get_nothing(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  const char *rows[7] = {".......", ".......", ".......", "...bb..",
                         ".......", ".......", "......."};
  lay(g, rows);
  const int rugs[2] = {10, 0};
  assert_int_equal(mk_game_set_player(g, "ben", "blue", 0, rugs, false, NULL),
                   TP_OK);
  put_assam(g, 4, 3);
  mk_game_set_turn(g, 0, NULL);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.payer, -1);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 30);
  assert_int_equal(mk_game_player(g, 1)->dirhams, 0);
  mk_game_destroy(g);
}

static void test_paying_to_exactly_zero_is_not_elimination(void **state) {
  (void)state;
  mk_game *g = three_players(3, 30, 30);
  const char *rows[7] = {".......", ".......", ".......", "..bbb..",
                         ".......", ".......", "......."};
  lay(g, rows);
  put_assam(g, 3, 3);
  mk_game_set_turn(g, 0, NULL);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.owed, 3);
  assert_int_equal(p.paid, 3);
  assert_false(p.eliminated);
  assert_true(mk_game_player(g, 0)->in);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 0);
  /* with nothing left, any further payment eliminates */
  p = mk_game_pay(g);
  assert_true(p.eliminated);
  assert_int_equal(p.paid, 0);
  assert_false(mk_game_player(g, 0)->in);
  assert_int_equal(mk_game_player(g, 1)->dirhams, 33);
  mk_game_destroy(g);
}

static void test_short_payer_pays_all_and_is_out(void **state) {
  (void)state;
  mk_game *g = three_players(2, 30, 30);
  const char *rows[7] = {".......", ".......", ".......", "..bbb..",
                         ".......", ".......", "......."};
  lay(g, rows);
  put_assam(g, 2, 3);
  mk_game_set_turn(g, 0, NULL);
  mk_payment price = mk_game_price(g); /* asking changes nothing */
  assert_true(price.eliminated);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 2);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.owed, 3);
  assert_int_equal(p.paid, 2);
  assert_true(p.eliminated);
  assert_int_equal(mk_game_player(g, 0)->dirhams, 0);
  assert_int_equal(mk_game_player(g, 1)->dirhams, 32);
  /* out players take no more turns and place no rugs */
  assert_int_equal(mk_game_next_turn(g), 1);
  assert_int_equal(mk_game_next_turn(g), 2);
  assert_int_equal(mk_game_next_turn(g), 1);
  tp_error err;
  assert_int_equal(mk_game_set_turn(g, 0, &err), TP_ERR_INVALID);
  mk_game_destroy(g);
}

/* ---- placement --------------------------------------------------------- */

static mk_placement pl(int x1, int y1, int x2, int y2) {
  return (mk_placement){x1, y1, x2, y2};
}

static void test_placement_reasons(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  const char *rows[7] = {".......", ".......", "..bb...", ".......",
                         "...gg..", ".......", "......."};
  lay(g, rows);
  put_assam(g, 3, 3);
  int red = mk_game_find_colour(g, "red"),
      blue = mk_game_find_colour(g, "blue");
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 3, 1)),
                   MK_PLACE_NO_TURN);
  mk_game_set_turn(g, 0, NULL);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 3, 1)), MK_PLACE_OK);
  assert_int_equal(mk_game_check_place(g, -1, pl(3, 2, 3, 1)), MK_PLACE_OK);
  assert_int_equal(mk_game_check_place(g, blue, pl(3, 2, 3, 1)),
                   MK_PLACE_WRONG_PLAYER);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 6, 3, 7)),
                   MK_PLACE_OFF_BOARD);
  assert_int_equal(mk_game_check_place(g, red, pl(-1, 3, 0, 3)),
                   MK_PLACE_OFF_BOARD);
  assert_int_equal(mk_game_check_place(g, red, pl(2, 3, 4, 3)),
                   MK_PLACE_NOT_A_PAIR);
  assert_int_equal(mk_game_check_place(g, red, pl(2, 2, 3, 3)),
                   MK_PLACE_NOT_A_PAIR);
  assert_int_equal(mk_game_check_place(g, red, pl(2, 3, 2, 3)),
                   MK_PLACE_NOT_A_PAIR);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 3, 3, 2)),
                   MK_PLACE_ON_ASSAM);
  assert_int_equal(mk_game_check_place(g, red, pl(0, 0, 1, 0)),
                   MK_PLACE_NOT_BY_ASSAM);
  assert_int_equal(mk_game_check_place(g, red, pl(2, 2, 2, 1)),
                   MK_PLACE_NOT_BY_ASSAM);
  /* (4,4)(3,4): both halves of one green rug; (3,2)(2,2): half of blue */
  assert_int_equal(mk_game_check_place(g, red, pl(3, 4, 4, 4)),
                   MK_PLACE_COVERS_ONE_RUG);
  assert_int_equal(mk_game_check_place(g, red, pl(4, 4, 3, 4)),
                   MK_PLACE_COVERS_ONE_RUG);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 4, 2)), MK_PLACE_OK);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 2, 2)),
                   MK_PLACE_COVERS_ONE_RUG);
  assert_string_equal(mk_place_reason(MK_PLACE_COVERS_ONE_RUG),
                      "covers-one-whole-rug");
  assert_string_equal(mk_place_reason(MK_PLACE_OFF_BOARD), "off-board");
  /* no rugs left */
  const int none[2] = {0, 0};
  mk_game_set_player(g, "anna", "red", 30, none, true, NULL);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 3, 1)),
                   MK_PLACE_NO_RUGS);
  assert_int_equal(mk_game_check_place(g, -1, pl(3, 2, 3, 1)),
                   MK_PLACE_NO_RUGS);
  mk_placement all[MK_MAX_PLACEMENTS];
  assert_int_equal(mk_game_legal_placements(g, all), 0);
  /* an eliminated player has no turn */
  const int some[2] = {3, 0};
  mk_game_set_player(g, "anna", "red", 0, some, false, NULL);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 3, 1)),
                   MK_PLACE_NO_TURN);
  mk_game_destroy(g);
}

static void test_two_rugs_may_be_covered_half_each(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  /* two different rugs side by side, also of the same colour */
  const char *rows[7] = {".......", ".......", "...bB..", "...bB..",
                         ".......", ".......", "......."};
  lay(g, rows);
  put_assam(g, 2, 2);
  mk_game_set_turn(g, 0, NULL);
  int red = mk_game_find_colour(g, "red");
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 4, 2)), MK_PLACE_OK);
  assert_int_equal(mk_game_check_place(g, red, pl(3, 2, 3, 3)),
                   MK_PLACE_COVERS_ONE_RUG);
  assert_int_equal(mk_game_place(g, red, pl(3, 2, 4, 2)), MK_PLACE_OK);
  mk_cell c = mk_game_cell(g, 4, 2);
  assert_int_equal(c.colour, red);
  assert_int_equal(mk_game_cell(g, 3, 2).rug, c.rug);
  assert_int_equal(mk_game_player(g, 0)->rugs_left[0], 14);
  /* the next red rug has a new number */
  assert_int_equal(mk_game_place(g, red, pl(2, 1, 2, 0)), MK_PLACE_OK);
  assert_int_not_equal(mk_game_cell(g, 2, 1).rug, c.rug);
  mk_game_destroy(g);
}

static void test_cover_own_rug_setting(void **state) {
  (void)state;
  for (int allow = 0; allow < 2; allow++) {
    mk_settings s;
    mk_settings_default(&s);
    assert_false(s.cover_own_rug);
    s.cover_own_rug = allow;
    mk_game *g = mk_game_create(&s, 1);
    const int rugs[2] = {6, 6};
    mk_game_set_player(g, "anna", "red+yellow", 30, rugs, true, NULL);
    mk_game_set_player(g, "ben", "blue+green", 30, rugs, true, NULL);
    const char *rows[7] = {".......", ".......", "...rr..", "..b.yy.",
                           "..b....", ".......", "......."};
    lay(g, rows);
    put_assam(g, 3, 3);
    mk_game_set_turn(g, 0, NULL);
    /* own red rug, own yellow rug (the other colour), ben's blue rug */
    mk_place_result own = allow ? MK_PLACE_OK : MK_PLACE_COVERS_ONE_RUG;
    assert_int_equal(mk_game_check_place(g, -1, pl(3, 2, 4, 2)), own);
    assert_int_equal(mk_game_check_place(g, -1, pl(4, 3, 5, 3)), own);
    assert_int_equal(mk_game_check_place(g, -1, pl(2, 3, 2, 4)),
                     MK_PLACE_COVERS_ONE_RUG);
    mk_game_destroy(g);
  }
}

static void test_legal_placements_list(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  mk_game_set_turn(g, 0, NULL);
  mk_placement all[MK_MAX_PLACEMENTS];
  put_assam(g, 3, 3); /* in the middle: 4 squares x 3 partners */
  assert_int_equal(mk_game_legal_placements(g, all), 12);
  put_assam(g, 0, 0); /* in a corner: 2 squares x 2 partners */
  int n = mk_game_legal_placements(g, all);
  assert_int_equal(n, 4);
  mk_placement want[4] = {pl(1, 0, 2, 0), pl(1, 0, 1, 1), pl(0, 1, 1, 1),
                          pl(0, 1, 0, 2)};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(all[i].x1, want[i].x1);
    assert_int_equal(all[i].y1, want[i].y1);
    assert_int_equal(all[i].x2, want[i].x2);
    assert_int_equal(all[i].y2, want[i].y2);
  }
  /* a whole rug by Assam removes exactly that placement */
  const char *rows[7] = {".bb....", ".......", ".......", ".......",
                         ".......", ".......", "......."};
  lay(g, rows);
  assert_int_equal(mk_game_legal_placements(g, all), 3);
  /* every listed placement is legal; every other pair is not */
  put_assam(g, 3, 3);
  n = mk_game_legal_placements(g, all);
  int legal = 0;
  for (int y1 = 0; y1 < 7; y1++)
    for (int x1 = 0; x1 < 7; x1++)
      for (int d = 0; d < 2; d++) {
        mk_placement p = pl(x1, y1, x1 + (d == 0), y1 + (d == 1));
        legal += mk_game_check_place(g, -1, p) == MK_PLACE_OK;
      }
  assert_int_equal(legal, n);
  mk_game_destroy(g);
}

/* ---- two players, two colours ------------------------------------------ */

static void test_two_player_colours_are_separate(void **state) {
  (void)state;
  mk_game *g = mk_game_create(NULL, 3);
  const int none[2] = {0, 0};
  mk_game_set_player(g, "anna", "red+yellow", 0, none, true, NULL);
  mk_game_set_player(g, "ben", "blue+green", 0, none, true, NULL);
  assert_int_equal(mk_game_deal(g, NULL), TP_OK);
  const mk_player *anna = mk_game_player(g, 0);
  assert_int_equal(anna->dirhams, 30);
  assert_int_equal(anna->rugs_left[0], 12);
  assert_int_equal(anna->rugs_left[1], 12);
  assert_int_equal(mk_game_rugs_left(anna), 24);
  /* ben's blue and green touch: each colour is its own area */
  const char *rows[7] = {".......", ".......", ".......", "...bbg.",
                         ".....g.", ".......", "......."};
  lay(g, rows);
  put_assam(g, 3, 3);
  mk_game_set_turn(g, 0, NULL);
  mk_payment p = mk_game_pay(g);
  assert_int_equal(p.payee, 1);
  assert_int_equal(p.paid, 2);
  put_assam(g, 5, 4);
  assert_int_equal(mk_game_pay(g).paid, 2);
  /* a player's other colour is still their own: no payment */
  mk_game_set_turn(g, 1, NULL);
  assert_int_equal(mk_game_pay(g).payer, -1);
  /* scores add both colours */
  mk_score s[MK_MAX_PLAYERS];
  mk_game_score(g, s);
  assert_int_equal(s[1].squares, 4);
  assert_int_equal(s[1].total, 34 + 4);
  mk_game_destroy(g);
}

static void test_two_player_colour_draw(void **state) {
  (void)state;
  mk_game *g = mk_game_create(NULL, 99);
  const int rugs[2] = {12, 12};
  mk_game_set_player(g, "anna", "red+yellow", 30, rugs, true, NULL);
  mk_game_set_player(g, "ben", "blue+green", 30, rugs, true, NULL);
  mk_game_set_turn(g, 0, NULL);
  int red = mk_game_find_colour(g, "red"),
      yellow = mk_game_find_colour(g, "yellow");
  int counts[2] = {0, 0};
  for (int i = 0; i < 2000; i++) {
    int c = mk_game_draw_colour(g);
    assert_true(c == red || c == yellow);
    counts[c == yellow]++;
  }
  assert_true(counts[0] > 800 && counts[1] > 800); /* both come up */
  /* once one colour is used up only the other is drawn */
  const int only_yellow[2] = {0, 5};
  mk_game_set_player(g, "anna", "red+yellow", 30, only_yellow, true, NULL);
  for (int i = 0; i < 100; i++)
    assert_int_equal(mk_game_draw_colour(g), yellow);
  /* same seed, same draws */
  mk_game *a = mk_game_create(NULL, 5), *b = mk_game_create(NULL, 5);
  mk_game_copy(a, g);
  mk_game_copy(b, g);
  mk_game_set_player(a, "anna", "red+yellow", 30, rugs, true, NULL);
  mk_game_set_player(b, "anna", "red+yellow", 30, rugs, true, NULL);
  for (int i = 0; i < 50; i++)
    assert_int_equal(mk_game_draw_colour(a), mk_game_draw_colour(b));
  mk_game_destroy(a);
  mk_game_destroy(b);
  /* wrong colour count for the player count is refused by the deal */
  mk_game *c = mk_game_create(NULL, 1);
  const int single[2] = {24, 0};
  mk_game_set_player(c, "anna", "red", 30, single, true, NULL);
  mk_game_set_player(c, "ben", "blue+green", 30, rugs, true, NULL);
  tp_error err;
  assert_int_equal(mk_game_deal(c, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "anna"));
  mk_game_destroy(c);
  mk_game_destroy(g);
}

/* ---- end, score, winners ----------------------------------------------- */

static void test_winner_by_total_then_dirhams_then_shared(void **state) {
  (void)state;
  mk_game *g = three_players(10, 12, 11);
  const char *rows[7] = {"rrrr...", "bb.....", "g......", ".......",
                         ".......", ".......", "......."};
  lay(g, rows);
  /* totals: anna 14, ben 14, cleo 12: tie on total, ben has more dirhams */
  mk_score s[MK_MAX_PLAYERS];
  mk_game_score(g, s);
  assert_int_equal(s[0].total, 14);
  assert_int_equal(s[0].squares, 4);
  assert_int_equal(s[1].total, 14);
  assert_int_equal(s[2].total, 12);
  assert_false(s[0].winner);
  assert_true(s[1].winner);
  assert_false(s[2].winner);
  /* the same total and dirhams: a shared win */
  const int rugs[2] = {15, 0};
  mk_game_set_cell(g, 2, 0, -1, 0, NULL);
  mk_game_set_cell(g, 3, 0, -1, 0, NULL);
  mk_game_set_player(g, "anna", "red", 13, rugs, true, NULL);
  mk_game_set_player(g, "ben", "blue", 13, rugs, true, NULL);
  mk_game_score(g, s);
  assert_int_equal(s[0].total, 15);
  assert_true(s[0].winner && s[1].winner);
  assert_false(s[2].winner);
  /* an eliminated player cannot win, even with the best total */
  mk_game_set_player(g, "cleo", "green", 100, rugs, false, NULL);
  mk_game_score(g, s);
  assert_int_equal(s[2].total, 101);
  assert_true(s[0].winner && s[1].winner);
  assert_false(s[2].winner);
  mk_game_destroy(g);
}

static void test_game_over(void **state) {
  (void)state;
  mk_game *g = three_players(5, 5, 5);
  assert_false(mk_game_over(g));
  const int none[2] = {0, 0}, one[2] = {1, 0};
  mk_game_set_player(g, "anna", "red", 5, none, true, NULL);
  mk_game_set_player(g, "ben", "blue", 5, none, true, NULL);
  assert_false(mk_game_over(g)); /* cleo still has a rug */
  mk_game_set_player(g, "cleo", "green", 5, none, true, NULL);
  assert_true(mk_game_over(g)); /* the last rug has been placed */
  mk_game_set_player(g, "anna", "red", 5, one, true, NULL);
  mk_game_set_player(g, "ben", "blue", 5, one, false, NULL);
  mk_game_set_player(g, "cleo", "green", 5, one, false, NULL);
  assert_true(mk_game_over(g)); /* one player left */
  mk_game_destroy(g);
}

/* ---- state housekeeping ------------------------------------------------ */

static void test_players_and_colours_are_checked(void **state) {
  (void)state;
  mk_game *g = three_players(30, 30, 30);
  const int rugs[2] = {1, 0};
  tp_error err;
  assert_int_equal(mk_game_set_player(g, "dirk", "red", 30, rugs, true, &err),
                   TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "anna"));
  assert_int_equal(mk_game_player_count(g), 3); /* unchanged */
  assert_int_equal(mk_game_set_player(g, "dirk!", "pink", 30, rugs, true, &err),
                   TP_ERR_FORMAT);
  assert_int_equal(mk_game_set_player(g, "dirk", "Pink", 30, rugs, true, &err),
                   TP_ERR_FORMAT);
  assert_int_equal(
      mk_game_set_player(g, "dirk", "pink+pink", 30, rugs, true, &err),
      TP_ERR_INVALID);
  assert_int_equal(mk_game_set_player(g, "dirk", "pink+", 30, rugs, true, &err),
                   TP_ERR_FORMAT);
  assert_int_equal(mk_game_set_player(g, "dirk", "pink", 30, rugs, true, &err),
                   TP_OK);
  assert_int_equal(mk_game_set_player(g, "emil", "grey", 30, rugs, true, &err),
                   TP_ERR_INVALID); /* at most 4 */
  assert_int_equal(mk_game_player_count(g), 4);
  /* colour names are recycled when the table fills up */
  for (int i = 0; i < 100; i++) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    int c = mk_game_colour(g, name);
    assert_true(c >= 0);
    mk_game_set_cell(g, 0, 0, c, 1, NULL); /* only the last one stays */
  }
  assert_string_equal(mk_game_colour_name(g, mk_game_cell(g, 0, 0).colour),
                      "c99");
  assert_int_equal(mk_game_colour_owner(g, mk_game_find_colour(g, "pink")), 3);
  /* a rug shown on two squares that are not neighbours is refused */
  mk_game_set_cell(g, 3, 3, mk_game_find_colour(g, "red"), 5, NULL);
  mk_game_set_cell(g, 5, 3, mk_game_find_colour(g, "red"), 5, NULL);
  assert_int_equal(mk_game_check_board(g, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, "red:5"));
  mk_game_set_cell(g, 4, 3, mk_game_find_colour(g, "red"), 5, NULL);
  mk_game_set_cell(g, 5, 3, -1, 0, NULL);
  assert_int_equal(mk_game_check_board(g, &err), TP_OK);
  mk_game_destroy(g);
}

/* ---- settings ---------------------------------------------------------- */

static void test_shipped_rules_file_is_the_default(void **state) {
  (void)state;
  const char *src = getenv("TEPPICH_SOURCE_DIR");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/rules/marrakech.rules", src);
  mk_settings d, f;
  mk_settings_default(&d);
  memset(&f, 0x55, sizeof f);
  tp_error err;
  if (mk_settings_load(&f, path, &err) != TP_OK) fail_msg("%s", err.text);
  assert_memory_equal(&d, &f, sizeof d);
  assert_int_equal(d.starting_dirhams, 30);
  assert_int_equal(d.rugs_per_player[2], 24);
  assert_int_equal(d.rugs_per_player[3], 15);
  assert_int_equal(d.rugs_per_player[4], 12);
  assert_int_equal(d.die_face_count, 6);
  int want[6] = {1, 2, 2, 3, 3, 4};
  for (int i = 0; i < 6; i++)
    assert_int_equal(d.die_faces[i], want[i]);
  assert_true(d.two_colours_for_two_players);
  assert_false(d.cover_own_rug);
}

static void test_bad_rules_files_name_file_and_line(void **state) {
  (void)state;
  char path[] = "/tmp/mk_rules_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *text = "starting_dirhams = 20\nrugs_2p = 23\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  mk_settings s;
  mk_settings_default(&s);
  tp_error err;
  assert_int_equal(mk_settings_load(&s, path, &err), TP_ERR_INVALID);
  assert_non_null(strstr(err.text, path));
  assert_non_null(strstr(err.text, "rugs_2p"));
  assert_int_equal(s.starting_dirhams, 30); /* unchanged on failure */
  FILE *f = fopen(path, "w");
  fputs("cover_own_rug = yes\nstarting_dirhams = 20\ndie_faces = 1, 2, 3\n", f);
  fclose(f);
  assert_int_equal(mk_settings_load(&s, path, &err), TP_OK);
  assert_true(s.cover_own_rug);
  assert_int_equal(s.starting_dirhams, 20);
  assert_int_equal(s.die_face_count, 3);
  f = fopen(path, "w");
  fputs("# ok\nno_such_key = 3\n", f);
  fclose(f);
  assert_int_not_equal(mk_settings_load(&s, path, &err), TP_OK);
  assert_non_null(strstr(err.text, "2")); /* the line */
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_28_border_exits),
      cmocka_unit_test(test_inner_steps_go_straight),
      cmocka_unit_test(test_rules_doc_examples),
      cmocka_unit_test(test_stepping_is_a_permutation),
      cmocka_unit_test(test_long_walks_match_single_steps),
      cmocka_unit_test(test_rotation),
      cmocka_unit_test(test_payment_counts_the_4_connected_area),
      cmocka_unit_test(test_diagonal_only_contact_pays_one_rug),
      cmocka_unit_test(test_own_rugs_and_empty_squares_cost_nothing),
      cmocka_unit_test(test_eliminated_owners_get_nothing),
      cmocka_unit_test(test_paying_to_exactly_zero_is_not_elimination),
      cmocka_unit_test(test_short_payer_pays_all_and_is_out),
      cmocka_unit_test(test_placement_reasons),
      cmocka_unit_test(test_two_rugs_may_be_covered_half_each),
      cmocka_unit_test(test_cover_own_rug_setting),
      cmocka_unit_test(test_legal_placements_list),
      cmocka_unit_test(test_two_player_colours_are_separate),
      cmocka_unit_test(test_two_player_colour_draw),
      cmocka_unit_test(test_winner_by_total_then_dirhams_then_shared),
      cmocka_unit_test(test_game_over),
      cmocka_unit_test(test_players_and_colours_are_checked),
      cmocka_unit_test(test_shipped_rules_file_is_the_default),
      cmocka_unit_test(test_bad_rules_files_name_file_and_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
