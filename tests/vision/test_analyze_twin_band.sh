#!/usr/bin/env bash
# A band along a card taken for a carpet mostly under it: hard watch game
# 4:913 (960x540), frame 102, round 2's layout just done, no carpet
# thrown. Mapped as frame 1 maps the table (watch --hold-map holds the
# first frame's mapping while the markers stay put), a red face 7 mm off
# the adventure E and turned like it explained 142 of the 144 samples
# that showed beside the card (every face of the deck 116-142 of them; no
# cut edge along them) and passed the clear score; watch took it for a
# throw out of turn and resolved the flight. A carpet mostly hidden at a
# card's pose must show its cut edge (vision/detect/match.c,
# unedged_twin_band): no carpet.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" render --game 913 --players 4 --difficulty hard \
  --size 960x540 --frames 1,102 "$T/game"
expect_exit 0 "$TEPPICH" calibrate "$T/game/frame-00001.jpg" --out "$T/calib.json"
expect_exit 0 "$TEPPICH" analyze "$T/game/frame-00102.jpg" --calib "$T/calib.json" --json
json_objects carpets "$T/out" > "$T/carpets"
[ -s "$T/carpets" ] &&
  fail "frame 102: a carpet before any was thrown: $(tr '\n' ';' < "$T/carpets")"
json_objects cards "$T/out" > "$T/cards"
[ "$(wc -l < "$T/cards")" -ge 11 ] || fail "frame 102: $(wc -l < "$T/cards") cards, 11 or 12 expected"
finish
