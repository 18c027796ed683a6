/* votes: who lies on top where a carpet overlaps a card or a carpet, from
 * the samples of the overlap that each object's face explains best
 * (analyze.c and reference.c count them; the rules of reading them are
 * here, so that both analyses read them alike). */
#include "vision_internal.h"

bool vis__evidence_clear(int on_top, int under) {
  int decided = on_top + under;
  return decided >= VIS__EVIDENCE_MIN_DECIDED && (on_top >= 3 * under || under >= 3 * on_top);
}

/* A card's own overlap decides for itself when it shows clearly, unless
 * the carpet's other card overlaps clearly say the opposite and it rests
 * on few samples: a card a tenth visible under three carpets showed 9 of
 * its samples against 1 inside the bottom carpet (its frame beside that
 * carpet's white border; the rest of the overlap hidden by the other two),
 * while the carpet's other card showed it on top 29 : 0 (tuning normal
 * 3121: taken as under, truth on). */
enum { OWN_AGAINST_POOL = 24 };
/* Nor does it decide against a rest that shows more than three times as
 * many samples: HUNT normal 3710's blue, slid under the layout, showed 39
 * "on" samples to 4 in the part of its treasure overlap that the three
 * carpets on it did not hide (975 of 1120 hidden), against 26 : 189
 * under its palace. */
enum { OWN_SHARE_OF_REST = 3 };
bool vis__decides_alone(const vis__evidence *own, const vis__evidence *own_mm, int sum_on,
                        int sum_under) {
  if (!vis__evidence_clear(own->on_top, own->under)) return false;
  int rest_on = sum_on - own_mm->on_top, rest_under = sum_under - own_mm->under;
  bool rest_disagrees = vis__evidence_clear(rest_on, rest_under) &&
                        (rest_on > rest_under) != (own->on_top > own->under);
  int own_n = own_mm->on_top + own_mm->under, rest_n = rest_on + rest_under;
  return !rest_disagrees || (own_n >= OWN_AGAINST_POOL && OWN_SHARE_OF_REST * own_n >= rest_n);
}

vis__overlap_votes vis__overlap_decision(const vis__evidence *own, const vis__evidence *own_mm,
                                         int sum_on, int sum_under) {
  vis__overlap_votes v = {.own = vis__decides_alone(own, own_mm, sum_on, sum_under)};
  /* its clear evidence overruled: the carpet's other cards decide (the
   * pool still holds its votes, which may leave it unclear) */
  v.overruled = !v.own && vis__evidence_clear(own->on_top, own->under);
  v.on = v.own ? own->on_top : v.overruled ? sum_on - own_mm->on_top : sum_on;
  v.under = v.own ? own->under : v.overruled ? sum_under - own_mm->under : sum_under;
  v.decided = v.own || v.overruled || vis__evidence_clear(sum_on, sum_under);
  return v;
}
