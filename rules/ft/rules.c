/* ft rules: the settings table of Fliegende Teppiche and its loading.
 * Every [A] and [S] of the rules document is a key here; the defaults are
 * the document's (and rules/fliegende-teppiche.rules says the same). */
#include "ft.h"

#include <stdio.h>
#include <string.h>

#include "settings.h"

#define YN "yes|no"
#define INT_KEY(k, lo, hi, d, h)                                               \
  { k, RSET_INT, lo, hi, 0, 0, NULL, d, h }
#define WORD_KEY(k, w, d, h)                                                   \
  { k, RSET_WORD, 0, 0, 0, 0, w, d, h }
#define GENIE_KEY(k, d)                                                        \
  { k, RSET_LIST, 1, 99, 1, FT_MAX_GENIES, NULL, d, "genie set" }

static const rset_key ft_keys[] = {
    INT_KEY("carpets_2p", 1, FT_MAX_CARPETS_PER_PLAYER, "2",
            "carpets per player, 2 players"),
    INT_KEY("carpets_3p", 1, FT_MAX_CARPETS_PER_PLAYER, "1",
            "carpets per player, 3 players"),
    INT_KEY("carpets_4p", 1, FT_MAX_CARPETS_PER_PLAYER, "1",
            "carpets per player, 4 players"),
    INT_KEY("rounds_2p", 1, FT_MAX_ROUNDS, "4", "rounds, 2 players"),
    INT_KEY("rounds_3p", 1, FT_MAX_ROUNDS, "3", "rounds, 3 players"),
    INT_KEY("rounds_4p", 1, FT_MAX_ROUNDS, "4", "rounds, 4 players"),
    GENIE_KEY("genies_2p_a", "8, 5, 4, 1"),
    GENIE_KEY("genies_2p_b", "7, 6, 3, 2"),
    GENIE_KEY("genies_3p_a", "8, 3"),
    GENIE_KEY("genies_3p_b", "7, 4"),
    GENIE_KEY("genies_3p_c", "6, 5"),
    GENIE_KEY("genies_4p_a", "8, 1"),
    GENIE_KEY("genies_4p_b", "7, 2"),
    GENIE_KEY("genies_4p_c", "6, 3"),
    GENIE_KEY("genies_4p_d", "5, 4"),
    INT_KEY("layout_cards", 1, FT_DECK_SIZE, "12", "cards laid out per round"),
    WORD_KEY("throw_order", "alternate|grouped", "alternate",
             "order with 2 carpets each"),
    WORD_KEY("edge_contact_counts", YN, "no",
             "touching an edge claims (camera side)"),
    INT_KEY("contact_depth_tenths_mm", 0, 100, "0",
            "tenths of a mm a carpet must reach into a card (camera side)"),
    WORD_KEY("carpet_on_carpet_counts", YN, "yes",
             "a carpet on a carpet still claims (camera side)"),
    WORD_KEY("same_player_carpets", "claim|void", "claim",
             "two carpets of one player on a card"),
    WORD_KEY("contest_order", "layout|reverse", "layout",
             "order of contests in a flight"),
    WORD_KEY("genie_swap", "immediate|after_flight", "immediate",
             "when genie swaps happen"),
    INT_KEY("refly_min_cards", 1, FT_DECK_SIZE, "4",
            "fly again with at least this many cards"),
    WORD_KEY("stop_if_only_deserts", YN, "yes",
             "only deserts left ends the round"),
    WORD_KEY("leftover_cards", "removed|deck", "removed",
             "cards left at round end"),
    INT_KEY("palace_most", -100, 100, "5", "points for most palaces"),
    INT_KEY("palace_fewest", -100, 100, "-5", "points for fewest palaces"),
    WORD_KEY("palace_ties", "all|none", "all", "tied players for most/fewest"),
    WORD_KEY("palace_all_equal", "nobody|everybody", "nobody",
             "all players have as many"),
    WORD_KEY("lamps_as_palaces", YN, "yes", "lamps may count as palaces"),
    INT_KEY("pair_spice", -100, 100, "5", "pair of spice bazaars"),
    INT_KEY("pair_carpet", -100, 100, "6", "pair of carpet bazaars"),
    INT_KEY("pair_camel", -100, 100, "7", "pair of camel bazaars"),
    {"adventure_sets", RSET_LIST, -100, 100, 5, 5, NULL, "1, 3, 6, 10, 15",
     "set of 1..5 different adventure kinds"},
    INT_KEY("treasure", -100, 100, "3", "each treasure"),
    INT_KEY("desert", -100, 100, "-5", "each desert"),
    WORD_KEY("lamp_cancels_desert", YN, "yes", "a lamp may cancel a desert"),
    WORD_KEY("lamp_wild_bazaar", YN, "yes",
             "a lamp may complete a bazaar pair"),
    WORD_KEY("lamp_wild_adventure", YN, "yes",
             "a lamp may add an adventure kind"),
    WORD_KEY("lamp_needs_real_card", YN, "yes",
             "a wild lamp needs a real card"),
    WORD_KEY("tie", "shared|none", "shared", "equal highest totals"),
};
#define FT_N_KEYS (sizeof ft_keys / sizeof ft_keys[0])

static const char *const genie_keys[5][4] = {
    [2] = {"genies_2p_a", "genies_2p_b"},
    [3] = {"genies_3p_a", "genies_3p_b", "genies_3p_c"},
    [4] = {"genies_4p_a", "genies_4p_b", "genies_4p_c", "genies_4p_d"},
};

static void copy_genies(const rset_table *t, ft_rules *r) {
  for (int count = 2; count <= 4; count++)
    for (int set = 0; set < count; set++) {
      const long *v;
      int n = rset_list(t, genie_keys[count][set], &v);
      r->genie_set_size[count][set] = n;
      for (int i = 0; i < n; i++)
        r->genie_sets[count][set][i] = (int)v[i];
    }
}

static void copy_setup(const rset_table *t, ft_rules *r) {
  static const char *const carpets[] = {"carpets_2p", "carpets_3p",
                                        "carpets_4p"};
  static const char *const rounds[] = {"rounds_2p", "rounds_3p", "rounds_4p"};
  for (int count = 2; count <= 4; count++) {
    r->carpets[count] = (int)rset_int(t, carpets[count - 2]);
    r->rounds[count] = (int)rset_int(t, rounds[count - 2]);
  }
  copy_genies(t, r);
  r->layout_cards = (int)rset_int(t, "layout_cards");
  r->throw_order = rset_is(t, "throw_order", "grouped") ? FT_THROW_GROUPED
                                                        : FT_THROW_ALTERNATE;
}

static void copy_play(const rset_table *t, ft_rules *r) {
  r->edge_contact_counts = rset_is(t, "edge_contact_counts", "yes");
  r->contact_depth_tenths_mm = (int)rset_int(t, "contact_depth_tenths_mm");
  r->carpet_on_carpet_counts = rset_is(t, "carpet_on_carpet_counts", "yes");
  r->same_player = rset_is(t, "same_player_carpets", "void")
                       ? FT_SAME_PLAYER_VOID
                       : FT_SAME_PLAYER_CLAIM;
  r->contest_order = rset_is(t, "contest_order", "reverse")
                         ? FT_CONTEST_REVERSE_ORDER
                         : FT_CONTEST_LAYOUT_ORDER;
  r->swap_timing = rset_is(t, "genie_swap", "after_flight")
                       ? FT_SWAP_AFTER_FLIGHT
                       : FT_SWAP_IMMEDIATE;
  r->refly_min_cards = (int)rset_int(t, "refly_min_cards");
  r->stop_if_only_deserts = rset_is(t, "stop_if_only_deserts", "yes");
  r->leftovers_removed = rset_is(t, "leftover_cards", "removed");
}

static void copy_scoring(const rset_table *t, ft_rules *r) {
  r->palace_most = (int)rset_int(t, "palace_most");
  r->palace_fewest = (int)rset_int(t, "palace_fewest");
  r->palace_ties_all = rset_is(t, "palace_ties", "all");
  r->palace_all_equal_scores = rset_is(t, "palace_all_equal", "everybody");
  r->lamps_as_palaces = rset_is(t, "lamps_as_palaces", "yes");
  r->pair_points[0] = (int)rset_int(t, "pair_spice");
  r->pair_points[1] = (int)rset_int(t, "pair_carpet");
  r->pair_points[2] = (int)rset_int(t, "pair_camel");
  const long *v;
  int n = rset_list(t, "adventure_sets", &v);
  for (int i = 0; i < 5; i++)
    r->adventure_sets[i] = i < n ? (int)v[i] : 0;
  r->treasure = (int)rset_int(t, "treasure");
  r->desert = (int)rset_int(t, "desert");
  r->lamp_cancels_desert = rset_is(t, "lamp_cancels_desert", "yes");
  r->lamp_wild_bazaar = rset_is(t, "lamp_wild_bazaar", "yes");
  r->lamp_wild_adventure = rset_is(t, "lamp_wild_adventure", "yes");
  r->lamp_needs_real_card = rset_is(t, "lamp_needs_real_card", "yes");
  r->shared_win = rset_is(t, "tie", "shared");
}

/* Genie values of one player count must all differ (no tied contests). */
static tp_status check_genies(const rset_table *t, const ft_rules *r,
                              tp_error *err) {
  for (int count = 2; count <= 4; count++) {
    int seen_in[100];
    memset(seen_in, -1, sizeof seen_in);
    for (int set = 0; set < count; set++)
      for (int i = 0; i < r->genie_set_size[count][set]; i++) {
        int g = r->genie_sets[count][set][i];
        const char *key = genie_keys[count][set];
        if (seen_in[g] >= 0)
          return tp_error_set(
              err, TP_ERR_INVALID,
              "%s: line %d: %s: genie %d is also in %s; the values of one "
              "player count must all differ",
              rset_source(t), rset_line(t, key), key, g,
              genie_keys[count][seen_in[g]]);
        seen_in[g] = set;
      }
  }
  return TP_OK;
}

/* edge_contact_counts = yes says touching counts: a depth set in the same
 * file as well contradicts it (a default depth is simply not used). */
static tp_status check_contact(const rset_table *t, const ft_rules *r,
                               tp_error *err) {
  int line = rset_line(t, "contact_depth_tenths_mm");
  if (!r->edge_contact_counts || line == 0 || r->contact_depth_tenths_mm == 0)
    return TP_OK;
  return tp_error_set(err, TP_ERR_INVALID,
                      "%s: line %d: contact_depth_tenths_mm = %d: with "
                      "edge_contact_counts = yes (line %d) touching already "
                      "counts; set the depth to 0 or edge_contact_counts = no",
                      rset_source(t), line, r->contact_depth_tenths_mm,
                      rset_line(t, "edge_contact_counts"));
}

double ft_rules_contact_mm(const ft_rules *rules) {
  const double hair = 1e-6; /* the rounding of outlines that share an edge */
  if (rules->edge_contact_counts) return -hair;
  return rules->contact_depth_tenths_mm > 0
             ? rules->contact_depth_tenths_mm / 10.0
             : hair;
}

static tp_status load_into(rset_table *t, const char *name, const char *text,
                           size_t len, ft_rules *rules, tp_error *err) {
  if (text) {
    tp_status st = rset_load_text(t, name, text, len, err);
    if (st != TP_OK) return st;
  }
  ft_rules r;
  memset(&r, 0, sizeof r);
  copy_setup(t, &r);
  copy_play(t, &r);
  copy_scoring(t, &r);
  tp_status st = check_genies(t, &r, err);
  if (st == TP_OK) st = check_contact(t, &r, err);
  if (st == TP_OK) *rules = r;
  return st;
}

static tp_status load(const char *name, const char *text, size_t len,
                      const char *path, ft_rules *rules, tp_error *err) {
  rset_table *t;
  tp_status st = rset_create(ft_keys, FT_N_KEYS, &t, err);
  if (st != TP_OK) return st;
  if (path) st = rset_load_file(t, path, err);
  if (st == TP_OK) st = load_into(t, name, text, len, rules, err);
  rset_destroy(t);
  return st;
}

void ft_rules_default(ft_rules *rules) {
  if (load(NULL, NULL, 0, NULL, rules, NULL) != TP_OK)
    memset(rules, 0, sizeof *rules); /* only if the key table is broken */
}

tp_status ft_rules_load(const char *path, ft_rules *rules, tp_error *err) {
  return load(NULL, NULL, 0, path, rules, err);
}

tp_status ft_rules_load_text(const char *name, const char *text, size_t len,
                             ft_rules *rules, tp_error *err) {
  return load(name, text, len, NULL, rules, err);
}
