#!/usr/bin/env bash
# The user's own deck: analyze must use the deck folder's faces and sizes,
# not its built-in art. A deck made by make_deck (every face mirrored and
# recoloured, cards 63 x 88 mm) is rendered and analysed with and without
# --deck. The exact comparison with the truth is scene custom-deck
# (todo/ or scenes/); here: the folder's sizes and colours are what is seen.
# usage: test_analyze_deck.sh MAKE_DECK
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision
scene=$D/scenes/custom-deck.json
[ -f "$scene" ] || scene=$D/todo/custom-deck.json

"$1" "$T/mine" --recolour --card 63 88 || fail "make_deck failed"
grep -q '"card_mm": \[63, 88\]' "$T/mine/deck.json" || fail "deck.json lacks the card size"
expect_exit 0 "$TEPPICH" render "$scene" --deck "$T/mine" --out "$T/s.jpg"
cards=$(grep -c '"type":' "$scene")

# side lengths (mm, rounded) of every card in analyze's JSON, one per line
sizes() {
  awk '/"cards":/ {c = 1} /"carpets":/ {c = 0}
       c && /"corners_mm":/ {
         gsub(/[^0-9.,-]/, ""); split($0, v, ",")
         a = sqrt((v[1] - v[3])^2 + (v[2] - v[4])^2)
         b = sqrt((v[3] - v[5])^2 + (v[4] - v[6])^2)
         printf "%.0f x %.0f\n", (a < b ? a : b), (a < b ? b : a) }' "$T/out"
}

# with the deck: cards of the deck's size only (at least as many as the
# scene has: which ones and their types are custom-deck's exact check), and
# both carpets
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --deck "$T/mine" --json
found=$(sizes | wc -l)
n=$(sizes | grep -c '^63 x 88$')
[ "$n" = "$found" ] || fail "with --deck: cards not of 63 x 88 mm: $(sizes | tr '\n' ' ')"
[ "$n" -ge "$cards" ] || fail "with --deck: $n cards found, the scene has $cards"
expect_out '"colour":[[:space:]]*"red"'
expect_out '"colour":[[:space:]]*"blue"'

# without it, the built-in art does not explain these cards: fewer found,
# and none of them of the deck's size
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --json
n=$(sizes | wc -l)
[ "$n" -lt "$cards" ] || fail "the built-in deck found $n cards of a recoloured deck"
sizes | grep -q '^63 x 88$' && fail "the built-in deck saw 63 x 88 mm cards"
finish
