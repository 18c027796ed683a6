/* teppich watch: follows a live game from the camera (spec section 6).
 * capture -> stillness (wch_motion) -> analysis (vision) -> controller
 * (tools/watch). Also replays observation files (--observations) and
 * simulated games (--simulate), which need no pixels. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* getifaddrs */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "cli.h"
#include "cvw.h"
#include "watch.h"
#include "web.h"

static const char usage[] =
    "usage: teppich watch --source SRC --players SPEC [--deck DIR] [--calib FILE]\n"
    "                     [--first-layer NAME] [--answers FILE] [--events FILE|-]\n"
    "                     [--transcript FILE] [--fast] [--resume FILE]\n"
    "                     [--web ADDR:PORT]\n"
    "       teppich watch --demo [--simulated] [--fast] [--events FILE|-]\n"
    "                     [--web ADDR:PORT]\n"
    "       teppich watch --observations FILE --players SPEC ...\n"
    "       teppich watch --simulate SEED --players SPEC --write DIR\n"
    "\n"
    "Follows a game of Fliegende Teppiche from the camera over the table: the\n"
    "layout, every carpet as it lands, who takes what after each flight, the\n"
    "genie contests, the palaces at each round end and the final scores.\n"
    "\n"
    "  --source SRC        camera or recording: libcamera, v4l2:/dev/video0,\n"
    "                      dir:FOLDER[@FPS], video:FILE (see teppich cameras)\n"
    "  --players SPEC      seats clockwise: anna=red,ben=blue,cleo=green\n"
    "                      (2 players: anna=red+yellow,ben=blue+green)\n"
    "  --deck DIR          the deck folder (default: the built-in demo deck)\n"
    "  --calib FILE        calibration file (default: the markers in view,\n"
    "                      fitted again when they moved: a bumped camera\n"
    "                      recalibrates itself)\n"
    "  --first-layer NAME  who lays out first (default: the first player)\n"
    "  --answers FILE      answers to the questions, one line each:\n"
    "                        genies anna=8,1 ben=7,2 ...   reveal anna=7 ben=3\n"
    "                        lamps anna=1 ben=0 ...\n"
    "                      (default: asked on the terminal)\n"
    "  --events FILE|-     one JSON object per line as things happen\n"
    "  --transcript FILE   the game record (teppich score FILE), written as the\n"
    "                      game goes, safe against a power cut\n"
    "  --resume FILE       continue the game of this transcript (and go on\n"
    "                      writing it)\n"
    "  --fast              replay as fast as possible (not at the recorded rate)\n"
    "  --web ADDR:PORT     serve the game's page for the players' phones\n"
    "                      (0.0.0.0:8080: every interface; port 0: any free\n"
    "                      port); questions can be answered there. After the\n"
    "                      game the page stays until Ctrl-C.\n"
    "  --rules FILE        rules settings, also how far a carpet must reach\n"
    "                      into a card to lie on it (default: the built-in rules)\n"
    "  --table X0,Y0,X1,Y1 where carpets count, mm (default: everywhere)\n"
    "  --observations FILE replay observations (one analyze --json object per\n"
    "                      line, \"moving\": true while hands are in view)\n"
    "  --simulate SEED     write a simulated game: obs.jsonl, answers.txt and\n"
    "                      truth.transcript into --write DIR\n"
    "  --demo              replay the built-in game with its answers: it is\n"
    "                      rendered once (render --game, about a minute; kept\n"
    "                      in ~/.cache/teppich) and its frames are watched with\n"
    "                      the whole chain (stillness, analysis, controller);\n"
    "                      at the end its final table is compared with the\n"
    "                      game's truth\n"
    "  --simulated         with --demo: a simulated game instead (exact\n"
    "                      observations, no pixels; seconds)\n"
    "  --measure N         play N simulated games per player count through\n"
    "                      the controller and compare with the truth\n"
    "  --still N           decide on the Nth still frame of a scene (default\n"
    "                      1: announce at once); with N < 3 the still frames up\n"
    "                      to the 3rd look again and correct the announcement\n"
    "                      out loud if two of three frames see it otherwise\n"
    "  --stats             print timing and latency numbers at the end\n"
    "  --incremental       analyse each flight frame against the last decided\n"
    "                      frame, not the layout alone (about 40 % less CPU;\n"
    "                      off by default: it lost flights on a held-out game)\n"
    "  --no-incremental    the layout alone (the default)\n"
    "  --hold-map          keep one table mapping while the markers stay put\n"
    "                      (each frame's own fit moves the table's middle by\n"
    "                      up to 10 mm at 960x540; off by default: it lost\n"
    "                      flights on two games, docs/watch.md)\n"
    "  --quiet             no commentary\n"
    "\n"
    "On the terminal, while the game runs: 'undo' takes the last flight back,\n"
    "'give CARD PLAYER' (or 'give CARD -') corrects who gets a card, 'resolve'\n"
    "resolves a flight whose last carpet flew off unseen. See docs/watch.md.\n";

typedef struct {
  const char *source, *players, *deck, *calib, *first_layer, *answers,
      *events, *transcript, *resume, *observations, *rules, *write_dir, *web;
  bool fast, demo, rendered, simulated, quiet, stats, simulate;
  bool incremental; /* --incremental (--no-incremental: off, the default) */
  bool hold_map;    /* --hold-map: an_options.hold_still_map */
  long seed, measure;
  long still; /* --still: the still frame that decides (0: the default) */
  double table[4];
  cap_options cap;
} options;

enum { VIS_MAX_CARDS_IN_OBS = 128 };
/* The still frame a decision is made on: the first (announce at once; the
 * next two look again). */
enum { WATCH_STILL_DEFAULT = 1 };
/* ... and looked at again on the still frames after it up to this one */
enum { WATCH_LOOK_UNTIL = 3 };

typedef struct {
  options *o;
  const ft_players *players;
  const ft_rules *rules; /* --rules: also what "lies on" means to the eyes */
  FILE *say_out;
  bool colour;
  FILE *events;
  int tfd;
  char *answers_text;
  size_t answers_pos;
  int answers_line;
  int answer_errors;
  int assumed; /* answers assumed when the recorded ones did not fit */
  bool stdin_open, stdin_tty;
  wch *w;
  web_server *web;  /* --web: the page, NULL without */
  sigset_t stop;    /* with --web: SIGINT/SIGTERM, blocked and polled */
  bool stopped;     /* one of them came */
  /* announce at once, confirm after: still frames of the decided scene
   * still to show the controller (wch_confirm); its questions wait */
  int confirm_frames; /* per decided scene (3 - --still, at least 0) */
  int confirm_left;
  bool in_confirm;     /* a correction's announcement: not a latency */
  bool decided_ref;    /* the decided frame was analysed with the reference */
  /* a command changed the game (undo, give, resolve): the last decided
   * frame is no longer what the controller holds */
  bool decided_stale;
  /* measurements */
  long frames, decisions, analyses, corrections;
  /* CPU time (all threads) per kind of analysis: against the last
   * decided frame, against the layout alone, from scratch; and the
   * decided frames taken (vis_reference_set_decided) */
  long n_cpu[3], n_set_decided;
  long analysed_again; /* against the layout after one against the decided
                          frame (the camera moved, or doubtful) */
  double cpu_ms[3], set_decided_cpu_ms;
  /* ... and per stage: frames of a flight being thrown (the landings and
   * the announcement), second looks, the rest (layout, taking-away) */
  long n_stage_cpu[3];
  double stage_cpu_ms[3];
  long settle_frame; /* first frame of the still run being decided */
  long latency_sum, latency_max, announcements;
  double analysis_ms, analysis_max_ms;
  wch_motion *motion; /* the stillness of run_camera's frames */
} app;

/* ---- output ---- */

static const char *tone_colour(wch_tone t) {
  switch (t) {
  case WCH_SAY_RESULT: return "\033[1;32m";
  case WCH_SAY_CONTEST: return "\033[1;35m";
  case WCH_SAY_QUESTION: return "\033[1;36m";
  case WCH_SAY_WARN: return "\033[1;33m";
  case WCH_SAY_FINAL: return "\033[1m";
  default: return "";
  }
}

static void on_say(void *user, wch_tone tone, const char *text) {
  app *a = user;
  if (tone == WCH_SAY_RESULT && !a->in_confirm &&
      !strncmp(text, "Round ", 6) && strstr(text, "flight")) {
    long lat = a->frames - 1 - a->settle_frame;
    a->latency_sum += lat;
    if (lat > a->latency_max) a->latency_max = lat;
    a->announcements++;
  }
  if (a->o->quiet && tone != WCH_SAY_FINAL) return;
  if (tone == WCH_SAY_FINAL) {
    fprintf(a->say_out, "\n%s%s%s", a->colour ? "\033[1m" : "", text,
            a->colour ? "\033[0m" : "");
    fflush(a->say_out);
    return;
  }
  fprintf(a->say_out, "%s%s%s%s\n", a->colour ? tone_colour(tone) : "",
          tone == WCH_SAY_WARN ? "Warning: " : "", text,
          a->colour && *tone_colour(tone) ? "\033[0m" : "");
  fflush(a->say_out);
}

static void on_event(void *user, const char *json) {
  app *a = user;
  if (!a->events) return;
  fprintf(a->events, "%s\n", json);
  fflush(a->events);
}

/* The transcript: appended with fsync; rewritten atomically on a
 * correction. */
static tp_status on_record(void *user, const char *text, bool all,
                           tp_error *err) {
  app *a = user;
  const char *path = a->o->transcript;
  if (!path) return TP_OK;
  if (all || a->tfd < 0) {
    if (a->tfd >= 0) close(a->tfd);
    a->tfd = -1;
    if (all) {
      tp_status st = tp_write_file_atomic(path, text, strlen(text), err);
      if (st != TP_OK) return st;
    }
    a->tfd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (a->tfd < 0)
      return tp_error_set(err, TP_ERR_IO, "%s: cannot open the transcript: "
                          "%s", path, strerror(errno));
    if (all) return fsync(a->tfd) == 0 ? TP_OK : TP_OK;
  }
  size_t n = strlen(text), done = 0;
  while (done < n) {
    ssize_t k = write(a->tfd, text + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return tp_error_set(err, TP_ERR_IO, "%s: cannot write the transcript: "
                          "%s", path, strerror(errno));
    done += (size_t)k;
  }
  if (fsync(a->tfd) != 0)
    return tp_error_set(err, TP_ERR_IO, "%s: cannot flush the transcript: %s",
                        path, strerror(errno));
  return TP_OK;
}

/* ---- the web page (--web) ---- */

/* The state for the phones: after every observation, answer and command. */
static void publish_state(app *a) {
  if (!a->web) return;
  char *json = wch_state_json(a->w);
  tp_error err;
  if (json && web_publish_state(a->web, json, strlen(json), &err) != TP_OK)
    fprintf(stderr, "teppich: web: %s\n", err.text);
  free(json);
}

/* The camera picture as the camera saw it. */
static void publish_frame(app *a, const tp_image *rgb) {
  if (!a->web) return;
  uint8_t *jpeg = NULL;
  size_t len = 0;
  tp_error err;
  if (cvw_image_encode(rgb, ".jpg", 75, &jpeg, &len, &err) == TP_OK)
    web_publish_frame(a->web, jpeg, len, &err);
  free(jpeg);
}

/* SIGINT/SIGTERM, blocked while the page's threads run, taken here. */
static bool stop_requested(app *a) {
  if (!a->web || a->stopped) return a->stopped;
  struct timespec zero = {0, 0};
  int sig = sigtimedwait(&a->stop, NULL, &zero);
  a->stopped = sig == SIGINT || sig == SIGTERM;
  return a->stopped;
}

/* The URLs to open: this machine's IPv4 addresses when bound to all. */
static void print_urls(app *a, const web_config *cfg) {
  int port = web_port(a->web);
  if (strcmp(cfg->address, "0.0.0.0")) {
    fprintf(a->say_out, "The game's page: http://%s:%d/\n", cfg->address,
            port);
    return;
  }
  fprintf(a->say_out, "The game's page, on a phone in this network:\n");
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) != 0) return;
  for (struct ifaddrs *i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    struct sockaddr_in *sa = (struct sockaddr_in *)(void *)i->ifa_addr;
    if (inet_ntop(AF_INET, &sa->sin_addr, text, sizeof text))
      fprintf(a->say_out, "  http://%s:%d/\n", text, port);
  }
  freeifaddrs(list);
}

/* Starts the page: SIGINT/SIGTERM are blocked first (the server's
 * threads inherit the mask) and taken by stop_requested. */
static int start_web(app *a) {
  web_config cfg;
  web_config_default(&cfg);
  tp_error err;
  if (web_parse_listen(a->o->web, &cfg, &err) != TP_OK)
    return cli_fail(2, "watch: --web: %s", err.text);
  sigemptyset(&a->stop);
  sigaddset(&a->stop, SIGINT);
  sigaddset(&a->stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &a->stop, NULL);
  if (web_create(&cfg, &a->web, &err) != TP_OK) {
    sigprocmask(SIG_UNBLOCK, &a->stop, NULL);
    return cli_fail(1, "watch: %s", err.text);
  }
  print_urls(a, &cfg);
  fflush(a->say_out);
  return -1;
}

/* After the game the page keeps showing the final table until Ctrl-C. */
static void serve_until_stopped(app *a) {
  on_say(a, WCH_SAY_INFO, "The page stays open; Ctrl-C ends.");
  struct timespec step = {0, 50 * 1000000L};
  while (!a->stopped) {
    web_answer ans;
    while (web_poll_answer(a->web, &ans))
      web_answer_done(a->web, ans.id, "the game is over");
    int sig = sigtimedwait(&a->stop, NULL, &step);
    a->stopped = sig == SIGINT || sig == SIGTERM;
  }
}

/* ---- answers and commands ---- */

static bool next_answer_line(app *a, char *line, size_t cap) {
  if (!a->answers_text) return false;
  const char *t = a->answers_text + a->answers_pos;
  while (*t) {
    size_t n = strcspn(t, "\n");
    a->answers_pos += n + (t[n] ? 1 : 0);
    a->answers_line++;
    if (n >= cap) n = cap - 1;
    memcpy(line, t, n);
    line[n] = '\0';
    t = a->answers_text + a->answers_pos;
    char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (*p && *p != '#') return true;
  }
  return false;
}

static void skip_answers(app *a, int n) {
  char line[512];
  for (int k = 0; k < n; k++)
    if (!next_answer_line(a, line, sizeof line)) return;
}

/* ---- recorded reveals in the true game's order ---- */

enum { REVEAL_WINDOW = 16, ANSWER_LINE_MAX = 512 };

/* The next reveal lines of the answers (stopping at the first other
 * line): their text, and where each starts in answers_text. */
typedef struct {
  int n;
  size_t at[REVEAL_WINDOW];
  char text[REVEAL_WINDOW][ANSWER_LINE_MAX];
  const char *line[REVEAL_WINDOW];
} reveal_window;

static bool names_other_question(const char *line, wch_question_kind kind);
static bool is_reveal_of_players(const app *a, const char *line);

static void next_reveals(const app *a, reveal_window *rw) {
  const char *text = a->answers_text;
  size_t p = a->answers_pos;
  rw->n = 0;
  while (rw->n < REVEAL_WINDOW && text[p]) {
    size_t n = strcspn(text + p, "\n"), next = p + n + (text[p + n] ? 1 : 0);
    char *line = rw->text[rw->n];
    if (n >= ANSWER_LINE_MAX) n = ANSWER_LINE_MAX - 1;
    memcpy(line, text + p, n);
    line[n] = '\0';
    const char *word = line + strspn(line, " \t\r");
    if (*word && *word != '#') {
      if (names_other_question(line, WCH_Q_REVEAL) || !is_reveal_of_players(a, line))
        break;
      rw->at[rw->n] = p;
      rw->line[rw->n] = line;
      rw->n++;
    }
    p = next;
  }
}

/* Moves the window's line i before its line 0 in answers_text (the
 * lines between keep their order), so that it is read next (error
 * messages then count the lines in the new order). */
static void bring_first(app *a, const reveal_window *rw, int i) {
  char *text = a->answers_text;
  size_t from = rw->at[0], at = rw->at[i];
  size_t len = strcspn(text + at, "\n");
  bool nl = text[at + len] == '\n';
  size_t block = at - from; /* ends with a newline */
  char *moved = malloc(len + block + 1);
  if (!moved) return; /* the file's order stays */
  memcpy(moved, text + at, len);
  moved[len] = '\n';
  memcpy(moved + len + 1, text + from, block - 1);
  if (nl) moved[len + block] = '\n';
  memcpy(text + from, moved, len + block + (nl ? 1 : 0));
  free(moved);
}

/* The contest waiting now is answered by the recorded reveal of its
 * players, wherever it comes among the flight's (the true game's order
 * of its contests may differ from the watch's). */
static void reveal_for_contest(app *a) {
  reveal_window rw;
  next_reveals(a, &rw);
  int i = wch_pick_reveal(a->w, rw.line, rw.n);
  if (i > 0) bring_first(a, &rw, i);
}

/* A resume between two reveals of a flight: the lines used for the
 * reveals already given are found again among the flight's (by their
 * genies), as the run before the resume took them. */
static void skip_given_reveals(app *a, int used) {
  int given = wch_reveals_given(a->w);
  if (!a->answers_text || given <= 0 || given > used) return;
  a->answers_pos = 0;
  a->answers_line = 0;
  skip_answers(a, used - given);
  for (int k = 0; k < given; k++) {
    reveal_window rw;
    next_reveals(a, &rw);
    int i = wch_pick_given(a->w, k, rw.line, rw.n);
    if (i > 0) bring_first(a, &rw, i);
    skip_answers(a, 1);
  }
}

static bool is_command(const char *line) {
  while (*line == ' ') line++;
  return !strncmp(line, "undo", 4) || !strncmp(line, "give ", 5) ||
         !strncmp(line, "resolve", 7) || !strncmp(line, "state", 5);
}

static tp_status command(app *a, const char *line, tp_error *err) {
  while (*line == ' ') line++;
  tp_status st = TP_OK;
  if (!strncmp(line, "state", 5)) {
    char *s = wch_state_json(a->w);
    if (s) printf("%s\n", s);
    free(s);
  } else {
    st = wch_command(a->w, line, err);
    a->decided_stale |= st == TP_OK;
  }
  publish_state(a);
  return st;
}

static void run_command(app *a, const char *line) {
  tp_error err;
  if (command(a, line, &err) != TP_OK) fprintf(stderr, "teppich: %s\n", err.text);
}

/* An answer or a command typed on the terminal. */
static void take_typed_line(app *a, const char *line) {
  tp_error err;
  if (is_command(line))
    run_command(a, line);
  else if (wch_answer(a->w, line, &err) != TP_OK)
    fprintf(stderr, "teppich: '%s': %s\n", line, err.text);
  publish_state(a);
}

/* Lines sent from the page: answers, or commands (undo, give, resolve);
 * the verdict goes back to the phone. */
static void take_web_answers(app *a) {
  web_answer ans;
  while (a->web && web_poll_answer(a->web, &ans)) {
    tp_error err;
    tp_status st = is_command(ans.line) ? command(a, ans.line, &err)
                                        : wch_answer(a->w, ans.line, &err);
    web_answer_done(a->web, ans.id, st == TP_OK ? NULL : err.text);
    if (!a->o->quiet)
      fprintf(a->say_out, "From the page: %s: %s\n", ans.line,
              st == TP_OK ? "taken" : err.text);
    publish_state(a);
  }
}

static bool read_stdin_line(app *a, char *line, size_t cap, bool wait) {
  if (!a->stdin_open) return false;
  if (!wait) {
    struct pollfd p = {0, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return false;
  }
  if (!fgets(line, (int)cap, stdin)) {
    a->stdin_open = false;
    return false;
  }
  line[strcspn(line, "\r\n")] = '\0';
  return true;
}

/* With the page: the question is answered there or on the terminal;
 * false when Ctrl-C came first. */
static bool await_answer(app *a, const wch_question *q) {
  on_say(a, WCH_SAY_QUESTION, q->prompt);
  publish_state(a);
  if (a->stdin_open && a->stdin_tty) fputs("> ", stdout), fflush(stdout);
  int before = wch_answers_used(a->w);
  char line[512];
  while (!stop_requested(a)) {
    take_web_answers(a);
    wch_question now;
    if (!wch_question_pending(a->w, &now) ||
        wch_answers_used(a->w) != before)
      return true;
    struct pollfd p = {0, POLLIN, 0};
    struct timespec step = {0, 50 * 1000000L};
    int ready = a->stdin_open ? poll(&p, 1, 50) : nanosleep(&step, NULL);
    if (a->stdin_open && ready > 0 &&
        read_stdin_line(a, line, sizeof line, true))
      take_typed_line(a, line);
  }
  return false;
}

/* The answer line names another question than the one waiting (the first
 * word may be left out: then it is tried). */
static bool names_other_question(const char *line, wch_question_kind kind) {
  static const char *const words[] = {"genies", "reveal", "lamps"};
  while (*line == ' ' || *line == '\t') line++;
  for (int k = 0; k < 3; k++) {
    size_t n = strlen(words[k]);
    if (!strncmp(line, words[k], n) &&
        (line[n] == ' ' || line[n] == '\t' || !line[n]))
      return k != (int)kind - WCH_Q_GENIES;
  }
  return false;
}

/* A replay whose recorded answers no longer fit the game the eyes
 * followed goes on with an assumed answer (said as a warning; undo/give
 * correct it) instead of stopping: one wrong frame must not end a game. */
static bool assume_answer(app *a, const char *recorded) {
  char line[512], text[700];
  tp_error err;
  if (!wch_assumed_answer(a->w, recorded, line, sizeof line)) return false;
  snprintf(text, sizeof text, "No recorded answer fits this question; "
           "assumed: %s (undo or give correct it).", line);
  on_say(a, WCH_SAY_WARN, text);
  a->assumed++;
  return wch_answer(a->w, line, &err) == TP_OK;
}

/* The line is a reveal naming only players of this game. */
static bool is_reveal_of_players(const app *a, const char *line) {
  int genies[FT_MAX_PLAYERS];
  tp_error err;
  return ft_answer_reveal(a->players, line, genies, &err) ==
         TP_OK;
}

/* Answers every waiting question: from --answers, else the terminal.
 * False when a question cannot be answered (no more lines anywhere). */
static bool answer_questions(app *a) {
  wch_question q;
  char line[512];
  tp_error err;
  while (wch_question_pending(a->w, &q)) {
    if (q.kind == WCH_Q_REVEAL && a->answers_text) reveal_for_contest(a);
    size_t pos = a->answers_pos;
    int line_no = a->answers_line;
    if (next_answer_line(a, line, sizeof line)) {
      if (names_other_question(line, q.kind)) {
        if (q.kind == WCH_Q_LAMPS) continue; /* a contest the eyes missed */
        a->answers_pos = pos; /* kept for its own question */
        a->answers_line = line_no;
        if (!assume_answer(a, NULL)) return false;
        continue;
      }
      if (wch_answer(a->w, line, &err) != TP_OK) {
        a->answer_errors++;
        fprintf(stderr, "teppich: %s: line %d: '%s': %s\n", a->o->answers,
                a->answers_line, line, err.text);
        /* a reveal of real players that does not fit (the eyes saw
         * another contest, or the genies went elsewhere after one) was
         * this contest's: what fits of it is used; else the next line */
        if (q.kind == WCH_Q_REVEAL && is_reveal_of_players(a, line) &&
            !assume_answer(a, line))
          return false;
      }
      publish_state(a);
      continue;
    }
    if (a->web) {
      if (!await_answer(a, &q)) return false;
      continue;
    }
    if (!a->stdin_open) return false;
    on_say(a, WCH_SAY_QUESTION, q.prompt);
    if (a->stdin_tty) fputs("> ", stdout), fflush(stdout);
    if (!read_stdin_line(a, line, sizeof line, true)) return false;
    take_typed_line(a, line);
  }
  return true;
}

static void poll_commands(app *a) {
  char line[512];
  while (a->stdin_tty && read_stdin_line(a, line, sizeof line, false))
    if (is_command(line)) run_command(a, line);
  take_web_answers(a);
}

/* ---- one decision ---- */

static int stopped(const app *a) {
  return cli_fail(1, "stopped before the end of the game (teppich watch "
                  "--resume %s continues it)",
                  a->o->transcript ? a->o->transcript : "TRANSCRIPT");
}

/* Asks the waiting questions (the flight's, once its confirm frames are
 * seen: people answer after a second anyway, and a correction may change
 * the contests). */
static int ask_now(app *a) {
  a->confirm_left = 0;
  if (answer_questions(a)) return 0;
  if (a->stopped) return stopped(a);
  wch_question q;
  wch_question_pending(a->w, &q);
  return cli_fail(1, "no answer for: %s (give --answers, or answer on the "
                  "terminal; --resume %s continues)", q.prompt,
                  a->o->transcript ? a->o->transcript : "TRANSCRIPT");
}

static int decide(app *a, const wch_obs *obs) {
  tp_error err;
  int rc = a->confirm_left > 0 ? ask_now(a) : 0;
  if (rc) return rc;
  a->decisions++;
  if (wch_observe(a->w, obs, &err) != TP_OK)
    return cli_fail(tp_status_exit_code(TP_ERR_IO), "%s", err.text);
  publish_state(a);
  if (a->confirm_frames > 0 && wch_confirm_pending(a->w)) {
    a->confirm_left = a->confirm_frames;
    return 0;
  }
  return ask_now(a);
}

/* The source ended: what the watch waited for that only a later frame
 * could show is settled now (the lamps after a round's last flight, with
 * its carpets still down when the recording stopped), so a replay ends
 * with the round, and after the last round with the final table. */
static int settle_at_end(app *a) {
  wch_source_ended(a->w);
  return wch_question_pending(a->w, NULL) ? ask_now(a) : 0;
}

/* A later still frame of the decided scene: a second look at the flight
 * just announced. */
static int confirm(app *a, const wch_obs *obs) {
  tp_error err;
  bool corrected = false;
  a->in_confirm = true;
  tp_status st = wch_confirm(a->w, obs, &corrected, &err);
  a->in_confirm = false;
  if (st != TP_OK)
    return cli_fail(tp_status_exit_code(st), "%s", err.text);
  a->corrections += corrected;
  publish_state(a);
  if (--a->confirm_left > 0 && wch_confirm_pending(a->w)) return 0;
  return ask_now(a);
}

/* ---- observation files ---- */

/* A taking that would give a card to a carpet waits for another look
 * (wch_taking_pending): the still frames after the deciding one (the
 * run-th still frame in a row), up to WATCH_LOOK_UNTIL; the camera loop
 * and the observations replay both ask this. */
static bool taking_look_due(const app *a, int run, int still_frames) {
  return run > still_frames && run <= WATCH_LOOK_UNTIL &&
         wch_taking_pending(a->w);
}

static int run_observations(app *a, const char *path, int64_t skip_to) {
  char *text;
  size_t len;
  tp_error err;
  tp_status st = tp_read_file(path, 256u << 20, &text, &len, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  wch_motion_config mc;
  wch_motion_config_default(&mc);
  mc.still_frames = (int)(a->o->still > 0 ? a->o->still : WATCH_STILL_DEFAULT);
  wch_obs *obs = malloc(sizeof *obs);
  int run = 0, rc = 0, line_no = 0;
  double fps = a->o->cap.fps > 0 ? a->o->cap.fps : 10;
  long pace_ns = (long)(1e9 / fps);
  struct timespec pace = {pace_ns / 1000000000L, pace_ns % 1000000000L};
  for (char *p = text; rc == 0 && obs && *p;) {
    size_t n = strcspn(p, "\n");
    bool last = !p[n];
    p[n] = '\0';
    line_no++;
    char name[600];
    snprintf(name, sizeof name, "%s: line %d", path, line_no);
    if (n == 0) {
      p += last ? n : n + 1;
      continue;
    }
    if (wch_obs_parse_json(p, n, name, obs, &err) != TP_OK) {
      rc = cli_fail(2, "%s", err.text);
      break;
    }
    bool moving = strstr(p, "\"moving\":true") || strstr(p, "\"moving\": true");
    if (obs->frame < 0) obs->frame = line_no - 1;
    p += last ? n : n + 1;
    if (obs->frame <= skip_to) { /* decided before: the scene runs on */
      run = moving ? 0 : run + 1;
      continue;
    }
    a->frames++;
    if (!a->o->fast) nanosleep(&pace, NULL);
    if (stop_requested(a)) {
      rc = stopped(a);
      break;
    }
    poll_commands(a);
    if (moving) {
      run = 0;
      if (a->confirm_left > 0) rc = ask_now(a); /* moved before a 2nd look */
      continue;
    }
    if (++run == 1) a->settle_frame = a->frames - 1;
    if (run == mc.still_frames || taking_look_due(a, run, mc.still_frames))
      rc = decide(a, obs);
    else if (a->confirm_left > 0)
      rc = run <= WATCH_LOOK_UNTIL ? confirm(a, obs) : ask_now(a);
  }
  if (rc == 0 && a->confirm_left > 0) rc = ask_now(a); /* the file ended */
  free(obs);
  free(text);
  return rc;
}

/* ---- camera / recordings ---- */

/* The round's layout reference: the controller's table cards as the
 * camera saw them when they were laid out, so that flight frames are
 * analysed knowing them (vis_analyze_with_reference): covered cards, look-
 * alikes and on-top decisions no longer come from scratch, and each card's
 * id comes straight from its slot. */
enum { REF_SLOTS = 64 };
typedef struct {
  vis_reference *ref;
  int n;              /* slots used */
  int id[REF_SLOTS];  /* the controller's card id per slot; -1 removed */
  double card_mm[2];  /* the deck's card size */
  /* the incremental reference (vis_reference_set_decided): the last frame
   * decided while a flight is thrown is the next one's baseline, so only
   * what changed since is searched */
  bool incremental;    /* allowed (--incremental) */
  bool has_decided;    /* ref holds a decided frame */
  double decided_px[4][2]; /* the table area's corners in its picture */
  bool decided_px_ok[4];
  int n_decided_colours; /* the carpets it showed */
  char decided_colour[VIS_MAX_CARPETS][VIS_COLOUR_MAX];
} layout_ref;

static void layout_ref_forget_decided(layout_ref *lr) {
  vis_reference_forget_decided(lr->ref);
  lr->has_decided = false;
}

static void layout_ref_reset(layout_ref *lr) {
  vis_reference_destroy(lr->ref);
  lr->ref = NULL;
  lr->n = 0;
  lr->has_decided = false;
}

/* The card of a plain analysis where the controller has a table card
 * (its rect as seen), or the table card with the deck's size. */
static vis_card card_for(const layout_ref *lr, const vis_result *r,
                         const wch_table_card *t) {
  vis_card c = {.type = t->type, .visible_fraction = 1};
  c.rect = (vis_rect){{t->x_mm, t->y_mm}, lr->card_mm[0], lr->card_mm[1],
                      t->angle_deg};
  double best = 30;
  for (int i = 0; i < r->n_cards; i++) {
    double d = hypot(r->cards[i].rect.center.x - t->x_mm,
                     r->cards[i].rect.center.y - t->y_mm);
    if (d < best) best = d, c.rect = r->cards[i].rect;
  }
  return c;
}

static bool table_has(const wch_table_card *t, int n, int id) {
  for (int k = 0; k < n; k++)
    if (t[k].id == id) return true;
  return false;
}

static int slot_of(const layout_ref *lr, int id) {
  for (int k = 0; k < lr->n; k++)
    if (lr->id[k] == id) return k;
  return -1;
}

/* The card lies clear of every carpet of that analysis. */
static bool clear_of_carpets(const vis_result *r, const vis_rect *card) {
  for (int c = 0; c < r->n_carpets; c++)
    if (vis_rect_overlap_area(&r->carpets[c].rect, card) > 25) return false;
  return true;
}

/* Adds the table cards not yet in the reference that lie clear of the
 * carpets in this analysis (a covered card's patch would hold the carpet,
 * and the carpet would then pass for the card); returns how many. */
static int add_clear_cards(layout_ref *lr, an_session *s, const an_report *rep,
                           const wch_table_card *t, int n) {
  vis_card add[REF_SLOTS];
  int ids[REF_SLOTS], n_add = 0;
  for (int k = 0; k < n; k++) {
    if (t[k].claimed || t[k].unseen || slot_of(lr, t[k].id) >= 0 ||
        lr->n + n_add >= REF_SLOTS)
      continue;
    vis_card c = card_for(lr, &rep->vis, &t[k]);
    if (!clear_of_carpets(&rep->vis, &c.rect)) continue;
    ids[n_add] = t[k].id;
    add[n_add++] = c;
  }
  tp_error err;
  if (n_add == 0) return 0;
  if (vis_reference_add_cards(lr->ref, an_session_analyzer(s), &rep->photo,
                              &rep->map, add, n_add, &err) != TP_OK) {
    fprintf(stderr, "teppich: watch: the layout reference: %s\n", err.text);
    return 0;
  }
  memcpy(lr->id + lr->n, ids, (size_t)n_add * sizeof ids[0]);
  lr->n += n_add;
  return n_add;
}

/* After each decision: the reference follows the controller's table.
 * A new round (layout) starts an empty one; cards that left the table are
 * removed; table cards not yet in it are added from the frame that shows
 * them clear of carpets: this one, or the last carpet-free frame of the
 * layout (`bare`: when a carpet landed in the frame that took the layout).
 * Only plain analyses add (the reference's own results know only its
 * cards). */
static void layout_ref_sync(layout_ref *lr, const wch *w, an_session *s,
                            const an_report *rep, const an_report *bare,
                            bool plain) {
  wch_stage stage = wch_get_stage(w);
  if (stage == WCH_WAIT_LAYOUT || stage == WCH_GAME_OVER) {
    layout_ref_reset(lr);
    return;
  }
  wch_table_card t[REF_SLOTS];
  int n = wch_table_cards(w, t, REF_SLOTS);
  for (int k = 0; lr->ref && k < lr->n; k++)
    if (lr->id[k] >= 0 && !table_has(t, n, lr->id[k])) {
      vis_reference_remove_card(lr->ref, k);
      lr->id[k] = -1;
    }
  if (!plain) return;
  tp_error err;
  if (!lr->ref && vis_reference_create(&lr->ref, &err) != TP_OK) return;
  add_clear_cards(lr, s, rep, t, n);
  if (bare && bare->has_map) add_clear_cards(lr, s, bare, t, n);
}

/* The next frame is analysed against the reference when the controller
 * follows flights of a layout whose every card is in the reference. */
static bool layout_ref_usable(const layout_ref *lr, const wch *w) {
  wch_stage stage = wch_get_stage(w);
  if (!lr->ref || lr->n == 0 ||
      (stage != WCH_WAIT_THROWS && stage != WCH_WAIT_TAKING) ||
      ft_game_phase(wch_game(w)) == FT_PHASE_LAYOUT)
    return false;
  wch_table_card t[REF_SLOTS];
  int n = wch_table_cards(w, t, REF_SLOTS);
  for (int k = 0; k < n; k++)
    if (t[k].unseen || (!t[k].claimed && slot_of(lr, t[k].id) < 0))
      return false;
  return true;
}

static bool on_a_carpet(const vis_result *r, int card) {
  for (int c = 0; c < r->n_carpets; c++)
    for (int k = 0; k < r->carpets[c].n_on_cards; k++)
      if (r->carpets[c].on_cards[k] == card) return true;
  return false;
}

/* What the controller can use of one overlap: a carpet's place on a card
 * the eyes are not sure of, and which carpet lies on which (when sure). */
static void note_stacking(const vis_overlap *ov, const int *obs_of,
                          int n_cards, wch_obs *obs) {
  int a = ov->carpet;
  if (a < 0 || a >= obs->n_carpets) return;
  wch_carpet_obs *ca = &obs->carpets[a];
  if (!ov->other_is_carpet) {
    if (!ov->uncertain || ov->other < 0 || ov->other >= n_cards ||
        ov->other >= VIS_MAX_CARDS_IN_OBS)
      return;
    for (int j = 0; j < ca->n_on_cards; j++)
      if (ca->on_cards[j] == obs_of[ov->other]) {
        ca->on_uncertain[j] = true;
        ca->on_barely[j] = false; /* hidden, whatever the depth */
      }
    return;
  }
  int b = ov->other;
  if (ov->uncertain || b < 0 || b >= obs->n_carpets || b == a) return;
  int top = ov->carpet_on_top ? a : b, low = ov->carpet_on_top ? b : a;
  wch_carpet_obs *cl = &obs->carpets[low];
  for (int k = 0; k < cl->n_under; k++)
    if (cl->under[k] == top) return;
  if (cl->n_under < WCH_MAX_OBS_CARPETS) cl->under[cl->n_under++] = top;
}

/* A card the carpet barely misses (its depth within the pose error of
 * lying on it, taken as not on): the second look weighs that frame's
 * word on the card less than a sure one's (confirm.c). */
static void note_barely_off(const vis_carpet *c, const int *obs_of, int n_cards,
                            wch_carpet_obs *o) {
  int i_card = c->contact_doubt ? c->contact_doubt_card : -1;
  if (i_card < 0 || i_card >= n_cards || i_card >= VIS_MAX_CARDS_IN_OBS ||
      obs_of[i_card] < 0)
    return;
  for (int k = 0; k < c->n_on_cards; k++)
    if (c->on_cards[k] == i_card) return; /* taken as on: on_barely */
  o->barely_off[o->n_barely_off++] = obs_of[i_card];
}

/* The analysis as the controller's observation. Against the reference
 * (lr not NULL) the cards are its slots, named by id: a removed slot is
 * left out, and so is a card that is neither visible nor under a carpet
 * (taken away). */
static void to_obs(const vis_result *r, const layout_ref *lr, int64_t frame,
                   wch_obs *obs) {
  memset(obs, 0, sizeof *obs);
  obs->frame = frame;
  int obs_of[VIS_MAX_CARDS_IN_OBS];
  for (int i = 0; i < r->n_cards && i < VIS_MAX_CARDS_IN_OBS; i++) {
    const vis_card *c = &r->cards[i];
    obs_of[i] = -1;
    if (obs->n_cards == WCH_MAX_OBS_CARDS) continue;
    wch_card_obs o = {.type = c->uncertain ? -1 : c->type,
                      .x_mm = c->rect.center.x, .y_mm = c->rect.center.y,
                      .angle_deg = c->rect.angle_deg,
                      .visible_fraction = c->visible_fraction,
                      .has_guess = c->uncertain && c->type >= 0,
                      .guess = c->type,
                      .has_second = c->has_second_type && c->second_type >= 0,
                      .second = c->second_type,
                      .second_score = c->second_type_score};
    if (lr) {
      /* a card the reference reports gone (its place shows the table),
       * or one that shows but does not look as at layout with no carpet
       * on it, was taken away (or moved out of its place) */
      bool under = on_a_carpet(r, i);
      if (i >= lr->n || lr->id[i] < 0 || c->type < 0 || c->gone ||
          (!under && (c->visible_fraction < 0.05 || c->uncertain)))
        continue;
      o.type = c->type;
      o.has_id = true;
      o.id = lr->id[i];
    }
    obs_of[i] = obs->n_cards;
    obs->cards[obs->n_cards++] = o;
  }
  for (int i = 0; i < r->n_carpets && i < WCH_MAX_OBS_CARPETS; i++) {
    const vis_carpet *c = &r->carpets[i];
    wch_carpet_obs *o = &obs->carpets[obs->n_carpets++];
    snprintf(o->colour, sizeof o->colour, "%s", c->colour);
    o->x_mm = c->rect.center.x;
    o->y_mm = c->rect.center.y;
    o->angle_deg = c->rect.angle_deg;
    o->has_visible = true;
    o->visible_fraction = c->visible_fraction;
    for (int k = 0; k < c->n_on_cards; k++) {
      int i_card = c->on_cards[k];
      if (i_card < 0 || i_card >= r->n_cards || i_card >= VIS_MAX_CARDS_IN_OBS ||
          obs_of[i_card] < 0)
        continue;
      /* it barely reaches into the card: as unsure as a hidden overlap */
      bool barely = c->contact_doubt && c->contact_doubt_card == i_card;
      o->on_uncertain[o->n_on_cards] = o->on_barely[o->n_on_cards] = barely;
      o->on_cards[o->n_on_cards++] = obs_of[i_card];
    }
    note_barely_off(c, obs_of, r->n_cards, o);
  }
  for (int k = 0; k < r->n_overlaps; k++)
    note_stacking(&r->overlaps[k], obs_of, r->n_cards, obs);
}

static double clock_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

/* CPU time of the process (the analysis workers included): on a shared
 * machine a fairer cost than the wall clock. */
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

/* ---- the incremental reference ---- */

/* Further than this (pixels) from where a corner of the table area lay
 * in the decided frame, the camera moved (calibration from the markers
 * jitters by a fraction of a pixel). */
static const double CAMERA_MOVED_PX = 3;

static void table_corner(const vis_table_map *m, int k, double mm[2]) {
  mm[0] = m->area_mm[k == 1 || k == 2 ? 2 : 0];
  mm[1] = m->area_mm[k >= 2 ? 3 : 1];
}

/* The camera moved (a recalibration) since the decided frame: it no
 * longer shows the table as this frame does. */
static bool camera_moved(const layout_ref *lr, const an_report *rep) {
  if (!lr->has_decided || !rep->has_map) return false;
  for (int k = 0; k < 4; k++) {
    double mm[2], px[2];
    table_corner(&rep->map, k, mm);
    if (!lr->decided_px_ok[k]) continue;
    if (!rep->map.table_to_image(rep->map.user, mm, px) ||
        hypot(px[0] - lr->decided_px[k][0], px[1] - lr->decided_px[k][1]) >
            CAMERA_MOVED_PX)
      return true;
  }
  return false;
}

static void take_decided(layout_ref *lr, app *a, an_session *s,
                         const an_report *rep) {
  double t0 = cpu_ms();
  tp_error err;
  if (vis_reference_set_decided(lr->ref, an_session_analyzer(s), &rep->photo,
                                &rep->map, &rep->vis, &err) != TP_OK) {
    fprintf(stderr, "teppich: watch: the decided frame: %s\n", err.text);
    layout_ref_forget_decided(lr);
    return;
  }
  lr->has_decided = true;
  lr->n_decided_colours = 0;
  for (int i = 0; i < rep->vis.n_carpets && i < VIS_MAX_CARPETS; i++)
    memcpy(lr->decided_colour[lr->n_decided_colours++],
           rep->vis.carpets[i].colour, VIS_COLOUR_MAX);
  for (int k = 0; k < 4; k++) {
    double mm[2];
    table_corner(&rep->map, k, mm);
    lr->decided_px_ok[k] =
        rep->map.table_to_image(rep->map.user, mm, lr->decided_px[k]);
  }
  a->n_set_decided++;
  a->set_decided_cpu_ms += cpu_ms() - t0;
}

/* After a decision: while a flight is thrown, the frame just decided
 * (against the reference) is the next analysis's baseline, so each
 * landing searches only what changed since the one before. The frame that
 * resolved the flight is not: its second look is analysed against the
 * frame before it, as the announcement was (against the announced frame
 * nothing would show as changed, and the second look could correct
 * nothing). After the second look, when the carpets are taken off, in a
 * new round and after a frame analysed without the reference, the
 * baseline is forgotten. */
static void follow_decided(layout_ref *lr, app *a, an_session *s,
                           const an_report *rep, bool used_ref) {
  if (!lr->ref || a->confirm_left > 0) return;
  if (!lr->incremental || !used_ref || wch_get_stage(a->w) != WCH_WAIT_THROWS) {
    layout_ref_forget_decided(lr);
    return;
  }
  take_decided(lr, a, s, rep);
}

/* The analysis against the decided frame needs checking against the
 * layout alone (wch_increment_doubtful). */
static bool doubtful_increment(const layout_ref *lr, const vis_result *r) {
  const char *decided[VIS_MAX_CARPETS], *now[VIS_MAX_CARPETS];
  int n_now = 0;
  for (int k = 0; k < lr->n_decided_colours; k++)
    decided[k] = lr->decided_colour[k];
  for (int i = 0; i < r->n_carpets && n_now < VIS_MAX_CARPETS; i++)
    now[n_now++] = r->carpets[i].colour;
  return wch_increment_doubtful(decided, lr->n_decided_colours, now, n_now);
}

/* For the statistics: 0 a frame of a flight being thrown (a landing, the
 * announcement), 1 a second look, 2 the rest (layout, taking-away). */
static int analysis_stage(const app *a) {
  if (a->confirm_left > 0) return 1;
  return wch_get_stage(a->w) == WCH_WAIT_THROWS ? 0 : 2;
}

/* One analysis, against the reference (ref not NULL) and timed. When the
 * camera moved since the decided frame, or the analysis against it is
 * doubtful (doubtful_increment), that frame is forgotten and the frame
 * analysed again against the layout alone (what the analysis was before
 * the incremental reference, so a miss of the incremental one costs time,
 * not the flight). */
static tp_status analyse_frame(app *a, an_session *s, layout_ref *lr,
                               const vis_reference *ref, const tp_image *rgb,
                               an_report *rep, tp_error *err) {
  double t0 = now_ms(), c0 = cpu_ms();
  int kind = !ref ? 2 : lr->has_decided ? 0 : 1;
  int stage = analysis_stage(a);
  tp_status st = an_run_image_ref(s, ref, rgb, NULL, rep, err);
  if (st == TP_OK && ref && lr->has_decided &&
      (camera_moved(lr, rep) || doubtful_increment(lr, &rep->vis))) {
    layout_ref_forget_decided(lr);
    an_report_free(rep);
    a->analysed_again++;
    st = an_run_image_ref(s, ref, rgb, NULL, rep, err);
  }
  double ms = now_ms() - t0;
  a->analyses++;
  a->analysis_ms += ms;
  if (ms > a->analysis_max_ms) a->analysis_max_ms = ms;
  double used = cpu_ms() - c0;
  a->n_cpu[kind]++;
  a->cpu_ms[kind] += used;
  a->n_stage_cpu[stage]++;
  a->stage_cpu_ms[stage] += used;
  return st;
}

/* The deck, the calibration and the camera, opened before the game
 * starts: a missing camera or a bad deck is said at once, not after the
 * players have dealt their genies. -1 when both are open. */
static int open_eyes(app *a, an_session **s, cap_source **src) {
  options *o = a->o;
  tp_error err;
  an_options ao = {.image = o->source, .deck_dir = o->deck,
                   .calib_file = o->calib, .rules = a->rules,
                   .hold_still_map = o->hold_map};
  tp_status st = an_session_create(&ao, s, &err);
  if (st != TP_OK) return cli_fail(tp_status_exit_code(st), "%s", err.text);
  o->cap.color = true;
  o->cap.fast = o->fast;
  st = cap_open(src, o->source, &o->cap, &err);
  if (st != TP_OK) {
    an_session_destroy(*s);
    *s = NULL;
    return cli_fail(tp_status_exit_code(st), "%s", err.text);
  }
  return -1;
}

/* Notes when each card of a frame analysed without the layout reference
 * came to lie as it does (rep's cards are obs's, in order, to_obs). */
static void note_laid(const an_report *rep, wch_motion *m,
                      const cap_frame *f, wch_obs *obs) {
  if (!rep->has_map || !rep->map.table_to_image || f->color.width < 1) return;
  double scale = (double)f->gray.width / f->color.width;
  for (int i = 0; i < obs->n_cards && i < rep->vis.n_cards; i++) {
    vis_pt corner[4];
    vis_rect_corners(&rep->vis.cards[i].rect, corner);
    double px[4][2];
    bool mapped = true;
    for (int k = 0; k < 4; k++) {
      double mm[2] = {corner[k].x, corner[k].y};
      mapped = mapped && rep->map.table_to_image(rep->map.user, mm, px[k]);
      px[k][0] *= scale, px[k][1] *= scale;
    }
    wch_motion_arrival came;
    wch_card_obs *o = &obs->cards[i];
    o->has_laid = mapped && wch_motion_came(m, px, &came);
    o->laid_frame = o->has_laid ? came.covered : 0;
    o->laid_shown = o->has_laid ? came.shown : 0;
  }
}

/* A still frame the watch decides on (or a second look at the flight just
 * announced): analysed, told to the game, and kept as the layout's
 * reference where it is one. 0, or the exit status. */
static int look_at_frame(app *a, an_session *s, layout_ref *lr, an_report *bare, wch_obs *obs,
                         const cap_frame *f, bool second_look, bool same_scene) {
  publish_frame(a, &f->color);
  /* the decided frame is a baseline while a flight is thrown and for
   * its second look; a command may have changed what it was */
  if (a->decided_stale || (!second_look && wch_get_stage(a->w) != WCH_WAIT_THROWS))
    layout_ref_forget_decided(lr);
  a->decided_stale = false;
  an_report rep;
  /* a second look is analysed as the decided frame was */
  bool use_ref = second_look ? a->decided_ref && lr->ref : layout_ref_usable(lr, a->w);
  tp_error err;
  tp_status st = analyse_frame(a, s, lr, use_ref ? lr->ref : NULL, &f->color, &rep, &err);
  if (st != TP_OK) {
    /* no markers in view (a hand, a bumped camera): next still frame */
    an_report_free(&rep);
    return 0;
  }
  to_obs(&rep.vis, use_ref ? lr : NULL, (int64_t)f->sequence, obs);
  obs->same_scene = same_scene;
  /* several layout cards new in one frame get their ids in laying order */
  if (!use_ref && wch_get_stage(a->w) == WCH_WAIT_LAYOUT && a->motion)
    note_laid(&rep, a->motion, f, obs);
  if (getenv("TEPPICH_WATCH_OBS")) { /* what the controller is told */
    char *j = wch_obs_to_json(obs);
    fprintf(stderr, "obs%s %s\n", use_ref ? "(ref)" : "", j ? j : "");
    free(j);
  }
  if (!second_look) a->decided_ref = use_ref;
  int rc = second_look ? confirm(a, obs) : decide(a, obs);
  follow_decided(lr, a, s, &rep, use_ref); /* before cards are added */
  layout_ref_sync(lr, a->w, s, &rep, bare, !use_ref);
  if (wch_get_stage(a->w) == WCH_WAIT_LAYOUT && rep.vis.n_carpets == 0) {
    an_report_free(bare); /* the layout's last frame without carpets */
    *bare = rep;
  } else {
    if (wch_get_stage(a->w) != WCH_WAIT_LAYOUT) an_report_free(bare);
    an_report_free(&rep);
  }
  return rc;
}

/* Follows the game on the frames of src, analysed by session s (both
 * from open_eyes; closed here). */
static int run_camera(app *a, an_session *s, cap_source *src, int64_t skip_to) {
  options *o = a->o;
  tp_error err;
  tp_status st = TP_OK;
  cap_spec spec;
  bool replay = cap_parse_source(o->source, &spec, &err) == TP_OK &&
                spec.kind != CAP_KIND_LIBCAMERA && spec.kind != CAP_KIND_V4L2;
  wch_motion *m = NULL;
  wch_motion_config mc;
  wch_motion_config_default(&mc);
  mc.still_frames = (int)(o->still > 0 ? o->still : WATCH_STILL_DEFAULT);
  st = wch_motion_create(&mc, &m, &err);
  a->motion = m;
  wch_obs *obs = malloc(sizeof *obs);
  int rc = st == TP_OK && obs ? 0 : cli_fail(1, "watch: out of memory");
  layout_ref lr = {.incremental = o->incremental};
  an_report bare = {0}; /* the layout's last still frame without carpets */
  vis_deck_card_mm(an_session_deck(s), lr.card_mm);
  int extra = 0; /* frames looked at after the first of a still scene */
  cap_frame f;
  while (rc == 0) {
    int got = cap_next(src, &f, &err);
    if (got == CAP_END) break;
    if (got < 0) {
      rc = cli_fail(1, "%s", err.text);
      break;
    }
    a->frames++;
    if (stop_requested(a)) {
      rc = stopped(a);
      break;
    }
    poll_commands(a);
    if (a->frames % 10 == 1) publish_frame(a, &f.color); /* live picture */
    wch_motion_result mr;
    if (wch_motion_feed(m, &f.gray, &mr, &err) != TP_OK) continue;
    if (mr.run == 1) a->settle_frame = a->frames - 1;
    if (replay && (int64_t)f.sequence <= skip_to) continue;
    /* a flight just announced gets a second look in the next still frames
     * of its scene; motion first: its questions are asked now */
    bool second_look = a->confirm_left > 0 && mr.still && !mr.settled &&
                       mr.run <= WATCH_LOOK_UNTIL;
    if (a->confirm_left > 0 && !second_look && (rc = ask_now(a)) != 0) break;
    /* the layout is looked at in a few still frames (each may miss a
     * card), and a taking that would give a card to a carpet until a
     * second frame shows it gone too; everything else once per still
     * scene */
    bool again = !second_look && mr.still && !mr.settled &&
                 ((extra < 2 && wch_get_stage(a->w) == WCH_WAIT_LAYOUT) ||
                  taking_look_due(a, mr.run, mc.still_frames));
    if (!mr.settled && !again && !second_look) continue;
    if (!second_look) extra = mr.settled ? 0 : extra + 1;
    rc = look_at_frame(a, s, &lr, &bare, obs, &f, second_look, again);
    if (wch_get_stage(a->w) == WCH_GAME_OVER) break;
  }
  if (rc == 0 && a->confirm_left > 0) rc = ask_now(a); /* the source ended */
  free(obs);
  layout_ref_reset(&lr);
  an_report_free(&bare);
  a->motion = NULL;
  wch_motion_destroy(m);
  cap_close(src);
  an_session_destroy(s);
  return rc;
}

/* ---- simulation ---- */

static int write_text(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  tp_error err;
  if (tp_write_file_atomic(path, text, strlen(text), &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  return 0;
}

static int simulate(const options *o, const ft_rules *rules,
                    const ft_players *players, int first_layer) {
  if (!o->write_dir)
    return cli_fail(2, "watch: --simulate needs --write DIR");
  mkdir(o->write_dir, 0755);
  wch_sim_config sc = {(uint64_t)o->seed, 3, 5, 0, 0, 0, 0};
  wch_sim sim;
  tp_error err;
  tp_status st = wch_simulate(&sc, rules, players, first_layer, &sim, &err);
  if (st != TP_OK) return cli_fail(tp_status_exit_code(st), "%s", err.text);
  size_t cap = 1 << 20, len = 0;
  char *all = malloc(cap);
  for (int f = 0; all && f < sim.n_frames; f++) {
    char *j = wch_obs_to_json(&sim.frames[f]);
    size_t n = j ? strlen(j) : 0;
    while (all && len + n + 32 > cap) {
      char *bigger = realloc(all, cap *= 2);
      if (!bigger) free(all);
      all = bigger;
    }
    if (all && j) {
      if (sim.moving[f]) j[n - 1] = '\0', n--; /* drop the closing brace */
      memcpy(all + len, j, n);
      len += n;
      len += (size_t)sprintf(all + len, "%s\n",
                             sim.moving[f] ? ",\"moving\":true}" : "");
    }
    free(j);
  }
  int rc = all ? 0 : cli_fail(1, "watch: out of memory");
  if (all) all[len] = '\0';
  if (!rc) rc = write_text(o->write_dir, "obs.jsonl", all);
  if (!rc) rc = write_text(o->write_dir, "answers.txt", sim.answers);
  if (!rc) rc = write_text(o->write_dir, "truth.transcript", sim.transcript);
  if (!rc && !o->demo)
    printf("%d frames, %d flights: %s/obs.jsonl, answers.txt, "
           "truth.transcript\n", sim.n_frames, sim.n_flights, o->write_dir);
  free(all);
  wch_sim_free(&sim);
  return rc;
}

/* ---- measurement on simulated games ---- */

typedef struct {
  char *text;
  size_t len;
  int warnings;
} collected;

static tp_status collect(void *user, const char *text, bool all,
                         tp_error *err) {
  collected *c = user;
  size_t n = strlen(text);
  if (all) c->len = 0;
  char *p = realloc(c->text, c->len + n + 1);
  if (!p) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  memcpy(p + c->len, text, n + 1);
  c->text = p;
  c->len += n;
  return TP_OK;
}

/* The lines starting with `word`, in order, compared one by one. */
static int same_lines(const char *a, const char *b, const char *word,
                      int *total) {
  int same = 0;
  size_t wl = strlen(word);
  *total = 0;
  for (;;) {
    while (*a && strncmp(a, word, wl)) a = strchr(a, '\n') ? strchr(a, '\n') + 1 : "";
    while (*b && strncmp(b, word, wl)) b = strchr(b, '\n') ? strchr(b, '\n') + 1 : "";
    if (!*b) return same;
    (*total)++;
    size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
    same += na == nb && !strncmp(a, b, na);
    a += na + (a[na] ? 1 : 0);
    b += nb + (b[nb] ? 1 : 0);
  }
}

/* The final totals of a transcript; false if it does not reach the end. */
static bool final_totals(const ft_rules *rules, const char *text,
                         int totals[FT_MAX_PLAYERS]) {
  ft_transcript *t;
  tp_error err;
  if (ft_transcript_open(rules, "t", text, strlen(text), 0, &t, &err))
    return false;
  ft_event *ev = malloc(sizeof *ev);
  bool done = false;
  while (ev && !done && ft_transcript_next(t, ev, &err) == TP_OK &&
         ev->kind != FT_EV_END)
    if (ev->kind == FT_EV_FINAL) {
      for (int p = 0; p < ev->final.n_players; p++)
        totals[p] = ev->final.scores[p].total;
      done = true;
    }
  free(ev);
  ft_transcript_close(t);
  return done;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Plays `games` simulated games per player count (seeds from 1000: never
 * used by the tests) through the controller and compares with the truth. */
static int measure(long games, const ft_rules *rules) {
  const char *specs[] = {"anna=red+yellow,ben=blue+green",
                         "anna=red,ben=blue,cleo=green",
                         "anna=red,ben=blue,cleo=green,dirk=yellow"};
  printf("players games flights exact-flights exact-reveals right-finals "
         "warnings(expected) frames us/frame\n");
  for (int i = 0; i < 3; i++) {
    ft_players pl;
    tp_error err;
    ft_players_parse(specs[i], &pl, &err);
    long flights = 0, exact = 0, reveals = 0, exact_rev = 0, finals = 0,
         warn = 0, warn_exp = 0, frames = 0;
    double t = 0;
    for (long g = 0; g < games; g++) {
      wch_sim_config sc = {1000 + (uint64_t)(g * 3 + i), 3, 5, 0.1, 0.1, 0.1,
                           0.1};
      wch_sim sim;
      if (wch_simulate(&sc, rules, &pl, 0, &sim, &err) != TP_OK)
        return cli_fail(1, "%s", err.text);
      collected c = {0};
      wch_config cfg;
      wch_config_default(&cfg);
      cfg.rules = rules;
      cfg.players = &pl;
      cfg.table_mm[0] = cfg.table_mm[1] = -50;
      cfg.table_mm[2] = 610, cfg.table_mm[3] = 450;
      wch_output out = {&c, NULL, NULL, collect};
      wch *w;
      if (wch_create(&cfg, &out, &w, &err) != TP_OK || wch_start(w, &err))
        return cli_fail(1, "%s", err.text);
      const char *cur = sim.answers;
      int run = 0;
      double t0 = seconds();
      for (int f = 0; f < sim.n_frames; f++) {
        wch_question q;
        while (wch_question_pending(w, &q) && *cur) {
          char line[512];
          size_t n = strcspn(cur, "\n");
          snprintf(line, sizeof line, "%.*s", (int)n, cur);
          cur += n + (cur[n] ? 1 : 0);
          wch_answer(w, line, &err);
        }
        run = sim.moving[f] ? 0 : run + 1;
        if (run == 3) wch_observe(w, &sim.frames[f], &err);
      }
      t += seconds() - t0;
      frames += sim.n_frames;
      int n;
      exact += same_lines(c.text, sim.transcript, "flight", &n);
      flights += n;
      exact_rev += same_lines(c.text, sim.transcript, "reveal", &n);
      reveals += n;
      int ta[FT_MAX_PLAYERS] = {0}, tb[FT_MAX_PLAYERS] = {0};
      finals += final_totals(rules, c.text, ta) &&
                final_totals(rules, sim.transcript, tb) &&
                !memcmp(ta, tb, sizeof ta);
      warn += wch_warnings(w);
      warn_exp += sim.warnings_expected;
      wch_destroy(w);
      free(c.text);
      wch_sim_free(&sim);
    }
    printf("%7d %5ld %7ld %13ld %7ld/%-5ld %12ld %8ld(%ld) %6ld %8.1f\n",
           pl.n_players, games, flights, exact, exact_rev, reveals, finals,
           warn, warn_exp, frames, frames ? t * 1e6 / (double)frames : 0.0);
  }
  return 0;
}

/* ---- options ---- */

static int parse_options(int argc, char **argv, options *o) {
  cap_options_init(&o->cap);
  tp_error err;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool v = i + 1 < argc;
    int used = cap_options_parse_arg(&o->cap, argc, argv, i, &err);
    if (used < 0) return cli_fail(2, "watch: %s", err.text);
    if (used > 0 && strcmp(a, "--fast")) {
      i += used - 1;
      continue;
    }
    const char **slot = NULL;
    if (!strcmp(a, "--source")) slot = &o->source;
    else if (!strcmp(a, "--players")) slot = &o->players;
    else if (!strcmp(a, "--deck")) slot = &o->deck;
    else if (!strcmp(a, "--calib")) slot = &o->calib;
    else if (!strcmp(a, "--first-layer")) slot = &o->first_layer;
    else if (!strcmp(a, "--answers")) slot = &o->answers;
    else if (!strcmp(a, "--events")) slot = &o->events;
    else if (!strcmp(a, "--transcript")) slot = &o->transcript;
    else if (!strcmp(a, "--resume")) slot = &o->resume;
    else if (!strcmp(a, "--observations")) slot = &o->observations;
    else if (!strcmp(a, "--rules")) slot = &o->rules;
    else if (!strcmp(a, "--write")) slot = &o->write_dir;
    else if (!strcmp(a, "--web")) slot = &o->web;
    if (slot) {
      if (!v) return cli_fail(2, "watch: %s needs a value", a);
      *slot = argv[++i];
    } else if (!strcmp(a, "--fast")) {
      o->fast = true;
    } else if (!strcmp(a, "--demo")) {
      o->demo = true;
    } else if (!strcmp(a, "--rendered")) { /* the default now; kept */
      o->rendered = true;
    } else if (!strcmp(a, "--simulated")) {
      o->simulated = true;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = true;
    } else if (!strcmp(a, "--stats")) {
      o->stats = true;
    } else if (!strcmp(a, "--incremental")) {
      o->incremental = true;
    } else if (!strcmp(a, "--no-incremental")) {
      o->incremental = false;
    } else if (!strcmp(a, "--hold-map")) {
      o->hold_map = true;
    } else if (!strcmp(a, "--still") && v) {
      if (!cli_parse_long(argv[++i], 1, 10, &o->still))
        return cli_fail(2, "watch: --still '%s': a number of frames 1..10",
                        argv[i]);
    } else if (!strcmp(a, "--measure") && v) {
      if (!cli_parse_long(argv[++i], 1, 10000, &o->measure))
        return cli_fail(2, "watch: --measure '%s': games 1..10000", argv[i]);
    } else if (!strcmp(a, "--simulate") && v) {
      o->simulate = true;
      if (!cli_parse_long(argv[++i], 0, 1L << 30, &o->seed))
        return cli_fail(2, "watch: --simulate '%s': a seed 0..2^30", argv[i]);
    } else if (!strcmp(a, "--table") && v) {
      const char *t = argv[++i];
      if (sscanf(t, "%lf,%lf,%lf,%lf", &o->table[0], &o->table[1],
                 &o->table[2], &o->table[3]) != 4)
        return cli_fail(2, "watch: --table '%s': X0,Y0,X1,Y1 in mm", t);
    } else {
      return cli_fail(2, "watch: unknown or incomplete option '%s' (see "
                      "teppich watch --help)", a);
    }
  }
  return -1;
}

/* "watch: TITLE: NAME MEAN ms (COUNT); ..." for three kinds of analysis,
 * without the line's end. */
static void print_cpu_means(const char *title, const char *const names[3],
                            const double total_ms[3], const long count[3]) {
  fprintf(stderr, "watch: %s:", title);
  for (int k = 0; k < 3; k++)
    fprintf(stderr, "%s %s %.1f ms (%ld)", k ? ";" : "", names[k],
            count[k] ? total_ms[k] / (double)count[k] : 0.0, count[k]);
}

static void print_stats(const app *a) {
  fprintf(stderr,
          "watch: %ld frames, %ld decisions, %ld announcements; latency from "
          "the scene settling to the announcement: mean %.1f, max %ld frames; "
          "analysis %.1f ms mean, %.1f ms max per analysed frame (%ld); "
          "corrections %ld\n",
          a->frames, a->decisions, a->announcements,
          a->announcements ? (double)a->latency_sum / (double)a->announcements
                           : 0.0,
          a->latency_max,
          a->analyses ? a->analysis_ms / (double)a->analyses : 0.0,
          a->analysis_max_ms, a->analyses, a->corrections);
  static const char *const kinds[3] = {"against the last decided frame",
                                       "against the layout", "from scratch"};
  print_cpu_means("CPU per analysis", kinds, a->cpu_ms, a->n_cpu);
  fprintf(stderr, "; taking a decided frame %.1f ms (%ld); analysed again "
          "against the layout %ld\n",
          a->n_set_decided ? a->set_decided_cpu_ms / (double)a->n_set_decided
                           : 0.0,
          a->n_set_decided, a->analysed_again);
  static const char *const stages[3] = {"throws", "second look", "other"};
  print_cpu_means("CPU per analysis by stage", stages, a->stage_cpu_ms,
                  a->n_stage_cpu);
  fputc('\n', stderr);
}

/* The built-in demo game: where its files are (a temporary folder). */
typedef struct {
  char dir[2048], game[2100];
  char obs[4096], answers[4096], source[4096], truth[4096], transcript[4096];
} demo_files;

/* DEMO_GAME_GENERATION is part of the cached game's folder name: bump it
 * whenever the renderer's pictures or its truth change (generation 2:
 * session 11's contact between rounded outlines changed the demo game's
 * truth), so that an upgraded teppich renders the game again instead of
 * replaying a cached one whose truth the new build would not write. */
enum { DEMO_SEED = 2026, DEMO_RENDER_SEED = 7, DEMO_GAME_GENERATION = 2 };

extern const cli_command cli_command_render;

/* Films the built-in game with the renderer (as `teppich render --game`)
 * into `dir`. */
static int render_game(const char *dir) {
  char seed[16], *out = (char *)dir;
  snprintf(seed, sizeof seed, "%d", DEMO_RENDER_SEED);
  char *argv[] = {"render", "--game", seed, "--players", "3", "--size",
                  "960x540", out, NULL};
  fprintf(stderr, "Rendering the demo game once (a minute or two)...\n");
  int rc = cli_command_render.run(8, argv);
  return rc ? cli_fail(1, "watch: the demo game could not be rendered") : -1;
}

/* Where the rendered demo game is kept: $TEPPICH_CACHE, else
 * $XDG_CACHE_HOME/teppich, else ~/.cache/teppich (false: none). */
static bool demo_cache(char *out, size_t cap) {
  const char *t = getenv("TEPPICH_CACHE"), *x = getenv("XDG_CACHE_HOME"),
             *h = getenv("HOME");
  char base[1024];
  if (t && *t)
    snprintf(base, sizeof base, "%s", t);
  else if (x && *x)
    snprintf(base, sizeof base, "%s/teppich", x);
  else if (h && *h)
    snprintf(base, sizeof base, "%s/.cache/teppich", h);
  else
    return false;
  /* parents one by one (mkdir -p) */
  for (char *p = base + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(base, 0755);
      *p = '/';
    }
  if (mkdir(base, 0755) != 0 && errno != EEXIST) return false;
  snprintf(out, cap, "%s/demo-game-%d-p3-960x540-g%d", base, DEMO_RENDER_SEED,
           DEMO_GAME_GENERATION);
  return true;
}

static void remove_tree(const char *dir, int depth);

/* The rendered game is the slow part: it is rendered once per generation
 * into the cache (into a temporary folder beside it, renamed when whole:
 * never half a game), else into the demo's temporary folder. */
static int render_demo(demo_files *d) {
  char cache[2048], part[2100], done[2200];
  if (!demo_cache(cache, sizeof cache)) {
    snprintf(d->game, sizeof d->game, "%s/game", d->dir);
    return render_game(d->game);
  }
  snprintf(d->game, sizeof d->game, "%s", cache);
  snprintf(done, sizeof done, "%s/transcript.txt", cache);
  if (access(done, R_OK) == 0) return -1;
  snprintf(part, sizeof part, "%s.part-XXXXXX", cache);
  if (!mkdtemp(part)) {
    snprintf(d->game, sizeof d->game, "%s/game", d->dir);
    return render_game(d->game);
  }
  int rc = render_game(part);
  if (rc < 0 && rename(part, cache) != 0 && access(done, R_OK) != 0)
    rc = cli_fail(1, "watch: cannot keep the demo game in %s: %s", cache,
                  strerror(errno));
  remove_tree(part, 0); /* what is left when another run was first */
  return rc;
}

static int demo_options(options *o, demo_files *d) {
  const char *tmp = getenv("TMPDIR");
  snprintf(d->dir, sizeof d->dir, "%s/teppich-demo-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(d->dir)) return cli_fail(1, "watch: cannot make a folder for "
                                        "the demo in %s", tmp ? tmp : "/tmp");
  o->players = "anna=red,ben=blue,cleo=green";
  if (o->rendered) {
    /* a rendered game: frames through stillness, analysis and controller */
    int rc = render_demo(d);
    if (rc >= 0) return rc;
    snprintf(d->source, sizeof d->source, "dir:%s@10", d->game);
    snprintf(d->answers, sizeof d->answers, "%s/answers.txt", d->game);
    snprintf(d->truth, sizeof d->truth, "%s/transcript.txt", d->game);
    snprintf(d->transcript, sizeof d->transcript, "%s/watch.txt", d->dir);
    o->source = d->source;
    o->answers = d->answers;
    if (!o->transcript) o->transcript = d->transcript;
    return -1;
  }
  /* a simulated game, replayed from its observations */
  snprintf(d->obs, sizeof d->obs, "%s/obs.jsonl", d->dir);
  snprintf(d->answers, sizeof d->answers, "%s/answers.txt", d->dir);
  snprintf(d->truth, sizeof d->truth, "%s/truth.transcript", d->dir);
  o->observations = d->obs;
  o->answers = d->answers;
  o->write_dir = d->dir;
  o->seed = DEMO_SEED;
  o->simulate = true;
  o->table[0] = -50, o->table[1] = -50, o->table[2] = 610, o->table[3] = 450;
  return -1;
}

/* Removes the demo folder: plain files and one level of folders. */
static void remove_tree(const char *dir, int depth) {
  DIR *dp = opendir(dir);
  struct dirent *e;
  char path[4400];
  while (dp && (e = readdir(dp))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (n < 0 || (size_t)n >= sizeof path) continue; /* not ours: too long */
    if (unlink(path) != 0 && depth > 0) remove_tree(path, depth - 1);
  }
  if (dp) closedir(dp);
  rmdir(dir);
}

/* After a rendered demo: does watch's final table match the game's? */
static void compare_demo(const options *o, const demo_files *d,
                         const ft_rules *rules) {
  char *truth = NULL, *seen = NULL;
  size_t len;
  tp_error err;
  int a[FT_MAX_PLAYERS] = {0}, b[FT_MAX_PLAYERS] = {0};
  bool same = tp_read_file(d->truth, 1u << 20, &truth, &len, &err) == TP_OK &&
              tp_read_file(o->transcript, 1u << 20, &seen, &len, &err) ==
                  TP_OK &&
              final_totals(rules, truth, a) && final_totals(rules, seen, b) &&
              !memcmp(a, b, sizeof a);
  printf("\n%s\n", same ? "The same final table as the game's truth."
                         : "The game's true final table differs (the vision "
                           "is still learning); the truth:");
  fflush(stdout);
  if (!same) {
    extern const cli_command cli_command_score;
    char *argv[] = {"score", (char *)d->truth, NULL};
    cli_command_score.run(2, argv);
  }
  free(truth);
  free(seen);
}

static int start_or_resume(app *a, int64_t *skip_to) {
  tp_error err;
  *skip_to = -1;
  if (!a->o->resume) {
    if (wch_start(a->w, &err) != TP_OK)
      return cli_fail(2, "%s", err.text);
    return -1;
  }
  char *text;
  size_t len, good;
  if (tp_read_file(a->o->resume, 64u << 20, &text, &len, &err) != TP_OK)
    return cli_fail(2, "%s", err.text);
  tp_status st = wch_resume(a->w, a->o->resume, text, len, &good, &err);
  if (st == TP_OK && good < len && truncate(a->o->resume, (off_t)good) != 0)
    st = tp_error_set(&err, TP_ERR_IO, "%s: cannot cut off the broken last "
                      "line: %s", a->o->resume, strerror(errno));
  free(text);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  *skip_to = wch_resume_frame(a->w);
  skip_answers(a, wch_answers_used(a->w));
  skip_given_reveals(a, wch_answers_used(a->w));
  /* stopped between a flight's announcement and its second look: the
   * frames after the resumed one give it */
  if (a->confirm_frames > 0 && wch_confirm_pending(a->w))
    a->confirm_left = a->confirm_frames;
  on_say(a, WCH_SAY_INFO, "Resuming the game: round and state from the "
         "transcript.");
  return -1;
}

static int play(options *o, const ft_rules *rules, const ft_players *players,
                int first_layer) {
  app a = {.o = o, .players = players, .rules = rules, .tfd = -1, .settle_frame = 0};
  /* decide on the Nth still frame; look again up to the 3rd */
  a.confirm_frames =
      WATCH_LOOK_UNTIL - (int)(o->still > 0 ? o->still : WATCH_STILL_DEFAULT);
  if (a.confirm_frames < 0) a.confirm_frames = 0;
  a.say_out = o->events && !strcmp(o->events, "-") ? stderr : stdout;
  const char *term = getenv("TERM");
  a.colour = isatty(fileno(a.say_out)) && !getenv("NO_COLOR") && term &&
             strcmp(term, "dumb");
  a.stdin_tty = isatty(0);
  a.stdin_open = true;
  tp_error err;
  int rc = -1;
  if (o->observations && access(o->observations, R_OK) != 0)
    return cli_fail(2, "%s: cannot read the observations: %s",
                    o->observations, strerror(errno));
  if (o->answers) {
    size_t len;
    if (tp_read_file(o->answers, 1u << 20, &a.answers_text, &len, &err) !=
        TP_OK)
      return cli_fail(2, "%s", err.text);
  }
  if (o->events)
    a.events = strcmp(o->events, "-") ? fopen(o->events, "a") : stdout;
  if (o->events && !a.events)
    rc = cli_fail(2, "%s: cannot open for the events: %s", o->events,
                  strerror(errno));
  wch_config cfg;
  wch_config_default(&cfg);
  cfg.rules = rules;
  cfg.players = players;
  cfg.first_layer = first_layer;
  memcpy(cfg.table_mm, o->table, sizeof cfg.table_mm);
  cfg.taking_looks = 2; /* a card taken under a carpet: gone twice */
  wch_output out = {&a, on_say, on_event, on_record};
  if (rc < 0 && wch_create(&cfg, &out, &a.w, &err) != TP_OK)
    rc = cli_fail(2, "%s", err.text);
  int64_t skip_to = -1;
  an_session *session = NULL;
  cap_source *src = NULL;
  if (rc < 0 && !o->observations) rc = open_eyes(&a, &session, &src);
  if (rc < 0 && o->web) rc = start_web(&a);
  if (rc < 0) rc = start_or_resume(&a, &skip_to);
  publish_state(&a);
  if (rc < 0 && a.confirm_left == 0 && !answer_questions(&a))
    rc = a.stopped ? stopped(&a)
                   : cli_fail(1, "no answer for the genie deal (give "
                              "--answers or answer on the terminal)");
  if (rc < 0)
    rc = o->observations ? run_observations(&a, o->observations, skip_to)
                         : run_camera(&a, session, src, skip_to);
  else {
    cap_close(src); /* NULL-safe, as an_session_destroy */
    an_session_destroy(session);
  }
  if (rc == 0) rc = settle_at_end(&a);
  if (rc == 0 && wch_get_stage(a.w) != WCH_GAME_OVER) {
    on_say(&a, WCH_SAY_INFO, "The recording ended before the game did; "
           "continue with --resume.");
  }
  if (o->stats) print_stats(&a);
  if (rc == 0 && a.web) {
    publish_state(&a);
    serve_until_stopped(&a);
  }
  web_destroy(a.web);
  if (a.events && a.events != stdout) fclose(a.events);
  if (a.tfd >= 0) close(a.tfd);
  wch_destroy(a.w);
  free(a.answers_text);
  return rc;
}

static int run_game(options *o, const demo_files *demo);

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.measure) {
    ft_rules rules;
    tp_error err;
    if (ft_rules_load(o.rules, &rules, &err) != TP_OK)
      return cli_fail(2, "watch: %s", err.text);
    return measure(o.measure, &rules);
  }
  if ((o.rendered || o.simulated) && !o.demo)
    return cli_fail(2, "watch: --%s goes with --demo",
                    o.rendered ? "rendered" : "simulated");
  if (o.rendered && o.simulated)
    return cli_fail(2, "watch: --rendered or --simulated, not both");
  o.rendered = o.demo && !o.simulated; /* the demo is the rendered game */
  demo_files *demo = o.demo ? calloc(1, sizeof *demo) : NULL;
  if (o.demo && !demo) return cli_fail(1, "watch: out of memory");
  if (demo && (rc = demo_options(&o, demo)) >= 0) {
    remove_tree(demo->dir, 1);
    free(demo);
    return rc;
  }
  if (!o.players) return cli_fail(2, "watch: --players SPEC is needed "
                                  "(anna=red,ben=blue,cleo=green)");
  if (!o.source && !o.observations && !o.simulate)
    return cli_fail(2, "watch: --source SRC is needed (see teppich watch "
                    "--help)");
  rc = run_game(&o, demo);
  if (demo) remove_tree(demo->dir, 1);
  free(demo);
  return rc;
}

static int run_game(options *o, const demo_files *demo) {
  int rc;
  tp_error err;
  ft_rules rules;
  ft_players players;
  if (ft_rules_load(o->rules, &rules, &err) != TP_OK ||
      ft_players_parse(o->players, &players, &err) != TP_OK ||
      ft_players_check_game(&players, &rules, &err) != TP_OK)
    return cli_fail(2, "watch: %s", err.text);
  int first = o->first_layer ? ft_players_by_name(&players, o->first_layer) : 0;
  if (first < 0)
    return cli_fail(2, "watch: --first-layer '%s' is not one of the players",
                    o->first_layer);
  if (demo && !o->rendered) {
    rc = simulate(o, &rules, &players, first);
    return rc ? rc : play(o, &rules, &players, first);
  }
  if (demo) {
    rc = play(o, &rules, &players, first);
    if (rc == 0) compare_demo(o, demo, &rules);
    return rc;
  }
  if (o->simulate) return simulate(o, &rules, &players, first);
  if (o->resume && !o->transcript) o->transcript = o->resume;
  return play(o, &rules, &players, first);
}

const cli_command cli_command_watch = {
    "watch", "follow a live game from the camera: claims, contests, scores",
    run};
