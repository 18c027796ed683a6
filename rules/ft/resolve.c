/* ft resolve: claims, contests and returned carpets of one flight, from
 * "carpet C lies on cards {...}" alone (spec section 4). Stateless. */
#include "ft.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int n_players;
  const char *players[FT_MAX_PLAYERS]; /* sorted by name */
  unsigned on_card[FT_MAX_CARDS];      /* bit p: player p lies on it */
  int carpets_on_card[FT_MAX_CARDS][FT_MAX_PLAYERS];
} resolve_work;

static tp_status check_carpet(const ft_carpet_on *c, int index, int n_cards,
                              tp_error *err) {
  if (!c->colour || !*c->colour || !c->player || !*c->player)
    return tp_error_set(err, TP_ERR_INVALID,
                        "carpet %d has no colour or no player", index);
  if (strlen(c->colour) >= FT_NAME_MAX || strlen(c->player) >= FT_NAME_MAX)
    return tp_error_set(err, TP_ERR_INVALID,
                        "carpet '%.40s' of '%.40s': name longer than %d",
                        c->colour, c->player, FT_NAME_MAX - 1);
  if (c->n_on_cards < 0 || (c->n_on_cards > 0 && !c->on_cards))
    return tp_error_set(err, TP_ERR_INVALID, "carpet %s: bad card list",
                        c->colour);
  for (int i = 0; i < c->n_on_cards; i++)
    if (c->on_cards[i] < 0 || c->on_cards[i] >= n_cards)
      return tp_error_set(err, TP_ERR_INVALID,
                          "carpet %s lies on card %d, but the cards are "
                          "numbered 0..%d",
                          c->colour, c->on_cards[i], n_cards - 1);
  return TP_OK;
}

static int find_player(const resolve_work *w, const char *name) {
  for (int p = 0; p < w->n_players; p++)
    if (!strcmp(w->players[p], name)) return p;
  return -1;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static tp_status collect_players(const ft_carpet_on *carpets, int n,
                                 resolve_work *w, tp_error *err) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++)
      if (!strcmp(carpets[j].colour, carpets[i].colour))
        return tp_error_set(err, TP_ERR_INVALID, "carpet '%s' is given twice",
                            carpets[i].colour);
    if (find_player(w, carpets[i].player) >= 0) continue;
    if (w->n_players == FT_MAX_PLAYERS)
      return tp_error_set(err, TP_ERR_INVALID, "more than %d players",
                          FT_MAX_PLAYERS);
    w->players[w->n_players++] = carpets[i].player;
  }
  qsort(w->players, (size_t)w->n_players, sizeof w->players[0], cmp_str);
  return TP_OK;
}

static tp_status check_input(const ft_carpet_on *carpets, int n_carpets,
                             int n_cards, resolve_work *w, tp_error *err) {
  if (n_carpets < 0 || n_carpets > FT_MAX_CARPETS || (n_carpets && !carpets))
    return tp_error_set(err, TP_ERR_INVALID,
                        "%d carpets: at most %d can be resolved", n_carpets,
                        FT_MAX_CARPETS);
  if (n_cards < 0 || n_cards > FT_MAX_CARDS)
    return tp_error_set(err, TP_ERR_INVALID,
                        "%d cards: at most %d can be resolved", n_cards,
                        FT_MAX_CARDS);
  for (int i = 0; i < n_carpets; i++) {
    tp_status st = check_carpet(&carpets[i], i, n_cards, err);
    if (st != TP_OK) return st;
  }
  return collect_players(carpets, n_carpets, w, err);
}

static void mark_cards(const ft_carpet_on *carpets, int n_carpets,
                       resolve_work *w) {
  for (int i = 0; i < n_carpets; i++) {
    int p = find_player(w, carpets[i].player);
    for (int k = 0; k < carpets[i].n_on_cards; k++) {
      int card = carpets[i].on_cards[k];
      bool dup = false;
      for (int j = 0; j < k; j++)
        dup = dup || carpets[i].on_cards[j] == card;
      if (dup) continue;
      w->on_card[card] |= 1u << p;
      w->carpets_on_card[card][p]++;
    }
  }
}

static int popcount(unsigned x) {
  int n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}

static void add_claim(ft_resolution *out, const char *player, int card) {
  ft_claim *c = NULL;
  for (int i = 0; i < out->n_claims; i++)
    if (!strcmp(out->claims[i].player, player)) c = &out->claims[i];
  if (!c) {
    c = &out->claims[out->n_claims++];
    strcpy(c->player, player);
  }
  c->cards[c->n_cards++] = card;
}

static void add_contest(ft_resolution *out, const resolve_work *w, int card) {
  ft_contest *c = &out->contests[out->n_contests++];
  c->card = card;
  for (int p = 0; p < w->n_players; p++)
    if (w->on_card[card] & (1u << p))
      strcpy(c->players[c->n_players++], w->players[p]);
}

static void settle_card(const ft_rules *rules, const resolve_work *w, int card,
                        ft_resolution *out) {
  unsigned mask = w->on_card[card];
  if (popcount(mask) >= 2) {
    add_contest(out, w, card);
    return;
  }
  int p = 0;
  while (!(mask & (1u << p)))
    p++;
  if (rules->same_player == FT_SAME_PLAYER_VOID &&
      w->carpets_on_card[card][p] >= 2)
    out->unclaimed[out->n_unclaimed++] = card;
  else
    add_claim(out, w->players[p], card);
}

static int cmp_claim(const void *a, const void *b) {
  return strcmp(((const ft_claim *)a)->player, ((const ft_claim *)b)->player);
}

static int cmp_name(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

static void reverse_contests(ft_resolution *out) {
  for (int i = 0, j = out->n_contests - 1; i < j; i++, j--) {
    ft_contest t = out->contests[i];
    out->contests[i] = out->contests[j];
    out->contests[j] = t;
  }
}

tp_status ft_resolve(const ft_rules *rules, const ft_carpet_on *carpets,
                     int n_carpets, int n_cards, ft_resolution *out,
                     tp_error *err) {
  memset(out, 0, sizeof *out);
  ft_rules defaults;
  if (!rules) {
    ft_rules_default(&defaults);
    rules = &defaults;
  }
  resolve_work *w = calloc(1, sizeof *w);
  if (!w) return tp_error_set(err, TP_ERR_NOMEM, "resolve: out of memory");
  tp_status st = check_input(carpets, n_carpets, n_cards, w, err);
  if (st == TP_OK) {
    mark_cards(carpets, n_carpets, w);
    for (int card = 0; card < n_cards; card++)
      if (w->on_card[card]) settle_card(rules, w, card, out);
    qsort(out->claims, (size_t)out->n_claims, sizeof out->claims[0], cmp_claim);
    if (rules->contest_order == FT_CONTEST_REVERSE_ORDER) reverse_contests(out);
    for (int i = 0; i < n_carpets; i++)
      if (carpets[i].n_on_cards == 0)
        strcpy(out->returned[out->n_returned++], carpets[i].colour);
    qsort(out->returned, (size_t)out->n_returned, FT_NAME_MAX, cmp_name);
  }
  free(w);
  return st;
}
