/* teppich score: replay a recorded Fliegende Teppiche game and score it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ftreport.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: teppich score FILE [--json] [--rules FILE]\n\n"
          "Replays a game transcript (docs/transcript.md) through the rules\n"
          "and prints every flight's claims, the genie contests and swaps,\n"
          "the palace comparisons and the final score table with the\n"
          "winner(s).\n\n"
          "  --json        print the same as one JSON object\n"
          "  --rules FILE  rules settings (default: the built-in rules,\n"
          "                the same as rules/fliegende-teppiche.rules)\n");
}

static int run(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) return usage(stdout), 0;
  const char *file = NULL, *rules_file = NULL;
  ftr_format format = FTR_TEXT;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      format = FTR_JSON;
    else if (!strcmp(argv[i], "--rules") && i + 1 < argc)
      rules_file = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_fail(
          2, "score: unknown option '%s' (see teppich score --help)", argv[i]);
    else if (file)
      return cli_fail(2, "score: one transcript at a time ('%s' and '%s')",
                      file, argv[i]);
    else
      file = argv[i];
  }
  if (!file)
    return cli_fail(2, "score: which transcript? (teppich score FILE)");
  tp_error err;
  ft_rules rules;
  tp_status st = ft_rules_load(rules_file, &rules, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  char *text, *report;
  size_t len;
  st = tp_read_file(file, 16u << 20, &text, &len, &err);
  if (st != TP_OK) return cli_fail(2, "%s", err.text);
  st = ftr_score(&rules, file, text, len, format, &report, &err);
  free(text);
  if (st != TP_OK) return cli_fail(st == TP_ERR_NOMEM ? 1 : 2, "%s", err.text);
  fputs(report, stdout);
  free(report);
  return 0;
}

const cli_command cli_command_score = {
    "score", "replay a recorded game transcript and print the scores", run};
