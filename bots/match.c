/*
 * match.c — the match runner behind `tessera match`: rotation groups with
 * shared chance outcomes, worker threads, and the statistics (scoring rate,
 * Wilson interval, league points; see match.h for the contract,
 * docs/match.md and docs/league.md for the user's view).
 *
 * Work sharing: workers take game indices from one atomic counter and write
 * each game's outcome into slot `index` of arrays owned by the run, so the
 * order in which games finish never reaches the summary. The thread that
 * called match_run() only waits on a condition variable and reports
 * progress.
 */
#include "match.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Stream tags: the chance generators and the bot seeds of one match seed
 * come from disjoint families of streams. */
#define TAG_CHANCE 0x6368616e63650000ULL /* "chance" */
#define TAG_BOT    0x626f747365656400ULL /* "botseed" */

/* ---- statistics ------------------------------------------------------------ */

double match_scoring_rate(int64_t wins, int64_t draws, int64_t n)
{
    if (n <= 0)
        return 0.0;
    return ((double)wins + 0.5 * (double)draws) / (double)n;
}

void match_wilson90(double w, int64_t n, double *low, double *high)
{
    if (n <= 0) {
        *low = 0.0;
        *high = 1.0;
        return;
    }
    double z2 = MATCH_Z90 * MATCH_Z90, nn = (double)n;
    double v = w * (1.0 - w);
    if (v < 0) /* w outside [0,1] by rounding only */
        v = 0;
    double denom = 1.0 + z2 / nn;
    double centre = (w + z2 / (2.0 * nn)) / denom;
    double half = MATCH_Z90 / denom * sqrt(v / nn + z2 / (4.0 * nn * nn));
    *low = fmax(0.0, centre - half);
    *high = fmin(1.0, centre + half);
}

static void league_result(match_league *winner, match_league *loser, int64_t w, int64_t decisive)
{
    winner->won++;
    winner->points += 4;
    loser->lost++;
    if (4 * w >= 3 * decisive) { /* w / decisive >= 75% */
        winner->bwp++;
        winner->points++;
    } else if (20 * w <= 11 * decisive) { /* w / decisive <= 55% */
        loser->blp++;
        loser->points++;
    }
}

void match_league_add(match_league *a, match_league *b, int64_t a_wins, int64_t b_wins,
                      int64_t draws, double a_mean_diff)
{
    (void)draws; /* drawn games count for neither side and are not decisive */
    int64_t decisive = a_wins + b_wins;
    a->matches++;
    b->matches++;
    a->pd += a_mean_diff;
    b->pd -= a_mean_diff;
    if (a_wins > b_wins)
        league_result(a, b, a_wins, decisive);
    else if (b_wins > a_wins)
        league_result(b, a, b_wins, decisive);
    else {
        a->drawn++;
        b->drawn++;
        a->points += 2;
        b->points += 2;
    }
}

int64_t match_round_games(int64_t games, int seats)
{
    if (seats <= 0 || games <= 0)
        return 0;
    return (games + seats - 1) / seats * seats;
}

int match_summarise(int seats, int64_t games, const double *scores, match_result *out)
{
    if (seats < 1 || seats > ENG_MAX_PLAYERS || games < 0 || games % seats || (games && !scores))
        return ENG_EINVAL;
    int k = seats;
    out->games = games;
    out->groups = games / k;
    out->seats = k;

    int64_t wins[ENG_MAX_PLAYERS] = {0}, draws[ENG_MAX_PLAYERS] = {0};
    double sum[ENG_MAX_PLAYERS] = {0}, pd[ENG_MAX_PLAYERS] = {0}, seat_sum[ENG_MAX_PLAYERS] = {0};
    int64_t seat_wins[ENG_MAX_PLAYERS] = {0};
    /* head to head, per rotation and ordered pair: h2h[r][i][j] = games of
     * rotation r where bot i scored more than bot j; tie[r][i][j] likewise */
    int64_t h2h[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    int64_t tie[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    double diff[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    memset(h2h, 0, sizeof h2h);
    memset(tie, 0, sizeof tie);
    memset(diff, 0, sizeof diff);

    for (int64_t n = 0; n < games; n++) {
        const double *s = scores + n * k;
        int r = (int)(n % k);
        double best = -INFINITY;
        int nbest = 0;
        for (int i = 0; i < k; i++) {
            if (s[i] > best) {
                best = s[i];
                nbest = 1;
            } else if (s[i] == best) {
                nbest++;
            }
        }
        for (int i = 0; i < k; i++) {
            sum[i] += s[i];
            seat_sum[(i + r) % k] += s[i];
            if (s[i] == best) {
                if (nbest == 1) {
                    wins[i]++;
                    seat_wins[(i + r) % k]++;
                } else {
                    draws[i]++;
                }
            }
            double other = -INFINITY;
            for (int j = 0; j < k; j++)
                if (j != i && s[j] > other)
                    other = s[j];
            if (k > 1)
                pd[i] += s[i] - other;
            for (int j = 0; j < k; j++) {
                if (j == i)
                    continue;
                if (s[i] > s[j])
                    h2h[r][i][j]++;
                else if (s[i] == s[j])
                    tie[r][i][j]++;
                diff[r][i][j] += s[i] - s[j];
            }
        }
    }

    for (int i = 0; i < k; i++) {
        match_bot_result *b = &out->bot[i];
        memset(&b->league, 0, sizeof b->league);
        b->games = games;
        b->wins = wins[i];
        b->draws = draws[i];
        b->losses = games - wins[i] - draws[i];
        b->mean_score = games ? sum[i] / (double)games : 0.0;
        b->pd = games ? pd[i] / (double)games : 0.0;
        b->scoring_rate = match_scoring_rate(wins[i], draws[i], games);
        match_wilson90(b->scoring_rate, games, &b->ci90_low, &b->ci90_high);
        out->seat_mean_score[i] = games ? seat_sum[i] / (double)games : 0.0;
        out->seat_wins[i] = seat_wins[i];
    }
    for (int i = k; i < ENG_MAX_PLAYERS; i++) {
        out->seat_mean_score[i] = 0;
        out->seat_wins[i] = 0;
    }
    /* one league match per rotation per pair; every rotation holds `groups` games */
    if (out->groups > 0)
        for (int r = 0; r < k; r++)
            for (int i = 0; i < k; i++)
                for (int j = i + 1; j < k; j++)
                    match_league_add(&out->bot[i].league, &out->bot[j].league, h2h[r][i][j],
                                     h2h[r][j][i], tie[r][i][j],
                                     diff[r][i][j] / (double)out->groups);
    return 0;
}

/* ---- configuration --------------------------------------------------------- */

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MATCH_MAX_THREADS ? MATCH_MAX_THREADS : (int)n;
}

int match_check(const match_config *cfg, char *err, size_t errcap)
{
    if (!cfg || !cfg->game)
        return eng_seterr(err, errcap, ENG_EINVAL, "no game");
    const eng_game *g = cfg->game;
    if (cfg->nbots < 2)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "a match needs at least 2 bots, got %d",
                    cfg->nbots);
    if (cfg->nbots < g->min_players || cfg->nbots > g->max_players) {
        if (g->min_players == g->max_players)
            return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d players, got %d bots", g->name,
                        g->min_players, cfg->nbots);
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players, got %d bots",
                    g->name, g->min_players, g->max_players, cfg->nbots);
    }
    if (cfg->rules.players != cfg->nbots)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS,
                    "the rules say %d players but there are %d bots (one bot per seat)",
                    (int)cfg->rules.players, cfg->nbots);
    int rc = eng_rules_check(g, &cfg->rules, err, errcap);
    if (rc)
        return rc;
    for (int i = 0; i < cfg->nbots; i++) {
        if (!cfg->specs[i])
            return eng_seterr(err, errcap, ENG_EBAD_BOT_SPEC, "bot %d has no spec", i + 1);
        rc = bot_check_spec(cfg->specs[i], g, err, errcap);
        if (rc)
            return rc;
    }
    if (cfg->games < 1 || cfg->games > MATCH_MAX_GAMES)
        return eng_seterr(err, errcap, ENG_EINVAL, "the number of games must be from 1 to %d, got %lld",
                    MATCH_MAX_GAMES, (long long)cfg->games);
    if (cfg->threads < 0 || cfg->threads > MATCH_MAX_THREADS)
        return eng_seterr(err, errcap, ENG_EINVAL, "the number of threads must be from 0 to %d, got %d",
                    MATCH_MAX_THREADS, cfg->threads);
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

typedef struct run {
    const match_config *cfg;
    int k;              /* seats */
    int64_t total;      /* games to play */
    atomic_llong next;  /* next game index to hand out */
    atomic_bool failed; /* a worker failed: everyone stops */
    double *scores;     /* [total * k]: final score of bot i in game n at n * k + i */

    pthread_mutex_t lock;               /* guards everything below, and on_game calls */
    pthread_cond_t cond;                /* signalled when done changes or a worker fails */
    int64_t done;                       /* games finished */
    int64_t decisions[ENG_MAX_PLAYERS]; /* per bot, summed over finished games */
    int64_t turns[ENG_MAX_PLAYERS];     /* likewise */
    int64_t sims[ENG_MAX_PLAYERS];      /* (sums of integers: the same in any order) */
    double ms[ENG_MAX_PLAYERS];         /* timing: not deterministic anyway */
    int rc;                             /* first failure */
    char err[256];                      /* its reason */
} run;

static void run_fail(run *R, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void run_fail(run *R, int rc, const char *fmt, ...)
{
    pthread_mutex_lock(&R->lock);
    if (R->rc == 0) {
        R->rc = rc;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(R->err, sizeof R->err, fmt, ap);
        va_end(ap);
    }
    atomic_store(&R->failed, true);
    pthread_cond_broadcast(&R->cond);
    pthread_mutex_unlock(&R->lock);
}

/* The seed of the bot in `seat` of game `index`. */
static uint64_t bot_seed(uint64_t seed, int64_t index, int seat)
{
    eng_rng r;
    eng_rng_seed_stream(&r, seed ^ TAG_BOT, (uint64_t)index * ENG_MAX_PLAYERS + (uint64_t)seat);
    return eng_rng_next(&r);
}

/* Play game `index` with the worker's buffers; 0 or a failure (reported). */
static int play_game(run *R, int64_t index, void *st, eng_move *moves)
{
    const match_config *cfg = R->cfg;
    const eng_game *g = cfg->game;
    int k = R->k;
    match_game mg;
    memset(&mg, 0, sizeof mg);
    mg.index = index;
    mg.group = index / k;
    mg.rotation = (int)(index % k);
    mg.seats = k;

    bot *bots[ENG_MAX_PLAYERS] = {NULL};
    int bot_at[ENG_MAX_PLAYERS]; /* bot index sitting in seat s */
    int rc = 0;
    for (int i = 0; i < k; i++) {
        int seat = (i + mg.rotation) % k;
        mg.seat_of[i] = seat;
        bot_at[seat] = i;
        char err[256];
        bots[i] = bot_create(cfg->specs[i], g, bot_seed(cfg->seed, index, seat), err, sizeof err);
        if (!bots[i]) {
            run_fail(R, ENG_EBAD_BOT_SPEC, "bot %d (%s): %s", i + 1, cfg->specs[i], err);
            rc = -1;
            goto out;
        }
    }

    eng_rng chance;
    eng_rng_seed_stream(&chance, cfg->seed ^ TAG_CHANCE, (uint64_t)mg.group);
    g->init(st, &cfg->rules);
    int n = 0;
    int last_seat = -1; /* seat of the last decision: a new seat starts a turn */
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL;) {
        if (n >= g->max_plies) {
            run_fail(R, ENG_EINTERNAL, "game %lld did not end within %d plies", (long long)index,
                     g->max_plies);
            rc = -1;
            goto out;
        }
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_sample_chance(g, st, &chance);
        } else {
            int i = bot_at[p];
            bot_stats stats;
            m = bot_choose(bots[i], st, NULL, &stats);
            mg.decisions[i]++;
            if (p != last_seat)
                mg.turns[i]++;
            last_seat = p;
            mg.sims[i] += stats.sims;
            mg.ms[i] += stats.ms;
            /* a bot is code under test: never let a bad move corrupt the state */
            if (!eng_is_legal(g, st, m)) {
                run_fail(R, ENG_EILLEGAL_MOVE, "bot %d (%s) chose the illegal move %d in game %lld",
                         i + 1, cfg->specs[i], (int)m, (long long)index);
                rc = -1;
                goto out;
            }
        }
        for (int i = 0; i < k; i++)
            bot_observe(bots[i], st, m);
        g->apply(st, m);
        moves[n++] = m;
    }

    double sc[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    for (int i = 0; i < k; i++) {
        mg.score[i] = sc[mg.seat_of[i]];
        R->scores[(size_t)index * (size_t)k + (size_t)i] = mg.score[i];
    }
    mg.moves = moves;
    mg.nmoves = n;

    pthread_mutex_lock(&R->lock);
    if (cfg->on_game)
        cfg->on_game(&mg, cfg->on_game_user);
    for (int i = 0; i < k; i++) {
        R->decisions[i] += mg.decisions[i];
        R->turns[i] += mg.turns[i];
        R->sims[i] += mg.sims[i];
        R->ms[i] += mg.ms[i];
    }
    R->done++;
    pthread_cond_broadcast(&R->cond);
    pthread_mutex_unlock(&R->lock);
out:
    for (int i = 0; i < k; i++)
        bot_destroy(bots[i]);
    return rc;
}

static void *worker(void *arg)
{
    run *R = arg;
    const eng_game *g = R->cfg->game;
    void *st = malloc(g->state_size);
    eng_move *moves = malloc((size_t)g->max_plies * sizeof *moves);
    if (!st || !moves) {
        run_fail(R, ENG_ENOMEM, "out of memory");
    } else {
        while (!atomic_load(&R->failed)) {
            long long index = atomic_fetch_add(&R->next, 1);
            if (index >= R->total)
                break;
            if (play_game(R, index, st, moves))
                break;
        }
    }
    free(st);
    free(moves);
    return NULL;
}

int match_run(const match_config *cfg, match_result *out, char *err, size_t errcap)
{
    int rc = match_check(cfg, err, errcap);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    run R;
    memset(&R, 0, sizeof R);
    R.cfg = cfg;
    R.k = cfg->nbots;
    R.total = match_round_games(cfg->games, R.k);
    atomic_init(&R.next, 0);
    atomic_init(&R.failed, false);
    size_t slots = (size_t)R.total * (size_t)R.k;
    R.scores = malloc(slots * sizeof *R.scores);
    pthread_t *tid = NULL;
    int nthreads = cfg->threads > 0 ? cfg->threads : online_cpus();
    if (nthreads > R.total)
        nthreads = (int)R.total;
    if (!R.scores || !(tid = malloc((size_t)nthreads * sizeof *tid))) {
        rc = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory for %lld games", (long long)R.total);
        goto out;
    }
    pthread_mutex_init(&R.lock, NULL);
    pthread_cond_init(&R.cond, NULL);

    double t0 = bot_now_ms();
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, &R) != 0)
            break;
    if (started == 0) {
        rc = eng_seterr(err, errcap, ENG_EINTERNAL, "cannot start a worker thread");
    } else {
        int64_t reported = -1;
        pthread_mutex_lock(&R.lock);
        for (;;) {
            int64_t done = R.done;
            bool stop = done >= R.total || R.rc != 0;
            if (done != reported && cfg->progress) {
                reported = done;
                pthread_mutex_unlock(&R.lock);
                cfg->progress(done, R.total, cfg->progress_user);
                pthread_mutex_lock(&R.lock);
                continue; /* re-read: more may have finished meanwhile */
            }
            if (stop)
                break;
            pthread_cond_wait(&R.cond, &R.lock);
        }
        pthread_mutex_unlock(&R.lock);
        for (int i = 0; i < started; i++)
            pthread_join(tid[i], NULL);
        if (R.rc)
            rc = eng_seterr(err, errcap, R.rc, "%s", R.err);
    }
    out->seconds = (bot_now_ms() - t0) / 1e3;
    out->threads = started;
    pthread_cond_destroy(&R.cond);
    pthread_mutex_destroy(&R.lock);
    if (rc)
        goto out;

    match_summarise(R.k, R.total, R.scores, out);
    out->games_requested = cfg->games;
    for (int i = 0; i < R.k; i++) {
        match_bot_result *b = &out->bot[i];
        b->spec = cfg->specs[i];
        b->decisions = R.decisions[i];
        b->turns = R.turns[i];
        b->sims = R.sims[i];
        b->ms = R.ms[i];
        b->ms_per_decision = b->decisions ? b->ms / (double)b->decisions : 0.0;
        b->ms_per_turn = b->turns ? b->ms / (double)b->turns : 0.0;
        b->sims_per_decision = b->decisions ? (double)b->sims / (double)b->decisions : 0.0;
        b->sims_per_turn = b->turns ? (double)b->sims / (double)b->turns : 0.0;
    }
out:
    free(tid);
    free(R.scores);
    return rc;
}
