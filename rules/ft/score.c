/* ft score: final scoring of one collection, with the best use of lamps
 * found by trying every split of the lamps over their possible uses. */
#include "ft.h"

#include <string.h>

static const ft_card_type bazaar_types[3] = {FT_SPICE_BAZAAR, FT_CARPET_BAZAAR,
                                             FT_CAMEL_BAZAAR};

/* Pairs of one bazaar kind with `lamps` wild lamps. */
static int bazaar_pairs(const ft_rules *r, int real, int lamps) {
  int pairs = real / 2, odd = real % 2;
  int completing = lamps < odd ? lamps : odd;
  pairs += completing;
  if (!r->lamp_needs_real_card) pairs += (lamps - completing) / 2;
  return pairs;
}

/* Sets of different kinds, largest first, from the real cards; then each
 * wild lamp joins the set where it adds most (or starts one, if allowed). */
static int adventure_score(const ft_rules *r, const int counts[FT_N_TYPES],
                           int lamps, ft_score *out) {
  int left[5], n_sets = 0, sizes[16] = {0};
  for (int k = 0; k < 5; k++)
    left[k] = counts[FT_ADVENTURE_A + k];
  for (;;) {
    int size = 0;
    for (int k = 0; k < 5; k++)
      if (left[k] > 0) left[k]--, size++;
    if (size == 0 || n_sets == 16) break;
    sizes[n_sets++] = size;
  }
  for (int l = 0; l < lamps; l++) {
    int best = -1, best_gain = 0;
    for (int s = 0; s < n_sets; s++) {
      int gain = sizes[s] < 5 ? r->adventure_sets[sizes[s]] -
                                    r->adventure_sets[sizes[s] - 1]
                              : 0;
      if (sizes[s] < 5 && (best < 0 || gain > best_gain))
        best = s, best_gain = gain;
    }
    bool may_start = !r->lamp_needs_real_card && n_sets < 16;
    if (may_start && (best < 0 || r->adventure_sets[0] > best_gain))
      best = n_sets++, best_gain = r->adventure_sets[0];
    if (best < 0) break;
    sizes[best]++;
  }
  int points = 0;
  for (int s = 0; s < n_sets; s++)
    points += r->adventure_sets[sizes[s] - 1];
  if (out) {
    out->n_adventure_sets = n_sets;
    memcpy(out->adventure_set_sizes, sizes, sizeof sizes);
    out->adventure_points = points;
  }
  return points;
}

typedef struct {
  int desert, bazaar[3], adventure;
} lamp_split;

static int evaluate(const ft_rules *r, const int counts[FT_N_TYPES],
                    const lamp_split *ls, ft_score *out) {
  int bazaar = 0;
  for (int k = 0; k < 3; k++) {
    int pairs = bazaar_pairs(r, counts[bazaar_types[k]], ls->bazaar[k]);
    bazaar += pairs * r->pair_points[k];
    if (out) out->bazaar_pairs[k] = pairs;
  }
  int deserts = counts[FT_DESERT];
  int cancelled = ls->desert < deserts ? ls->desert : deserts;
  int adventure = adventure_score(r, counts, ls->adventure, out);
  int treasure = counts[FT_TREASURE] * r->treasure;
  int desert = (deserts - cancelled) * r->desert;
  if (out) {
    out->bazaar_points = bazaar;
    out->treasures = counts[FT_TREASURE];
    out->treasure_points = treasure;
    out->deserts = deserts;
    out->deserts_cancelled = cancelled;
    out->desert_points = desert;
  }
  return bazaar + adventure + treasure + desert;
}

/* Tries every split of `lamps` over desert, 3 bazaars, adventures and
 * unused; uses a rule forbids get 0 lamps. Only a strictly better total
 * replaces the best, and fewer lamps come first, so no lamp is wasted. */
static void search(const ft_rules *r, const int counts[FT_N_TYPES], int lamps,
                   lamp_split *best) {
  int best_points = 0;
  bool found = false;
  int max_d = r->lamp_cancels_desert ? lamps : 0;
  int max_b = r->lamp_wild_bazaar ? lamps : 0;
  int max_a = r->lamp_wild_adventure ? lamps : 0;
  lamp_split s;
  for (s.desert = 0; s.desert <= max_d; s.desert++)
    for (s.bazaar[0] = 0; s.bazaar[0] <= max_b; s.bazaar[0]++)
      for (s.bazaar[1] = 0; s.bazaar[1] <= max_b; s.bazaar[1]++)
        for (s.bazaar[2] = 0; s.bazaar[2] <= max_b; s.bazaar[2]++)
          for (s.adventure = 0; s.adventure <= max_a; s.adventure++) {
            int used = s.desert + s.bazaar[0] + s.bazaar[1] + s.bazaar[2] +
                       s.adventure;
            if (used > lamps) continue;
            int points = evaluate(r, counts, &s, NULL);
            if (!found || points > best_points) {
              best_points = points;
              *best = s;
              found = true;
            }
          }
}

void ft_score_collection(const ft_rules *rules, const int counts[FT_N_TYPES],
                         ft_score *out) {
  ft_rules defaults;
  if (!rules) {
    ft_rules_default(&defaults);
    rules = &defaults;
  }
  memset(out, 0, sizeof *out);
  int lamps = counts[FT_LAMP];
  if (lamps > FT_DECK_SIZE) lamps = FT_DECK_SIZE;
  lamp_split best = {0, {0, 0, 0}, 0};
  search(rules, counts, lamps < 8 ? lamps : 8, &best);
  out->total = evaluate(rules, counts, &best, out);
  out->lamps = counts[FT_LAMP];
  out->lamps_for_desert = best.desert;
  out->lamps_for_adventure = best.adventure;
  int used = out->lamps_for_desert + best.adventure;
  for (int k = 0; k < 3; k++) {
    out->lamps_for_bazaar[k] = best.bazaar[k];
    used += best.bazaar[k];
  }
  out->lamps_unused = out->lamps - used;
}
