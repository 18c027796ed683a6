#!/usr/bin/env bash
# The rendered demo: `teppich watch --demo` renders the built-in game once
# (into the cache), follows its frames with the whole chain (stillness,
# analysis against the layout reference, controller) and must end with the
# game's true final table, which it compares itself with the renderer's
# transcript (and which is compared here again with `teppich score`).
# Minutes of CPU: runs only with TEPPICH_SLOW_TESTS=1 (else skipped, 77).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
if [ "${TEPPICH_SLOW_TESTS:-}" != 1 ]; then
  echo "skipped: the rendered demo takes minutes (TEPPICH_SLOW_TESTS=1 runs it)"
  exit 77
fi
export TEPPICH_CACHE="${TEPPICH_DEMO_CACHE:-$T/cache}"
expect_exit 0 "$TEPPICH" watch --demo --fast --transcript "$T/demo.txt"
expect_out "Final scores"
expect_out "The same final table as the game's truth"
game=$(ls -d "$TEPPICH_CACHE"/demo-game-* 2>/dev/null | head -1)
[ -s "$game/transcript.txt" ] || fail "no rendered game in the cache"
"$TEPPICH" score "$game/transcript.txt" | sed -n '/Final score/,$p' >"$T/truth.final"
"$TEPPICH" score "$T/demo.txt" | sed -n '/Final score/,$p' >"$T/demo.final"
[ -s "$T/truth.final" ] && cmp -s "$T/truth.final" "$T/demo.final" ||
  fail "the demo's final table is not the truth's"
finish
