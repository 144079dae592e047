/*
 * errors.h — the one table of error codes used across tessera.
 *
 * Every fallible function returns 0 or a negative code from this table.
 * Each entry gives the code's C name, the string sent on the wire in
 * {"type":"error","code":...} replies and in CLI/record diagnostics, and a
 * default human message. These are the codes a layer below the server can
 * meet (the engine, records, bots, programs, storage, tournaments); the codes
 * that only a client and a server speak of (rate_limited, seat_taken,
 * unknown_tournament ...) are the wire's own, in protocol/errors.h, numbered
 * after these. Keeping each table in one X-macro means the wire strings, the
 * docs and the C names cannot drift apart.
 */
#ifndef TESSERA_ENGINE_ERRORS_H
#define TESSERA_ENGINE_ERRORS_H

/* X(NAME, "wire_code", "default message") */
#define ENG_ERR_MAP(X)                                                                  \
    X(INVAL, "invalid_argument", "invalid argument")                                  \
    X(UNKNOWN_GAME, "unknown_game", "no game of that name is registered")              \
    X(BAD_RULE, "bad_rule", "unknown rule or rule value out of range")                 \
    X(BAD_PLAYERS, "bad_players", "player count out of range for this game")           \
    X(ILLEGAL_MOVE, "illegal_move", "the move is not legal in this position")          \
    X(BAD_MOVE, "bad_move", "the move could not be understood")                        \
    X(NOMEM, "out_of_memory", "out of memory")                                         \
    X(IO, "io_error", "input/output error")                                            \
    X(BAD_JSON, "bad_json", "the input is not valid JSON")                             \
    X(BAD_RECORD, "bad_record", "the game record is malformed")                        \
    X(BAD_CHANCE, "chance_mismatch", "the chance outcomes do not follow from the seed") \
    X(BAD_MESSAGE, "bad_message", "the message does not have the expected shape")      \
    X(UNKNOWN_TYPE, "unknown_type", "unknown message type")                            \
    X(BAD_VERSION, "unsupported_version", "unsupported protocol version")              \
    X(TOO_LARGE, "message_too_large", "the message exceeds the size limit")            \
    X(BAD_TOKEN, "bad_token", "the token does not match")                              \
    X(UNKNOWN_BOT, "unknown_bot", "no bot of that name")                               \
    X(BAD_BOT_SPEC, "bad_bot_spec", "the bot specification is invalid")               \
    X(TOO_MANY, "too_many", "a server limit was reached")                              \
    X(STORAGE, "storage_error", "the server could not store the data")                 \
    X(SHUTTING_DOWN, "shutting_down", "the server is shutting down")                   \
    X(FORBIDDEN, "forbidden", "this needs the server's admin token")                   \
    X(INTERNAL, "internal_error", "internal error")

enum {
    ENG_OK = 0,
#define ENG_ERR_ENUM_(name, wire, msg) ENG_E##name##_ENUM_,
    ENG_ERR_FIRST_ = 0,
    ENG_ERR_MAP(ENG_ERR_ENUM_)
#undef ENG_ERR_ENUM_
    ENG_ERR_LAST_ = ENG_EINTERNAL_ENUM_
};

/* How many codes the table has: protocol/errors.h numbers its own after them. */
#define ENG_ERR_COUNT ((int)ENG_ERR_LAST_)

/* The codes themselves are negative: ENG_EINVAL == -1, ... */
enum {
#define ENG_ERR_NEG_(name, wire, msg) ENG_E##name = -ENG_E##name##_ENUM_,
    ENG_ERR_MAP(ENG_ERR_NEG_)
#undef ENG_ERR_NEG_
};

/* Wire string for a code ("invalid_argument"); "unknown_error" if not in the table. */
const char *eng_err_code(int err);
/* Default human message for a code; never NULL. */
const char *eng_err_message(int err);
/* Code for a wire string, or 0 if unknown. */
int eng_err_from_code(const char *wire);

#endif
