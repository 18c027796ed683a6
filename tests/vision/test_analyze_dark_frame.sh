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

expect_exit 0 "$TEPPICH" render --game 697 --players 4 --difficulty hard --size 960x540 \
  --frames 136 "$T/game"
expect_exit 0 "$TEPPICH" analyze "$T/game/frame-00136.jpg" --json
# colour x y of every carpet found, one per line
awk '/"carpets":/ {c = 1} /"cards":/ {c = 0}
     c && /"colour":/ { gsub(/[",]/, ""); k = $2 }
     c && /"center_mm":/ { gsub(/[^0-9.,-]/, ""); split($0, v, ","); print k, v[1], v[2] }' \
  "$T/out" > "$T/carpets"
awk '$1 == "red" && ($2 - 266.2)^2 + ($3 - 69.0)^2 < 25 { ok = 1 } END { exit !ok }' \
  "$T/carpets" || fail "frame 136: no red carpet at (266.2, 69.0): $(tr '\n' ';' < "$T/carpets")"
# the adventure D it lies on is found under it
awk '/"cards":/ {c = 1} /"carpets":/ {c = 0}
     c && /"type":/ { gsub(/[",]/, ""); t = $2 }
     c && /"center_mm":/ { gsub(/[^0-9.,-]/, ""); split($0, v, ",");
                          if (t == "adventure-d" && (v[1] - 263.6)^2 + (v[2] - 80.0)^2 < 25) ok = 1 }
     END { exit !ok }' "$T/out" || fail "frame 136: adventure D at (263.6, 80.0) not found"
finish
