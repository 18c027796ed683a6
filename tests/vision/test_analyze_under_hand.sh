#!/usr/bin/env bash
# A card under a hand (regress scene hard-3009: a lamp, a hand over its
# upper half): found from what the hand leaves, so the reason it is
# uncertain must point at the hand, not at the deck. (Until session 28 the
# summary said "part of it matches no face of the deck ... is its type
# missing from the deck?", which sends the player to the wrong fix.)
# usage: test_analyze_under_hand.sh [MAKE_DECK] (not needed)
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
expect_exit 0 "$TEPPICH" render "$TEPPICH_SOURCE_DIR/tests/vision/regress/hard-3009.json" \
  --out "$T/s.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg"
hand='Not sure about the magic lamp \(card [0-9]+\): a hand or something not from the deck covers ([1-5][0-9]) % of it; its type is told from the rest'
expect_out "$hand"
grep -E "magic lamp.*(type missing from|not in) the deck" "$T/out" &&
  fail "the lamp under the hand is blamed on the deck"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --json
grep -Eq '"reason":[[:space:]]*"a hand or something not from the deck covers [0-9]+ % of it' "$T/out" ||
  fail "the JSON gives no hand as the reason"
# only that one card is under the hand
[ "$(grep -c 'a hand or something' "$T/out")" = 1 ] || fail "more than one card under a hand"
# A "hand" that is carpets not accepted yet (regress scene hard-3797, no
# hand in the scene: an adventure c 76 % visible under the blue, red and
# yellow carpets): the card waits for the carpets (match.c pick_winner)
# and is then a clean card, with no hand (until session 39: "a hand or
# something not from the deck covers 33 % of it").
expect_exit 0 "$TEPPICH" render "$TEPPICH_SOURCE_DIR/tests/vision/regress/hard-3797.json" \
  --out "$T/c.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/c.jpg"
grep -q 'a hand or something' "$T/out" && fail "hard-3797: carpets taken for a hand"
finish
