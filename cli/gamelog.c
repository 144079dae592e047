/*
 * gamelog.c — what a program did in each game, kept beside the game's
 * record: `tessera match --out DIR` and `tessera tournament --out DIR` write
 * DIR/records/game-NNNNNN.json and, for every seat an external program held,
 * DIR/records/game-NNNNNN.PS.log (S = the seat counted from 1, as people
 * count). The log is text for people and simple to read by a program (the
 * web UI's replay shows each turn's debug beside the board):
 *
 *   # tessera game log 1: game 3, P2 (seat 1), record game-000003.json, cmd:python3 bot.py
 *   turn 2: ok (cpu 12 ms, wall 15 ms)
 *   debug: sims=400 value=0.61
 *   stderr: considering 12 placements
 *   turn 4: time_limit (cpu 2 ms, wall 301 ms): no move within 300 ms (CPU 2 ms)
 *   game over
 *   stderr: bye
 *
 * `turn N` is the record's turn number (the stdio protocol's your_turn.turn);
 * every other line belongs to the turn above it; stderr is the program's,
 * line by line, as it came between two calls (control characters shown as
 * '?'). docs/stdio.md, "Your program's log", is the user's description.
 *
 * Threads: the runner calls cli_gamelog_turn from the worker playing each
 * game, games at once on different threads; a game's calls come in order
 * from one thread. One mutex guards the list of open logs (a game's text is
 * only touched by its own thread); a log is written and dropped at its
 * seat's game-over call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "engine/textbuf.h"
#include "players/player.h"

/* A log stops growing here (a program flooding stderr every turn), with a
 * line saying so: a whole game of a chatty program is far below it. */
#define GAMELOG_MAX_BYTES (4 << 20)

typedef struct open_log {
    struct open_log *next;
    int64_t game;
    int seat;
    textbuf text;
    bool cut; /* GAMELOG_MAX_BYTES reached */
} open_log;

struct cli_gamelog {
    char dir[4096];       /* DIR/records */
    pthread_mutex_t lock; /* guards open and errors */
    open_log *open;
    int errors;       /* logs that could not be written */
    int written;      /* logs written */
};

cli_gamelog *cli_gamelog_create(const char *recdir)
{
    cli_gamelog *L = calloc(1, sizeof *L);
    if (!L)
        return NULL;
    snprintf(L->dir, sizeof L->dir, "%s", recdir);
    pthread_mutex_init(&L->lock, NULL);
    return L;
}

void cli_gamelog_destroy(cli_gamelog *L)
{
    if (!L)
        return;
    while (L->open) {
        open_log *o = L->open;
        L->open = o->next;
        tb_free(&o->text);
        free(o);
    }
    pthread_mutex_destroy(&L->lock);
    free(L);
}

int cli_gamelog_errors(const cli_gamelog *L)
{
    return L ? L->errors : 0;
}

int cli_gamelog_written(const cli_gamelog *L)
{
    return L ? L->written : 0;
}

void cli_gamelog_path(const cli_gamelog *L, int64_t game, int seat, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/game-%06lld.P%d.log", L ? L->dir : ".", (long long)game, seat + 1);
}

/* The open log of (game, seat), made when first needed; NULL when out of
 * memory. */
static open_log *find(cli_gamelog *L, int64_t game, int seat, bool make)
{
    pthread_mutex_lock(&L->lock);
    open_log *o = L->open;
    while (o && (o->game != game || o->seat != seat))
        o = o->next;
    if (!o && make && (o = calloc(1, sizeof *o))) {
        o->game = game;
        o->seat = seat;
        o->next = L->open;
        L->open = o;
    }
    pthread_mutex_unlock(&L->lock);
    return o;
}

static void drop(cli_gamelog *L, open_log *o)
{
    pthread_mutex_lock(&L->lock);
    for (open_log **pp = &L->open; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    pthread_mutex_unlock(&L->lock);
    tb_free(&o->text);
    free(o);
}

/* `prefix` and then text, one line of the log per line of text; control
 * characters but tabs become '?'. */
static void put_lines(textbuf *b, const char *prefix, const char *text, size_t n)
{
    size_t i = 0;
    while (i < n) {
        tb_puts(b, prefix);
        for (; i < n && text[i] != '\n'; i++) {
            unsigned char c = (unsigned char)text[i];
            char ch = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
            tb_put(b, &ch, 1);
        }
        tb_puts(b, "\n");
        i++; /* the newline */
    }
}

static void write_log(cli_gamelog *L, open_log *o)
{
    char path[4200], tmp[4300];
    cli_gamelog_path(L, o->game, o->seat, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    bool ok = !o->text.failed;
    FILE *f = ok ? fopen(tmp, "w") : NULL;
    ok = f && fwrite(o->text.p ? o->text.p : "", 1, o->text.len, f) == o->text.len;
    if (f)
        ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    pthread_mutex_lock(&L->lock);
    if (ok)
        L->written++;
    else
        L->errors++;
    pthread_mutex_unlock(&L->lock);
}

void cli_gamelog_turn(cli_gamelog *L, int64_t game, int seat, const char *spec, int turn,
                      const player_result *r)
{
    if (!L)
        return;
    open_log *o = find(L, game, seat, true);
    if (!o) {
        pthread_mutex_lock(&L->lock);
        L->errors++;
        pthread_mutex_unlock(&L->lock);
        return;
    }
    textbuf *b = &o->text;
    if (b->len == 0)
        tb_printf(b, "# tessera game log 1: game %lld, P%d (seat %d), record game-%06lld.json, %s\n",
                  (long long)game, seat + 1, seat, (long long)game, spec);
    if (!o->cut) {
        if (turn > 0) {
            tb_printf(b, "turn %d: %s (cpu %.0f ms, wall %.0f ms)", turn,
                      player_verdict_name(r->verdict), r->cpu_ms, r->wall_ms);
            /* a detail's copy of the stderr tail: the stderr lines follow */
            const char *cut = r->stderr_len ? strstr(r->detail, "; stderr:") : NULL;
            if (r->detail[0])
                tb_printf(b, ": %.*s", cut ? (int)(cut - r->detail) : (int)strlen(r->detail),
                          r->detail);
            tb_puts(b, "\n");
            if (r->debug[0])
                put_lines(b, "debug: ", r->debug, strlen(r->debug));
            if (r->note[0])
                put_lines(b, "note: ", r->note, strlen(r->note));
        } else {
            tb_puts(b, "game over\n");
        }
        if (r->stderr_total > r->stderr_len)
            tb_printf(b, "stderr: [%llu bytes before these were not kept]\n",
                      (unsigned long long)(r->stderr_total - r->stderr_len));
        put_lines(b, "stderr: ", r->stderr_tail, r->stderr_len);
        if (b->len > GAMELOG_MAX_BYTES) {
            tb_printf(b, "[the log stops here: it is over %d MiB]\n", GAMELOG_MAX_BYTES >> 20);
            o->cut = true;
        }
    }
    if (turn == 0) {
        write_log(L, o);
        drop(L, o);
    }
}
