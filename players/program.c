/*
 * program.c — an external program in a seat: the stdio protocol
 * (protocol/stdio.h, docs/stdio.md) over the pipes of a sandbox.
 *
 * The player follows the game itself from the moves it is shown (state,
 * record turns, history), so that it can tell the program everything the
 * WebSocket protocol would: `start` with the history, `your_turn` with the
 * state and the legal moves from the wire codec, an `update` per turn in
 * record form, `game_over` with the result. Turns are cut as the server
 * cuts them: a turn ends when a chance event, the end, or another seat
 * comes next. As on the server, a turn's update goes out after the next
 * draw, so that its `next` names the chance outcome the next seat faces.
 *
 * Long-running (cmd:) programs keep one process across turns and games; a
 * process that ended is started again at its next turn with `start` and
 * the history so far. Stateless (cmd-stateless:) programs get a fresh
 * process per turn and one self-contained `your_turn`.
 *
 * Every fault becomes a verdict. A program killed at a deadline or for a
 * flood is not reused (a late answer would land on the next turn); a
 * program that printed something unreadable or illegal is kept, and told
 * why before the same turn is asked again.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bots/bot.h"
#include "protocol/record.h"

typedef struct program {
    sandbox_cmd cmd;
    bool stateless;
    const game_codec *w;
    sandbox *sb;         /* the process, or NULL */
    unsigned prot;       /* protections of the last process */
    int starts;          /* processes started, ever */
    int failures;        /* faults that ended a process, this game */
    json_t *limits_json; /* the limits told to the program */

    /* the game as the program sees it */
    bool in_game;
    char match[33];
    json_t *rules_json;
    unsigned char *cur;        /* the state after every move observed */
    unsigned char *turn_start; /* where the current turn began */
    eng_move tmoves[ENG_MAX_TURN_MOVES];
    int ntmoves;
    bool tdecided;    /* the current turn holds a seat's decision */
    char treason[32]; /* the runner chose a move of it: why ("" no) */
    json_t *history;  /* the record turns so far */
    int turns;        /* turns completed */
    bool desync;      /* a move was observed from another state than ours */

    /* an update waiting for the next draw */
    json_t *pending;

    /* a fault noticed outside a turn, reported at the next one */
    bool fault;
    player_verdict fault_verdict;
    char fault_detail[PLAYER_DETAIL_MAX];

    /* why the last answer was refused, sent before the same turn is asked again */
    json_t *retry_error;
    int retry_turn;

    double cpu0;         /* the program's CPU time when the turn began, ms (-1: not in a turn) */
    double turn_t0;      /* when the turn began (bot_now_ms) */
    int answers;         /* turns the running process has answered */
    bool quiet;          /* catching up (player_resume): nothing is sent */
    const json_t *extra; /* fields added to every message (the player's cfg), or NULL */
    int64_t max_unread;  /* the sandbox's limit, for the message */
    bool quit;           /* it ended cleanly without answering this turn, after answering others */

    /* the start-up of the latest process (player.h, "Start-up") */
    double startup_ms;  /* wall ms from its start until it waited for input; -1: none */
    double startup_cpu; /* its CPU time meanwhile */
    bool startup_over;  /* still busy when the allowance ended */
    bool startup_tell;  /* that goes into the next turn's note */

    /* the transcript (cfg.transcript): this game's lines of the latest process */
    json_t *lines;       /* [{"in": LINE} | {"out": LINE}], or NULL when not kept */
    size_t lines_bytes;  /* what the lines in it count (their bytes and PLAYER_TRANSCRIPT_LINE_COST each) */
    size_t lines_max;    /* at most (cfg.transcript_max, else PLAYER_TRANSCRIPT_MAX) */
    bool lines_cut;      /* lines were dropped past lines_max */
} program;

static double epoch_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the transcript ------------------------------------------------------------- */

/* Keep a line the process read ("in") or printed ("out"), without its newline. */
static void keep_line(program *pr, const char *dir, const char *line, size_t len)
{
    if (!pr->lines)
        return;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (pr->lines_cut || pr->lines_bytes + len + PLAYER_TRANSCRIPT_LINE_COST > pr->lines_max) {
        pr->lines_cut = true;
        return;
    }
    json_t *s = json_stringn(line, len);
    if (!s) {
        /* a program's output may be any bytes: keep it as valid UTF-8, the
         * bytes that are not ASCII shown as '?' */
        char *clean = malloc(len + 1);
        if (clean) {
            for (size_t i = 0; i < len; i++)
                clean[i] = (unsigned char)line[i] < 0x80 ? line[i] : '?';
            s = json_stringn(clean, len);
            free(clean);
        }
    }
    json_t *e = s ? json_pack("{s:o}", dir, s) : NULL;
    if (!e || json_array_append_new(pr->lines, e) != 0) {
        pr->lines_cut = true;
        return;
    }
    pr->lines_bytes += len + PLAYER_TRANSCRIPT_LINE_COST;
}

/* A new game, or a new process: the transcript starts again. */
static void reset_lines(program *pr)
{
    if (!pr->lines)
        return;
    json_array_clear(pr->lines);
    pr->lines_bytes = 0;
    pr->lines_cut = false;
}

/* ---- the process ---------------------------------------------------------------- */

static void send_msg(program *pr, json_t *msg)
{
    if (!msg)
        return;
    if (pr->extra)
        json_object_update_missing(msg, (json_t *)pr->extra);
    if (pr->sb && !pr->quiet) {
        size_t len;
        char *line = stdio_line(msg, &len);
        if (line)
            keep_line(pr, "in", line, len);
        /* a closed stdin shows at the next turn, when the process has ended */
        if (line && sandbox_send(pr->sb, line, len) == ENG_ETOO_LARGE && !pr->fault) {
            /* it has stopped reading: what it would read next is long stale */
            pr->fault = true;
            pr->fault_verdict = PLAYER_NO_ANSWER;
            snprintf(pr->fault_detail, sizeof pr->fault_detail,
                     "stopped reading its input: more than %lld bytes of messages were left "
                     "unread",
                     (long long)pr->max_unread);
            sandbox_destroy(pr->sb, 0);
            pr->sb = NULL;
            pr->failures++;
        }
        free(line);
    }
    json_decref(msg);
}

static stdio_game game_of(const player *p, const program *pr)
{
    return (stdio_game){.match = pr->match[0] ? pr->match : NULL,
                        .game = p->g->name,
                        .rules = pr->rules_json,
                        .seat = p->seat,
                        .time_control = p->cfg.time_control,
                        .limits = pr->limits_json};
}

static void stop_process(program *pr, int grace_ms)
{
    sandbox_destroy(pr->sb, grace_ms);
    pr->sb = NULL;
}

/* The start-up allowance of a process just started (player.h, "Start-up"):
 * let it run until it waits for its input or until t_start + the
 * allowance, in slices so that a raised stop ends it soon. What it took is
 * kept. */
static void give_startup(player *p, program *pr, double t_start, const atomic_bool *stop)
{
    double until = t_start + (double)p->cfg.startup_ms;
    bool done = false;
    for (double now = bot_now_ms(); now < until && !(stop && atomic_load(stop));
         now = bot_now_ms()) {
        double slice = now + 100 < until ? now + 100 : until;
        /* quiet before the slice's end: it waits for input (an exit or a
         * flood ends it too: its turn reports them) */
        if (sandbox_settle(pr->sb, slice) != SANDBOX_TIMEOUT || bot_now_ms() < slice) {
            done = true;
            break;
        }
    }
    pr->startup_ms = bot_now_ms() - t_start;
    pr->startup_cpu = sandbox_cpu_ms(pr->sb);
    pr->startup_over = pr->startup_tell = !done;
}

/* Start a process (a long-running one: told `start` when in a game, given
 * its start-up allowance, then frozen). Returns 0, or the start error's
 * verdict detail in out (a program's fault: execve failed) — then a fault,
 * counted. */
static int start_process(player *p, program *pr, player_result *out, const atomic_bool *stop)
{
    char err[PLAYER_DETAIL_MAX];
    int code;
    double t_start = bot_now_ms();
    pr->sb = sandbox_start(&pr->cmd, &p->cfg.limits, &code, err, sizeof err);
    pr->starts++;
    if (out)
        out->started = true;
    if (!pr->sb) {
        pr->failures++;
        if (out)
            player__fail(out, code == ENG_EIO ? PLAYER_CRASHED : PLAYER_INTERNAL, "%s", err);
        return code;
    }
    pr->prot = sandbox_protections(pr->sb);
    pr->answers = 0;
    reset_lines(pr);
    /* the program's log says which file runs (a student's interpreter) */
    char what[SANDBOX_CMD_MAX + 128];
    sandbox_cmd_describe(&pr->cmd, what, sizeof what);
    sandbox_note(pr->sb, what);
    if (!pr->stateless) {
        if (pr->in_game) {
            json_t *state = pr->w->state(pr->cur);
            stdio_game gm = game_of(p, pr);
            send_msg(pr, stdio_start(&gm, pr->history, state));
            json_decref(state);
        }
        /* its start-up on no one's clock, up to the allowance; then it runs
         * only in its turns (docs/stdio.md, "Time") */
        if (p->cfg.startup_ms > 0)
            give_startup(p, pr, t_start, stop);
        if (pr->sb)
            sandbox_pause(pr->sb);
    }
    return 0;
}

/* ---- following the game ----------------------------------------------------------- */

static void send_update(player *p, program *pr, json_t *pend)
{
    if (pr->sb && !pr->stateless) {
        json_t *state = pr->w->state(pr->cur);
        json_t *next = wire_next(p->g, pr->cur);
        json_t *scores = stdio_scores(p->g, pr->cur);
        json_t *reason = json_object_get(pend, "reason");
        send_msg(pr, stdio_update(pr->match[0] ? pr->match : NULL,
                                  (int)json_integer_value(json_object_get(pend, "turn")),
                                  json_object_get(pend, "record"),
                                  json_string_value(json_object_get(pend, "by")),
                                  reason ? json_string_value(reason) : NULL, scores, next, state));
        json_decref(scores);
        json_decref(next);
        json_decref(state);
    }
    json_decref(pend);
}

static void flush_pending(player *p, program *pr)
{
    if (!pr->pending)
        return;
    json_t *pend = pr->pending;
    pr->pending = NULL;
    send_update(p, pr, pend);
}

static void po_observe(player *p, const void *st, eng_move m, const char *reason)
{
    program *pr = p->impl;
    const eng_game *g = p->g;
    if (!pr->in_game)
        return;
    if (memcmp(pr->cur, st, g->state_size) != 0) {
        pr->desync = true;
        memcpy(pr->cur, st, g->state_size);
        pr->ntmoves = 0;
    }
    int before = g->current_player(pr->cur);
    if (before == ENG_TERMINAL || !eng_is_legal(g, pr->cur, m)) {
        pr->desync = true;
        return;
    }
    if (pr->ntmoves == 0) {
        memcpy(pr->turn_start, pr->cur, g->state_size);
        pr->tdecided = false;
        pr->treason[0] = 0;
    }
    if (pr->ntmoves == ENG_MAX_TURN_MOVES) {
        pr->desync = true; /* no turn of any game is this long */
        pr->ntmoves = 0;
        memcpy(pr->turn_start, pr->cur, g->state_size);
    }
    pr->tmoves[pr->ntmoves++] = m;
    if (before >= 0)
        pr->tdecided = true;
    if (reason && !pr->treason[0])
        snprintf(pr->treason, sizeof pr->treason, "%s", reason);
    g->apply(pr->cur, m);
    if (before == ENG_CHANCE)
        flush_pending(p, pr); /* the draw the last turn's update waited for */

    if (!eng_turn_ends(g, before, pr->cur))
        return;
    char err[256];
    json_t *rec = wire_record_turn(g, pr->turn_start, pr->tmoves, pr->ntmoves, err, sizeof err);
    pr->ntmoves = 0;
    if (!rec) {
        pr->desync = true;
        return;
    }
    json_array_append(pr->history, rec);
    pr->turns++;
    const char *by = "player", *why = NULL;
    if (!pr->tdecided) {
        by = "server";
        why = codec_no_decision(pr->w);
    } else if (pr->treason[0]) {
        by = "server";
        why = pr->treason;
    }
    json_t *pend = json_pack("{s:o, s:i, s:s}", "record", rec, "turn", pr->turns, "by", by);
    if (pend && why)
        json_object_set_new(pend, "reason", json_string(why));
    if (g->current_player(pr->cur) == ENG_CHANCE)
        pr->pending = pend; /* sent with the next draw */
    else
        send_update(p, pr, pend);
    if (pr->sb)
        sandbox_pump(pr->sb, bot_now_ms()); /* what fits in the pipe now */
}

/* ---- the game's frame ----------------------------------------------------------------- */

static void clear_game(program *pr)
{
    json_decref(pr->pending);
    pr->pending = NULL;
    json_decref(pr->retry_error);
    pr->retry_error = NULL;
    json_array_clear(pr->history);
    pr->turns = 0;
    pr->ntmoves = 0;
    pr->failures = 0;
    pr->fault = false;
    pr->desync = false;
    reset_lines(pr);
}

static int po_new_game(player *p, const void *st, int seat, const char *match)
{
    (void)seat;
    program *pr = p->impl;
    clear_game(pr);
    memcpy(pr->cur, st, p->g->state_size);
    pr->match[0] = 0;
    for (size_t i = 0, o = 0; match && match[i] && o < sizeof pr->match - 1; i++) {
        char c = match[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || c == '-') {
            pr->match[o++] = c;
            pr->match[o] = 0;
        }
    }
    json_decref(pr->rules_json);
    pr->rules_json = wire_rules_json(p->g, eng_state_rules(st));
    if (!pr->rules_json)
        return ENG_ENOMEM;
    pr->in_game = true;
    if (pr->stateless || pr->quiet)
        return 0;
    if (pr->sb) {
        /* a process that ended, or burnt half its CPU limit, starts afresh */
        sandbox_status s;
        sandbox_get_status(pr->sb, &s);
        if (!s.running || s.cpu_ms > (double)p->cfg.limits.cpu_s * 500.0)
            stop_process(pr, 0);
    }
    if (!pr->sb) {
        player_result tmp;
        memset(&tmp, 0, sizeof tmp);
        if (start_process(p, pr, &tmp, NULL) != 0) {
            pr->fault = true;
            pr->fault_verdict = tmp.verdict;
            snprintf(pr->fault_detail, sizeof pr->fault_detail, "%s", tmp.detail);
        }
        return 0; /* start_process sent `start` */
    }
    json_t *state = pr->w->state(pr->cur);
    stdio_game gm = game_of(p, pr);
    send_msg(pr, stdio_start(&gm, pr->history, state));
    json_decref(state);
    sandbox_pump(pr->sb, bot_now_ms());
    return 0;
}

static int po_resume(player *p, const void *initial, const eng_move *moves, int n, int seat,
                     const char *match)
{
    program *pr = p->impl;
    const eng_game *g = p->g;
    pr->quiet = true;
    int rc = po_new_game(p, initial, seat, match);
    unsigned char *st = malloc(g->state_size);
    if (!rc && !st)
        rc = ENG_ENOMEM;
    if (!rc) {
        memcpy(st, initial, g->state_size);
        for (int i = 0; i < n && !rc; i++) {
            if (g->current_player(st) == ENG_TERMINAL || !eng_is_legal(g, st, moves[i])) {
                rc = ENG_EINVAL;
                break;
            }
            po_observe(p, st, moves[i], NULL);
            g->apply(st, moves[i]);
        }
    }
    free(st);
    pr->quiet = false;
    json_decref(pr->pending); /* the history holds it */
    pr->pending = NULL;
    if (rc || pr->desync) {
        pr->in_game = false;
        return rc ? rc : ENG_EINVAL;
    }
    if (pr->stateless)
        return 0;
    if (pr->sb) {
        sandbox_status s;
        sandbox_get_status(pr->sb, &s);
        if (!s.running)
            stop_process(pr, 0);
    }
    if (!pr->sb) {
        player_result tmp;
        memset(&tmp, 0, sizeof tmp);
        if (start_process(p, pr, &tmp, NULL) != 0) {
            pr->fault = true;
            pr->fault_verdict = tmp.verdict;
            snprintf(pr->fault_detail, sizeof pr->fault_detail, "%s", tmp.detail);
        }
        return 0; /* start_process sent `start` with the history */
    }
    json_t *state = pr->w->state(pr->cur);
    stdio_game gm = game_of(p, pr);
    send_msg(pr, stdio_start(&gm, pr->history, state));
    json_decref(state);
    sandbox_pump(pr->sb, bot_now_ms());
    return 0;
}

/* Collect stderr since the last take into out. */
static void take_stderr(program *pr, player_result *out)
{
    if (!pr->sb || !out)
        return;
    uint64_t total = 0;
    size_t n = sandbox_stderr_take(pr->sb, out->stderr_tail, sizeof out->stderr_tail, &total);
    out->stderr_len = n;
    out->stderr_total = total;
}

static void po_game_over(player *p, const void *st, const char *reason, int faulty,
                         const char *detail, player_result *out)
{
    program *pr = p->impl;
    if (pr->in_game && memcmp(pr->cur, st, p->g->state_size) != 0) {
        pr->desync = true;
        memcpy(pr->cur, st, p->g->state_size);
    }
    flush_pending(p, pr);
    if (pr->sb && !pr->stateless && pr->in_game) {
        json_t *result = stdio_result(p->g, st, reason, faulty, detail);
        send_msg(pr, stdio_game_over(pr->match[0] ? pr->match : NULL, result));
        json_decref(result);
        /* frozen since its last move: let it read game_over and log what
         * it makes of it (on no one's clock), then freeze it again before
         * anything else of the next game can run */
        sandbox_resume(pr->sb);
        sandbox_settle(pr->sb, bot_now_ms() + PLAYER_GAME_OVER_MS);
        sandbox_pump(pr->sb, bot_now_ms());
        sandbox_pause(pr->sb);
    }
    take_stderr(pr, out);
    pr->in_game = false;
    json_decref(pr->retry_error);
    pr->retry_error = NULL;
}

/* ---- a turn ------------------------------------------------------------------------ */

/* The process ended, or must: read how, kill it, count the fault. */
static player_verdict ended(player *p, program *pr, player_result *out, bool answered,
                            const char *when)
{
    sandbox_kill(pr->sb);
    sandbox_status s;
    sandbox_get_status(pr->sb, &s);
    take_stderr(pr, out);
    if (pr->cpu0 >= 0 && s.cpu_ms > pr->cpu0)
        out->cpu_ms = s.cpu_ms - pr->cpu0;
    char detail[PLAYER_DETAIL_MAX];
    player_verdict v =
        player_classify_exit(&s, &p->cfg.limits, out->stderr_tail, answered, detail, sizeof detail);
    stop_process(pr, 0);
    if (v == PLAYER_OK)
        return PLAYER_OK;
    pr->failures++;
    return player__fail(out, v, "%s%s", when, detail);
}

/* Kill the process for a fault of this turn (time, flood), keep its stderr. */
static void kill_for(program *pr, player_result *out)
{
    sandbox_kill(pr->sb);
    double cpu = sandbox_cpu_ms(pr->sb);
    if (pr->cpu0 >= 0 && cpu > pr->cpu0)
        out->cpu_ms = cpu - pr->cpu0;
    take_stderr(pr, out);
    stop_process(pr, 0);
    pr->failures++;
}

static void set_retry(program *pr, int code, const char *why)
{
    json_decref(pr->retry_error);
    pr->retry_error = stdio_error(code, why);
    pr->retry_turn = pr->turns + 1;
}

/* The process ended in the turn without answering it. A long-running
 * program that answered earlier turns and exited cleanly has quit after
 * its last move (which it may): pr->quit tells the caller to start it
 * again; that is no fault. */
static player_verdict exited_unanswered(player *p, program *pr, player_result *out)
{
    int answers = pr->answers;
    player_verdict v = ended(p, pr, out, false, "");
    if (v == PLAYER_NO_ANSWER && answers > 0 && !pr->stateless &&
        strncmp(out->detail, "exited (status 0)", 17) == 0) {
        pr->quit = true;
        pr->failures--;
    }
    return v;
}

/* Read the answer to the your_turn just sent. */
static player_verdict answer(player *p, program *pr, const void *st, double deadline_ms,
                             const atomic_bool *stop, player_result *out)
{
    const sandbox_limits *lim = &p->cfg.limits;
    for (;;) {
        const char *line;
        size_t len;
        sandbox_event ev = sandbox_read_line(pr->sb, deadline_ms, stop, &line, &len);
        switch (ev) {
        case SANDBOX_LINE: {
            keep_line(pr, "out", line, len);
            if (strspn(line, " \t") == len)
                continue; /* a blank line: harmless */
            stdio_reply r;
            char why[256];
            int rc = stdio_decode(line, len, (size_t)lim->max_line, &r, why, sizeof why);
            if (rc) {
                set_retry(pr, rc, why);
                return player__fail(out, PLAYER_BAD_OUTPUT, "%s: %s", eng_err_code(rc), why);
            }
            if (r.type == STDIO_INFO) { /* thinking lines: advice, never the answer */
                player__info(p, r.root, r.len, pr->turns + 1);
                stdio_reply_free(&r);
                continue;
            }
            snprintf(out->debug, sizeof out->debug, "%s", r.debug);
            if (r.n_ignored)
                player__note(out, "ignored field%s: %s", r.n_ignored > 1 ? "s" : "", r.ignored);
            if (r.has_turn && r.turn != pr->turns + 1) {
                char m[96];
                snprintf(m, sizeof m, "the move is for turn %lld; this is turn %d",
                         (long long)r.turn, pr->turns + 1);
                stdio_reply_free(&r);
                set_retry(pr, WIRE_ENOT_YOUR_TURN, m);
                return player__fail(out, PLAYER_BAD_OUTPUT, "not_your_turn: %s", m);
            }
            if (r.type == STDIO_RESIGN) {
                stdio_reply_free(&r);
                return player__fail(out, PLAYER_RESIGNED, "the program resigned");
            }
            if (r.info) /* the move's own line: the turn's last word */
                player__last_info(p, r.info, pr->turns + 1);
            eng_move mv[ENG_MAX_TURN_MOVES];
            int n = pr->w->parse_move(st, r.move, mv, why, sizeof why);
            stdio_reply_free(&r);
            if (n < 0) {
                set_retry(pr, n, why);
                return player__fail(out, PLAYER_ILLEGAL_MOVE, "%s: %s", eng_err_code(n), why);
            }
            memcpy(out->moves, mv, (size_t)n * sizeof mv[0]);
            out->nmoves = n;
            pr->answers++;
            out->verdict = PLAYER_OK;
            json_decref(pr->retry_error);
            pr->retry_error = NULL;
            return PLAYER_OK;
        }
        case SANDBOX_TIMEOUT: {
            double allowed = out->wall_ms;
            kill_for(pr, out);
            return player__fail(
                out, PLAYER_TIME_LIMIT, "no move within %.0f ms (CPU %.0f ms)%s", allowed,
                out->cpu_ms,
                out->cpu_ms < allowed / 10 ? ": it hardly ran: is it waiting for input, or "
                                             "holding its move in an unflushed buffer?"
                                           : "");
        }
        case SANDBOX_CPU_LIMIT: {
            double allowed = out->wall_ms;
            double wall = bot_now_ms() - pr->turn_t0;
            kill_for(pr, out);
            return player__fail(out, PLAYER_TIME_LIMIT,
                                "used %.0f ms of CPU (all its processes and threads together) "
                                "in %.0f ms, past its %.0f ms",
                                out->cpu_ms, wall, allowed);
        }
        case SANDBOX_STOPPED:
            kill_for(pr, out);
            pr->failures--; /* the runner's doing, not a fault */
            return player__fail(out, PLAYER_TIME_LIMIT, "stopped by the runner");
        case SANDBOX_EXITED: return exited_unanswered(p, pr, out);
        case SANDBOX_CLOSED:
            /* stdout closed: it cannot answer; see how it ends */
            if (sandbox_wait_exit(pr->sb, deadline_ms))
                return exited_unanswered(p, pr, out);
            kill_for(pr, out);
            return player__fail(out, PLAYER_NO_ANSWER, "closed its stdout without answering");
        case SANDBOX_LONG_LINE:
            set_retry(pr, ENG_ETOO_LARGE, "a line longer than the limit");
            return player__fail(out, PLAYER_BAD_OUTPUT,
                                "printed a line longer than %lld bytes (one message per line)",
                                (long long)lim->max_line);
        case SANDBOX_FLOOD:
            kill_for(pr, out);
            return player__fail(out, PLAYER_OUTPUT_FLOOD,
                                "printed more than %lld bytes on stdout or %lld on stderr in one "
                                "turn",
                                (long long)lim->max_stdout, (long long)lim->max_stderr);
        }
    }
}

static player_verdict po_turn(player *p, const void *st, double deadline_ms,
                              const atomic_bool *stop, player_result *out)
{
    program *pr = p->impl;
    const eng_game *g = p->g;
    double t0 = bot_now_ms();
    if (!pr->in_game)
        return player__fail(out, PLAYER_INTERNAL, "player_turn outside a game");
    if (pr->desync || memcmp(pr->cur, st, g->state_size) != 0)
        return player__fail(out, PLAYER_INTERNAL,
                            "the player was not shown every move of the game (player_observe)");
    flush_pending(p, pr);
    pr->cpu0 = -1;

    /* a fault outside the turn, or a process that ended since */
    if (pr->fault) {
        pr->fault = false;
        out->wall_ms = bot_now_ms() - t0;
        return player__fail(out, pr->fault_verdict, "%s", pr->fault_detail);
    }
    if (pr->sb) {
        sandbox_pump(pr->sb, bot_now_ms());
        sandbox_status s;
        sandbox_get_status(pr->sb, &s);
        if (!s.running) {
            /* it had answered: ended between turns (after its last move,
             * which it may); it had not: it ended in its start-up */
            bool answered = pr->answers > 0;
            player_verdict v = ended(p, pr, out, answered,
                                     answered ? "ended between turns: " : "ended in its start-up: ");
            if (v != PLAYER_OK) {
                out->wall_ms = bot_now_ms() - t0;
                return v;
            }
            player__note(out, "the program had exited after its last move");
        }
    }
    if (pr->failures >= PLAYER_MAX_FAILURES) {
        out->wall_ms = bot_now_ms() - t0;
        return player__fail(out, PLAYER_NO_ANSWER, "not started again after %d faults in this game",
                            pr->failures);
    }
    if (!pr->sb) {
        if (!pr->stateless && pr->starts > 0)
            player__note(out, "started again");
        double before = bot_now_ms();
        if (start_process(p, pr, out, stop) != 0) {
            out->wall_ms = bot_now_ms() - t0;
            return out->verdict;
        }
        /* a long-running program's start-up allowance is not the turn's */
        if (!pr->stateless && p->cfg.startup_ms > 0) {
            double took = bot_now_ms() - before;
            deadline_ms += took;
            t0 += took;
        }
    }
    if (pr->startup_tell) {
        pr->startup_tell = false;
        player__note(out,
                     "its start-up had not finished within the %lld ms allowance: the rest ran "
                     "on this turn's clock",
                     (long long)p->cfg.startup_ms);
    }

    player_verdict v;
    for (int attempt = 0;; attempt++) {
        pr->cpu0 = sandbox_cpu_ms(pr->sb);
        pr->turn_t0 = bot_now_ms();
        if (!pr->stateless) {
            /* paused since its last turn: it reads what came meanwhile
             * first, and what it prints then answers that, not this turn */
            sandbox_resume(pr->sb);
            if (deadline_ms > pr->turn_t0)
                sandbox_settle(pr->sb, pr->turn_t0 + (deadline_ms - pr->turn_t0) / 2);
        }
        /* lines printed outside the turn */
        char stray[64];
        int strays = sandbox_strays(pr->sb, stray, sizeof stray);
        if (strays)
            player__note(out, "%d line%s printed outside its turn ignored ('%s')", strays,
                         strays > 1 ? "s" : "", stray);
        sandbox_new_window(pr->sb);
        if (pr->retry_error && pr->retry_turn == pr->turns + 1)
            send_msg(pr, json_incref(pr->retry_error));
        json_t *state = pr->w->state(st), *legal = pr->w->legal(st);
        double now = bot_now_ms();
        int64_t left = deadline_ms > now ? (int64_t)(deadline_ms - now) : 0;
        stdio_game gm = game_of(p, pr);
        send_msg(pr,
                 stdio_your_turn(&gm, pr->turns + 1, state, legal, left,
                                 (int64_t)(epoch_ms() + (double)left), pr->stateless, pr->history));
        json_decref(state);
        json_decref(legal);
        /* the turn's allowance, for the time-out's message: from the
         * turn's start, its start-up and catching up included (its time,
         * docs/stdio.md), not what was left when your_turn went out */
        out->wall_ms = deadline_ms > t0 ? deadline_ms - t0 : 0;
        pr->quit = false;
        /* its think time is the CPU of all its processes: past the turn's
         * allowance it is a time-out, whatever the clock says */
        sandbox_set_cpu_limit(pr->sb, pr->cpu0 + (double)(deadline_ms - pr->turn_t0));
        sandbox_resume(pr->sb);
        v = answer(p, pr, st, deadline_ms, stop, out);
        if (pr->sb && !pr->stateless)
            sandbox_pause(pr->sb);
        if (!pr->quit || attempt > 0)
            break;
        /* the program quit after its last move (which it may): once more */
        out->verdict = PLAYER_OK;
        out->detail[0] = 0;
        player__note(out, "the program had exited after its last move; started again");
        double before = bot_now_ms();
        if (start_process(p, pr, out, stop) != 0) {
            v = out->verdict;
            break;
        }
        if (p->cfg.startup_ms > 0) {
            double took = bot_now_ms() - before;
            deadline_ms += took;
            t0 += took;
        }
    }
    if (pr->sb) {
        out->cpu_ms = sandbox_cpu_ms(pr->sb) - pr->cpu0;
        if (pr->stateless) {
            /* it has nothing more to read: a moment to exit by itself (and
             * finish its stderr) */
            sandbox_close_stdin(pr->sb);
            sandbox_wait_exit(pr->sb, bot_now_ms() + 50);
            out->cpu_ms = sandbox_cpu_ms(pr->sb) - pr->cpu0;
            take_stderr(pr, out);
            sandbox_status s;
            sandbox_get_status(pr->sb, &s);
            stop_process(pr, 0);
            if (v == PLAYER_OK && !s.running) {
                char detail[PLAYER_DETAIL_MAX];
                player_verdict ev = player_classify_exit(&s, &p->cfg.limits, out->stderr_tail, true,
                                                         detail, sizeof detail);
                if (ev != PLAYER_OK)
                    player__note(out, "after its move: %s", detail);
            }
        } else {
            take_stderr(pr, out);
        }
    }
    pr->cpu0 = -1;
    out->wall_ms = bot_now_ms() - t0;
    return v;
}

/* ---- making and ending -------------------------------------------------------------- */

static void po_destroy(player *p)
{
    program *pr = p->impl;
    if (pr->sb && p->cfg.stderr_at_exit) {
        /* its last words (after game_over, as it exits) reach the caller:
         * thawed, it sees the end of its stdin */
        sandbox_close_stdin(pr->sb);
        sandbox_resume(pr->sb);
        if (p->cfg.exit_grace_ms > 0)
            sandbox_wait_exit(pr->sb, bot_now_ms() + p->cfg.exit_grace_ms);
        sandbox_kill(pr->sb);
        char text[PLAYER_STDERR_KEEP + 1];
        uint64_t total = 0;
        size_t n = sandbox_stderr_take(pr->sb, text, sizeof text, &total);
        if (n)
            p->cfg.stderr_at_exit(text, n, total, p->cfg.stderr_at_exit_user);
    }
    stop_process(pr, p->cfg.exit_grace_ms);
    json_decref(pr->limits_json);
    json_decref(pr->rules_json);
    json_decref(pr->history);
    json_decref(pr->pending);
    json_decref(pr->retry_error);
    json_decref(pr->lines);
    free(pr->cur);
    free(pr->turn_start);
    free(pr);
}

static void po_info(const player *p, player_info *out)
{
    const program *pr = p->impl;
    out->protections = pr->prot;
    out->starts = pr->starts;
    out->failures = pr->failures;
    out->pid = pr->sb ? sandbox_pid(pr->sb) : 0;
    out->startup_ms = pr->startup_ms;
    out->startup_cpu_ms = pr->startup_cpu;
    out->startup_over = pr->startup_over;
}

static json_t *po_transcript(const player *p, bool *truncated)
{
    const program *pr = p->impl;
    if (!pr->lines)
        return NULL;
    if (truncated)
        *truncated = pr->lines_cut;
    return json_deep_copy(pr->lines);
}

static const player_ops program_ops = {
    .transcript = po_transcript,
    .destroy = po_destroy,
    .new_game = po_new_game,
    .resume = po_resume,
    .observe = po_observe,
    .turn = po_turn,
    .game_over = po_game_over,
    .info = po_info,
};

int player__program_init(player *p, const char *cmdline, bool stateless, char *err, size_t errcap)
{
    const game_codec *w = codec_find(p->g->name);
    if (!w)
        return eng_seterr(err, errcap, ENG_EUNKNOWN_GAME,
                          "%s has no wire codec: external programs cannot play it", p->g->name);
    /* untrusted programs run fully isolated, or not at all (unless the
     * operator opted out): refused here, with what is missing */
    int rc = sandbox_check(err, errcap);
    if (rc)
        return rc;
    program *pr = calloc(1, sizeof *pr);
    if (!pr)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    rc = sandbox_cmd_parse(cmdline, &p->cfg.limits, &pr->cmd, err, errcap);
    if (rc) {
        free(pr);
        return rc;
    }
    /* a JVM reserves far more address space than it uses (it does not
     * start under RLIMIT_AS of 1 GiB): for it the cgroup's memory limit
     * alone holds the memory (sandbox_limits.as_mb) */
    const char *base = strrchr(pr->cmd.real, '/');
    if (strcmp(base ? base + 1 : pr->cmd.real, "java") == 0 && p->cfg.limits.as_mb == 0)
        p->cfg.limits.as_mb = -1;
    pr->w = w;
    pr->stateless = stateless;
    pr->extra = p->cfg.extra_fields;
    pr->max_unread = p->cfg.limits.max_unread;
    pr->cpu0 = -1;
    pr->startup_ms = -1;
    pr->cur = malloc(p->g->state_size);
    pr->turn_start = malloc(p->g->state_size);
    pr->history = json_array();
    pr->lines_max = p->cfg.transcript_max ? p->cfg.transcript_max : PLAYER_TRANSCRIPT_MAX;
    if (p->cfg.transcript && !(pr->lines = json_array())) {
        json_decref(pr->history);
        pr->history = NULL;
    }
    const sandbox_limits *l = &p->cfg.limits;
    pr->limits_json =
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "cpu_s", (json_int_t)l->cpu_s, "memory_mb",
                  (json_int_t)l->memory_mb, "file_mb", (json_int_t)l->file_mb, "max_files",
                  (json_int_t)l->max_files, "max_tasks", (json_int_t)l->max_tasks, "max_line_bytes",
                  (json_int_t)l->max_line);
    if (!pr->cur || !pr->turn_start || !pr->history || !pr->limits_json) {
        free(pr->cur);
        free(pr->turn_start);
        json_decref(pr->history);
        json_decref(pr->limits_json);
        free(pr);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    p->kind = PLAYER_PROGRAM;
    p->ops = &program_ops;
    p->impl = pr;
    return 0;
}
