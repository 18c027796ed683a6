/* teppich web: the game page for phones, without a camera.
 *   --demo        a made-up game in the middle of round 2 (tools/webdemo)
 *   --state FILE  a state JSON written by someone else (e.g. a saved
 *                 /state.json), with --frame FILE.jpg as its picture
 * Prints where to point the phones, then serves until Ctrl-C. Answers
 * typed on the page are printed one per line: `answer: LINE: ok|reason`.
 * The live game serves the same page with `teppich watch --web ADDR:PORT`. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "core.h"
#include "web.h"
#include "webdemo.h"

static const char usage[] =
    "usage: teppich web --demo [--port N | --listen ADDR:PORT]\n"
    "       teppich web --state FILE [--frame FILE.jpg] [--port N | --listen "
    "ADDR:PORT]\n\n"
    "Serves the game page for the players' phones (docs/web.md).\n"
    "  --demo              a made-up game waiting for a genie reveal; answers\n"
    "                      from the page are checked and change the game\n"
    "  --state FILE        serve this state JSON instead (answers are only\n"
    "                      printed)\n"
    "  --frame FILE        a JPEG to show as the camera picture (--state)\n"
    "  --port N            port on every interface (default 8080)\n"
    "  --listen ADDR:PORT  address and port, e.g. 127.0.0.1:0 (0: any free\n"
    "                      port; the URL printed says which)\n"
    "Answers from the page are printed as `answer: LINE: ok` or\n"
    "`answer: LINE: <why not>`. Ctrl-C stops.\n";

typedef struct {
  bool demo;
  const char *state, *frame;
  web_config web;
} options;

static int parse_options(int argc, char **argv, options *o) {
  web_config_default(&o->web);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    long v;
    tp_error err;
    if (!strcmp(a, "--demo")) {
      o->demo = true;
    } else if (!strcmp(a, "--state") && has_value) {
      o->state = argv[++i];
    } else if (!strcmp(a, "--frame") && has_value) {
      o->frame = argv[++i];
    } else if (!strcmp(a, "--port") && has_value) {
      if (!cli_parse_long(argv[++i], 0, 65535, &v))
        return cli_fail(2, "--port '%s': a port number 0..65535", argv[i]);
      o->web.port = (int)v;
    } else if (!strcmp(a, "--listen") && has_value) {
      if (web_parse_listen(argv[++i], &o->web, &err) != TP_OK)
        return cli_fail(2, "%s", err.text);
    } else {
      return cli_fail(2, "web: unknown or incomplete option '%s' (see "
                      "teppich web --help)", a);
    }
  }
  if (o->demo == (o->state != NULL))
    return cli_fail(2, "web: give --demo or --state FILE (the live game "
                    "serves its page with teppich watch --web ADDR:PORT)");
  if (o->frame && !o->state)
    return cli_fail(2, "web: --frame goes with --state");
  return -1;
}

/* The URLs to open: this machine's IPv4 addresses when bound to all. */
static void print_urls(const web_config *cfg, int port) {
  if (strcmp(cfg->address, "0.0.0.0")) {
    printf("teppich web: open http://%s:%d/ (Ctrl-C stops)\n", cfg->address,
           port);
    return;
  }
  printf("teppich web: serving on port %d of every interface; open on a "
         "phone in this network:\n", port);
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) == 0) {
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      char text[INET_ADDRSTRLEN];
      struct sockaddr_in *sa = (struct sockaddr_in *)(void *)i->ifa_addr;
      if (inet_ntop(AF_INET, &sa->sin_addr, text, sizeof text))
        printf("  http://%s:%d/\n", text, port);
    }
    freeifaddrs(list);
  }
}

static tp_status publish_demo(web_server *s, const wdemo *d, tp_error *err) {
  char *json = wdemo_state_json(d);
  if (!json) return tp_error_set(err, TP_ERR_NOMEM, "web: out of memory");
  tp_status st = web_publish_state(s, json, strlen(json), err);
  free(json);
  uint8_t *jpeg = NULL;
  size_t len = 0;
  if (st == TP_OK) st = wdemo_frame_jpeg(d, &jpeg, &len, err);
  if (st == TP_OK) st = web_publish_frame(s, jpeg, len, err);
  free(jpeg);
  return st;
}

static tp_status publish_files(web_server *s, const options *o,
                               tp_error *err) {
  char *data = NULL;
  size_t len = 0;
  tp_status st = tp_read_file(o->state, o->web.max_state, &data, &len, err);
  if (st == TP_OK) st = web_publish_state(s, data, len, err);
  free(data);
  data = NULL;
  if (st == TP_OK && o->frame)
    st = tp_read_file(o->frame, o->web.max_frame, &data, &len, err);
  if (st == TP_OK && o->frame)
    st = web_publish_frame(s, (const uint8_t *)data, len, err);
  free(data);
  return st;
}

/* Takes the answers waiting; false when publishing the new state failed. */
static bool take_answers(web_server *s, wdemo *d, tp_error *err) {
  web_answer a;
  while (web_poll_answer(s, &a)) {
    tp_error why;
    tp_status st = d ? wdemo_answer(d, a.line, &why) : TP_OK;
    web_answer_done(s, a.id, st == TP_OK ? NULL : why.text);
    printf("answer: %s: %s\n", a.line, st == TP_OK ? "ok" : why.text);
    if (st == TP_OK && d && publish_demo(s, d, err) != TP_OK) return false;
  }
  return true;
}

/* Serves until SIGINT/SIGTERM, waiting for them in small steps (blocked
 * and taken with sigtimedwait: no handler, no global flag). */
static int serve(web_server *s, wdemo *d, const sigset_t *stop) {
  struct timespec step = {0, 50 * 1000000L};
  tp_error err;
  for (;;) {
    if (!take_answers(s, d, &err)) return cli_fail(1, "%s", err.text);
    int sig = sigtimedwait(stop, NULL, &step);
    if (sig == SIGINT || sig == SIGTERM) return 0;
  }
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  options o = {0};
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  setvbuf(stdout, NULL, _IOLBF, 0); /* tests and pipes see each line */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, NULL); /* before the server's threads */
  tp_error err;
  wdemo *d = NULL;
  web_server *s = NULL;
  tp_status st = o.demo ? wdemo_create(&d, &err) : TP_OK;
  if (st == TP_OK) st = web_create(&o.web, &s, &err);
  if (st == TP_OK) st = o.demo ? publish_demo(s, d, &err)
                               : publish_files(s, &o, &err);
  if (st != TP_OK) {
    web_destroy(s);
    wdemo_destroy(d);
    return cli_fail(st == TP_ERR_IO && !o.state ? 1 : tp_status_exit_code(st),
                    "%s", err.text);
  }
  print_urls(&o.web, web_port(s));
  rc = serve(s, d, &stop);
  web_destroy(s);
  wdemo_destroy(d);
  return rc;
}

const cli_command cli_command_web = {
    "web", "the game page for phones (--demo: without a camera)", run};
