#!/usr/bin/env bash
# teppich eval counts apart the scenes where every card shows 5 % or more
# (tools/commands-cv/eval.c every_card_shows): a card a carpet hides all
# but a sliver of cannot be told from a still photo, so the claims right
# among the others are what a photo can be asked.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"

# tuning easy 3050: its palace shows 4 % under the blue and green carpets;
# 3051: every card shows 8 % or more. Only 3051 is counted; whether its
# claims come out right is the analysis' business, not this test's.
expect_exit 0 "$TEPPICH" eval --seed 3050 --count 2 --difficulty easy --threads 1
expect_out "^easy +2 scenes"
expect_out "where every card shows 5 % or more: claims right in [01] of 1 scenes"
finish
