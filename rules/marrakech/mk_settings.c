/* marrakech: the settings and their rules file (read by rules/settings). */
#include "marrakech.h"

#include <string.h>

#include "settings.h"

/* The keys of rules/marrakech.rules. Their defaults are the printed rules
 * and the only place those numbers are written down in code. */
static const rset_key mk__keys[] = {
    {"starting_dirhams", RSET_INT, 0, 100000, 0, 0, NULL, "30",
     "dirhams each player starts with, at every player count"},
    {"rugs_2p", RSET_INT, 2, 200, 0, 0, NULL, "24",
     "rugs per player with 2 players (split evenly over their two colours)"},
    {"rugs_3p", RSET_INT, 1, 200, 0, 0, NULL, "15",
     "rugs per player with 3 players"},
    {"rugs_4p", RSET_INT, 1, 200, 0, 0, NULL, "12",
     "rugs per player with 4 players"},
    {"die_faces", RSET_LIST, 1, 100, 1, MK_MAX_DIE_FACES, NULL,
     "1, 2, 2, 3, 3, 4", "the faces of the die, each equally likely"},
    {"two_colours_for_two_players", RSET_WORD, 0, 0, 0, 0, "yes|no", "yes",
     "with 2 players each plays two colours, separate for payment"},
    {"cover_own_rug", RSET_WORD, 0, 0, 0, 0, "yes|no", "no",
     "may a rug cover both halves of one of the player's own rugs (BGA: yes)"},
};

static void from_table(const rset_table *t, mk_settings *s) {
  memset(s, 0, sizeof *s);
  s->starting_dirhams = (int)rset_int(t, "starting_dirhams");
  s->rugs_per_player[2] = (int)rset_int(t, "rugs_2p");
  s->rugs_per_player[3] = (int)rset_int(t, "rugs_3p");
  s->rugs_per_player[4] = (int)rset_int(t, "rugs_4p");
  const long *faces;
  s->die_face_count = rset_list(t, "die_faces", &faces);
  for (int i = 0; i < s->die_face_count; i++)
    s->die_faces[i] = (int)faces[i];
  s->two_colours_for_two_players =
      rset_is(t, "two_colours_for_two_players", "yes");
  s->cover_own_rug = rset_is(t, "cover_own_rug", "yes");
}

void mk_settings_default(mk_settings *s) {
  rset_table *t = NULL;
  if (rset_create(mk__keys, sizeof mk__keys / sizeof mk__keys[0], &t, NULL) !=
      TP_OK) {
    memset(s, 0, sizeof *s); /* out of memory: fails mk_settings_check */
    return;
  }
  from_table(t, s);
  rset_destroy(t);
}

tp_status mk_settings_check(const mk_settings *s, tp_error *err) {
  if (s->starting_dirhams < 0 || s->starting_dirhams > 100000)
    return tp_error_set(err, TP_ERR_INVALID,
                        "starting_dirhams must be 0..100000");
  for (int n = MK_MIN_PLAYERS; n <= MK_MAX_PLAYERS; n++)
    if (s->rugs_per_player[n] < 1 || s->rugs_per_player[n] > 200)
      return tp_error_set(err, TP_ERR_INVALID, "rugs_%dp must be 1..200", n);
  if (s->two_colours_for_two_players && s->rugs_per_player[2] % 2)
    return tp_error_set(err, TP_ERR_INVALID,
                        "rugs_2p must be even: half of them in each "
                        "colour");
  if (s->die_face_count < 1 || s->die_face_count > MK_MAX_DIE_FACES)
    return tp_error_set(err, TP_ERR_INVALID, "die_faces needs 1..%d faces",
                        MK_MAX_DIE_FACES);
  for (int i = 0; i < s->die_face_count; i++)
    if (s->die_faces[i] < 1 || s->die_faces[i] > 100)
      return tp_error_set(err, TP_ERR_INVALID, "die faces must be 1..100");
  return TP_OK;
}

tp_status mk_settings_load(mk_settings *s, const char *path, tp_error *err) {
  rset_table *t = NULL;
  tp_status st =
      rset_create(mk__keys, sizeof mk__keys / sizeof mk__keys[0], &t, err);
  if (st == TP_OK) st = rset_load_file(t, path, err);
  mk_settings loaded;
  if (st == TP_OK) {
    from_table(t, &loaded);
    st = mk_settings_check(&loaded, err);
    if (st != TP_OK) {
      /* Name the file too: the rule spans keys, so no single line. */
      char why[sizeof err->text];
      if (err) {
        snprintf(why, sizeof why, "%s", err->text);
        tp_error_set(err, st, "%s: %s", path, why);
      }
    }
  }
  rset_destroy(t);
  if (st == TP_OK) *s = loaded;
  return st;
}
