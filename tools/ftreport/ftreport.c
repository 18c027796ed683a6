/* ftreport: the text report of a replayed transcript (for people). */
#define _POSIX_C_SOURCE 200809L
#include "ftreport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_KNOWN = 256 };

typedef struct {
  FILE *out;
  const ft_game *game;
  int n_known; /* card id -> type, from the layouts */
  int known_id[MAX_KNOWN];
  ft_card_type known_type[MAX_KNOWN];
} text_ctx;

static const char *player(const text_ctx *c, int p) {
  return ft_game_players(c->game)->players[p].name;
}

static const char *type_of(const text_ctx *c, int id) {
  for (int i = c->n_known - 1; i >= 0; i--)
    if (c->known_id[i] == id) return ft_card_type_name(c->known_type[i]);
  return "card";
}

static void print_cards(text_ctx *c, const int *ids, int n) {
  for (int i = 0; i < n; i++)
    fprintf(c->out, "%s%s %d", i ? ", " : "", type_of(c, ids[i]), ids[i]);
}

static void print_hand(FILE *out, ft_hand h) {
  fputc('(', out);
  for (int i = 0; i < h.n; i++)
    fprintf(out, "%s%d", i ? ", " : "", h.values[i]);
  fputc(')', out);
}

static void on_players(void *ctx) {
  text_ctx *c = ctx;
  const ft_players *ps = ft_game_players(c->game);
  fprintf(c->out, "Players and carpets (seating order, clockwise):");
  for (int p = 0; p < ps->n_players; p++) {
    fprintf(c->out, "%s %s (", p ? "," : "", ps->players[p].name);
    for (int k = 0; k < ps->players[p].n_carpets; k++)
      fprintf(c->out, "%s%s", k ? " and " : "", ps->players[p].carpets[k]);
    fprintf(c->out, ")");
  }
  fprintf(c->out, "\n");
}

static void print_genies(text_ctx *c, const char *title) {
  fprintf(c->out, "%s", title);
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++) {
    fprintf(c->out, "%s %s ", p ? "," : "", player(c, p));
    print_hand(c->out, ft_game_genies(c->game, p));
  }
  fprintf(c->out, "\n");
}

static void on_layout(void *ctx) {
  text_ctx *c = ctx;
  ft_card cards[FT_MAX_CARDS];
  int n = ft_game_table(c->game, cards);
  fprintf(c->out, "\nRound %d of %d: %s lays out %d cards\n",
          ft_game_round(c->game), ft_game_rounds(c->game),
          player(c, ft_game_layer(c->game)), n);
  int col = 2;
  fprintf(c->out, " ");
  for (int i = 0; i < n; i++) {
    if (c->n_known < MAX_KNOWN) {
      c->known_id[c->n_known] = cards[i].id;
      c->known_type[c->n_known++] = cards[i].type;
    }
    char item[64];
    int len = snprintf(item, sizeof item, " %s %d%s",
                       ft_card_type_name(cards[i].type), cards[i].id,
                       i + 1 < n ? "," : "");
    if (col + len > 78) fprintf(c->out, "\n "), col = 2;
    fprintf(c->out, "%s", item);
    col += len;
  }
  fprintf(c->out, "\n");
}

static void on_flight(void *ctx, const ft_flight_report *f) {
  text_ctx *c = ctx;
  fprintf(c->out, "  Flight %d\n", f->flight);
  bool any = false;
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++) {
    if (!f->n_claimed[p]) continue;
    fprintf(c->out, "    %s takes ", player(c, p));
    print_cards(c, f->claimed[p], f->n_claimed[p]);
    fprintf(c->out, "\n");
    any = true;
  }
  for (int i = 0; i < f->n_contests; i++) {
    fprintf(c->out, "    %s %d is contested by",
            type_of(c, f->contests[i].card), f->contests[i].card);
    for (int q = 0; q < f->contests[i].n_players; q++)
      fprintf(c->out, "%s %s",
              q ? (q + 1 == f->contests[i].n_players ? " and" : ",") : "",
              player(c, f->contests[i].players[q]));
    fprintf(c->out, "\n");
    any = true;
  }
  if (f->n_unclaimed) {
    fprintf(c->out, "    stays (two carpets of one player): ");
    print_cards(c, f->unclaimed, f->n_unclaimed);
    fprintf(c->out, "\n");
  }
  if (f->n_returned) {
    fprintf(c->out, "    on no card, back to the owner:");
    for (int i = 0; i < f->n_returned; i++)
      fprintf(c->out, "%s %s", i ? "," : "", f->returned[i]);
    fprintf(c->out, "\n");
  } else if (!any) {
    fprintf(c->out, "    nothing claimed\n");
  }
}

static void on_contest(void *ctx, const ft_contest_result *r) {
  text_ctx *c = ctx;
  fprintf(c->out, "    genies for %s %d:", type_of(c, r->card), r->card);
  bool first = true;
  for (int p = 0; p < ft_game_players(c->game)->n_players; p++)
    if (r->revealed[p]) {
      fprintf(c->out, "%s %s %d", first ? "" : ",", player(c, p),
              r->revealed[p]);
      first = false;
    }
  fprintf(c->out, " -> %s wins it; %s gives genie %d to %s for %d%s\n",
          player(c, r->winner), player(c, r->winner), r->winner_genie,
          player(c, r->lowest), r->lowest_genie,
          r->swap_deferred ? " (after the flight)" : "");
}

static void on_round_end(void *ctx, const ft_round_report *r) {
  text_ctx *c = ctx;
  int n = ft_game_players(c->game)->n_players;
  fprintf(c->out, "  End of round %d, palaces:", r->round);
  for (int p = 0; p < n; p++) {
    fprintf(c->out, "%s %s %d", p ? "," : "", player(c, p), r->palaces[p]);
    if (r->lamps_spent[p])
      fprintf(c->out, " (%d lamp%s)", r->lamps_spent[p],
              r->lamps_spent[p] > 1 ? "s" : "");
  }
  fprintf(c->out, "\n    palace points:");
  bool any = false;
  for (int p = 0; p < n; p++)
    if (r->points[p]) {
      fprintf(c->out, "%s %s %+d", any ? "," : "", player(c, p), r->points[p]);
      any = true;
    }
  fprintf(c->out, "%s\n", any ? "" : " none (a tie)");
  if (r->n_leftovers) {
    fprintf(c->out, "    left on the table and %s: ",
            ft_game_rules(c->game)->leftovers_removed ? "removed"
                                                      : "back in the deck");
    print_cards(c, r->leftovers, r->n_leftovers);
    fprintf(c->out, "\n");
  }
  if (ft_game_phase(c->game) != FT_PHASE_OVER)
    print_genies(c, "    genies now:");
}

static void lamp_note(FILE *out, const ft_score *s) {
  static const char *const kinds[] = {"spice", "carpet", "camel"};
  if (!s->lamps) return;
  const char *sep = " lamps:";
  if (s->lamps_for_desert)
    fprintf(out, "%s %d cancel%s a desert", sep, s->lamps_for_desert,
            s->lamps_for_desert > 1 ? "" : "s"),
        sep = ",";
  for (int k = 0; k < 3; k++)
    if (s->lamps_for_bazaar[k])
      fprintf(out, "%s %d wild %s bazaar", sep, s->lamps_for_bazaar[k],
              kinds[k]),
          sep = ",";
  if (s->lamps_for_adventure)
    fprintf(out, "%s %d wild adventure", sep, s->lamps_for_adventure),
        sep = ",";
  if (s->lamps_unused) fprintf(out, "%s %d unused", sep, s->lamps_unused);
  fprintf(out, ";");
}

static void on_final(void *ctx, const ft_final *f) {
  text_ctx *c = ctx;
  FILE *o = c->out;
  fprintf(o, "\nFinal score\n");
  fprintf(o, "  %-12s %7s %10s %9s %7s %7s %6s\n", "player", "bazaars",
          "adventures", "treasures", "deserts", "palaces", "TOTAL");
  int best = 0;
  for (int p = 0; p < f->n_players; p++) {
    const ft_score *s = &f->scores[p];
    fprintf(o, "  %-12s %7d %10d %9d %7d %7d %6d%s\n", player(c, p),
            s->bazaar_points, s->adventure_points, s->treasure_points,
            s->desert_points, s->palace_points, s->total,
            f->winner[p] ? "  *" : "");
    if (f->winner[p]) best = s->total;
  }
  for (int p = 0; p < f->n_players; p++) {
    const ft_score *s = &f->scores[p];
    fprintf(o, "  %s:", player(c, p));
    fprintf(o, " pairs %d/%d/%d (spice/carpet/camel); adventure sets",
            s->bazaar_pairs[0], s->bazaar_pairs[1], s->bazaar_pairs[2]);
    for (int i = 0; i < s->n_adventure_sets; i++)
      fprintf(o, "%s%d", i ? "+" : " ", s->adventure_set_sizes[i]);
    if (!s->n_adventure_sets) fprintf(o, " none");
    fprintf(o, ";");
    lamp_note(o, s);
    fprintf(o, " %d treasure%s, %d desert%s\n", s->treasures,
            s->treasures == 1 ? "" : "s", s->deserts,
            s->deserts == 1 ? "" : "s");
  }
  if (f->n_winners == 0)
    fprintf(o, "\nNo winner: a tie at the top.\n");
  else {
    fprintf(o, "\n%s", f->n_winners > 1 ? "Shared win:" : "Winner:");
    for (int p = 0, k = 0; p < f->n_players; p++)
      if (f->winner[p])
        fprintf(o, "%s %s", k++ ? (k == f->n_winners ? " and" : ",") : "",
                player(c, p));
    fprintf(o, " with %d points!\n", best);
  }
}

/* An unfinished game: what each collection would score now (palaces of
 * the running round not compared yet). */
static void print_standings(text_ctx *c) {
  const ft_game *g = c->game;
  fprintf(c->out,
          "\nThe game is not finished (round %d of %d, waiting for %s).\n"
          "Standings so far (cards held now plus palace points):\n",
          ft_game_round(g), ft_game_rounds(g), ft_phase_name(ft_game_phase(g)));
  for (int p = 0; p < ft_game_players(g)->n_players; p++) {
    int counts[FT_N_TYPES];
    ft_game_collection(g, p, counts);
    counts[FT_PALACE] = 0;
    ft_score s;
    ft_score_collection(ft_game_rules(g), counts, &s);
    fprintf(c->out, "  %-12s %6d\n", player(c, p),
            s.total + ft_game_palace_points(g, p));
  }
}

static void on_genies(void *ctx) {
  print_genies(ctx, "Genies:");
}

static const ftr__emitter text_emitter = {
    .players = on_players,
    .genies = on_genies,
    .layout = on_layout,
    .flight = on_flight,
    .contest = on_contest,
    .round_end = on_round_end,
    .final = on_final,
};

static tp_status score_text(ft_transcript *t, const char *name, char **out,
                            tp_error *err) {
  size_t size;
  text_ctx c;
  memset(&c, 0, sizeof c);
  c.out = open_memstream(out, &size);
  if (!c.out) return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", name);
  fprintf(c.out, "Fliegende Teppiche: %s\n", name);
  tp_status st = ftr__walk(t, &text_emitter, &c, &c.game, err);
  c.game = ft_transcript_game(t);
  if (st == TP_OK && !c.game)
    fprintf(c.out, "\nThe game is not finished: no players yet.\n");
  else if (st == TP_OK && ft_game_phase(c.game) != FT_PHASE_OVER)
    print_standings(&c);
  fclose(c.out);
  if (st != TP_OK) {
    free(*out);
    *out = NULL;
  }
  return st;
}

tp_status ftr__walk(ft_transcript *t, const ftr__emitter *e, void *ctx,
                    const ft_game **game, tp_error *err) {
  ft_event *ev = malloc(sizeof *ev);
  if (!ev) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  tp_status st;
  while ((st = ft_transcript_next(t, ev, err)) == TP_OK &&
         ev->kind != FT_EV_END) {
    *game = ft_transcript_game(t);
    switch (ev->kind) {
    case FT_EV_PLAYERS:
      e->players(ctx);
      break;
    case FT_EV_GENIES:
      e->genies(ctx);
      break;
    case FT_EV_LAYOUT:
      e->layout(ctx);
      break;
    case FT_EV_FLIGHT:
      e->flight(ctx, &ev->flight);
      break;
    case FT_EV_CONTEST:
      e->contest(ctx, &ev->contest);
      break;
    case FT_EV_ROUND_END:
      e->round_end(ctx, &ev->round_end);
      break;
    case FT_EV_FINAL:
      e->final(ctx, &ev->final);
      break;
    case FT_EV_ROUND:
    case FT_EV_END:
      break;
    }
  }
  free(ev);
  return st;
}

tp_status ftr_score(const ft_rules *rules, const char *name, const char *text,
                    size_t len, ftr_format format, char **out, tp_error *err) {
  *out = NULL;
  ft_transcript *t;
  tp_status st = ft_transcript_open(rules, name, text, len, 0, &t, err);
  if (st != TP_OK) return st;
  st = format == FTR_JSON ? ftr__score_json(t, name, out, err)
                          : score_text(t, name, out, err);
  ft_transcript_close(t);
  return st;
}
