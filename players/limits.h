/*
 * limits.h — every limit of players/ (external programs and the sandbox),
 * each with the reason it exists. Defaults can be changed per player
 * (sandbox_limits); the caps without "DEFAULT" are fixed.
 */
#ifndef TESSERA_PLAYERS_LIMITS_H
#define TESSERA_PLAYERS_LIMITS_H

/* ---- defaults of sandbox_limits (docs/stdio.md lists them for bot authors) ---- */

/* RLIMIT_CPU of one process, seconds (SIGKILL one second later). A backstop
 * for what the per-move deadline cannot see: CPU burnt between turns (a
 * background thread stealing the opponent's core) or a process that never
 * ends. Ten minutes is a whole Carcassonne game at 15 s a move; a
 * long-running program that used half of it is started afresh between
 * games. */
#define PLAYER_DEFAULT_CPU_S 600

/* Memory, MiB: the limit of the program's cgroup (every process, and the
 * files it keeps in its private tmpfs), and RLIMIT_AS of each process, so
 * that a runaway allocation fails inside the program (MemoryError,
 * bad_alloc, NULL) instead of pushing the machine into swap. 1 GiB fits
 * CPython and a C/C++ search with a large tree; the JVM reserves more
 * address space than it uses: a `java` program gets no RLIMIT_AS where the
 * cgroup holds its memory (program.c, sandbox_limits.as_mb). */
#define PLAYER_DEFAULT_MEMORY_MB 1024

/* RLIMIT_FSIZE, MiB: the largest file the program may write (its working
 * directory is removed afterwards, but the disk must not fill meanwhile). */
#define PLAYER_DEFAULT_FILE_MB 16

/* RLIMIT_NOFILE: open descriptors. A bot needs stdin/stdout/stderr and a
 * few files (Python opens ~10 at start-up, the JVM ~40 jars); hundreds
 * would only serve to exhaust the system's table. */
#define PLAYER_DEFAULT_FILES 128

/* Tasks (processes and threads) at once: pids cgroup or RLIMIT_NPROC. A JVM
 * starts ~20 threads on a small machine; a fork bomb stops here. */
#define PLAYER_DEFAULT_TASKS 128

/* CPU quota of a program's cgroup, percent of one CPU: one core for all
 * its processes and threads together, as a judge gives each contestant.
 * With it, a program's CPU time can never run ahead of the clock; a server
 * that gives more (`[sandbox] cpu_percent`) lets a program think in
 * parallel, and its CPU time then ends its turn first. */
#define PLAYER_DEFAULT_CPU_PCT 100

/* Size of each private tmpfs of a program (its HOME, /tmp, /var/tmp,
 * /dev/shm), MiB. Their pages count against its memory limit too; this
 * keeps one directory from taking all of it. */
#define PLAYER_DEFAULT_TMP_MB 64

/* The longest line the program may print on stdout, bytes (a move is well
 * under 1 KB). The line buffer is this large, never larger. */
#define PLAYER_DEFAULT_LINE (64 * 1024)

/* stdout bytes per turn before "output_flood": a program printing without
 * end must not keep a worker thread busy reading it. 1 MiB is a thousand
 * times a move. */
#define PLAYER_DEFAULT_STDOUT (1024 * 1024)

/* stderr bytes per turn before "output_flood": the debug channel may be
 * chatty (search traces), but not unbounded. Only its tail is kept. */
#define PLAYER_DEFAULT_STDERR (16 * 1024 * 1024)

/* As root, each program runs as a uid of its own, taken from this pool
 * while it runs (held by a lock on one byte of SANDBOX_UID_LOCK, so that
 * two tessera processes never hand out the same uid): no two programs ever
 * share an identity. 0x70000000 lies past the ranges systemd gives
 * containers (524288-1879048191) and below 2^31, which some tools read as
 * signed; 65536 programs at once is more than any machine runs. */
#define PLAYER_UID_POOL_BASE 1879048192u
#define PLAYER_UID_POOL_SIZE 65536u
#define SANDBOX_UID_LOCK     "/run/tessera-sandbox-uids.lock"

/* Where a program sees its own folder (read-only) and its HOME, the
 * working directory it starts in (writable, empty, in memory). Fixed
 * names: nothing of the machine's paths (a course's secret folder name)
 * reaches the program's argv or environment. */
#define SANDBOX_BOT_DIR "/bot"
#define SANDBOX_HOME    "/home/bot"

/* The start-up allowance, ms (player_config.startup_ms): a long-running
 * program is started, told `start`, and let run until it waits for its
 * input (sandbox_settle), before its first turn and on no one's clock —
 * as Botzone and CodinGame give a bot its start-up before the first turn:
 * loading Python and its imports, a JVM (0.1-0.23 s to a first answer,
 * docs/stdio.md), weights of a few MB. Ten seconds leaves room for a loaded
 * machine and heavy imports, and is what a course pays at most per process
 * started when a program never waits (it then goes on on its first turn's
 * clock). */
#define PLAYER_DEFAULT_STARTUP_MS 10000

/* ---- fixed caps -------------------------------------------------------------------- */

/* Bytes of stderr kept per turn (its tail) in a player_result: enough for a
 * traceback, small enough to keep with every move of a game. */
#define PLAYER_STDERR_KEEP 8192

/* Arguments of a command ("cmd:PROGRAM ARGS..."), and bytes of the command
 * after resolving paths. A command line is written by a person. */
#define SANDBOX_MAX_ARGS 64
#define SANDBOX_CMD_MAX  8192

/* Folders of the caller's PYTHONPATH shown to a program (read-only, each a
 * bind of bubblewrap's): a library or two (the kit) and a checkout, not a
 * whole home folder's worth. */
#define SANDBOX_MAX_PYPATH 4

/* After stdin is closed at the end, how long a program may take to exit by
 * itself before the whole sandbox is killed, ms. Ending is never delayed
 * by a program longer than this. */
#define PLAYER_EXIT_GRACE_MS 300

/* After game_over, how long a program frozen between its turns is let run
 * to read it and say its last words (stderr) before it is frozen again,
 * ms: its logging of the result is shown with the result; what comes later
 * comes at its end (it is thawed for PLAYER_EXIT_GRACE_MS then). */
#define PLAYER_GAME_OVER_MS 200

/* How often a waiting call wakes up to check the stop flag, the process's
 * peak memory and its exit, ms. */
#define SANDBOX_TICK_MS 10

/* Before a paused program's turn, it reads what came meanwhile; its
 * turn's question goes out once it has read everything and printed nothing
 * for this long, ms (or after half its time: it is its time either way):
 * what it printed by then answered earlier messages. */
#define SANDBOX_SETTLE_MS 2

/* Default of max_unread: bytes queued for a program's stdin that it has
 * not read. Updates are a few KB; a program that reads nothing between its
 * turns fills the pipe (64 KiB) and then this queue; past it the program is
 * stopped ("stopped reading its input"). */
#define PLAYER_DEFAULT_UNREAD (16 * 1024 * 1024)

/* Programs that ended by a fault (crash, time, memory, flood) in one game
 * before the player stops starting them again: each start costs the seat's
 * time and the machine's, and a program failing three times will fail a
 * fourth. */
#define PLAYER_MAX_FAILURES 3

/* Bytes of a program's lines kept for its transcript (player_transcript,
 * when asked for): a Carcassonne game sends one seat about 2 MB (each
 * your_turn and update carries the whole state); past this the transcript
 * is cut, so a fault bundle stays a file one can open. */
#define PLAYER_TRANSCRIPT_MAX (8 * 1024 * 1024)

/* What a kept line counts against that beyond its text: about what it
 * costs in memory (a JSON object and a string). Without it a program
 * printing blank lines would be kept line after line without bound. */
#define PLAYER_TRANSCRIPT_LINE_COST 64

/* Bytes of lines (written as JSON) a fault bundle keeps when a server keeps it (a server
 * match's, a course's: bundle_capped): it is sent in one reply, which must
 * fit a connection's queue (SRV_MAX_QUEUED_BYTES, 4 MiB) with the record
 * and the other seat's bundle, and a program flooding its output would
 * fill the 8 MB above. The first lines are kept; the replay needs none of
 * them (it plays the record) and compares those there are. */
#define BUNDLE_SERVED_LINES_MAX (1024 * 1024)

/* In-process bots stop this long before the deadline (or 1/20 of the time,
 * whichever is more), so that a search returning its best move is in time. */
#define PLAYER_BOT_MARGIN_MS 50

#endif
