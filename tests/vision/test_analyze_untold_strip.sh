#!/usr/bin/env bash
# A strip of cloth taken for the white border of a carpet under a card:
# hard watch game 2:881 (960x540), frame 265, round 3, flight 1, green
# (the third carpet of four) has just landed; yellow is not thrown yet.
# From scratch, a yellow face at the lamp's pose, 8 mm off, explained
# all of the 80 samples that showed beside the lamp: a strip of tan
# cloth along the cloth's green line, the straight edge its cut edge.
# Only a carpet's white border shows there (every carpet face explains
# it alike), and the strip's own light fit made that white of the tan
# cloth; the lamp's light makes the same white 16 apart in a and b. Such
# a strip must be white as its neighbour sees white (vision/detect/
# match.c, off_white_border): three carpets, no yellow.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

analyze_game_frame 881 2 hard 265
json_objects carpets "$T/out" > "$T/carpets"
for c in red green blue; do
  grep -q "^$c " "$T/carpets" || fail "frame 265: the $c carpet was not found"
done
grep -q '^yellow ' "$T/carpets" &&
  fail "frame 265: a yellow carpet, not thrown yet: $(tr '\n' ';' < "$T/carpets")"
finish
