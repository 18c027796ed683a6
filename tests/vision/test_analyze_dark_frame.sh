#!/usr/bin/env bash
# A faded face in a dark photo: hard watch game 4:697, frame 136 (round 1
# flight 4, the red carpet has landed on adventure D). The photo is dark:
# every face fits with its gain of L near the fit's bound (the other
# objects at 0.56-0.58), the red carpet, fully visible, at the bound
# (0.50). The colour check took such a fade for a face fitted onto bare
# table and dropped the carpet; now a face is faded only against the
# photo's light (vision/detect/analyze.c, faded_in_photo). From scratch (as
# watch analyses a frame without a reference) the red carpet must be found
# at its place (5 mm), lying on the adventure D at (263.6, 80.0).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

analyze_game_frame 697 4 hard 136
json_objects carpets "$T/out" > "$T/carpets"
json_objects cards "$T/out" > "$T/cards"
awk '$1 == "red" && ($2 - 266.2)^2 + ($3 - 69.0)^2 < 25 { ok = 1 } END { exit !ok }' \
  "$T/carpets" || fail "frame 136: no red carpet at (266.2, 69.0): $(tr '\n' ';' < "$T/carpets")"
# the adventure D it lies on is found under it
awk '$1 == "adventure-d" && ($2 - 263.6)^2 + ($3 - 80.0)^2 < 25 { ok = 1 } END { exit !ok }' \
  "$T/cards" || fail "frame 136: adventure D at (263.6, 80.0) not found"
finish
