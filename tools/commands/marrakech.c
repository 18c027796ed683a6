/* teppich marrakech: the Marrakech rules core on the command line.
 *   query   the line protocol on stdin/stdout (docs/marrakech.md)
 *   score   replay a game transcript, print payments and scores
 *   play    write the transcript of a random legal game (seeded)
 *   bench   how many queries per second the protocol answers */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core.h"
#include "ft.h" /* ft_players_parse: the shared --players spec */
#include "marrakech.h"

static const char usage[] =
    "usage: teppich marrakech query [--rules FILE] [--seed N]\n"
    "       teppich marrakech score FILE [--board] [--rules FILE]\n"
    "       teppich marrakech play [--players anna=red,ben=blue] [--seed N]\n"
    "                              [--rules FILE] [--out FILE]\n"
    "       teppich marrakech bench [--queries N] [--seed N] [--emit]\n\n"
    "The Marrakech rules core (docs/marrakech.md).\n"
    "  query  answers one command line with one answer (board, assam, player,\n"
    "         turn, move, rotate, payment, legal, legal-all, place, score,\n"
    "         reset, ...); errors are answered `error: <reason>`\n"
    "  score  replays a transcript: payments, boards (--board: after every\n"
    "         turn), final scores and winners; a bad line: exit 2\n"
    "  play   plays a random legal game and writes its transcript\n"
    "  bench  times the query protocol in-process and prints queries/s;\n"
    "         --emit prints the query stream instead (for piping)\n"
    "  --rules FILE  settings (default: the printed rules, as in\n"
    "                rules/marrakech.rules)\n";

/* Options shared by the sub-commands; each takes the ones it knows. */
typedef struct {
  const char *rules, *players, *out, *file;
  unsigned long long seed;
  long queries;
  bool board, emit;
} options;

static int parse_options(int argc, char **argv, const char *allowed,
                         options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    long v;
    if (a[0] != '-') {
      if (!strchr(allowed, 'F') || o->file)
        return cli_fail(2, "marrakech %s: unexpected argument '%s'", argv[0],
                        a);
      o->file = a;
    } else if (!strcmp(a, "--rules") && strchr(allowed, 'r') && has_value) {
      o->rules = argv[++i];
    } else if (!strcmp(a, "--players") && strchr(allowed, 'p') && has_value) {
      o->players = argv[++i];
    } else if (!strcmp(a, "--out") && strchr(allowed, 'o') && has_value) {
      o->out = argv[++i];
    } else if (!strcmp(a, "--seed") && strchr(allowed, 's') && has_value) {
      if (!cli_parse_long(argv[++i], 0, 2147483647L, &v))
        return cli_fail(2, "--seed '%s': a whole number 0..2147483647",
                        argv[i]);
      o->seed = (unsigned long long)v;
    } else if (!strcmp(a, "--queries") && strchr(allowed, 'q') && has_value) {
      if (!cli_parse_long(argv[++i], 1, 100000000L, &v))
        return cli_fail(2, "--queries '%s': a whole number 1..100000000",
                        argv[i]);
      o->queries = v;
    } else if (!strcmp(a, "--board") && strchr(allowed, 'b')) {
      o->board = true;
    } else if (!strcmp(a, "--emit") && strchr(allowed, 'e')) {
      o->emit = true;
    } else {
      return cli_fail(2,
                      "marrakech %s: unknown or incomplete option '%s' "
                      "(see teppich marrakech --help)",
                      argv[0], a);
    }
  }
  return 0;
}

static int load_settings(const options *o, mk_settings *s) {
  mk_settings_default(s);
  tp_error err;
  if (o->rules && mk_settings_load(s, o->rules, &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  return 0;
}

/* ---- query ------------------------------------------------------------- */

/* Reads stdin in large blocks and answers every complete line; output is
 * flushed whenever no further input is waiting, i.e. before every read
 * that could block, so an interactive script always gets its answer while
 * a pipe of many queries is not slowed down by one write per answer. */
static int run_query(int argc, char **argv) {
  options o = {0};
  mk_settings s;
  int rc = parse_options(argc, argv, "rs", &o);
  if (rc || (rc = load_settings(&o, &s))) return rc;
  mk_query *q = mk_query_create(&s, o.seed);
  if (!q) return cli_fail(1, "marrakech query: out of memory");
  enum { IN_MAX = 1 << 16 };
  char *in = malloc(IN_MAX + 1);
  char answer[MK_QUERY_ANSWER_MAX];
  size_t len = 0;
  bool skipping = false; /* inside an over-long line: drop it to its end */
  for (;;) {
    if (fflush(stdout)) break;
    ssize_t n = in ? read(STDIN_FILENO, in + len, IN_MAX - len) : -1;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
    size_t start = 0;
    for (char *nl; (nl = memchr(in + start, '\n', len - start));) {
      *nl = '\0';
      if (skipping)
        skipping = false;
      else
        fwrite(answer, 1, mk_query_line(q, in + start, answer), stdout);
      start = (size_t)(nl - in) + 1;
    }
    memmove(in, in + start, len - start);
    len -= start;
    if (len == IN_MAX) { /* one line fills the buffer: answer it once */
      if (!skipping) fputs("error: line too long\n", stdout);
      skipping = true;
      len = 0;
    }
  }
  if (len > 0 && !skipping) { /* a last line without newline */
    in[len] = '\0';
    fwrite(answer, 1, mk_query_line(q, in, answer), stdout);
  }
  fflush(stdout);
  free(in);
  mk_query_destroy(q);
  return 0;
}

/* ---- score ------------------------------------------------------------- */

typedef struct {
  char *text;
  size_t len, cap;
} text_buf;

static void collect(void *ctx, const char *line) {
  text_buf *b = ctx;
  size_t n = strlen(line);
  if (b->len + n + 2 > b->cap) {
    size_t cap = (b->cap + n + 2) * 2;
    char *bigger = realloc(b->text, cap);
    if (!bigger) return; /* out of memory: the line is lost, not the rest */
    b->text = bigger;
    b->cap = cap;
  }
  memcpy(b->text + b->len, line, n);
  b->len += n;
  b->text[b->len++] = '\n';
  b->text[b->len] = '\0';
}

static int run_score(int argc, char **argv) {
  options o = {0};
  mk_settings s;
  int rc = parse_options(argc, argv, "Frb", &o);
  if (rc || (rc = load_settings(&o, &s))) return rc;
  if (!o.file)
    return cli_fail(2, "marrakech score: which transcript? (teppich "
                       "marrakech score FILE)");
  char *text;
  tp_error err;
  if (tp_read_file(o.file, 4u << 20, &text, NULL, &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  /* Printed only when the whole transcript replays: a bad line gives one
   * error line and no half report. */
  text_buf out = {0};
  mk_replay_options ro = {o.board};
  tp_status st = mk_transcript_replay(text, &s, &ro, collect, &out, &err);
  free(text);
  if (st == TP_OK && out.text) fputs(out.text, stdout);
  free(out.text);
  if (st != TP_OK) return cli_fail(2, "%s: %s", o.file, err.text);
  return 0;
}

/* ---- play -------------------------------------------------------------- */

/* "anna=red,ben=blue+green": the `--players` spec of the whole command
 * line (spec sections 4 and 6), read by the parser Fliegende Teppiche
 * uses too, then seated in a fresh game. */
static int add_players(mk_game *g, const char *spec) {
  ft_players players;
  tp_error err;
  if (ft_players_parse(spec, &players, &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  for (int i = 0; i < players.n_players; i++) {
    const ft_player *p = &players.players[i];
    char colours[2 * FT_NAME_MAX + 8] = "";
    for (int k = 0; k < p->n_carpets && k < 3; k++)
      snprintf(colours + strlen(colours), sizeof colours - strlen(colours),
               "%s%s", k ? "+" : "", p->carpets[k]);
    const int rugs[2] = {0, 0};
    if (mk_game_set_player(g, p->name, colours, 0, rugs, true, &err) != TP_OK)
      return cli_fail(2, "--players: %s", err.text);
  }
  if (mk_game_deal(g, &err) != TP_OK)
    return cli_fail(2, "--players: %s", err.text);
  return 0;
}

static int run_play(int argc, char **argv) {
  options o = {0};
  mk_settings s;
  int rc = parse_options(argc, argv, "rpso", &o);
  if (rc || (rc = load_settings(&o, &s))) return rc;
  mk_game *g = mk_game_create(&s, o.seed);
  if (!g) return cli_fail(1, "marrakech play: out of memory");
  rc = add_players(g, o.players ? o.players : "anna=red,ben=blue,cleo=green");
  text_buf out = {0};
  char line[256];
  if (!rc) {
    snprintf(line, sizeof line,
             "# a random legal game: teppich marrakech "
             "play --players %s --seed %llu",
             o.players ? o.players : "anna=red,ben=blue,cleo=green", o.seed);
    collect(&out, line);
    for (int i = 0; i < mk_game_player_count(g); i++) {
      const mk_player *p = mk_game_player(g, i);
      snprintf(line, sizeof line, "player %s %s%s%s", p->name,
               mk_game_colour_name(g, p->colours[0]),
               p->colour_count == 2 ? "+" : "",
               p->colour_count == 2 ? mk_game_colour_name(g, p->colours[1])
                                    : "");
      collect(&out, line);
    }
    tp_rng rng;
    tp_rng_seed(&rng, o.seed ^ 0x5eed);
    mk_game_next_turn(g);
    mk_turn_record t;
    while (mk_game_play_random_turn(g, &rng, &t))
      if (mk_transcript_format_turn(g, &t, line, sizeof line))
        collect(&out, line);
  }
  mk_game_destroy(g);
  if (!rc && !out.text) rc = cli_fail(1, "marrakech play: out of memory");
  if (!rc && o.out) {
    tp_error err;
    if (tp_write_file_atomic(o.out, out.text, out.len, &err) != TP_OK)
      rc = cli_fail(2, "%s", err.text);
  } else if (!rc) {
    fputs(out.text, stdout);
  }
  free(out.text);
  return rc;
}

/* ---- bench ------------------------------------------------------------- */

/* A realistic stream of queries: whole random games as a bot would drive
 * them (turn, rotate, move, payment, legal, legal-all, place, score),
 * mirrored on a local game so that every query is meaningful. */
static void emit_query(text_buf *b, long *count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void emit_query(text_buf *b, long *count, const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  collect(b, line);
  (*count)++;
}

static void bench_new_game(mk_game *g, text_buf *b, long *count) {
  static const char *setup[] = {
      "reset", "player anna red 30 12 in", "player ben blue 30 12 in",
      "player cleo green 30 12 in", "player dirk yellow 30 12 in"};
  mk_game_reset(g);
  for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++)
    emit_query(b, count, "%s", setup[i]);
  const char *names[] = {"anna", "ben", "cleo", "dirk"};
  const char *colours[] = {"red", "blue", "green", "yellow"};
  for (int i = 0; i < 4; i++) {
    const int rugs[2] = {12, 0};
    mk_game_set_player(g, names[i], colours[i], 30, rugs, true, NULL);
  }
  mk_game_next_turn(g);
}

static void bench_turn(mk_game *g, tp_rng *rng, text_buf *b, long *count) {
  static const char *rot[] = {"none", "left", "right"};
  const mk_player *p = mk_game_player(g, mk_game_turn(g));
  emit_query(b, count, "turn %s", p->name);
  mk_rotation r = (mk_rotation)tp_rng_below(rng, 3);
  mk_game_rotate(g, r);
  emit_query(b, count, "rotate %s", rot[r]);
  int roll = (int)tp_rng_below(rng, 4) + 1;
  mk_game_move(g, roll);
  emit_query(b, count, "move %d", roll);
  mk_payment pay = mk_game_pay(g);
  emit_query(b, count, "payment");
  emit_query(b, count, "legal %d %d %d %d", (int)tp_rng_below(rng, 7),
             (int)tp_rng_below(rng, 7), (int)tp_rng_below(rng, 7),
             (int)tp_rng_below(rng, 7));
  emit_query(b, count, "legal-all");
  mk_placement legal[MK_MAX_PLACEMENTS];
  int n = pay.eliminated ? 0 : mk_game_legal_placements(g, legal);
  if (n > 0) {
    mk_placement pl = legal[tp_rng_below(rng, (uint32_t)n)];
    int colour = p->colours[0];
    mk_game_place(g, colour, pl);
    emit_query(b, count, "place %s %d %d %d %d", mk_game_colour_name(g, colour),
               pl.x1, pl.y1, pl.x2, pl.y2);
  }
  emit_query(b, count, "score");
  mk_game_next_turn(g);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_bench(int argc, char **argv) {
  options o = {.queries = 300000};
  int rc = parse_options(argc, argv, "qse", &o);
  if (rc) return rc;
  mk_game *g = mk_game_create(NULL, o.seed);
  if (!g) return cli_fail(1, "marrakech bench: out of memory");
  tp_rng rng;
  tp_rng_seed(&rng, o.seed);
  text_buf b = {0};
  long count = 0;
  bench_new_game(g, &b, &count);
  while (count < o.queries) {
    if (mk_game_over(g)) bench_new_game(g, &b, &count);
    bench_turn(g, &rng, &b, &count);
  }
  mk_game_destroy(g);
  if (!b.text) return cli_fail(1, "marrakech bench: out of memory");
  if (o.emit) {
    fputs(b.text, stdout);
    free(b.text);
    return 0;
  }
  mk_query *q = mk_query_create(NULL, o.seed);
  char answer[MK_QUERY_ANSWER_MAX];
  long errors = 0;
  size_t bytes = 0;
  double t0 = now_seconds();
  for (char *line = b.text, *nl; q && (nl = strchr(line, '\n'));
       line = nl + 1) {
    *nl = '\0';
    bytes += mk_query_line(q, line, answer);
    if (!strncmp(answer, "error:", 6)) errors++;
  }
  double dt = now_seconds() - t0;
  mk_query_destroy(q);
  free(b.text);
  printf("marrakech query bench: %ld queries in %.3f s = %.0f queries/s "
         "(%.1f million/minute), %zu answer bytes, %ld errors\n",
         count, dt, count / dt, count / dt * 60 / 1e6, bytes, errors);
  return errors ? 1 : 0;
}

static int run(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (cli_wants_help(argc - 1, argv + 1)) {
    fputs(usage, stdout);
    return 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "query")) return run_query(argc - 1, argv + 1);
  if (!strcmp(sub, "score")) return run_score(argc - 1, argv + 1);
  if (!strcmp(sub, "play")) return run_play(argc - 1, argv + 1);
  if (!strcmp(sub, "bench")) return run_bench(argc - 1, argv + 1);
  return cli_fail(2,
                  "marrakech: '%s' is not a sub-command (query, score, "
                  "play, bench)",
                  sub);
}

const cli_command cli_command_marrakech = {
    "marrakech", "Marrakech rules: query protocol, transcripts, bench", run};
