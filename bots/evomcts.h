/*
 * evomcts.h — private to bots/: what the offline evolution (bots/evolve.c)
 * needs of the `evomcts` bot (bots/evomcts.c): setting its evaluation to an
 * expression in memory instead of a file.
 */
#ifndef TESSERA_BOTS_EVOMCTS_H
#define TESSERA_BOTS_EVOMCTS_H

#include "bot.h"
#include "tgp.h"

/* Make the evomcts bot b evaluate playout moves with e (copied; checked for
 * b's game). Returns 0, or ENG_EINVAL when b is not an evomcts bot or e is
 * not a valid expression for its game. */
int evomcts_set_eval(bot *b, const tgp_expr *e);

/* Read an evaluation file (comment lines start with '#'; the rest is one
 * expression in tgp_print's form) for the terminal set s. Returns 0, or
 * ENG_EIO / ENG_EINVAL with a reason naming the file in err. */
int evomcts_read_eval(const char *path, const tgp_set *s, tgp_expr *e, char *err, size_t errcap);

#endif
