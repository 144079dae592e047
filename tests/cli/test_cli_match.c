/*
 * test_cli_match.c — `tessera match`, `tessera bots` and `tessera bench
 * --bot`, run as a user would: the built binary (its path is argv[1]) in a
 * child process, its exit code, its stderr message, and the JSON of its last
 * stdout line parsed with jansson and checked key by key.
 *
 * Bad arguments must exit 2 with a message that names the problem; the
 * runs that succeed are tiny (a few random games), so the suite takes well
 * under a second. Timing figures are checked for presence and sign only.
 */
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *tessera; /* path of the binary under test */
static const char *root;    /* the source tree (argv[2]): example and adversarial bots */

#define OUT_MAX (256 * 1024)

typedef struct run_out {
    int code;          /* exit code, or -1 if it did not exit normally */
    char out[OUT_MAX]; /* stdout */
    char err[OUT_MAX]; /* stderr */
} run_out;

static void slurp(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    lseek(fd, 0, SEEK_SET);
    for (ssize_t k; n + 1 < cap && (k = read(fd, buf + n, cap - 1 - n)) > 0;)
        n += (size_t)k;
    buf[n] = 0;
}

/* Run `tessera ARGS...` (NULL-terminated) with stdout and stderr captured
 * in temporary files (no pipes: nothing can block on a full buffer). */
static run_out *run(const char *first, ...)
{
    const char *argv[64];
    int argc = 0;
    argv[argc++] = tessera;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;

    char out_name[] = "/tmp/tessera-cli-out-XXXXXX", err_name[] = "/tmp/tessera-cli-err-XXXXXX";
    int fo = mkstemp(out_name), fe = mkstemp(err_name);
    assert_true(fo >= 0 && fe >= 0);
    unlink(out_name);
    unlink(err_name);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fo, STDOUT_FILENO);
        dup2(fe, STDERR_FILENO);
        execv(tessera, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    run_out *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    slurp(fo, r->out, sizeof r->out);
    slurp(fe, r->err, sizeof r->err);
    close(fo);
    close(fe);
    return r;
}

/* Exit 2, with `needle` in the message on stderr and nothing on stdout. */
static void expect_usage(run_out *r, const char *needle)
{
    if (r->code != 2 || !strstr(r->err, needle))
        print_error("exit %d, stderr: %s\n(wanted exit 2 and '%s')\n", r->code, r->err, needle);
    assert_int_equal(r->code, 2);
    assert_non_null(strstr(r->err, needle));
    assert_string_equal(r->out, "");
    free(r);
}

/* The last line of stdout, parsed as one JSON object. */
static json_t *last_json(const run_out *r)
{
    const char *text = r->out;
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    json_error_t jerr;
    json_t *o = json_loadb(text + start, len - start, JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        print_error("not JSON (%s): %.*s\n", jerr.text, (int)(len - start), text + start);
    assert_non_null(o);
    assert_true(json_is_object(o));
    return o;
}

static json_int_t get_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        print_error("key '%s' is missing or not an integer\n", key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        print_error("key '%s' is missing or not a number\n", key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* ---- tessera match: bad arguments ---------------------------------------- */

static void test_match_bad_arguments(void **state)
{
    (void)state;
    expect_usage(run("match", "carcassonne", "random", "nosuchbot", NULL),
                 "unknown bot 'nosuchbot'");
    expect_usage(run("match", "carcassonne", "random", "random:sims=lots", NULL), "option 'sims'");
    expect_usage(run("match", "carcassonne", "random", "random", "--games", "x", NULL),
                 "--games needs an integer");
    expect_usage(run("match", "carcassonne", "random", "random", "--games", "0", NULL),
                 "--games needs an integer from 1");
    expect_usage(run("match", "carcassonne", "random", "random", "--threads", "0", NULL),
                 "--threads needs an integer");
    expect_usage(run("match", "carcassonne", "random", "random", "--seed", "-4", NULL),
                 "--seed needs a non-negative integer");
    expect_usage(run("match", "carcassonne", "random", "random", "--seed", "18446744073709551616", NULL),
                 "--seed needs a non-negative integer"); /* one past the largest: no silent wrap */
    expect_usage(run("match", "carcassonne", "random", "random", "--seed", " 5", NULL),
                 "--seed needs a non-negative integer");
    expect_usage(run("match", "carcassonne", "random", "random", "--games", " 3", NULL),
                 "--games needs an integer");
    expect_usage(run("match", "carcassonne", "random", "random", "--games", "99999999999999999999",
                     NULL),
                 "--games needs an integer");
    expect_usage(run("match", "carcassonne", "random", NULL), "at least two bots");
    expect_usage(run("match", "carcassonne", NULL), "at least two bots");
    expect_usage(run("match", NULL), "which game?");
    expect_usage(run("match", "chess", "random", "random", NULL), "unknown game 'chess'");
    expect_usage(run("match", "carcassonne", "random", "random", "random", "random", "random",
                     "random", NULL),
                 "carcassonne takes 2 to 5 players, got 6 bots");
    expect_usage(run("match", "reversi", "random", "random", "random", NULL),
                 "reversi takes 2 players, got 3 bots");
    expect_usage(run("match", "carcassonne", "random", "random", "--players", "3", NULL),
                 "--players 3, but 2 bots");
    expect_usage(run("match", "carcassonne", "random", "random", "--rule", "players=3", NULL),
                 "players=3, but 2 bots");
    expect_usage(run("match", "carcassonne", "random", "random", "--rule", "tiny_city=9", NULL),
                 "tiny_city");
    expect_usage(run("match", "carcassonne", "random", "random", "--frobnicate", NULL),
                 "unknown option '--frobnicate'");
    expect_usage(run("match", "carcassonne", "random", "random", "--games", NULL), "needs a value");
}

/* ---- tessera match: a run, its JSON ------------------------------------------ */

static void check_bot(const json_t *b, const char *spec, json_int_t games)
{
    assert_true(json_is_object(b));
    assert_string_equal(json_string_value(json_object_get(b, "spec")), spec);
    json_int_t w = get_int(b, "wins"), l = get_int(b, "losses"), d = get_int(b, "draws");
    assert_true(w >= 0 && l >= 0 && d >= 0);
    assert_int_equal(w + l + d, games);
    double rate = get_num(b, "scoring_rate");
    assert_true(rate >= 0 && rate <= 1);
    assert_true(rate * (double)games > (double)w + 0.5 * (double)d - 1e-4);
    assert_true(rate * (double)games < (double)w + 0.5 * (double)d + 1e-4);
    assert_true(get_num(b, "mean_score") >= 0);
    get_num(b, "pd");
    /* the 90% Wilson interval holds the rate and is never empty */
    const json_t *ci = json_object_get(b, "ci90");
    assert_true(json_is_array(ci) && json_array_size(ci) == 2);
    double lo = json_number_value(json_array_get(ci, 0)), hi = json_number_value(json_array_get(ci, 1));
    assert_true(0 <= lo && lo <= rate && rate <= hi && hi <= 1 && lo < hi);
    assert_true(get_int(b, "points") >= 0);
    assert_true(get_num(b, "ms_per_decision") >= 0);
    assert_true(get_num(b, "ms_per_turn") >= get_num(b, "ms_per_decision"));
    assert_true(get_num(b, "sims_per_decision") == 0); /* random runs no simulations */
    assert_true(get_num(b, "sims_per_turn") == 0);
    assert_true(json_is_object(json_object_get(b, "league")));
}

static void test_match_json(void **state)
{
    (void)state;
    run_out *r = run("match", "carcassonne", "random", "random", "--games", "4", "--json", NULL);
    if (r->code != 0)
        print_error("stderr: %s\n", r->err);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "Carcassonne"));
    json_t *o = last_json(r);
    assert_int_equal(get_int(o, "games"), 4);
    const json_t *bots = json_object_get(o, "bots");
    assert_true(json_is_array(bots));
    assert_int_equal(json_array_size(bots), 2);
    check_bot(json_array_get(bots, 0), "random", 4);
    check_bot(json_array_get(bots, 1), "random", 4);
    /* two players: one's wins are the other's losses, rates sum to 1 */
    const json_t *a = json_array_get(bots, 0), *b = json_array_get(bots, 1);
    assert_int_equal(get_int(a, "wins"), get_int(b, "losses"));
    double sum = get_num(a, "scoring_rate") + get_num(b, "scoring_rate");
    assert_true(sum > 1 - 1e-9 && sum < 1 + 1e-9);
    json_decref(o);
    free(r);
}

static void test_match_rounding_and_seats(void **state)
{
    (void)state;
    run_out *r = run("match", "carcassonne", "random", "random:seed=3", "random", "--games", "4",
                     "--threads", "2", "--seed", "11", "--json", NULL);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "rounded up")); /* said in the text */
    /* seats as people count them, with the 0-based seat number */
    assert_non_null(strstr(r->out, "\nP1 (seat 0) "));
    assert_non_null(strstr(r->out, "\nP3 (seat 2) "));
    json_t *o = last_json(r);
    assert_int_equal(get_int(o, "games"), 6);
    assert_int_equal(get_int(o, "games_requested"), 4);
    assert_int_equal(get_int(o, "seats"), 3);
    const json_t *bots = json_object_get(o, "bots");
    assert_int_equal(json_array_size(bots), 3);
    check_bot(json_array_get(bots, 1), "random:seed=3", 6);
    json_decref(o);
    free(r);
}

/* Issue 15: `mcts:sims=400` on Carcassonne showed "sims/move 200", the
 * average over a turn's two decisions (the meeple is read from the
 * placement's search). Per turn it is the budget (a little more when a
 * meeple decision had no plan from the search and searched on its own);
 * per decision, half of that. */
static void test_match_sims_per_turn(void **state)
{
    (void)state;
    run_out *r = run("match", "carcassonne", "mcts:sims=100", "random", "--games", "2", "--json",
                     NULL);
    if (r->code != 0)
        print_error("stderr: %s\n", r->err);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "sims/dec"));
    assert_non_null(strstr(r->out, "sims/turn"));
    json_t *o = last_json(r);
    const json_t *a = json_array_get(json_object_get(o, "bots"), 0);
    json_int_t dec = get_int(a, "decisions"), turns = get_int(a, "turns");
    assert_true(turns > 2 * 30 && turns <= 2 * 36); /* ~35 turns a game, 2 games */
    assert_int_equal(dec, 2 * turns); /* tile + meeple */
    double per_turn = get_num(a, "sims_per_turn");
    assert_true(per_turn >= 100 && per_turn < 110);
    assert_true(fabs(get_num(a, "sims_per_decision") - per_turn / 2) < 1e-5);
    json_decref(o);
    free(r);
    /* Reversi: one decision per turn, so both figures are the budget */
    r = run("match", "reversi", "mcts:sims=20", "random", "--games", "2", "--json", NULL);
    assert_int_equal(r->code, 0);
    o = last_json(r);
    a = json_array_get(json_object_get(o, "bots"), 0);
    assert_int_equal(get_int(a, "decisions"), get_int(a, "turns"));
    assert_true(get_num(a, "sims_per_turn") == 20);
    assert_true(get_num(a, "sims_per_decision") == 20);
    json_decref(o);
    free(r);
}

/* Issue 15: the 90% bound printed 0.0% at a 0% or 100% rate. 2 games of
 * mcts against random are won 2-0; the Wilson interval of 0 of 2 is
 * [0, z²/(2+z²)] = [0, 2.706025/4.706025] = [0, 0.575013] with z = 1.645, never 0.0-0.0%. */
static void test_match_interval_at_the_edges(void **state)
{
    (void)state;
    run_out *r = run("match", "carcassonne", "random", "mcts:sims=60", "--games", "2", "--json",
                     NULL);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "0.0-57.5%"));
    assert_non_null(strstr(r->out, "42.5-100.0%"));
    assert_non_null(strstr(r->out, "Wilson"));
    assert_null(strstr(r->out, "seed 00")); /* the footer cites papers by short name */
    assert_non_null(strstr(r->out, "docs/references.md"));
    json_t *o = last_json(r);
    assert_string_equal(json_string_value(json_object_get(o, "interval")), "wilson90");
    const json_t *ci = json_object_get(json_array_get(json_object_get(o, "bots"), 0), "ci90");
    assert_true(json_number_value(json_array_get(ci, 0)) == 0);
    assert_true(fabs(json_number_value(json_array_get(ci, 1)) - 0.575013) < 1e-6);
    json_decref(o);
    free(r);
}

/* The same seed gives the same results with 1 and 2 threads. */
static void test_match_threads_deterministic(void **state)
{
    (void)state;
    run_out *r1 = run("match", "carcassonne", "random", "random", "--games", "8", "--threads", "1",
                      "--seed", "5", "--json", NULL);
    run_out *r2 = run("match", "carcassonne", "random", "random", "--games", "8", "--threads", "2",
                      "--seed", "5", "--json", NULL);
    assert_int_equal(r1->code, 0);
    assert_int_equal(r2->code, 0);
    json_t *o1 = last_json(r1), *o2 = last_json(r2);
    static const char *const keys[] = {"wins",         "losses", "draws",  "mean_score", "pd",
                                       "scoring_rate", "points", "league", "decisions",
                                       "turns",        "ci90"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *b1 = json_array_get(json_object_get(o1, "bots"), i);
        const json_t *b2 = json_array_get(json_object_get(o2, "bots"), i);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            assert_true(json_equal(json_object_get(b1, keys[k]), json_object_get(b2, keys[k])));
    }
    json_decref(o1);
    json_decref(o2);
    free(r1);
    free(r2);
}

/* ---- tessera bots -------------------------------------------------------------- */

static void test_bots(void **state)
{
    (void)state;
    run_out *r = run("bots", NULL);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "random"));
    assert_non_null(strstr(r->out, "sims=0"));
    assert_non_null(strstr(r->out, "ms=0"));
    /* papers by their short names (docs/references.md), never by seed number */
    assert_null(strstr(r->out, "seed 00"));
    assert_non_null(strstr(r->out, "SIEA-MCTS paper"));
    assert_non_null(strstr(r->out, "Müller's thesis"));
    free(r);
    expect_usage(run("bots", "extra", NULL), "unexpected argument 'extra'");
    r = run("match", "--help", NULL);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "usage: tessera match"));
    free(r);
}

/* ---- tessera bench --bot --------------------------------------------------------- */

static void test_bench_bot(void **state)
{
    (void)state;
    run_out *r =
        run("bench", "carcassonne", "--bot", "random", "--positions", "30", "--json", NULL);
    if (r->code != 0)
        print_error("stderr: %s\n", r->err);
    assert_int_equal(r->code, 0);
    json_t *o = last_json(r);
    assert_string_equal(json_string_value(json_object_get(o, "bot")), "random");
    assert_int_equal(get_int(o, "positions"), 30);
    assert_true(get_num(o, "sims_per_sec") == 0); /* no simulations, still measured */
    assert_true(get_num(o, "ms_per_move") >= 0);
    const json_t *ph = json_object_get(o, "phases");
    assert_true(json_is_object(ph));
    json_int_t total = get_int(json_object_get(ph, "opening"), "positions") +
                       get_int(json_object_get(ph, "middle"), "positions") +
                       get_int(json_object_get(ph, "end"), "positions");
    assert_int_equal(total, 30);
    assert_true(json_is_null(json_object_get(o, "budget_overshoot_ms")));
    json_decref(o);
    free(r);

    /* with ms= in the spec, the overshoot is reported */
    r = run("bench", "carcassonne", "--players", "3", "--bot", "random:ms=1", "--positions", "3",
            "--json", NULL);
    assert_int_equal(r->code, 0);
    o = last_json(r);
    const json_t *over = json_object_get(o, "budget_overshoot_ms");
    assert_true(json_is_object(over));
    assert_int_equal(get_int(over, "budget_ms"), 1);
    get_num(over, "median");
    get_num(over, "p90");
    get_num(over, "p99");
    get_num(over, "max");
    assert_true(get_num(over, "median") <= get_num(over, "p90"));
    assert_true(get_num(over, "p90") <= get_num(over, "p99"));
    assert_true(get_num(over, "p99") <= get_num(over, "max"));
    json_decref(o);
    free(r);

    expect_usage(run("bench", "carcassonne", "--bot", "nosuchbot", NULL), "unknown bot");
    expect_usage(run("bench", "carcassonne", "--bot", "random", "--positions", "0", NULL),
                 "--positions needs an integer");
    expect_usage(run("bench", "carcassonne", "--positions", "5", NULL), "add --bot SPEC");
    expect_usage(run("bench", "--bot", "random", NULL), "which game?");
    /* the engine benchmark still works without --bot */
    r = run("bench", "reversi", "--games", "3", "--repeat", "1", NULL);
    assert_int_equal(r->code, 0);
    assert_non_null(strstr(r->out, "games per second"));
    free(r);
}

/* ---- programs: verdicts, the turn, stderr; records and logs (issue 30) --- */

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, OUT_MAX);
    size_t n = fread(buf, 1, OUT_MAX - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Item 2: a faulty program's games, each with its verdict, the turn and the
 * last lines of its stderr, in the terminal and in the JSON. Item 10: the
 * per-turn limit --move-ms, which a program is stopped at (the detail says
 * how long it was given: 300 ms, not the 10 s default). */
static void test_match_program_verdicts(void **state)
{
    (void)state;
    char spec[800], bundles[] = "/tmp/tessera-cli-bundles-XXXXXX";
    assert_non_null(mkdtemp(bundles));
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/bad/sleep.py", root);
    run_out *r = run("match", "reversi", spec, "random", "--games", "2", "--move-ms", "300",
                     "--bundles", bundles, "--json", NULL);
    if (r->code != 0)
        print_error("exit %d, stderr: %s\n", r->code, r->err);
    assert_int_equal(r->code, 0);
    /* the terminal: one line per game, who, the verdict, the turn */
    if (!strstr(r->out, "game 0: A (P1, seat 0) time_limit at turn 1: no move within") ||
        !strstr(r->out, "game 1: A (P2, seat 1) time_limit at turn 2: no move within"))
        print_error("stdout: %s\n", r->out);
    assert_non_null(strstr(r->out, "game 0: A (P1, seat 0) time_limit at turn 1: no move within"));
    assert_non_null(strstr(r->out, "game 1: A (P2, seat 1) time_limit at turn 2: no move within"));
    /* each fault names the bundle that plays it again (tessera doctor --replay) */
    char replay[200];
    snprintf(replay, sizeof replay, "    replay: tessera doctor --replay %s/game-000001-P2", bundles);
    if (!strstr(r->out, replay))
        print_error("no '%s' in stdout: %s\n", replay, r->out);
    assert_non_null(strstr(r->out, replay));
    json_t *o = last_json(r);
    const json_t *fg = json_object_get(o, "faulted_games");
    assert_true(json_is_array(fg));
    assert_int_equal(json_array_size(fg), 2);
    for (size_t i = 0; i < 2; i++) {
        const json_t *f = json_array_get(fg, i);
        assert_int_equal(get_int(f, "game"), (json_int_t)i);
        assert_string_equal(json_string_value(json_object_get(f, "bot")), "A");
        assert_string_equal(json_string_value(json_object_get(f, "verdict")), "time_limit");
        assert_int_equal(get_int(f, "seat"), (json_int_t)i);
        assert_int_equal(get_int(f, "turn"), (json_int_t)i + 1); /* Reversi: P1 moves first */
        /* "no move within N ms": N is what it was given, --move-ms */
        const char *d = json_string_value(json_object_get(f, "detail"));
        long ms = d && strncmp(d, "no move within ", 15) == 0 ? strtol(d + 15, NULL, 10) : -1;
        if (ms < 250 || ms > 2000)
            print_error("detail: %s\n", d ? d : "(none)");
        assert_true(ms >= 250 && ms <= 2000);
        const char *b = json_string_value(json_object_get(f, "bundle"));
        char want[64];
        snprintf(want, sizeof want, "game-%06d-P%d", (int)i, (int)i + 1);
        if (!b || !strstr(b, want) || access(b, R_OK) != 0)
            print_error("bundle of game %d: %s\n", (int)i, b ? b : "(none)");
        assert_true(b && strstr(b, want) && access(b, R_OK) == 0);
        unlink(b);
    }
    json_decref(o);
    free(r);

    /* a crash: its traceback's last lines, in both */
    char dir[] = "/tmp/tessera-cli-crash-XXXXXX", bot[700];
    assert_non_null(mkdtemp(dir));
    chmod(dir, 0755); /* the sandbox runs programs as nobody when the tests run as root */
    snprintf(bot, sizeof bot, "%s/crash.py", dir);
    FILE *f = fopen(bot, "w");
    assert_non_null(f);
    fputs("import json, sys\n"
          "for line in sys.stdin:\n"
          "    if json.loads(line)['type'] == 'your_turn':\n"
          "        print('thinking hard', file=sys.stderr, flush=True)\n"
          "        raise RuntimeError('my bug, on purpose')\n",
          f);
    fclose(f);
    snprintf(spec, sizeof spec, "cmd:python3 %s", bot);
    r = run("match", "reversi", "random", spec, "--games", "2", "--no-bundles", "--json", NULL);
    assert_int_equal(r->code, 0);
    if (!strstr(r->out, "crashed at turn") || !strstr(r->out, "| RuntimeError: my bug, on purpose"))
        print_error("stdout: %s\n", r->out);
    assert_non_null(strstr(r->out, "game 0: B (P2, seat 1) crashed at turn 2:"));
    assert_non_null(strstr(r->out, "| RuntimeError: my bug, on purpose"));
    o = last_json(r);
    fg = json_object_get(o, "faulted_games");
    assert_int_equal(json_array_size(fg), 2);
    const char *tail = json_string_value(json_object_get(json_array_get(fg, 0), "stderr_tail"));
    assert_non_null(tail);
    assert_non_null(strstr(tail, "thinking hard"));
    assert_non_null(strstr(tail, "RuntimeError: my bug, on purpose"));
    assert_null(strstr(r->out, "replay: tessera doctor")); /* --no-bundles: none kept */
    assert_null(json_object_get(json_array_get(fg, 0), "bundle"));
    json_decref(o);
    free(r);
    unlink(bot);
    rmdir(dir);
    rmdir(bundles);
}

/* Item 3: with --out, every game's record, and for each seat a program held
 * a log beside it: each turn's verdict and `debug`, its stderr, named in the
 * output. */
static void test_match_records_and_logs(void **state)
{
    (void)state;
    char dir[] = "/tmp/tessera-cli-out-XXXXXX", spec[800], path[900];
    assert_non_null(mkdtemp(dir));
    snprintf(spec, sizeof spec, "cmd:python3 %s/docs/examples/stdio_bot.py", root);
    run_out *r = run("match", "reversi", spec, "random", "--games", "2", "--out", dir, "--json",
                     NULL);
    if (r->code != 0)
        print_error("exit %d, stderr: %s\n", r->code, r->err);
    assert_int_equal(r->code, 0);
    snprintf(path, sizeof path, "%s/records/game-NNNNNN.PS.log", dir);
    if (!strstr(r->out, path))
        print_error("stdout does not name the logs (%s): %s\n", path, r->out);
    assert_non_null(strstr(r->out, path));
    /* game 0: the program is P1 (seat 0); game 1: P2 (seat 1) */
    for (int g = 0; g < 2; g++) {
        snprintf(path, sizeof path, "%s/records/game-%06d.json", dir, g);
        run_out *rr = run("replay", path, NULL);
        assert_int_equal(rr->code, 0);
        free(rr);
        snprintf(path, sizeof path, "%s/records/game-%06d.P%d.log", dir, g, g + 1);
        char *log = slurp_file(path);
        if (!log)
            print_error("no log %s\n", path);
        assert_non_null(log);
        char want[1200];
        snprintf(want, sizeof want, "# tessera game log 1: game %d, P%d (seat %d), record game-%06d.json, %s\n",
                 g, g + 1, g, g, spec);
        assert_true(strncmp(log, want, strlen(want)) == 0);
        snprintf(want, sizeof want, "\nturn %d: ok (cpu ", g + 1); /* its first turn */
        assert_non_null(strstr(log, want));
        assert_non_null(strstr(log, "\ndebug: ")); /* the example sends "N legal moves" */
        assert_non_null(strstr(log, " legal moves\n"));
        snprintf(want, sizeof want, "\nstderr: seat %d of a reversi game\n", g);
        if (!strstr(log, want))
            print_error("%s:\n%s\n", path, log);
        assert_non_null(strstr(log, want));
        assert_non_null(strstr(log, "\ngame over\n"));
        free(log);
        unlink(path);
        snprintf(path, sizeof path, "%s/records/game-%06d.json", dir, g);
        unlink(path);
        /* no log for the in-process bot's seat */
        snprintf(path, sizeof path, "%s/records/game-%06d.P%d.log", dir, g, 2 - g);
        assert_int_not_equal(access(path, F_OK), 0);
    }
    free(r);
    snprintf(path, sizeof path, "%s/records", dir);
    assert_int_equal(rmdir(path), 0); /* nothing else was written */
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PATH-TO-TESSERA SOURCE-ROOT\n", argv[0]);
        return 2;
    }
    tessera = argv[1];
    root = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_bad_arguments),
        cmocka_unit_test(test_match_json),
        cmocka_unit_test(test_match_rounding_and_seats),
        cmocka_unit_test(test_match_sims_per_turn),
        cmocka_unit_test(test_match_interval_at_the_edges),
        cmocka_unit_test(test_match_threads_deterministic),
        cmocka_unit_test(test_bots),
        cmocka_unit_test(test_bench_bot),
        cmocka_unit_test(test_match_program_verdicts),
        cmocka_unit_test(test_match_records_and_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
