#!/usr/bin/env bash
# ctest: one scene of tests/vision/scenes or regress must come out of
# `teppich analyze` exactly as its truth (scene_lib.sh).
# usage: check_scene.sh SCENE.json MAKE_DECK
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
. "$TEPPICH_SOURCE_DIR/tests/vision/scene_lib.sh"
scene_eval "$1" "$2" "$TEPPICH_TMP" >"$TEPPICH_TMP/out"
rc=$?
cat "$TEPPICH_TMP/out"
[ "$rc" = 0 ] || fail "$(basename "$1"): eval exit $rc"
expect_out "exactly right"
finish
