/* teppich record: numbered JPEG frames plus capture.json from a source,
 * in the folder layout that `dir:` replays. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "cli.h"

typedef struct {
  int64_t t_ns;
  uint64_t source_sequence;
} frame_note;

typedef struct {
  frame_note *notes;
  size_t count, cap;
} frame_log;

static int usage(FILE *out, int status) {
  fprintf(out,
          "usage: teppich record --source SRC --seconds N --out FOLDER "
          "[options]\n\n"
          "Records frames as FOLDER/frame-000001.jpg ... and FOLDER/capture.json\n"
          "(timestamps, camera, settings, counters). Replay the folder with\n"
          "--source dir:FOLDER (add @FPS to pace it).\n\n"
          "  --seconds N     how long to record (source time; replays stop at\n"
          "                  their end)\n"
          "  --frames N      stop after N frames as well\n"
          "  --gray          record gray frames instead of colour\n"
          "%s",
          cap_options_help);
  return status;
}

static bool note_frame(frame_log *log, const cap_frame *f, int64_t t0) {
  if (log->count == log->cap) {
    size_t ncap = log->cap ? log->cap * 2 : 256;
    frame_note *grown = realloc(log->notes, ncap * sizeof *grown);
    if (!grown) return false;
    log->notes = grown;
    log->cap = ncap;
  }
  log->notes[log->count++] = (frame_note){f->timestamp_ns - t0,
                                          f->source_sequence};
  return true;
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

static void write_settings(FILE *j, const char *source, const cap_source *src) {
  cap_settings s;
  cap_get_settings(src, &s);
  cap_stats st;
  cap_get_stats(src, &st);
  fputs("{\n  \"source\": ", j);
  json_string(j, source);
  fputs(",\n  \"camera\": ", j);
  json_string(j, s.camera);
  fputs(",\n  \"format\": ", j);
  json_string(j, s.format);
  fprintf(j,
          ",\n  \"width\": %d, \"height\": %d, \"fps\": %.3f,\n"
          "  \"settings\": {\"locked\": %s, \"exposure_us\": %.1f, "
          "\"gain\": %.3f, \"colour_gains\": [%.4f, %.4f], "
          "\"white_balance_k\": %d},\n"
          "  \"stats\": {\"delivered\": %llu, \"dropped\": %llu, "
          "\"late\": %llu, \"timeouts\": %llu, \"reconnects\": %llu},\n",
          s.width, s.height, s.fps, s.locked ? "true" : "false",
          s.exposure_us, s.gain, s.colour_gains[0], s.colour_gains[1],
          s.white_balance_k, (unsigned long long)st.delivered,
          (unsigned long long)st.dropped, (unsigned long long)st.late,
          (unsigned long long)st.timeouts, (unsigned long long)st.reconnects);
}

static tp_status write_metadata(const char *folder, const char *source,
                                const cap_source *src, const frame_log *log,
                                tp_error *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *j = open_memstream(&text, &len);
  if (!j) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  write_settings(j, source, src);
  fputs("  \"frames\": [", j);
  for (size_t i = 0; i < log->count; i++)
    fprintf(j, "%s\n    {\"file\": \"frame-%06zu.jpg\", \"t_ms\": %.3f, "
               "\"source_sequence\": %llu}",
            i ? "," : "", i + 1, (double)log->notes[i].t_ns / 1e6,
            (unsigned long long)log->notes[i].source_sequence);
  fputs("\n  ]\n}\n", j);
  fclose(j);
  char path[4200];
  snprintf(path, sizeof path, "%s/capture.json", folder);
  tp_status st = tp_write_file_atomic(path, text, len, err);
  free(text);
  return st;
}

static tp_status ensure_folder(const char *folder, tp_error *err) {
  struct stat st;
  if (mkdir(folder, 0777) == 0) return TP_OK;
  if (errno == EEXIST && stat(folder, &st) == 0 && S_ISDIR(st.st_mode))
    return TP_OK;
  return tp_error_set(err, TP_ERR_IO, "cannot create folder %s: %s", folder,
                      strerror(errno));
}

typedef struct {
  const char *source, *folder;
  double seconds;
  long max_frames;
} record_job;

/* Reads and writes frames until the time or frame budget is used up. */
static int record_frames(const record_job *job, cap_source *src,
                         frame_log *log, tp_error *err) {
  int64_t t0 = 0;
  char path[4200];
  for (;;) {
    if (job->max_frames > 0 && (long)log->count >= job->max_frames)
      return CAP_END;
    cap_frame f;
    int rc = cap_next(src, &f, err);
    if (rc != CAP_FRAME) return rc;
    if (log->count == 0) t0 = f.timestamp_ns;
    if ((double)(f.timestamp_ns - t0) >= job->seconds * 1e9) return CAP_END;
    snprintf(path, sizeof path, "%s/frame-%06zu.jpg", job->folder,
             log->count + 1);
    const tp_image *img = f.color.data ? &f.color : &f.gray;
    tp_status st = cap_write_jpeg(path, img, 90, err);
    if (st != TP_OK) return st;
    if (!note_frame(log, &f, t0))
      return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
  }
}

static int finish(const record_job *job, cap_source *src, frame_log *log,
                  int rc, tp_error *err) {
  tp_error meta_err;
  tp_status meta = write_metadata(job->folder, job->source, src, log,
                                  &meta_err);
  cap_stats st;
  cap_get_stats(src, &st);
  cap_settings set;
  cap_get_settings(src, &set);
  cap_close(src);
  free(log->notes);
  if (rc < 0) return cli_fail(cap_exit_code(job->source, rc), "%s", err->text);
  if (meta != TP_OK) return cli_fail(TP_EXIT_USAGE, "%s", meta_err.text);
  if (log->count == 0)
    return cli_fail(TP_EXIT_JOB, "source %s gave no frame", job->source);
  printf("recorded %zu frames to %s (dropped %llu, late %llu, reconnects "
         "%llu); replay with --source dir:%s@%g\n",
         log->count, job->folder, (unsigned long long)st.dropped,
         (unsigned long long)st.late, (unsigned long long)st.reconnects,
         job->folder, set.fps > 0 ? set.fps : 10);
  return TP_EXIT_OK;
}

static int run_record(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) return usage(stdout, TP_EXIT_OK);
  record_job job = {NULL, NULL, -1, 0};
  cap_options opt;
  cap_options_init(&opt);
  opt.color = true;
  tp_error err;
  for (int i = 1; i < argc; i++) {
    int used = cap_options_parse_arg(&opt, argc, argv, i, &err);
    if (used < 0) return cli_fail(TP_EXIT_USAGE, "%s", err.text);
    if (used > 0) { i += used - 1; continue; }
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--gray")) opt.color = false;
    else if (!strcmp(a, "--source") && v) job.source = argv[++i];
    else if (!strcmp(a, "--out") && v) job.folder = argv[++i];
    else if (!strcmp(a, "--seconds") && v &&
             cli_parse_double(v, 0.001, 86400, &job.seconds)) i++;
    else if (!strcmp(a, "--frames") && v &&
             cli_parse_long(v, 1, 100000000, &job.max_frames)) i++;
    else
      return cli_fail(TP_EXIT_USAGE, "record: bad or unexpected '%s' (see "
                      "`teppich record --help`)", a);
  }
  if (!job.source || !job.folder || job.seconds <= 0)
    return cli_fail(TP_EXIT_USAGE,
                    "record needs --source SRC --seconds N --out FOLDER");
  if (strlen(job.folder) > 4000)
    return cli_fail(TP_EXIT_USAGE, "record: folder name too long");
  cap_source *src;
  tp_status st = cap_open(&src, job.source, &opt, &err);
  if (st != TP_OK)
    return cli_fail(cap_exit_code(job.source, st), "%s", err.text);
  if (ensure_folder(job.folder, &err) != TP_OK) {
    cap_close(src);
    return cli_fail(TP_EXIT_USAGE, "%s", err.text);
  }
  frame_log log = {NULL, 0, 0};
  int rc = record_frames(&job, src, &log, &err);
  return finish(&job, src, &log, rc, &err);
}

const cli_command cli_command_record = {
    "record", "record numbered JPEG frames + capture.json from a source",
    run_record};
