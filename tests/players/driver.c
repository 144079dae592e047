/*
 * driver.c — see driver.h.
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double drv_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void drv_init(drv_game *d, const eng_game *g, int players, uint64_t seed, int64_t move_ms)
{
    memset(d, 0, sizeof *d);
    d->g = g;
    eng_rules_default(g, &d->rules);
    d->rules.players = players;
    d->seed = seed;
    d->move_ms = move_ms;
    d->fault = calloc(DRV_MAX_FAULTS, sizeof *d->fault);
    d->moves = malloc((size_t)g->max_plies * sizeof *d->moves);
    d->st = malloc(g->state_size);
}

void drv_free(drv_game *d)
{
    free(d->fault);
    free(d->moves);
    free(d->st);
}

static void keep_stderr(drv_game *d, int seat, const player_result *r)
{
    size_t have = strlen(d->stderr_all[seat]);
    snprintf(d->stderr_all[seat] + have, sizeof d->stderr_all[seat] - have, "%s", r->stderr_tail);
}

static void apply(drv_game *d, eng_move m, const char *reason)
{
    int n = d->rules.players;
    for (int i = 0; i < n; i++)
        player_observe(d->p[i], d->st, m, reason);
    d->g->apply(d->st, m);
    d->moves[d->nmoves++] = m;
}

int drv_play(drv_game *d)
{
    const eng_game *g = d->g;
    int n = d->rules.players;
    g->init(d->st, &d->rules);
    for (int i = 0; i < n; i++)
        if (player_new_game(d->p[i], d->st, i, "g1") != 0)
            return -1;
    eng_rng chance, rnd;
    eng_rng_seed(&chance, d->seed);
    eng_rng_seed(&rnd, d->seed ^ 0x5eed);
    player_result *r = malloc(sizeof *r);
    const char *end_reason = "normal";
    int faulty = -1;
    char detail[PLAYER_DETAIL_MAX] = "";
    int played = 0;
    for (int p; (p = g->current_player(d->st)) != ENG_TERMINAL;) {
        if (p == ENG_CHANCE) {
            apply(d, eng_sample_chance(g, d->st, &chance), NULL);
            continue;
        }
        if (d->max_turns && played >= d->max_turns)
            break;
        played++;
        player_turn(d->p[p], d->st, drv_now_ms() + (double)d->move_ms, NULL, r);
        keep_stderr(d, p, r);
        d->cpu_ms[p] += r->cpu_ms;
        if (r->verdict == PLAYER_OK) {
            d->turns[p]++;
            for (int i = 0; i < r->nmoves; i++)
                apply(d, r->moves[i], NULL);
            continue;
        }
        if (d->nfaults < DRV_MAX_FAULTS) {
            d->fault_seat[d->nfaults] = p;
            d->fault[d->nfaults] = *r;
        }
        d->nfaults++;
        if (!d->random_on_fault) {
            end_reason = player_verdict_name(r->verdict);
            faulty = p;
            snprintf(detail, sizeof detail, "%s", r->detail);
            break;
        }
        const char *why = r->verdict == PLAYER_TIME_LIMIT ? "timeout" : "illegal";
        eng_move turn[ENG_MAX_TURN_MOVES];
        unsigned char *tmp = malloc(g->state_size);
        memcpy(tmp, d->st, g->state_size);
        int nturn = eng_random_turn(g, tmp, &rnd, turn);
        free(tmp);
        for (int k = 0; k < nturn; k++)
            apply(d, turn[k], why);
    }
    d->finished = g->current_player(d->st) == ENG_TERMINAL;
    g->scores(d->st, d->scores);
    for (int i = 0; i < n; i++) {
        player_game_over(d->p[i], d->st, end_reason, faulty, detail[0] ? detail : NULL, r);
        keep_stderr(d, i, r);
    }
    free(r);
    return d->nfaults;
}
