/*
 * gatecheck.c — a course's gate opponents checked before the course takes
 * them (internal.h; issue 25): a gate whose opponent does not start or
 * faults would judge every student against a broken reference. Each
 * instructor's program among the opponents (a cmd: spec; in-process bots
 * are checked by class_gates_parse) is started and played as `tessera
 * doctor` would — its first move, with the first move's larger allowance,
 * then a whole game — in the course's game at the course's time per move,
 * on the host's thread pool (a game takes seconds). One that fails is
 * refused with what doctor saw: the check, the verdict and its stderr.
 *
 * Ownership: the check owns its copy of the gates; the caller's arg is
 * handed back to then() untouched, on the loop.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "doctor/doctor.h"
#include "engine/errors.h"

typedef struct gcheck {
    class_service *svc;
    const eng_game *g;
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    int64_t move_ms;
    uint64_t seed;
    class_checked_fn then;
    void *arg;
    int rc;
    char why[2 * CLASS_VERDICT_MAX];
    /* the first failed check, while doctor runs */
    bool failed;
    char fail[CLASS_VERDICT_MAX];
} gcheck;

bool class__gate_is_program(const class_gate *gate)
{
    return strncmp(gate->opponent, "cmd:", 4) == 0 ||
           strncmp(gate->opponent, "cmd-stateless:", 14) == 0;
}

static void on_check(const doctor_check *c, void *ud)
{
    gcheck *k = ud;
    if (c->status != DOCTOR_FAIL || k->failed)
        return;
    k->failed = true;
    snprintf(k->fail, sizeof k->fail, "%s failed: %.200s%s%.120s", c->name, c->detail,
             c->stderr_tail[0] ? "; stderr: " : "", c->stderr_tail);
}

static void check_work(void *arg)
{
    gcheck *k = arg;
    for (int i = 0; i < k->ngates && k->rc == 0; i++) {
        const class_gate *gate = &k->gates[i];
        if (!class__gate_is_program(gate))
            continue;
        bool seen = false; /* the same program in an earlier gate: checked already */
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(k->gates[j].opponent, gate->opponent) == 0;
        if (seen)
            continue;
        doctor_config cfg;
        doctor_config_default(&cfg);
        cfg.spec = gate->opponent;
        cfg.games[0] = k->g->name;
        cfg.ngames = 1;
        cfg.checks[0] = "first_move";
        cfg.checks[1] = "full_game";
        cfg.nchecks = 2;
        cfg.move_ms = k->move_ms;
        cfg.first_move_ms = k->move_ms; /* as a gate's first move (tournament/runner.h), after
                                           the start-up's allowance */
        cfg.seed = k->seed;
        cfg.on_check = on_check;
        cfg.ud = k;
        doctor_summary sum;
        char err[400];
        k->failed = false;
        int rc = doctor_run(&cfg, &sum, err, sizeof err);
        if (rc < 0) {
            k->rc = ENG_EINVAL;
            snprintf(k->why, sizeof k->why, "gate %d: its opponent %.100s cannot be played: %.200s",
                     i + 1, gate->opponent, err);
        } else if (sum.failed > 0 || sum.passed == 0) {
            k->rc = ENG_EINVAL;
            snprintf(k->why, sizeof k->why,
                     "gate %d: its opponent %.100s failed the check a gate's opponent must pass "
                     "(tessera doctor --check first_move --check full_game): %.220s",
                     i + 1, gate->opponent, k->failed ? k->fail : "no check passed");
        }
    }
}

static void check_done(void *arg, int status)
{
    gcheck *k = arg;
    class_service *svc = k->svc;
    svc->checking--;
    if (status != 0 && k->rc == 0) {
        k->rc = ENG_EINTERNAL;
        snprintf(k->why, sizeof k->why, "the gates could not be checked; send it again");
    }
    k->then(svc, k->arg, k->rc, k->why);
    free(k);
}

bool class__check_gates(class_service *svc, const eng_game *g, const class_gate *gates, int n,
                        int64_t move_ms, uint64_t seed, class_checked_fn then, void *arg)
{
    assert(n >= 0 && n <= CLASS_MAX_GATES && then);
    bool programs = false;
    for (int i = 0; i < n; i++)
        programs = programs || class__gate_is_program(&gates[i]);
    if (!programs) {
        then(svc, arg, 0, "");
        return true;
    }
    gcheck *k = calloc(1, sizeof *k);
    if (!k)
        return false;
    k->svc = svc;
    k->g = g;
    memcpy(k->gates, gates, (size_t)n * sizeof *gates);
    k->ngates = n;
    k->move_ms = move_ms;
    k->seed = seed;
    k->then = then;
    k->arg = arg;
    if (svc->host.queue_work(svc->host.user, check_work, check_done, k) != 0) {
        free(k);
        return false;
    }
    svc->checking++;
    return true;
}
