#!/usr/bin/env bash
# A carpet partly under a hand (vision/detect/match.c carpet_under_hand,
# session 47): random hard scene 1900011 (held-out range of session 46),
# the blue carpet on blue cloth with a hand over half of it, 0.60
# explained at its true pose, was missed. The hand test the cards have
# finds it now; the carpet must be reported, within 2 mm of the truth
# (504.5, 320.8 mm), and not sure, with the hand named as the reason.
# usage: test_analyze_carpet_under_hand.sh [MAKE_DECK] (not needed)
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
expect_exit 0 "$TEPPICH" render --random 1900011 --difficulty hard --out "$T/scene.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/scene.jpg" --json
flat=$(tr -d ' \t\n' < "$T/out")
blue=$(grep -o '{[^{}]*"colour":"blue"[^{}]*}' <<< "${flat#*\"carpets\"}" | head -1)
[ -n "$blue" ] || fail "no blue carpet found"
grep -Eq '"center_mm":\[50[3-6]\.[0-9]*,3(19|2[0-2])\.[0-9]*\]' <<< "$blue" ||
  fail "the blue carpet is not within 2 mm of 504.5, 320.8: $blue"
grep -q '"uncertain":true' <<< "$blue" || fail "the blue carpet is not marked uncertain: $blue"
grep -q 'hand' <<< "$blue" || fail "the blue carpet's reason does not name the hand: $blue"
expect_exit 0 "$TEPPICH" eval --seed 1900011 --count 1 --difficulty hard --verbose
expect_out 'carpets 100\.0%'
finish
