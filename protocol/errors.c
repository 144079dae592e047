/*
 * errors.c — the wire's error table (errors.h) and the lookups over it and
 * the engine's table together.
 */
#include <string.h>

#include "errors.h"

static const struct {
    const char *wire;
    const char *msg;
} wire_table[] = {
#define WIRE_ERR_ROW_(name, wire, msg) {wire, msg},
    WIRE_ERR_MAP(WIRE_ERR_ROW_)
#undef WIRE_ERR_ROW_
};

#define WIRE_ROWS ((int)(sizeof wire_table / sizeof wire_table[0]))

/* -err's row in the wire table, or -1 when the code is not one of its own */
static int row_of(int err)
{
    if (err >= -ENG_ERR_COUNT || err < -(ENG_ERR_COUNT + WIRE_ROWS))
        return -1;
    return -err - ENG_ERR_COUNT - 1;
}

const char *wire_err_code(int err)
{
    int r = row_of(err);
    return r >= 0 ? wire_table[r].wire : eng_err_code(err);
}

const char *wire_err_message(int err)
{
    int r = row_of(err);
    return r >= 0 ? wire_table[r].msg : eng_err_message(err);
}

int wire_err_from_code(const char *wire)
{
    if (!wire)
        return 0;
    for (int r = 0; r < WIRE_ROWS; r++)
        if (strcmp(wire_table[r].wire, wire) == 0)
            return -(ENG_ERR_COUNT + 1 + r);
    return eng_err_from_code(wire);
}
