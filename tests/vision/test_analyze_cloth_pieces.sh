#!/usr/bin/env bash
# Cards on a patterned cloth in their own colours: hard watch game 4:697
# lies on cream cloth with a red grid, where a card's object mask breaks
# into pieces of 2-9 % of its area. Frame 48 (round 1, after flight 1)
# shows 7 cards in full view; from scratch (as watch analyses a frame
# without a reference) analyze found 2 of them while LSD looked only
# around the one solid blob (vision/detect/fit.c, BOX_PIECE_SHARE).
# Every card found must be one of the truth's, at its place (5 mm) with its
# type, and at least 6 of the 7 must be found.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

analyze_game_frame 697 4 hard 48
json_objects cards "$T/out" > "$T/found"
# the game's truth of the 7 cards left after flight 1 (transcript.txt)
truth="spice-bazaar 241.5 188.2
carpet-bazaar 163.4 218.8
lamp 118.8 324.8
spice-bazaar 443.0 278.5
palace 231.3 303.8
adventure-d 263.6 80.0
carpet-bazaar 77.1 210.4"
# every card found lies at a card of the truth (5 mm) with its type
while read -r type x y; do
  awk -v t="$type" -v x="$x" -v y="$y" \
    '$1 == t && ($2 - x)^2 + ($3 - y)^2 < 25 { ok = 1 } END { exit !ok }' <<< "$truth" ||
    fail "frame 48: $type at ($x, $y) is no card of the truth"
done < "$T/found"
# and at least 6 of the 7 are found: the spice bazaar at (241.5, 188.2) is
# found on Debian 12 (unsure of its type against the camel bazaar) and
# missed in the Debian 13 root, whose built-in deck art differs
# (tests/vision/README.md); main before the outer band found 2
n=$(wc -l < "$T/found")
[ "$n" -ge 6 ] || fail "frame 48: $n cards found, the table shows 7: $(tr '\n' ';' < "$T/found")"
finish
