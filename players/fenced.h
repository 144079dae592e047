/*
 * fenced.h — a computation over untrusted input, run in a process of its
 * own (server/analyze.c: a game record, perhaps a client's, through
 * analysis/).
 *
 * The caller (fenced_run, on a worker thread) starts a program of ours —
 * in practice its own binary (fenced_self), with a command for the
 * work — hands it the input on its standard input and reads the answer
 * from its standard output. The program reads its input whole
 * (fenced_read_input), then fences itself (fenced_enter): from there a
 * seccomp filter lets it compute and write its answer and nothing else —
 * no file, no socket, no new process, no descriptor but its answer's, no
 * memory made executable — under the CPU-time and memory limits the
 * caller set; it
 * answers with fenced_answer. A crash, an abort, a runaway loop or a
 * hostile input ends that process and comes back to the caller as a
 * reason; the caller's process goes on (a server keeps its matches and
 * its connections).
 *
 * Why a program started afresh and not a fork of the caller: a forked
 * child of a threaded process inherits the other threads' locks held (the
 * allocator's under AddressSanitizer, any library's), and may wait on
 * them forever; an exec starts clean. Why the program fences itself and is
 * not started fenced: loading a program opens files and maps code, which
 * the filter forbids; it is ours and trusted until it reads its input.
 * Linux only, like players/.
 */
#ifndef TESSERA_PLAYERS_FENCED_H
#define TESSERA_PLAYERS_FENCED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct fenced_limits {
    unsigned cpu_s;          /* the program's CPU seconds (RLIMIT_CPU); 0: none */
    unsigned wall_s;         /* then it is killed (one stuck without spending CPU); 0: none */
    unsigned mem_mb;         /* its address space (RLIMIT_AS), MiB: past it an allocation fails;
                              * 0: none. Not set in AddressSanitizer builds, whose shadow
                              * memory alone is terabytes of address space */
    size_t max_out;          /* the longest answer taken; a longer one is refused */
    const atomic_bool *stop; /* raised: the program is killed, ENG_ESHUTTING_DOWN (NULL: never) */
    const char *env_prefix;  /* the caller's variables it keeps besides the few of every
                              * program (fenced_run): those whose names begin so (NULL: none) */
} fenced_limits;

/* ---- the caller ------------------------------------------------------------------------- */

/* The running program's own file, to start it again as argv[0]: what
 * /proc/self/exe links to (under valgrind, the program's, where execing
 * /proc/self/exe would start valgrind's tool alone), or /proc/self/exe
 * itself when that file was replaced or removed since it started (an
 * upgrade in place: the link still starts this binary, the path the new
 * one). Written into path (cap bytes); returns path. */
const char *fenced_self(char *path, size_t cap);

/* Run argv (argv[0] a path; NULL-terminated) with in[0..inlen) as its
 * standard input, no other descriptor but standard error, every signal at
 * its default, an environment of the caller's LD_LIBRARY_PATH and
 * sanitizer options (ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS) and those
 * lim->env_prefix names, nothing else (a server's database password or
 * tokens in its environment are not the program's to read), and wait for
 * its answer. Returns the program's code (its
 * fenced_answer), with *out its answer (owned, NUL-terminated; *len its
 * bytes) when 0 and why its reason otherwise; ENG_EINTERNAL when it did not
 * answer — why says what ended it (a signal, the CPU or wall limit, a
 * system call its fence does not allow, an answer past max_out, the
 * program failing to start or to fence itself: the work is then not done
 * unfenced); ENG_ESHUTTING_DOWN when stop was raised. Blocks the calling
 * thread: call it from a worker. */
int fenced_run(const char *const argv[], const char *in, size_t inlen, const fenced_limits *lim,
               char **out, size_t *len, char *why, size_t cap);

/* ---- the program ------------------------------------------------------------------------ */

/* Its standard input, whole (at most max bytes): *in owned, NUL-terminated.
 * 0, or -1 (read failed, too long, no memory). Before fenced_enter. */
int fenced_read_input(size_t max, char **in, size_t *len);

/* Fence this process: the filter above, loaded for good. 0, or -1 with a
 * reason in why (then it must not go on: fenced_answer the reason). Do
 * before it whatever needs a file (jansson's hash seed: json_object_seed). */
int fenced_enter(char *why, size_t cap);

/* Answer the caller — code 0 and the answer's text, or an engine code and
 * its reason — and end (nothing at exit runs: a fenced process may not
 * call what atexit handlers or a leak checker would). */
_Noreturn void fenced_answer(int code, const char *text, size_t len);

#endif
