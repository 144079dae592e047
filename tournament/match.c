/*
 * match.c — `tessera match` over the tournament: a round-robin of the k
 * bots at one k-seat table, played by the runner, and the match statistics
 * (scoring rate, 90% Wilson interval, league points; see match.h for the
 * contract, docs/match.md and docs/league.md for the user's view).
 *
 * The runner reports each game as it finishes (in any order); its outcome
 * is stored at its index in arrays owned by the run, so the order in which
 * games finish never reaches the summary.
 */
#include "tournament/match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tournament/rating.h"

/* ---- statistics ------------------------------------------------------------ */

double match_scoring_rate(int64_t wins, int64_t draws, int64_t n)
{
    if (n <= 0)
        return 0.0;
    return ((double)wins + 0.5 * (double)draws) / (double)n;
}

void match_wilson90(double w, int64_t n, double *low, double *high)
{
    tour_wilson(w, (double)n, MATCH_Z90, low, high);
}

int64_t match_round_games(int64_t games, int seats)
{
    if (seats <= 0 || games <= 0)
        return 0;
    return (games + seats - 1) / seats * seats;
}

int match_summarise(int seats, int64_t games, const double *scores, match_result *out)
{
    return match_summarise_ranked(seats, games, scores, NULL, out);
}

int match_summarise_ranked(int seats, int64_t games, const double *scores, const int *ranks,
                           match_result *out)
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
     * rotation r where bot i finished ahead of bot j; tie[r][i][j] likewise */
    int64_t h2h[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    int64_t tie[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    double diff[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
    memset(h2h, 0, sizeof h2h);
    memset(tie, 0, sizeof tie);
    memset(diff, 0, sizeof diff);

    for (int64_t n = 0; n < games; n++) {
        const double *s = scores + n * k;
        /* a place per bot: the given ranks, or 1 + the bots with more points */
        int place[ENG_MAX_PLAYERS];
        for (int i = 0; i < k; i++) {
            if (ranks) {
                place[i] = ranks[n * k + i];
            } else {
                place[i] = 1;
                for (int j = 0; j < k; j++)
                    place[i] += s[j] > s[i];
            }
        }
        int r = (int)(n % k), nbest = 0;
        for (int i = 0; i < k; i++)
            nbest += place[i] == 1;
        for (int i = 0; i < k; i++) {
            sum[i] += s[i];
            seat_sum[(i + r) % k] += s[i];
            if (place[i] == 1) {
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
                if (place[i] < place[j])
                    h2h[r][i][j]++;
                else if (place[i] == place[j])
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
                    tour_league_add(&out->bot[i].league, &out->bot[j].league, h2h[r][i][j],
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
            return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d players, got %d bots",
                              g->name, g->min_players, cfg->nbots);
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
    player_config pc;
    player_config_default(&pc);
    for (int i = 0; i < cfg->nbots; i++) {
        if (!cfg->specs[i])
            return eng_seterr(err, errcap, ENG_EBAD_BOT_SPEC, "bot %d has no spec", i + 1);
        rc = tour_run_check_spec(cfg->specs[i], g, &pc, err, errcap);
        if (rc)
            return rc;
    }
    if (cfg->games < 1 || cfg->games > MATCH_MAX_GAMES)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "the number of games must be from 1 to %d, got %lld", MATCH_MAX_GAMES,
                          (long long)cfg->games);
    if (cfg->threads < 0 || cfg->threads > MATCH_MAX_THREADS)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "the number of threads must be from 0 to %d, got %d", MATCH_MAX_THREADS,
                          cfg->threads);
    if (cfg->move_ms < 0)
        return eng_seterr(err, errcap, ENG_EINVAL, "the time per turn cannot be negative");
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

typedef struct run {
    const match_config *cfg;
    int k;
    int64_t total;  /* games to play */
    double *scores; /* [total * k]: final score of bot i in game n at n * k + i */
    int *ranks;     /* [total * k]: its place */
    int64_t done;   /* games finished */
    int64_t faults; /* games ended by a fault */
    int64_t decisions[ENG_MAX_PLAYERS];
    int64_t turns[ENG_MAX_PLAYERS];
    int64_t sims[ENG_MAX_PLAYERS];
    double ms[ENG_MAX_PLAYERS];
} run;

/* A game ended (on a worker thread, under the runner's lock). Bot i is
 * participant i; its seat in the game is wherever the table put it. */
static void on_end(const tour_run_game *info, void *user)
{
    run *R = user;
    const match_config *cfg = R->cfg;
    const tour_game *gm = info->game;
    const tour_result *res = info->result;
    int k = R->k;
    match_game mg;
    memset(&mg, 0, sizeof mg);
    mg.index = gm->id;
    mg.group = gm->group;
    mg.rotation = gm->rotation;
    mg.seats = k;
    /* places: the result's, or by score */
    for (int s = 0; s < k; s++) {
        int i = gm->table[s];
        int place = res->rank[s];
        if (place == 0) {
            place = 1;
            for (int o = 0; o < k; o++)
                place += res->score[o] > res->score[s];
        }
        mg.seat_of[i] = s;
        mg.score[i] = res->score[s];
        mg.decisions[i] = info->decisions[s];
        mg.turns[i] = info->turns[s];
        mg.sims[i] = info->sims[s];
        mg.ms[i] = info->think_ms[s];
        mg.bundle[i] = info->bundle[s];
        if (gm->id >= 0 && gm->id < R->total) {
            R->scores[gm->id * k + i] = res->score[s];
            R->ranks[gm->id * k + i] = place;
        }
        R->decisions[i] += info->decisions[s];
        R->turns[i] += info->turns[s];
        R->sims[i] += info->sims[s];
        R->ms[i] += info->think_ms[s];
    }
    mg.moves = info->moves;
    mg.nmoves = info->nmoves;
    mg.fault_bot = res->culprit >= 0 ? gm->table[res->culprit] : -1;
    mg.end = tour_end_name(res->end);
    mg.record = res->record;
    R->faults += res->end != TOUR_END_NORMAL;
    R->done++;
    if (cfg->on_game)
        cfg->on_game(&mg, cfg->on_game_user);
    if (cfg->progress)
        cfg->progress(R->done, R->total, cfg->progress_user);
}

/* A turn of a bot (on its game's worker, not under the lock). */
static void on_turn(const tour_run_turn *t, void *user)
{
    run *R = user;
    const match_config *cfg = R->cfg;
    match_turn mt = {t->game->id, t->game->table[t->seat], t->seat, t->turn, t->program,
                     t->result};
    cfg->on_turn(&mt, cfg->on_turn_user);
}

int match_run(const match_config *cfg, match_result *out, char *err, size_t errcap)
{
    int rc = match_check(cfg, err, errcap);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    int k = cfg->nbots;
    tour_participant parts[ENG_MAX_PLAYERS];
    char names[ENG_MAX_PLAYERS][2];
    for (int i = 0; i < k; i++) {
        names[i][0] = (char)('A' + i);
        names[i][1] = 0;
        parts[i].name = names[i];
        parts[i].spec = cfg->specs[i];
    }
    tour_spec spec;
    tour_spec_init(&spec);
    spec.format = TOUR_ROUND_ROBIN;
    spec.game = cfg->game;
    spec.rules = cfg->rules;
    spec.participants = parts;
    spec.nparticipants = k;
    spec.cycles = 1;
    spec.games_per_pair = cfg->games;
    spec.seed = cfg->seed;
    tour *t = NULL;
    if ((rc = tour_create(&spec, &t, err, errcap)))
        return rc;

    run R;
    memset(&R, 0, sizeof R);
    R.cfg = cfg;
    R.k = k;
    R.total = tour_game_count(t);
    /* one table, bot i in seat (i + r) mod k in game r of every group:
     * what match_summarise reads from the game index */
    for (int64_t id = 0; id < R.total && id < k; id++) {
        tour_game gm;
        tour_get_game(t, id, &gm);
        for (int s = 0; s < k; s++)
            if (gm.table[s] != (s - gm.rotation + k) % k) {
                tour_destroy(t);
                return eng_seterr(err, errcap, ENG_EINTERNAL,
                                  "the match's schedule does not rotate the seats as expected");
            }
    }
    R.scores = calloc((size_t)R.total * (size_t)k, sizeof *R.scores);
    R.ranks = calloc((size_t)R.total * (size_t)k, sizeof *R.ranks);
    if (!R.scores || !R.ranks) {
        rc =
            eng_seterr(err, errcap, ENG_ENOMEM, "out of memory for %lld games", (long long)R.total);
        goto out;
    }

    tour_run_config rc_cfg;
    tour_run_config_default(&rc_cfg);
    int threads = cfg->threads > 0 ? cfg->threads : online_cpus();
    rc_cfg.concurrency = threads > R.total ? (int)R.total : threads;
    rc_cfg.move_ms = cfg->move_ms;
    rc_cfg.policy = TOUR_FAULT_FORFEIT;
    rc_cfg.on_end = on_end;
    rc_cfg.on_turn = cfg->on_turn ? on_turn : NULL;
    rc_cfg.records = cfg->records;
    rc_cfg.user = &R;
    rc_cfg.bundles = cfg->bundles;
    rc_cfg.source = "tessera match";
    tour_run_stats st;
    if (cfg->progress)
        cfg->progress(0, R.total, cfg->progress_user);
    rc = tour_run(t, &rc_cfg, &st, err, errcap);
    out->seconds = st.seconds;
    out->threads = st.threads;
    if (rc)
        goto out;
    if (R.done != R.total) {
        rc = eng_seterr(err, errcap, ENG_EINTERNAL, "%lld of %lld games were played",
                        (long long)R.done, (long long)R.total);
        goto out;
    }

    match_summarise_ranked(k, R.total, R.scores, R.ranks, out);
    out->games_requested = cfg->games;
    out->faults = R.faults;
    for (int i = 0; i < k; i++) {
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
    free(R.scores);
    free(R.ranks);
    tour_destroy(t);
    return rc;
}
