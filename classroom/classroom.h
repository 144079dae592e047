/*
 * classroom.h — classroom competitions (docs/classroom.md): the course logic
 * that needs no sockets, unit-tested in tests/classroom/. The course service
 * (service.h) puts it to work behind the course_* messages; a server hosts
 * that service (server/courses.c).
 *
 *   roster     a CSV of students (name, email, id columns, any order,
 *              quoted fields), checked line by line with the line named
 *   tokens     one secret per student, stored as its SHA-256 only
 *   uploads    what a student submits is checked against what it claims to
 *              be: Python source (UTF-8 text that python3's parser accepts,
 *              never run for the check) or a native executable (an ELF
 *              file of this machine's architecture); size-limited
 *   gates      the qualification ladder ([{opponent, games, min_rate}]) and
 *              its verdict from paired games
 *   play       a submission against a gate's opponent, and the final
 *              round-robin of the frozen set, played by the tournament
 *              runner (tournament/runner.h): the same sandbox and stdio
 *              protocol as `tessera tournament`, with each game's record,
 *              stderr and time use handed back
 *   store      the class_ tables (courses, students, submissions, gate
 *              results, games, the final) on SQLite or PostgreSQL through
 *              storage/db.h, one transaction per change
 *   grades     the CSV the instructor exports
 *
 * Threads: class_play blocks and runs on a worker thread of the caller's;
 * it touches no database. Everything else is plain functions on caller data
 * or on a db_conn the caller owns (one thread at a time).
 */
#ifndef TESSERA_CLASSROOM_H
#define TESSERA_CLASSROOM_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "storage/db.h"

/* ---- limits, each with its reason ----------------------------------------------------- */

#define CLASS_MAX_STUDENTS                                                                         \
    1000                        /* a roster: a large lecture, not a MOOC (the token file and       \
                                   the instructor's page list everyone) */
#define CLASS_MAX_ROSTER 262144 /* bytes of a roster CSV: 1000 lines of 260 bytes */
#define CLASS_FIELD_MAX  127    /* characters of a name, email or student id */
#define CLASS_NAME_MAX   80     /* characters of a course name */
#define CLASS_TOKEN_LEN  26     /* characters of a student token: 130 bits of base32 */
#define CLASS_MAX_UPLOAD                                                                           \
    40000 /* bytes of the files sent inline in course_submit, all together: their base64 (4/3)    \
             with the message around it fits one 64 KiB protocol message (larger ones:            \
             course_upload) */
#define CLASS_MAX_INLINE_FILES 8 /* files sent inline in course_submit */
#define CLASS_MAX_FILES                                                                            \
    64 /* files of one submission (a bot, its modules, its books and weights; a zip's files);     \
          each is listed in views and checked or compiled at upload */
#define CLASS_DEFAULT_UPLOAD                                                                       \
    (4 << 20) /* bytes of a submission by default (max_upload_bytes): an opening book or a small   \
                 network's weights */
#define CLASS_MAX_UPLOAD_CEILING                                                                   \
    (64LL << 20) /* the server's ceiling on any course's max_upload_bytes by default              \
                    ([courses] max_upload_mb): a submission's bytes are held in memory once while  \
                    it is checked and stored (also in the database, for a cluster's servers) */
#define CLASS_FILE_NAME_MAX   64    /* characters of a file name: [A-Za-z0-9_.-], no leading dot */
#define CLASS_PATH_MAX                                                                             \
    200 /* characters of a file's path in a submission's folder tree (a Java package's             \
           folders, a Python package): each part a file name */
#define CLASS_PATH_DEPTH 8 /* parts of such a path: a package tree, not an archive of a disk */
#define CLASS_MAX_GATES       8     /* rungs of a ladder */
#define CLASS_MAX_GATE_GAMES  1000  /* games of one gate: every one is stored with its record */
#define CLASS_MAX_FINAL_GAMES 100   /* games per pair in the final */
#define CLASS_MAX_VERSIONS    1000  /* submissions of one student: each is kept on disk */
#define CLASS_CHECK_MS        10000 /* python3's parse of an upload may take this long */
#define CLASS_VERDICT_MAX     400   /* characters of a verdict */
#define CLASS_REMOTE_WAIT_MS                                                                       \
    86400000LL /* a remote submission's gates wait this long for its bot by default: a day, for    \
                  a student who submits in the evening and starts the bot in the morning */
#define CLASS_MAX_REMOTE_WAIT_MS 2592000000LL /* ... and at most 30 days: a course's length */

/* ---- roster -------------------------------------------------------------------------- */

typedef struct class_person {
    char sid[CLASS_FIELD_MAX + 1];   /* the student id (unique in the course) */
    char name[CLASS_FIELD_MAX + 1];  /* display name */
    char email[CLASS_FIELD_MAX + 1]; /* may be "" */
} class_person;

/* Parse a roster CSV: a header naming the columns `name`, `email` and `id`
 * (also `student_id`, `sid`; any order, case-insensitive, other columns
 * ignored), then one student per line. RFC 4180 quoting ("a, b" and ""
 * inside quotes), CRLF or LF, blank lines skipped. Every id and name must
 * be present, printable and at most CLASS_FIELD_MAX characters; ids
 * unique. Returns the number of students (>= 1) with *out a heap array
 * (free()), or ENG_EINVAL / ENG_ETOO_MANY / ENG_ENOMEM with a reason naming
 * the line in err. */
int class_roster_parse(const char *csv, size_t len, class_person **out, char *err, size_t errcap);

/* A fresh token (CLASS_TOKEN_LEN base32 characters, NUL-terminated into
 * out[CLASS_TOKEN_LEN + 1]) from getrandom(2). 0, or ENG_EINTERNAL. */
int class_token_new(char *out);
/* The SHA-256 of a token as 64 hex digits into out[65]. */
void class_token_hash(const char *token, char *out);

/* ---- uploads --------------------------------------------------------------------------- */

typedef enum class_kind {
    CLASS_PYTHON, /* "python": Python 3 source, run as `python3 MAIN` */
    CLASS_ELF,    /* "executable": a native program of this machine, run as itself */
    CLASS_REMOTE, /* "remote": a bot the student runs, registered on the server (no files) */
    CLASS_C,      /* "c": C sources, built by gcc in the sandbox into build.out */
    CLASS_CPP,    /* "cpp": C++ sources, built by g++ in the sandbox into build.out */
    CLASS_JAVA,   /* "java": Java sources, built by javac in the sandbox into build.jar, run
                     as `java -jar` (its memory held by the cgroup, not RLIMIT_AS) */
    CLASS_JS,     /* "javascript": JavaScript, checked by `node --check`, run by node */
    CLASS_NKINDS
} class_kind;

const char *class_kind_name(class_kind k);
/* 0 and *out, or ENG_EINVAL for an unknown name. */
int class_kind_parse(const char *s, class_kind *out);

/* A course's scrimmage setting (docs/classroom.md, "Scrimmage"): off, shown to the instructor
 * only, or to the class. */
enum { CLASS_SCRIM_OFF, CLASS_SCRIM_INSTRUCTOR, CLASS_SCRIM_CLASS };
/* The setting's name ("off" for an unknown value). */
const char *class_scrim_name(int setting);
/* A setting's name into *out: false for an unknown one. */
bool class_scrim_parse(const char *name, int *out);

/* The player spec (players/player.h) a submission of kind k runs as, its
 * files in dir and main the file to run: `cmd:python3 DIR/MAIN`, `cmd:DIR/MAIN`;
 * a remote bot: `remote:MAIN` (main: the name registered for it). A kind
 * (a language) is this, class_check_file and its name. */
void class_kind_spec(class_kind k, const char *dir, const char *main, char *out, size_t cap);

/* Built on the server (build.c): C and C++ (gcc, g++), Java (javac, jar)
 * and JavaScript (node --check, nothing made), each in the sandbox. */
#define CLASS_BUILD_MS  120000 /* a build's wall time: javac on a loaded machine takes 10 s */
#define CLASS_BUILD_LOG 6000   /* bytes of the compiler's messages kept: the first errors */
#define CLASS_MAX_BUILT (16 * 1024 * 1024) /* bytes of what a build makes: a static C++
                                              program with its libraries, a jar */
bool class_kind_is_built(class_kind k);
/* The file the build of kind k adds to the submission ("build.out",
 * "build.jar"), or NULL (nothing made: Python, JavaScript, executables). A
 * student's file of that name is refused. */
const char *class_kind_built(class_kind k);
/* Does main fit kind k (bot.c, Bot.java, bot.js)? 0 or ENG_EINVAL with
 * a reason. */
int class_build_check_main(class_kind k, const char *main, char *err, size_t errcap);
/* Build a submission of a kind built on the server, in the sandbox: its
 * files written to `work` (a folder made here unless it is there, and
 * removed; under a path the sandbox's uid may search), the compiler run there. Returns 0 with
 * *out (heap, free()) and *outlen the file made (NULL, 0 for JavaScript and
 * kinds not built); ENG_EINVAL with the compiler's messages in err (what
 * the student is shown: "bot.c:3:5: error: ..."), or the main file not
 * fitting the kind; ENG_EIO / ENG_EINTERNAL / ENG_ENOMEM when the build
 * could not run (the sandbox refused, no room). Blocks up to
 * CLASS_BUILD_MS: call it on a worker thread that lives on. */
int class_build(class_kind k, const char *work, int n, const char *const *names,
                const unsigned char *const *data, const size_t *len, const char *main,
                unsigned char **out, size_t *outlen, char *err, size_t errcap);

/* Is file `name` of a submission of kind k with main file `main` a
 * program to be made executable (mode 0755): an executable's main file,
 * the build.out of C and C++? */
bool class_file_runs(class_kind k, const char *name, const char *main);

/* A zip's files, unpacked into memory by class_unzip (class_unzipped_free). */
typedef struct class_unzipped {
    int n;
    char names[CLASS_MAX_FILES][CLASS_PATH_MAX + 1];
    unsigned char *data[CLASS_MAX_FILES];
    size_t len[CLASS_MAX_FILES];
    size_t total;
} class_unzipped;

/* Unpack the zip file at `path` safely (classroom/unzip.c, libzip): its
 * regular files into out, at most `maxfiles` of them and `budget` bytes
 * unpacked (counted as they are inflated, not as the zip claims: a zip
 * bomb stops at the budget). Files keep their folders (a Java package
 * tree: pkg/Main.java), but one folder holding everything (a zipped
 * folder) is taken off the names; an absolute path, a `..`, a backslash,
 * a symbolic link or another special file, an encrypted entry, a path
 * that is not one of a submission (class_path_ok), twice the same path or
 * a path that is both a file and a folder refuses the whole zip. 0; or
 * a code with *reason ("bad_zip", "unsafe_path", "too_large",
 * "too_many_files", "bad_upload") and err naming the entry
 * (out is then empty). */
int class_unzip(const char *path, int maxfiles, size_t budget, class_unzipped *out,
                const char **reason, char *err, size_t errcap);
void class_unzipped_free(class_unzipped *z);

/* Is `name` an acceptable file name (CLASS_FILE_NAME_MAX, [A-Za-z0-9_.-],
 * not starting with a dot)? */
bool class_file_name_ok(const char *name);
/* Is `path` an acceptable path of a file in a submission's folder: 1 to
 * CLASS_PATH_DEPTH parts joined by '/', each a file name (class_file_name_ok,
 * so no "", "." or ".."), at most CLASS_PATH_MAX characters? */
bool class_path_ok(const char *path);
/* Make the folders of relpath under dir (each 0755: the sandbox's user reads
 * them): 0, or -1. */
int class_path_mkdirs(const char *dir, const char *relpath);
/* Remove dir and everything under it, symbolic links not followed. */
void class_rmtree(const char *dir);
/* Among n paths, one that is also a folder of another ("pkg" and
 * "pkg/Main.java"): its index, or -1 when there is none. */
int class_paths_clash(int n, const char *const *paths);

/* Check one file of a submission against its declared kind: Python is
 * UTF-8 text without NUL bytes that `python3` parses (ast.parse on stdin,
 * the code is not run; skipped when python3 is not installed — the
 * runtime the server needs anyway); an executable is an ELF file of this
 * machine's class, byte order and architecture, of type EXEC or DYN.
 * Returns 0, or ENG_EINVAL with a reason ("bot.py, line 3: invalid
 * syntax"). */
int class_check_file(class_kind kind, const char *name, const unsigned char *data, size_t len,
                     char *err, size_t errcap);

/* Make text well-formed UTF-8 in place: every byte that does not begin a
 * well-formed sequence becomes '?' (a verdict cut at a byte count, a
 * program's stderr); the JSON of the pages takes nothing else. */
void class_utf8_fix(char *text);

/* The shape of a submission's files as 64 hex digits into out[65]: for
 * Python, the SHA-256 of its files without comments and whitespace (two
 * submissions of the same shape differ in nothing but those); for other
 * kinds, of the files as they are. Flags near-identical submissions to the
 * instructor. */
void class_shape_hash(class_kind kind, int n, const char *const *names,
                      const unsigned char *const *data, const size_t *len, char *out);

/* ---- gates ------------------------------------------------------------------------------- */

typedef struct class_gate {
    char opponent[512]; /* a bot spec of this server (`random`, `mcts:sims=400`, a cmd: program) */
    int games;          /* paired games, even, 2..CLASS_MAX_GATE_GAMES */
    double min_rate;    /* the scoring rate to reach, (wins + draws/2) / games, in [0, 1] */
} class_gate;

/* Parse a ladder: a JSON array of 1..CLASS_MAX_GATES objects {"opponent":
 * spec, "games": n, "min_rate": r}; games rounded up to even (paired:
 * each pair plays both seats). The opponent must be a bot of game g (an
 * in-process spec, checked, or a cmd: program). Returns the number of
 * gates, or ENG_EINVAL / ENG_EUNKNOWN_BOT / ENG_EBAD_BOT_SPEC with a
 * reason naming the gate. */
int class_gates_parse(const json_t *arr, const eng_game *g, class_gate *out, char *err,
                      size_t errcap);
/* The ladder as JSON (new reference). */
json_t *class_gates_json(const class_gate *gates, int n);

/* A gate's verdict: passed when points / games >= min_rate (with games >
 * 0). points = wins + draws / 2. */
bool class_gate_passed(const class_gate *gate, double points, int64_t games);

/* ---- play -------------------------------------------------------------------------------- */

/* One finished game, as class_play hands it over (valid during the call). */
typedef struct class_game {
    int64_t index; /* game number in the run */
    int seats;
    int who[ENG_MAX_PLAYERS];         /* participant in seat s */
    double score[ENG_MAX_PLAYERS];    /* final score of seat s */
    int rank[ENG_MAX_PLAYERS];        /* place of seat s (1 = best) */
    const char *end;                  /* "normal", "crash", "timeout", ... (tour_end_name) */
    int culprit;                      /* the seat at fault, or -1 */
    const char *verdict;              /* the first fault, "" when none */
    double think_ms[ENG_MAX_PLAYERS]; /* each seat's thinking time (programs: CPU) */
    int moves[ENG_MAX_PLAYERS];       /* decisions of each seat */
    const char *stderr_text[ENG_MAX_PLAYERS]; /* programs' stderr ("" for bots) */
    double startup_ms[ENG_MAX_PLAYERS];       /* programs: the start-up measured of the process
                                                 that played the seat (players/player.h,
                                                 player_info); -1 for bots */
    const char *record;                       /* the game record, JSON text */
    const json_t *bundle[ENG_MAX_PLAYERS];    /* a program seat's first fault kept as a fault
                                                 bundle (players/bundle.h), NULL when none;
                                                 borrowed for the callback's length */
} class_game;

typedef void (*class_game_fn)(const class_game *game, void *user);

typedef struct class_play_config {
    const eng_game *game;
    eng_rules rules;          /* two seats (the ladder and the final are head to head) */
    const char *const *specs; /* [n] participants' specs (borrowed) */
    const char *const *names; /* [n] their names (borrowed) */
    int n;                    /* 2..CLASS_MAX_STUDENTS */
    int format;               /* a tour_format: round-robin (0, the default), Swiss or
                                 knockout (tournament/tour.h) */
    int64_t games_per_pair;   /* even */
    int64_t move_ms;          /* each turn's allowance */
    int64_t startup_ms;       /* a program's start-up allowance (players/player.h); 0: the
                                 default, PLAYER_DEFAULT_STARTUP_MS */
    uint64_t seed;            /* chance and in-process bots' seeds derive from it */
    int threads;              /* runner workers */
    const atomic_bool *stop;  /* optional: raised, play stops (returns ENG_ESHUTTING_DOWN) */
    class_game_fn on_game;    /* optional, serialised */
    const char *source;       /* what a fault bundle says ran the game ("course gate") */
    void *user;
} class_play_config;

/* A participant's standing after a run (tournament/standings.h). */
typedef struct class_standing {
    int place; /* 1-based */
    int64_t games, wins, losses, draws;
    double points, rate;        /* rate = points / games */
    double elo, elo_lo, elo_hi; /* Bradley–Terry rating with its 95% interval */
    double ms_per_move;
    int64_t faults;
    /* the tiebreaks, each named (issue 25): round-robin places follow rate,
     * then league points, then score difference, then roster order; Swiss
     * places Swiss points, then Buchholz, then points, then roster order; a
     * knockout the round reached, then roster order */
    int league_points;             /* docs/league.md */
    double score_diff;             /* mean of own score - the best other's (tour_row.pd) */
    double swiss_points, buchholz; /* Swiss */
    int ko_reached;                /* knockout: rounds won */
    int roster;                    /* 1-based order among the participants: the last tiebreak */
    const char *decided_by;        /* what placed it below the one above ("rate", "league
                                      points", "score difference", "Swiss points", "Buchholz",
                                      "points", "round reached", "roster order"), "" for the
                                      first or a shared place; a static string */
} class_standing;

/* A format's name: "round-robin", "swiss", "knockout" (tournament/tour.h). */
const char *class_format_name(int format);

/* Play a tournament of the participants (a round-robin unless cfg->format
 * says otherwise; two participants: a gate) through the tournament runner, faults forfeiting the
 * game (a crash, a time-out, an illegal or unreadable move loses that game and nothing else).
 * Blocks. Fills out[n] in participant order. Returns 0, ENG_ESHUTTING_DOWN when stopped, or a
 * negative code with a reason. */
int class_play(const class_play_config *cfg, class_standing *out, char *err, size_t errcap);

/* The standings of a tournament (played here or by the server: a course's
 * remote bots play server matches) into out[participants], in participant
 * order. 0 or ENG_ENOMEM. */
struct tour;
int class_standings_fill(const struct tour *t, class_standing *out);

/* ---- store ------------------------------------------------------------------------------- */

/* Create the class_ tables if missing, and add the columns a database made
 * by an earlier release lacks, on either engine (under db_schema_lock:
 * servers sharing one PostgreSQL database may start together). Ids are the
 * database's (identity columns on PostgreSQL): a caller inserts without
 * them and reads them back with RETURNING id. 0 or ENG_ESTORAGE with a
 * reason. */
int class_store_init(db_conn *db, char *err, size_t errcap);

/* ---- grades ------------------------------------------------------------------------------ */

/* The grade CSV of a course (heap text, free()), or NULL when out of
 * memory or the database fails: a header `student_id,name,email,status,
 * final_rank,decided_by,rate,league_points,score_diff,swiss_points,buchholz,
 * round_reached,gates_passed,gates_total,rating,rating_low,rating_high,
 * submission` and one line per student of the roster in roster order.
 * status: finalist, qualified (the final not played yet), in_gates,
 * not_judged (stopped at a broken gate), not_qualified, no_show. The
 * final's columns — its place, the tiebreak that decided it, each tiebreak
 * of the final's format (the others empty), the rating — are empty for
 * students not in it. */
char *class_grades_csv(db_conn *db, int64_t course);

/* A CSV field quoted when it needs to be, appended to a growing buffer.
 * Exposed for tests. Returns false when out of memory. */
bool class_csv_field(char **buf, size_t *len, size_t *cap, const char *field);
/* Text appended as it is (separators, line ends). */
bool class_csv_text(char **buf, size_t *len, size_t *cap, const char *text);

#endif
