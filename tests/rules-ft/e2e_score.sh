#!/usr/bin/env bash
# End-to-end: `teppich score` on the shipped example games, on changed
# rules, and on bad transcripts and rules files (exit 2, one clear line).
# Each run of the binary is slow under ASan, so every kind of error is
# here once; the unit tests (test_transcript, test_resolve) cover them all.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
ex=$TEPPICH_SOURCE_DIR/examples
T=$TEPPICH_TMP

# The 2-player example, totals computed by hand (see examples/game-2p.txt):
# anna: carpet pair 6, {C,D,E}+{C} 7, 2 treasures 6, 3 deserts -15,
#       palaces +5-5-5+5 = 0 -> 4
# ben:  spice 5 + camel 7 + carpet 6 (lamp), {A,B,D,E}+{A,B,E} 16,
#       treasure 3, desert -5, palaces -5+5+5-5 = 0 -> 32
expect_exit 0 "$TEPPICH" score "$ex/game-2p.txt"
expect_out '^  anna +6 +7 +6 +-15 +0 +4$'
expect_out '^  ben +18 +16 +3 +-5 +0 +32  \*$'
expect_out '^Winner: ben with 32 points!$'
expect_out 'genies for palace 19: anna 3, ben 8 -> ben wins it; ben gives genie 8 to anna for 3'
expect_out 'End of round 1, palaces: anna 2 \(1 lamp\), ben 0'
expect_out 'lamps: 1 wild carpet bazaar'
expect_exit 0 "$TEPPICH" score "$ex/game-2p.txt" --json
tr -d ' \t\n' <"$T/out" >"$T/flat"
grep -q '"totals":{"anna":4,"ben":32},"winners":\["ben"\]' "$T/flat" || fail "json totals"
grep -q '"finished":true' "$T/flat" || fail "json finished"
grep -q '"reveals":{"anna":3,"ben":8},"winner":"ben"' "$T/flat" || fail "json contest"

# Changed rules change the score: deserts cost nothing.
printf 'desert = 0   # kinder deserts\n' >"$T/kind.rules"
expect_exit 0 "$TEPPICH" score "$ex/game-2p.txt" --rules "$T/kind.rules"
expect_out '^  anna +6 +7 +6 +0 +0 +19$'

# The 4-player example and a shared win.
expect_exit 0 "$TEPPICH" score "$ex/game-4p.txt"
expect_out '^Final score$'
expect_out '^Winner: cleo with 13 points!$'
expect_out 'is contested by .*, .* and '
expect_exit 0 "$TEPPICH" score "$TEPPICH_SOURCE_DIR/tests/rules-ft/data/shared-win.txt"
expect_out '^Shared win: anna and cleo with 11 points!$'

# An unfinished game is scored so far.
head -n 20 "$ex/game-4p.txt" >"$T/part.txt"
expect_exit 0 "$TEPPICH" score "$T/part.txt"
expect_out 'The game is not finished \(round 2 of 4, waiting for flight\)'
expect_out '^Standings so far'
expect_out '^  ben +-?[0-9]+$'

# Bad transcripts: exit 2, one line naming the file and the line.
bad() { # bad NAME LINE-REGEX: the file $T/NAME must fail like that
  expect_exit 2 "$TEPPICH" score "$T/$1"
  expect_err "^teppich: $T/$1: line $2"
  expect_one_line_err
  [ -s "$T/out" ] && fail "$1: output despite the error"
}
sed 's/^reveal 19 anna=3 ben=8$/reveal 19 anna=6 ben=8/' "$ex/game-2p.txt" >"$T/genie.txt"
bad genie.txt '[0-9]+: anna does not hold genie 6'
awk '/^reveal 19 /{print; print; next} {print}' "$ex/game-2p.txt" >"$T/twice.txt"
bad twice.txt '[0-9]+: no contest is waiting: card 19 was already settled'
sed 's/^flight blue=14 /flight blue=99 /' "$ex/game-2p.txt" >"$T/card.txt"
bad card.txt '[0-9]+: carpet blue lies on card 99, which is not on the table'
sed 's/^flight blue=14 /flight purple=14 /' "$ex/game-2p.txt" >"$T/carpet.txt"
bad carpet.txt "[0-9]+: carpet 'purple' does not exist"
sed 's/^teppich-transcript 1/teppich-transcript 9/' "$ex/game-2p.txt" >"$T/version.txt"
bad version.txt "5: not a teppich transcript"
sed '/^reveal /d' "$ex/game-2p.txt" >"$T/noreveal.txt"
bad noreveal.txt '[0-9]+: a flight is not possible now: the game waits for the genies of the contest for card 1'
printf 'teppich-transcript 1\nplayers anna=red,ben=blue,cleo=green\ngenies anna=8,3 ben=7,4 cleo=6,5\nlayout 1=pal' >"$T/cut.txt"
bad cut.txt "4: card 1: unknown type 'pal'"

expect_exit 2 "$TEPPICH" score "$T/does-not-exist.txt"
expect_err "does-not-exist.txt: cannot open"
expect_one_line_err

# Bad rules files: exit 2 naming file, line and value.
printf '# mine\npalace_most = lots\n' >"$T/bad1.rules"
expect_exit 2 "$TEPPICH" score "$ex/game-2p.txt" --rules "$T/bad1.rules"
expect_err "bad1.rules: line 2: palace_most = 'lots': expected an integer"
expect_one_line_err
printf 'genies_3p_b = 8, 4\n' >"$T/bad4.rules"
expect_exit 2 "$TEPPICH" score "$ex/game-2p.txt" --rules "$T/bad4.rules"
expect_err "bad4.rules: line 1: genies_3p_b: genie 8 is also in genies_3p_a"
expect_exit 2 "$TEPPICH" score "$ex/game-2p.txt" --rules "$T/none.rules"
expect_err "none.rules: cannot open"

# Usage.
expect_exit 0 "$TEPPICH" score --help
expect_out 'usage: teppich score FILE'
expect_exit 2 "$TEPPICH" score
expect_one_line_err
expect_exit 2 "$TEPPICH" score "$ex/game-2p.txt" --frobnicate
expect_err "unknown option '--frobnicate'"
finish
