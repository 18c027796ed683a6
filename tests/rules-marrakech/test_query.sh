#!/usr/bin/env bash
# `teppich marrakech query` through the real binary: the answers of the
# protocol, errors that do not stop it, answers flushed one by one for an
# interactive script, and the benchmark.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

# answers, in order, one per line (multi-line answers end in end/winner)
cat >"$T/in" <<'Q'
assam 0 0 N
move 4
assam 6 0 N
move 1
assam 3 3 E
move 4
rotate E
rotate S
player anna red 30 12 in
player ben blue 0 12 in
turn anna
board . . . . . . . . . . . . . . . . . . . . . . . . blue:1 blue:1 . . . . . . . . . . . . . . . . . . . . . . .
assam 3 2 S
legal 3 2 2 2
legal 4 2 5 2
legal 3 3 4 3
legal 3 0 2 0
legal 4 4 4 6
legal 9 9 9 8
place blue 5 2 4 2
place red 4 2 5 2
legal-all
payment
move 1
payment
turn ben
assam 4 2 N
payment
players
payment
players
score
nonsense here
reset
players
Q
cat >"$T/want" <<'A'
ok
1 3 S
ok
6 0 W
ok
6 4 W
error: Assam may not turn 180 degrees (only on the first turn)
6 4 S
ok
ok
ok
ok
ok
no on-assam
yes
no covers-one-whole-rug
no not-next-to-assam
no not-two-neighbouring-squares
no off-board
no wrong-player
ok
3 0 3 1
2 1 3 1
2 1 2 2
3 1 4 1
4 1 4 2
1 2 2 2
2 2 2 3
4 2 4 3
2 3 3 3
3 3 3 4
end
none
3 3 S
anna ben 2
ok
ok
ben anna 2
anna red 30 11 in
ben blue 0 12 in
end
ben anna 0
anna red 30 11 in
ben blue 0 12 out
end
anna 30 2 32
ben 0 2 2
winner anna
error: unknown command 'nonsense'
ok
end
A
"$TEPPICH" marrakech query <"$T/in" >"$T/got" 2>"$T/err" || fail "query exited $?"
diff "$T/want" "$T/got" >"$T/diff" || { fail "query answers differ"; cat "$T/diff" >&2; }
[ -s "$T/err" ] && fail "query wrote to stderr"

# an interactive script gets each answer before it sends the next line
coproc Q { "$TEPPICH" marrakech query; }
qpid=$Q_PID
echo "assam 0 1 W" >&"${Q[1]}"
read -r -t 10 a <&"${Q[0]}" || fail "no answer within 10 s (not flushed?)"
[ "$a" = ok ] || fail "interactive answer '$a'"
echo "move 2" >&"${Q[1]}"
read -r -t 10 a <&"${Q[0]}" || fail "no second answer"
[ "$a" = "1 0 E" ] || fail "interactive move answered '$a'"
echo "bad" >&"${Q[1]}"
read -r -t 10 a <&"${Q[0]}"
[ "${a#error: }" != "$a" ] || fail "interactive error answered '$a'"
eval "exec ${Q[1]}>&-"
wait "$qpid" || fail "interactive query exited $?"

# a last line without a newline is answered too; an over-long line once
printf 'assam 2 2 N' | "$TEPPICH" marrakech query >"$T/got"
[ "$(cat "$T/got")" = ok ] || fail "unterminated line: $(cat "$T/got")"
{ head -c 200000 /dev/zero | tr '\0' a; printf '\nassam\n'; } |
  "$TEPPICH" marrakech query >"$T/got"
[ "$(wc -l <"$T/got")" = 2 ] && grep -q '^error: line too long' "$T/got" &&
  grep -q '^3 3 N$' "$T/got" || fail "long line: $(head -c 200 "$T/got")"

# random bytes: every line answered, nothing else, no crash
head -c 30000 /dev/urandom >"$T/noise"
"$TEPPICH" marrakech query <"$T/noise" >"$T/got" 2>"$T/err" || fail "noise: exit $?"
[ -s "$T/err" ] && fail "noise: stderr $(head -c 200 "$T/err")"
want=$(tr -cd '\n' <"$T/noise" | wc -c)
[ "$(wc -l <"$T/got")" -ge "$want" ] || fail "noise: fewer answers than lines"

# usage errors: exit 2, one line
expect_exit 0 "$TEPPICH" marrakech query --help
expect_out 'teppich marrakech query'
expect_exit 2 "$TEPPICH" marrakech query --bogus
expect_one_line_err
expect_exit 2 "$TEPPICH" marrakech query --rules "$T/none.rules"
expect_err 'none.rules'
expect_one_line_err
printf 'cover_own_rug = maybe\n' >"$T/bad.rules"
expect_exit 2 "$TEPPICH" marrakech query --rules "$T/bad.rules"
expect_err 'bad.rules'
expect_one_line_err
expect_exit 2 "$TEPPICH" marrakech

# with cover_own_rug = yes, anna may cover her own rug
printf 'cover_own_rug = yes\n' >"$T/bga.rules"
printf 'player anna red 30 12 in\nturn anna\nboard %s\nlegal 3 2 4 2\n' \
  "$(printf '. %.0s' $(seq 1 17)) red:1 red:1 $(printf '. %.0s' $(seq 1 30))" \
  >"$T/in"
"$TEPPICH" marrakech query --rules "$T/bga.rules" <"$T/in" | tail -1 >"$T/got"
[ "$(cat "$T/got")" = yes ] || fail "cover_own_rug=yes: $(cat "$T/got")"
"$TEPPICH" marrakech query <"$T/in" | tail -1 >"$T/got"
[ "$(cat "$T/got")" = "no covers-one-whole-rug" ] || fail "default: $(cat "$T/got")"

# the benchmark runs; it exits 1 if any query of its stream was an error
expect_exit 0 "$TEPPICH" marrakech bench --queries 5000
expect_out '^marrakech query bench: 50[0-9]{2} queries .* queries/s .* 0 errors$'
finish
