#!/usr/bin/env bash
# What "lies on" means (docs/rules.md: a carpet must reach deeper into a
# card than contact_depth_tenths_mm, 1 mm by default): scenes/corner-contact
# has a carpet corner 2 mm into the palace (on it), 0.5 mm into the desert
# (touching) and 0.8 mm into the lamp (touching, within the pose error:
# uncertain). The same photo with a rules file of 0.3 mm, and the errors.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

expect_exit 0 "$TEPPICH" render "$D/scenes/corner-contact.json" --out "$T/c.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg"
cat "$T/out"
expect_out "^red takes the palace"
expect_out "^The blue carpet lies on no card and goes back"
expect_out "^The green carpet lies on no card and goes back"
expect_out "^Not sure about the green carpet: it barely touches the lamp \(card [0-9]+; 0\.[5-9] mm into it"
grep -q "Not sure about the blue carpet" "$T/out" && fail "blue, 0.5 mm in, is more than the pose error from 1 mm"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg" --json
expect_out '"reason":[[:space:]]*"it barely touches the lamp'

# a group that counts 0.3 mm: blue and green lie on their cards too
printf 'contact_depth_tenths_mm = 3\n' >"$T/thin.rules"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/thin.rules"
expect_out "^blue takes the desert"
expect_out "^green takes the (magic )?lamp"

# a bad rules file: one line naming the file, the line and the value
printf 'contact_depth_tenths_mm = 1.5\n' >"$T/bad.rules"
expect_exit 2 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/bad.rules"
expect_err "bad.rules: line 1: contact_depth_tenths_mm = '1.5'"
expect_one_line_err
expect_exit 2 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/none.rules"
expect_err "none.rules"
expect_one_line_err
finish
