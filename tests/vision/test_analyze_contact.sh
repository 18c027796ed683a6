#!/usr/bin/env bash
# What "lies on" means (docs/rules.md, "What counts as on"): a carpet must
# reach deeper into a card than contact_depth_tenths_mm, measured between
# the outlines as cut, with 3 mm rounded corners. scenes/corner-contact has
# red's corner 4 mm into the palace's corner on both sides (3.2 mm deep
# between the rounded corners), blue's corner 0.5 mm into the desert's
# (the rounded corners do not meet: no camera sees a contact, no player
# calls it on) and green 0.8 mm over the lamp's long edge. By the default
# rules (any overlap) red and green lie on their cards and blue on none; a
# group that counts 1 mm (10) has green only touching, within the pose
# error of 1 mm and so uncertain. A bad rules file is one line naming the
# file, the line and the value.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

expect_exit 0 "$TEPPICH" render "$D/scenes/corner-contact.json" --out "$T/c.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg"
cat "$T/out"
expect_out "^red takes the palace"
expect_out "^green takes the (magic )?lamp"
expect_out "^The blue carpet lies on no card and goes back"

# a group that counts a corner under 1 mm as touching
printf 'contact_depth_tenths_mm = 10\n' >"$T/mm.rules"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg" --rules "$T/mm.rules"
cat "$T/out"
expect_out "^red takes the palace"
expect_out "^The blue carpet lies on no card and goes back"
expect_out "^The green carpet lies on no card and goes back"
expect_out "^Not sure about the green carpet: it barely touches the (magic )?lamp \(card [0-9]+; 0\.[5-9] mm into it"
grep -q "Not sure about the blue carpet" "$T/out" && fail "blue's rounded corner is more than the pose error from the desert's"
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
