/* ft cards: the twelve destination card types and the 52-card deck. */
#include "ft.h"

#include <string.h>

static const struct {
  const char *name;
  int count;
} card_types[FT_N_TYPES] = {
    [FT_PALACE] = {"palace", 12},
    [FT_ADVENTURE_A] = {"adventure-a", 3},
    [FT_ADVENTURE_B] = {"adventure-b", 3},
    [FT_ADVENTURE_C] = {"adventure-c", 3},
    [FT_ADVENTURE_D] = {"adventure-d", 3},
    [FT_ADVENTURE_E] = {"adventure-e", 3},
    [FT_SPICE_BAZAAR] = {"spice-bazaar", 5},
    [FT_CARPET_BAZAAR] = {"carpet-bazaar", 5},
    [FT_CAMEL_BAZAAR] = {"camel-bazaar", 4},
    [FT_TREASURE] = {"treasure", 3},
    [FT_LAMP] = {"lamp", 4},
    [FT_DESERT] = {"desert", 4},
};

const char *ft_card_type_name(ft_card_type type) {
  return (unsigned)type < FT_N_TYPES ? card_types[type].name : "unknown";
}

int ft_card_type_parse(const char *name) {
  for (int i = 0; name && i < FT_N_TYPES; i++)
    if (!strcmp(card_types[i].name, name)) return i;
  return -1;
}

int ft_deck_count(ft_card_type type) {
  return (unsigned)type < FT_N_TYPES ? card_types[type].count : 0;
}
