/* teppich analyze: one photo of the table -> cards, carpets, claims
 * (spec section 4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli.h"

static const char usage[] =
    "usage: teppich analyze IMAGE [--deck DIR] [--calib FILE] [--players SPEC]\n"
    "                       [--json] [--annotate OUT.png] [--threads N]\n"
    "                       [--rules FILE]\n"
    "\n"
    "Finds every destination card and carpet in one photo of the table, which\n"
    "lies on top where they overlap, and the claims, contests and returned\n"
    "carpets by the rules of Fliegende Teppiche.\n"
    "\n"
    "  --deck DIR        the deck folder (default: the built-in demo deck)\n"
    "  --calib FILE      a calibration file (default: the markers in IMAGE)\n"
    "  --players SPEC    anna=red+yellow,ben=blue+green (default: each colour\n"
    "                    is its own player)\n"
    "  --json            print the JSON of spec section 4\n"
    "  --annotate OUT    write the photo with everything found drawn on it\n"
    "  --threads N       analysis workers, 1..16 (default: one per core, at\n"
    "                    most 4); the result is the same for any N\n"
    "  --rules FILE      rules settings (rules/fliegende-teppiche.rules): the\n"
    "                    claims, and how far a carpet must reach into a card to\n"
    "                    lie on it (contact_depth_tenths_mm; default: any overlap)\n"
    "\n"
    "Decisions the program is not sure of are marked \"uncertain\" with a\n"
    "reason in the JSON and said in the summary. See docs/analyze.md.\n";

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  an_options o = {0};
  bool json = false;
  const char *annotate = NULL, *rules_file = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_val = i + 1 < argc;
    if (!strcmp(a, "--json"))
      json = true;
    else if (!strcmp(a, "--deck") && has_val)
      o.deck_dir = argv[++i];
    else if (!strcmp(a, "--calib") && has_val)
      o.calib_file = argv[++i];
    else if (!strcmp(a, "--players") && has_val)
      o.players = argv[++i];
    else if (!strcmp(a, "--annotate") && has_val)
      annotate = argv[++i];
    else if (!strcmp(a, "--rules") && has_val)
      rules_file = argv[++i];
    else if (!strcmp(a, "--threads") && has_val) {
      long n;
      if (!cli_parse_long(argv[++i], 1, 16, &n))
        return cli_fail(2, "analyze: --threads wants 1..16, not '%s'", argv[i]);
      o.threads = (int)n;
    }
    else if (a[0] == '-' && a[1])
      return cli_fail(2, "analyze: unknown or incomplete option '%s' (see teppich analyze --help)", a);
    else if (!o.image)
      o.image = a;
    else
      return cli_fail(2, "analyze: more than one IMAGE ('%s')", a);
  }
  if (!o.image) return cli_fail(2, "analyze: no IMAGE given (see teppich analyze --help)");
  tp_error err = {{0}};
  ft_rules rules;
  if (ft_rules_load(rules_file, &rules, &err) != TP_OK) return cli_fail(2, "%s", err.text);
  o.rules = &rules;
  an_session *s = NULL;
  tp_status st = an_session_create(&o, &s, &err);
  if (st) return cli_fail(tp_status_exit_code(st), "%s", err.text);
  an_report rep;
  st = an_run_file(s, o.image, &rep, &err);
  if (!st && annotate) st = an_annotate(s, &rep, annotate, &err);
  if (st) {
    an_report_free(&rep);
    an_session_destroy(s);
    return cli_fail(tp_status_exit_code(st), "%s", err.text);
  }
  char *text = json ? an_report_json(s, &rep) : an_report_summary(s, &rep);
  if (text) fputs(text, stdout);
  free(text);
  an_report_free(&rep);
  an_session_destroy(s);
  return text ? 0 : cli_fail(1, "analyze: out of memory");
}

const cli_command cli_command_analyze = {
    "analyze", "find the cards and carpets in a photo and who claims what", run};
