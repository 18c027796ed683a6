#!/usr/bin/env bash
# What "lies on" means (docs/rules.md, "What counts as on"): a carpet must
# reach deeper into a card than contact_depth_tenths_mm. scenes/corner-contact
# has carpet corners 2 mm into the palace, 0.5 mm into the desert and
# 0.8 mm into the lamp: by the default rules (any overlap) all three lie on
# their cards; a group that counts 1 mm (10) has blue and green only
# touching, green within the pose error of 1 mm and so uncertain. A bad
# rules file is one line naming the file, the line and the value.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

expect_exit 0 "$TEPPICH" render "$D/scenes/corner-contact.json" --out "$T/c.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg"
cat "$T/out"
expect_out "^red takes the palace"
expect_out "^blue takes the desert"
expect_out "^green takes the (magic )?lamp"

# a group that counts a corner under 1 mm as touching
printf 'contact_depth_tenths_mm = 10\n' >"$T/mm.rules"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/mm.rules"
cat "$T/out"
expect_out "^red takes the palace"
expect_out "^The blue carpet lies on no card and goes back"
expect_out "^The green carpet lies on no card and goes back"
expect_out "^Not sure about the green carpet: it barely touches the (magic )?lamp \(card [0-9]+; 0\.[5-9] mm into it"
grep -q "Not sure about the blue carpet" "$T/out" && fail "blue, 0.5 mm in, is more than the pose error from 1 mm"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg" --json --rules "$T/mm.rules"
expect_out '"reason":[[:space:]]*"it barely touches the'

# a bad rules file: one line naming the file, the line and the value
printf 'contact_depth_tenths_mm = 1.5\n' >"$T/bad.rules"
expect_exit 2 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/bad.rules"
expect_err "bad.rules: line 1: contact_depth_tenths_mm = '1.5'"
expect_one_line_err
expect_exit 2 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/none.rules"
expect_err "none.rules"
expect_one_line_err
finish
