#!/usr/bin/env bash
# teppich render end to end: files written, truth beside the picture,
# byte-identical output for the same seed, the demo deck as a folder and
# back, and one-line errors (exit 2) for bad scene files.
. "$(dirname "$0")/../e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" render --help
expect_out 'usage: teppich render'

# a random scene, twice: identical bytes; the truth names the spec fields
expect_exit 0 "$TEPPICH" render --random 3 --size 320x180 --out "$T/a.jpg" --scene-out "$T/a.scene.json"
expect_exit 0 "$TEPPICH" render --random 3 --size 320x180 --out "$T/b.jpg"
cmp -s "$T/a.jpg" "$T/b.jpg" || fail "same seed gave different pictures"
cmp -s "$T/a.truth.json" "$T/b.truth.json" || fail "same seed gave different truth"
for key in markers_seen cards carpets claims contests returned visible_fraction on_cards \
           corners_mm center_mm angle_deg stacking camera; do
  grep -q "\"$key\"" "$T/a.truth.json" || fail "truth lacks $key"
done
expect_exit 0 "$TEPPICH" render --random 4 --size 320x180 --out "$T/c.jpg"
cmp -s "$T/a.jpg" "$T/c.jpg" && fail "different seeds gave the same picture"

# the saved scene renders to the same picture
expect_exit 0 "$TEPPICH" render "$T/a.scene.json" --out "$T/d.jpg"
cmp -s "$T/a.jpg" "$T/d.jpg" || fail "re-rendering the saved scene differs"

# PNG output, hard difficulty
expect_exit 0 "$TEPPICH" render --random 9 --difficulty hard --size 320x180 --out "$T/h.png"
[ "$(head -c 4 "$T/h.png" | tail -c 3)" = PNG ] || fail "h.png is not a PNG"

# the demo deck as a folder, and rendering with it
expect_exit 0 "$TEPPICH" render deck --out "$T/deck"
n=$(ls "$T/deck"/*.png | wc -l)
[ "$n" = 16 ] || fail "demo deck folder has $n PNGs, expected 16"
[ -f "$T/deck/deck.json" ] || fail "demo deck folder lacks deck.json"
expect_exit 0 "$TEPPICH" render --random 3 --size 320x180 --deck "$T/deck" --out "$T/e.jpg"
echo '{"card_mm": [63, 88], "carpet_mm": [50, 80]}' >"$T/deck/deck.json"
expect_exit 0 "$TEPPICH" render --random 3 --size 320x180 --deck "$T/deck" --out "$T/f.jpg"
grep -q '"card_mm":' "$T/f.truth.json" && grep -A2 '"card_mm":' "$T/f.truth.json" | grep -q 63 ||
  fail "deck.json card size not used"
touch "$T/deck/castle.png"
expect_exit 2 "$TEPPICH" render --random 3 --deck "$T/deck" --out "$T/g.jpg"
expect_err 'castle.png'
expect_one_line_err

# bad scene files: exit 2, one line naming the file and the problem
bad() { # NAME JSON PATTERN
  printf '%s' "$2" >"$T/$1.json"
  expect_exit 2 "$TEPPICH" render "$T/$1.json" --out "$T/$1.jpg"
  expect_err "$1.json: .*$3"
  expect_one_line_err
  [ -e "$T/$1.jpg" ] && fail "$1: an output file was written"
}
bad notjson '{"cards": [' 'not valid JSON'
bad badtype '{"cards": [{"type": "castle", "center_mm": [0, 0]}]}' 'cards\[0\].type'
bad badkey '{"cards": [], "lightning": {}}' "unknown key 'lightning'"
bad badcam '{"camera": {"position_mm": [0, 0]}}' 'camera.position_mm'
bad nocarpet '{"carpets": [{"colour": "purple", "center_mm": [0, 0]}]}' 'carpet-purple'
expect_exit 2 "$TEPPICH" render "$T/missing.json" --out "$T/x.jpg"
expect_err 'missing.json'
expect_exit 2 "$TEPPICH" render --random 1 --out "$T/x.gif"
expect_err 'must end in'
expect_exit 2 "$TEPPICH" render --random x --out "$T/x.jpg"
expect_exit 2 "$TEPPICH" render
finish
