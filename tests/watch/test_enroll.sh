#!/usr/bin/env bash
# teppich enroll: a rendered photo of five cards and a carpet in a grid is
# cut into a deck folder with measured sizes; bad usage is exit 2.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
cat >"$T/grid.json" <<'JSON'
{"cards": [
  {"type": "palace", "center_mm": [120, 110], "angle_deg": 85},
  {"type": "desert", "center_mm": [270, 110], "angle_deg": 92},
  {"type": "treasure", "center_mm": [420, 110], "angle_deg": 88},
  {"type": "lamp", "center_mm": [120, 280], "angle_deg": 95},
  {"type": "spice-bazaar", "center_mm": [270, 280], "angle_deg": 90}],
 "carpets": [{"colour": "red", "center_mm": [420, 280], "angle_deg": 95}]}
JSON
expect_exit 0 "$TEPPICH" render "$T/grid.json" --size 960x540 --out "$T/grid.jpg"
expect_exit 0 "$TEPPICH" enroll --deck "$T/deck" --image "$T/grid.jpg" \
  --grid palace,desert,treasure,lamp,spice-bazaar,carpet-red
for f in palace desert treasure lamp spice-bazaar carpet-red; do
  [ -s "$T/deck/$f.png" ] || fail "no $f.png"
done
# sizes measured within 3 mm of the true 59 x 91
grep -Eq '"card_mm":[[:space:]]*\[(5[6-9]|6[0-2])(\.5)?, (8[8-9]|9[0-4])(\.5)?\]' "$T/deck/deck.json" ||
  fail "card_mm not measured near 59 x 91: $(tr -d '\n\t' <"$T/deck/deck.json")"
grep -q '"carpet_mm"' "$T/deck/deck.json" || fail "no carpet_mm"
# one card expected, six found
expect_exit 1 "$TEPPICH" enroll --deck "$T/deck2" --image "$T/grid.jpg" --type palace
expect_err "6 cards found"
expect_one_line_err
expect_exit 2 "$TEPPICH" enroll --deck "$T/deck2" --image "$T/grid.jpg" --type castle
expect_one_line_err
expect_exit 2 "$TEPPICH" enroll --image "$T/grid.jpg" --type palace
finish
