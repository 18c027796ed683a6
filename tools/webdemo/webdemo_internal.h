/* webdemo internals: the made-up game, shared by the state and the frame. */
#ifndef TEPPICH_WEBDEMO_INTERNAL_H
#define TEPPICH_WEBDEMO_INTERNAL_H

#include <stdbool.h>

#include "webdemo.h"

enum { WDEMO_PLAYERS = 4, WDEMO_CARDS = 12, WDEMO_SAY = 8 };

typedef struct {
  const char *name, *colour;
  int genies[2];
  int cards, lamps, palaces;
} wdemo__player;

typedef struct {
  int id;
  const char *type;
  double x_mm, y_mm, angle_deg;
  int owner; /* player index, -1 on the table */
} wdemo__card;

typedef struct {
  const char *colour;
  double x_mm, y_mm, angle_deg;
} wdemo__carpet;

struct wdemo {
  wdemo__player players[WDEMO_PLAYERS];
  wdemo__card cards[WDEMO_CARDS];
  wdemo__carpet carpets[WDEMO_PLAYERS];
  int contest_card;          /* index into cards */
  int contest_players[2];
  int winner;                /* -1: waiting for the reveal */
  char say[WDEMO_SAY][160];
  int say_tone[WDEMO_SAY];   /* 0 info, 1 result, 2 contest */
  int n_say;
};

#endif
