#!/usr/bin/env bash
# The rendered demo: `teppich watch --demo` renders the built-in game once
# (into the cache), follows its frames with the whole chain (stillness,
# analysis against the layout reference, controller) and must end with the
# game's true final table, which it compares itself with the renderer's
# transcript (and which is compared here again with `teppich score`).
# About 2 minutes of CPU (render ~60 s, two replays ~25 s each): runs in
# every normal build; skipped (77) under ASan+UBSan, which makes it 10-20 times slower
# (TEPPICH_SLOW_TESTS=1 runs it there too).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
if [ "${TEPPICH_SANITIZED:-OFF}" = ON ] && [ "${TEPPICH_SLOW_TESTS:-}" != 1 ]; then
  echo "skipped: sanitizer build: rendering and replaying the demo would take" \
       "tens of minutes here (the normal builds run it; TEPPICH_SLOW_TESTS=1 forces it)"
  exit 77
fi
export TEPPICH_CACHE="${TEPPICH_DEMO_CACHE:-$T/cache}"
expect_exit 0 "$TEPPICH" watch --demo --fast --transcript "$T/demo.txt"
expect_out "Final scores"
expect_out "The same final table as the game's truth"
# --incremental (the game is cached now: ~25 s of CPU more): the landings
# after a flight's first are analysed against the frame decided before
# them, and the game still ends with the truth's table
expect_exit 0 "$TEPPICH" watch --demo --fast --incremental --stats
expect_out "The same final table as the game's truth"
expect_err "against the last decided frame [0-9.]+ ms \([1-9][0-9]*\)"
expect_err "taking a decided frame [0-9.]+ ms \([1-9][0-9]*\)"
game=$(ls -d "$TEPPICH_CACHE"/demo-game-* 2>/dev/null | head -1)
[ -s "$game/transcript.txt" ] || fail "no rendered game in the cache"
"$TEPPICH" score "$game/transcript.txt" | sed -n '/Final score/,$p' >"$T/truth.final"
"$TEPPICH" score "$T/demo.txt" | sed -n '/Final score/,$p' >"$T/demo.final"
[ -s "$T/truth.final" ] && cmp -s "$T/truth.final" "$T/demo.final" ||
  fail "the demo's final table is not the truth's"
finish
