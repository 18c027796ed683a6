# Helpers for end-to-end tests of the real teppich binary. Source it.
# Environment from ctest: TEPPICH (binary), TEPPICH_SOURCE_DIR, TEPPICH_TMP.
set -u
: "${TEPPICH:?run through ctest}"
rm -rf "$TEPPICH_TMP" && mkdir -p "$TEPPICH_TMP"
e2e_failures=0

fail() { echo "FAIL: $*" >&2; e2e_failures=$((e2e_failures + 1)); }

# expect_exit CODE CMD...: runs CMD, keeps stdout/stderr in $TEPPICH_TMP/out
# and err, checks the exit status.
expect_exit() {
  local want=$1; shift
  "$@" >"$TEPPICH_TMP/out" 2>"$TEPPICH_TMP/err" </dev/null
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got, expected $want: $*"
    sed 's/^/  stderr: /' "$TEPPICH_TMP/err" | head -5 >&2
  fi
}

# expect_out PATTERN / expect_err PATTERN: grep -E in the last output.
expect_out() { grep -Eq -- "$1" "$TEPPICH_TMP/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$TEPPICH_TMP/err" || fail "stderr lacks /$1/"; }
# expect_one_line_err: errors are one line (spec section 5).
expect_one_line_err() {
  local n; n=$(wc -l <"$TEPPICH_TMP/err")
  [ "$n" = 1 ] || fail "stderr has $n lines, expected 1"
}

finish() {
  if [ "$e2e_failures" -ne 0 ]; then echo "$e2e_failures check(s) failed"; exit 1; fi
  echo "all checks passed"
}
