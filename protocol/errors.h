/*
 * errors.h — the wire's own error codes: what only a client and a server
 * speak of (a seat taken, a match unknown, too many messages, a tournament
 * not found, a server that cannot be reached). Every other code a reply can
 * carry comes from the engine's table (engine/errors.h), which the layers
 * below the server share; these are numbered after it, so one int names a
 * code of either table, and wire_err_code() gives the string of both.
 * docs/protocol.md lists them all.
 */
#ifndef TESSERA_PROTOCOL_ERRORS_H
#define TESSERA_PROTOCOL_ERRORS_H

#include "engine/errors.h"

/* X(NAME, "wire_code", "default message") */
#define WIRE_ERR_MAP(X)                                                                 \
    X(RATE, "rate_limited", "too many messages; slow down")                            \
    X(BINARY, "binary_frame", "binary frames are not accepted")                        \
    X(NOT_YOUR_TURN, "not_your_turn", "it is not this seat's turn")                    \
    X(WRONG_SEAT, "wrong_seat", "this connection does not hold that seat")             \
    X(SEAT_TAKEN, "seat_taken", "that seat is already taken")                          \
    X(NO_SUCH_SEAT, "no_such_seat", "no such seat in this match")                      \
    X(UNKNOWN_MATCH, "unknown_match", "no match with that id")                         \
    X(MATCH_OVER, "match_over", "the match has already ended")                         \
    X(NOT_JOINED, "not_joined", "join a seat before sending moves")                    \
    X(UNKNOWN_TOURNAMENT, "unknown_tournament", "no tournament with that id")          \
    X(REGISTRATION_TAKEN, "registration_taken", "another connection took this name")   \
    X(UNAVAILABLE, "unavailable", "it is on another server, which cannot be reached now")

enum {
#define WIRE_ERR_ENUM_(name, wire, msg) WIRE_E##name##_ENUM_,
    WIRE_ERR_FIRST_ = ENG_ERR_COUNT,
    WIRE_ERR_MAP(WIRE_ERR_ENUM_)
#undef WIRE_ERR_ENUM_
    WIRE_ERR_END_
};

/* The codes: WIRE_ERATE == -(ENG_ERR_COUNT + 1), ... */
enum {
#define WIRE_ERR_NEG_(name, wire, msg) WIRE_E##name = -WIRE_E##name##_ENUM_,
    WIRE_ERR_MAP(WIRE_ERR_NEG_)
#undef WIRE_ERR_NEG_
};

/* Codes of both tables: 0 and -1 .. -(WIRE_ERR_COUNT) */
#define WIRE_ERR_COUNT ((int)WIRE_ERR_END_ - 1)

/* Wire string of a code of either table ("seat_taken", "illegal_move");
 * "unknown_error" if in neither. */
const char *wire_err_code(int err);
/* Default human message of a code of either table; never NULL. */
const char *wire_err_message(int err);
/* Code of either table for a wire string, or 0 if unknown. */
int wire_err_from_code(const char *wire);

#endif
