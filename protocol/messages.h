/*
 * messages.h — the wire protocol's messages (docs/protocol.md) in C:
 * decoding what clients send, with every shape and range checked, and
 * building what the server sends.
 *
 * Decoding follows the three steps used for every untrusted input: parse
 * (jansson, duplicate keys rejected, at most PROTO_MAX_MESSAGE bytes), check
 * the shape (exact fields and JSON types per message type: unknown fields
 * are errors), check ranges (ids, names, numbers). Game rules are checked
 * later by the server with the game's wire codec. A decoded message owns its
 * parsed JSON; its string fields borrow from it until proto_msg_free().
 */
#ifndef TESSERA_PROTOCOL_MESSAGES_H
#define TESSERA_PROTOCOL_MESSAGES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/errors.h"
#include "engine/eng.h"

#define PROTO_VERSION 1     /* the first version; a hello may ask for any up to ... */
#define PROTO_VERSION_MAX 2 /* ... this one (docs/protocol.md, "Protocol 2") */
#define PROTO_MAX_MESSAGE 65536   /* bytes of one client message (server/limits.h repeats it) */
#define PROTO_ID_MAX 64           /* characters of a string `id` */
#define PROTO_NAME_MAX 64         /* characters of a seat/client name */
#define PROTO_MATCH_ID_MAX 32     /* characters of a match id */
#define PROTO_TOKEN_MAX 64        /* characters of a seat or resume token */
#define PROTO_SPEC_MAX 511        /* characters of a bot spec */
#define PROTO_MAX_MS 86400000LL   /* largest duration accepted: one day */
#define PROTO_MIN_MOVE_MS 1       /* smallest move_ms / first_move_ms: a zero allowance could
                                   * only forfeit; anything shorter than a network round trip
                                   * suits in-process bots only, which is the creator's choice */
#define PROTO_MAX_ILLEGAL 1000    /* largest policies.max_illegal: beyond it "reject" never ends */
#define PROTO_SECRET_MIN       8       /* characters of a registered bot's secret: at least ... */
#define PROTO_SECRET_MAX       64      /* ... and at most */
#define PROTO_MAX_CAPACITY     16      /* games at once a registered bot may declare */
#define PROTO_MAX_REG_GAMES    16      /* entries of register.games */
#define PROTO_MAX_PARTICIPANTS 256     /* tournament participants (tournament/limits.h agrees) */
#define PROTO_LABEL_MAX        128     /* characters of a tournament's label */
#define PROTO_MAX_CONCURRENCY  64      /* games a tournament plays at once */
#define PROTO_MAX_TOUR_ID      9007199254740991LL /* tournament ids: exact in a double (2^53 - 1) */

typedef enum proto_type {
    PROTO_HELLO,
    PROTO_PING,
    PROTO_LIST_GAMES,
    PROTO_LIST_BOTS,
    PROTO_LIST_MATCHES,
    PROTO_CREATE_MATCH,
    PROTO_JOIN,
    PROTO_SPECTATE,
    PROTO_UNSPECTATE,
    PROTO_MOVE,
    PROTO_RESIGN,
    PROTO_RESUME,
    PROTO_REPLAY,
    PROTO_SERVER_STATS,
    PROTO_GET_RECORD,
    PROTO_REGISTER,
    PROTO_UNREGISTER,
    PROTO_CREATE_TOURNAMENT,
    PROTO_START_TOURNAMENT,
    PROTO_PAUSE_TOURNAMENT,
    PROTO_CANCEL_TOURNAMENT,
    PROTO_LIST_TOURNAMENTS,
    PROTO_WATCH_TOURNAMENT,
    PROTO_UNWATCH_TOURNAMENT,
    PROTO_GET_TOURNAMENT_PLOTS,
    PROTO_COURSE_CREATE, /* the course_* family (docs/classroom.md): proto_course below */
    PROTO_COURSE_ADD_STUDENTS,
    PROTO_COURSE_SET_DEADLINE,
    PROTO_COURSE_START_FINAL,
    PROTO_COURSE_GRADES,
    PROTO_COURSE_LIST,
    PROTO_COURSE_RERUN_GATES,
    PROTO_COURSE_ARCHIVE,
    PROTO_COURSE_DELETE,
    PROTO_COURSE_SETTINGS, /* a course's settings changed after creation: scrimmage, max_upload_bytes */
    PROTO_COURSE_VIEW,
    PROTO_COURSE_GAME,
    PROTO_COURSE_CODE,
    PROTO_COURSE_SUBMIT,
    PROTO_COURSE_UPLOAD, /* a file sent in chunks for a later course_submit (op: begin, chunk,
                          * commit, abort) */
    PROTO_ANALYZE, /* a finished match's analysis (docs/analysis.md) */
    PROTO_INFO,    /* a seat's thinking lines before its move (protocol/info.h): the
                    * envelope is checked here, the body by info_read() */
    PROTO_NTYPES
} proto_type;

enum proto_timeout_policy { PROTO_TIMEOUT_FORFEIT, PROTO_TIMEOUT_RANDOM, PROTO_TIMEOUT_GRACE };
enum proto_illegal_policy { PROTO_ILLEGAL_REJECT, PROTO_ILLEGAL_FORFEIT, PROTO_ILLEGAL_RANDOM };
/* Who sees the seats' thinking lines (info, docs/protocol.md), and when:
 * spectators as they come, spectators once the move is played, no one.
 * Never a seat's connection while the game is on. */
enum proto_info_policy { PROTO_INFO_LIVE, PROTO_INFO_DELAYED, PROTO_INFO_NEVER };
enum proto_disconnect_policy { PROTO_DISCONNECT_FORFEIT, PROTO_DISCONNECT_RANDOM };
enum proto_list_status { PROTO_LIST_ALL, PROTO_LIST_LIVE, PROTO_LIST_FINISHED };
enum proto_tour_format {
    PROTO_TOUR_ROUND_ROBIN,
    PROTO_TOUR_GAUNTLET,
    PROTO_TOUR_SWISS,
    PROTO_TOUR_KNOCKOUT,
    PROTO_TOUR_LADDER
};

typedef struct proto_time_control {
    int64_t move_ms;        /* per-move limit (default 10000) */
    int64_t first_move_ms;  /* a seat's first move (default 3 x move_ms) */
    int64_t bank_ms;        /* bank each seat starts with (default 0) */
    int64_t increment_ms;   /* added to the bank after each move (default 0) */
} proto_time_control;

typedef struct proto_policies {
    int timeout;                 /* enum proto_timeout_policy (default forfeit) */
    int illegal;                 /* enum proto_illegal_policy (default reject) */
    int max_illegal;             /* illegal moves tolerated under reject (default 3) */
    int disconnect;              /* enum proto_disconnect_policy (default forfeit) */
    int64_t reconnect_grace_ms;  /* time to resume after a drop (default 30000) */
    int64_t grace_ms;            /* one-off grace bank of the grace timeout policy (default 10000) */
    int info;                    /* enum proto_info_policy: the seats' thinking lines (default live) */
} proto_policies;

typedef struct proto_seat_spec {
    bool open;                          /* a seat a client joins */
    char name[PROTO_NAME_MAX + 1];      /* display name ("" if none) */
    char bot[PROTO_SPEC_MAX + 1];       /* in-process bot spec when !open */
} proto_seat_spec;

/* create_tournament, as read (docs/protocol.md, "Tournaments"): what the
 * decoder checked are shapes and ranges; the server checks the rest (the
 * game, the participants' specs, the format's rules) with tournament/. */
typedef struct proto_tournament {
    int format;                 /* enum proto_tour_format */
    const json_t *participants; /* borrowed array of {"name","spec"[,"reference"]}, each checked */
    int nparticipants;
    int64_t games_per_pair; /* default 2 */
    int cycles;             /* round-robin, gauntlet: default 1 */
    int rounds;             /* swiss: 0 = automatic (default) */
    int best_of;            /* knockout: 0 = games_per_pair / seats (default) */
    int concurrency;        /* games at once (default 2) */
    bool has_seed;
    uint64_t seed; /* default: random */
    bool has_sprt;
    double elo0, elo1, alpha, beta;
    const char *sprt_model; /* "normalized" / "logistic" (default normalized) */
    const char *label;      /* NULL when absent */
    const char *anchor;     /* NULL when absent */
    int placement_games;    /* ladder: default 10 */
    bool registered;        /* ladder: enrol registered bots (default true) */
} proto_tournament;

/* An optional integer of a course message. */
typedef struct proto_int {
    bool set;
    int64_t v;
} proto_int;

/* The course_* messages, as read (docs/classroom.md, "Messages"). The
 * decoder checks the JSON type of every field the message's type takes and
 * the fields it always needs; the classroom checks the rest (ids, tokens,
 * settings, rosters, files) and answers with its own reasons. A field that
 * only another course message takes is ignored (the classroom page sends a
 * course and the admin token with every instructor action); a field no
 * course message takes is an error, as everywhere. Strings borrow from the
 * message. */
typedef struct proto_course {
    const char *token;         /* a student's token (the admin token is proto_msg's) */
    proto_int course;          /* the course's id */
    const char *name;          /* create: the course's name; upload begin: the file's */
    const char *game;          /* create: the game's name */
    const json_t *rules;       /* create: an object */
    const json_t *gates;       /* create: the ladder, an array */
    proto_int move_ms, qualify, final_games, deadline_ms, seed, remote_wait_ms; /* create */
    const char *csv;           /* add_students: the roster */
    proto_int games_per_pair;  /* start_final */
    const char *format;        /* start_final */
    proto_int rerun;           /* start_final: true (1) plays a final played again */
    const char *student;       /* set_deadline: the student id of an extension */
    proto_int archived;        /* archive: true (1) or false (0) */
    const char *confirm;       /* delete: the course's name, typed again */
    proto_int game_id;         /* course_game: "game", an integer here */
    proto_int submission;      /* course_code, rerun_gates */
    const char *kind, *main;   /* submit */
    const json_t *files;       /* submit: an array */
    const json_t *uploads;     /* submit: an array of committed uploads' ids */
    proto_int max_upload_bytes; /* create, settings */
    const char *scrimmage;     /* create, settings: off, instructor, class */
    const char *op;            /* upload: begin, chunk, commit, abort */
    const char *upload;        /* upload: its id (chunk, commit, abort) */
    proto_int bytes, offset;   /* upload: the file's size (begin), a chunk's place (chunk) */
    const char *sha256, *data; /* upload: the file's hash, hex (begin); a chunk, base64 */
} proto_course;

/* A decoded client message. */
typedef struct proto_msg {
    proto_type type;
    json_t *root;             /* owned: the whole message */
    size_t bytes;             /* the message's length as it came (info: its size limit) */
    const json_t *id;         /* borrowed: "id" or NULL */
    /* hello */
    int64_t protocol;
    const char *client;       /* may be NULL */
    /* list_matches */
    int status;               /* enum proto_list_status */
    /* join, spectate, unspectate, move, resign, resume, get_record, analyze, info */
    const char *match;        /* NULL when absent (resign/move may name it or not) */
    int seat;                 /* join; move and resign when has_seat */
    bool has_seat;            /* move, resign, info: "seat" given (one of the connection's seats) */
    const char *token;        /* join */
    const char *resume_token; /* resume */
    bool has_turn;            /* move, info: "turn" given */
    int64_t turn;
    const json_t *move;       /* move: borrowed object */
    bool has_think_ms;        /* move: "think_ms" given (the client's measure of its thinking) */
    int64_t think_ms;         /* move: 0..PROTO_MAX_MS */
    const json_t *info;       /* move: its thinking line, borrowed, any JSON value (the
                               * server checks it: info_body_check, info_read); NULL: none */
    /* replay, analyze: exactly one of match (above) and record */
    const json_t *record;     /* replay, analyze: borrowed record object */
    /* create_match */
    const char *game;
    const json_t *rules;      /* borrowed object or NULL */
    int nseats;
    proto_seat_spec seats[ENG_MAX_PLAYERS];
    proto_time_control tc;
    proto_policies pol;
    /* create_match, get_record, the tournament admin messages and the course_*
     * messages: NULL when absent */
    const char *admin_token;
    /* register */
    const char *name; /* the registered bot's name */
    const char *secret;
    int capacity; /* default 1 */
    int ngames;   /* 0: every game */
    const char *games[PROTO_MAX_REG_GAMES];
    /* start/pause/cancel/watch/unwatch_tournament, get_tournament_plots */
    int64_t tournament;
    /* create_tournament (game, rules, tc and pol above) */
    proto_tournament tour;
    /* the course_* messages (admin_token above) */
    proto_course course;
} proto_msg;

/* Decode one client message. Returns 0 and fills *m (free with
 * proto_msg_free), or a negative code — ENG_ETOO_LARGE, ENG_EBAD_JSON,
 * ENG_EBAD_MESSAGE, ENG_EUNKNOWN_TYPE, ENG_EBAD_VERSION (ENG_ENOMEM if
 * jansson runs out of memory, ENG_EINVAL if m is NULL) — with a reason in
 * err (printable ASCII, safe to log and to send back), and *m zeroed so
 * that nothing needs freeing. On error, *id_out (if not NULL) receives a new
 * reference to the message's `id` when the message was an object with a
 * valid id, so the error reply can echo it, else NULL; on success it is set
 * to NULL (use m->id). A number outside the 64-bit range is bad_message
 * (valid JSON, unreadable value); see docs/protocol.md for every limit. */
int proto_decode(const char *buf, size_t len, proto_msg *m, json_t **id_out, char *err,
                 size_t errcap);
void proto_msg_free(proto_msg *m);

/* A new reference to the message's valid `id` (docs/protocol.md), or NULL —
 * for a reply to a message that is refused unread (over the rate limit).
 * Costs one parse; NULL for anything over PROTO_MAX_MESSAGE. */
json_t *proto_peek_id(const char *buf, size_t len);

/* Is t one of the course_* messages? */
bool proto_is_course(proto_type t);

/* Where a message is answered when several servers share one journal
 * (docs/scaling.md): server/cluster.c forwards it there. A message family
 * says it here, beside its decoder, and nowhere else. */
typedef enum proto_route {
    PROTO_ROUTE_HERE,        /* the server the client is connected to (the default) */
    PROTO_ROUTE_MATCH,       /* the server that owns the match named in "match" */
    PROTO_ROUTE_SEAT,        /* move, resign, info: the owner of "match", or without one, of the
                                match where the connection holds its seat */
    PROTO_ROUTE_RESUME,      /* the owner of the match the resume token belongs to */
    PROTO_ROUTE_CREATE,      /* here, or the coordinator when a seat names a registered bot */
    PROTO_ROUTE_COORDINATOR, /* the coordinator: registered bots, tournaments made, courses */
    PROTO_ROUTE_TOURNAMENT,  /* the server that runs the tournament named */
} proto_route;
proto_route proto_route_of(proto_type t);

/* Name of a message type ("create_match"); "unknown" out of range. */
const char *proto_type_name(proto_type t);
/* Names of policy values ("forfeit", "random_move", ...); "unknown" out of
 * range. */
const char *proto_timeout_name(int v);
const char *proto_illegal_name(int v);
const char *proto_disconnect_name(int v);
const char *proto_info_name(int v); /* "live", "delayed", "never" */
/* "round-robin", "gauntlet", "swiss", "knockout", "ladder". */
const char *proto_tour_format_name(int v);

/* {"type":"error","code":...,"message":...,"id":...} — new reference; id
 * borrowed and may be NULL. */
json_t *proto_error(int code, const char *message, const json_t *id);
/* A new object {"type": type} with "id" copied when id is not NULL. */
json_t *proto_reply(const char *type, const json_t *id);

#endif
