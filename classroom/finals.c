/*
 * finals.c — a round-robin final played by every server of a cluster
 * (internal.h, "finals.c"; docs/scaling.md): on several servers sharing one
 * PostgreSQL database, course_start_final stores the final's pairs as rows
 * of class_final_pairs (one per pair of finalists a < b, in roster order);
 * every server's workers claim pairs as they claim ladders (FOR UPDATE SKIP
 * LOCKED, a claim renewed every tick and taken again once CLASS_CLAIM_MS
 * old), play a pair's games head to head with the seats swapped, and store
 * them with the pair done in one transaction. The server that stores a
 * final's last pair computes its standings from every game stored — the
 * round-robin of the tournament module, each stored game entered as the
 * result of the scheduled game between the same two seats — and stores them
 * as the final's, as one server's final would have.
 *
 * A pair's games have seeds of their own (the course's, the final's tag and
 * the pair's number): a final split this way is as deterministic as one
 * played on one server, but not the same games. Swiss and knockout finals,
 * whose rounds wait for each other, and finals with remote bots stay one
 * job on the coordinator. On SQLite (one server) nothing here is used.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "engine/errors.h"
#include "tournament/tour.h"

bool class__final_split(class_service *svc, const job *j)
{
    assert(j->final && j->n >= 2);
    bool ok = class__begin(svc) && class__pairs_clear(svc, j->course);
    db_stmt *ins = ok ? class__prep(svc, "INSERT INTO class_final_pairs(course, pairno, a, b, sub_a,"
                                         " sub_b, games) VALUES(?,?,?,?,?,?,?)")
                      : NULL;
    int pairno = 0;
    for (int a = 0; ins && ok && a < j->n; a++)
        for (int b = a + 1; ok && b < j->n; b++) {
            db_reset(ins);
            db_bind_int64(ins, 1, j->course);
            db_bind_int(ins, 2, pairno++);
            db_bind_int(ins, 3, a);
            db_bind_int(ins, 4, b);
            db_bind_int64(ins, 5, j->subs[a]);
            db_bind_int64(ins, 6, j->subs[b]);
            db_bind_int64(ins, 7, j->final_games);
            ok = class__step(svc, ins) == DB_DONE;
        }
    db_finalize(ins);
    return class__commit(svc, ok && ins);
}

bool class__pairs_clear(class_service *svc, int64_t course)
{
    db_stmt *st = class__prep(svc, "DELETE FROM class_final_pairs WHERE course = ?");
    if (st)
        db_bind_int64(st, 1, course);
    return class__run(svc, st);
}

/* ---- a pair claimed ------------------------------------------------------------------------ */

job *class__claim_pair(class_service *svc, int64_t now)
{
    if (!class__begin(svc))
        return NULL;
    db_stmt *st = class__prep(
        svc, "UPDATE class_final_pairs SET worker = ?1, claim_ms = ?2, run = run + 1 WHERE id ="
             " (SELECT id FROM class_final_pairs WHERE state = 'queued' AND (worker = '' OR"
             " claim_ms < ?3) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)"
             " RETURNING id, course, pairno, sub_a, sub_b, games, run");
    int64_t id = 0, course = 0, subs[2] = {0, 0}, games = 0, run = 0;
    int pairno = 0, rc = DB_EFAIL;
    if (st) {
        db_bind_text(st, 1, svc->worker, -1);
        db_bind_int64(st, 2, now);
        db_bind_int64(st, 3, now - CLASS_CLAIM_MS);
        rc = class__step(svc, st);
        if (rc == DB_ROW) {
            id = db_column_int64(st, 0);
            course = db_column_int64(st, 1);
            pairno = (int)db_column_int64(st, 2);
            subs[0] = db_column_int64(st, 3);
            subs[1] = db_column_int64(st, 4);
            games = db_column_int64(st, 5);
            run = db_column_int64(st, 6);
            rc = class__step(svc, st);
        }
        db_finalize(st);
    }
    if (!class__commit(svc, rc == DB_DONE) || !id)
        return NULL;
    course_t c;
    sub_t s[2];
    job *j = calloc(1, sizeof *j);
    if (!j || !class__course_load(svc, course, &c)) {
        free(j);
        return NULL; /* the claim lapses: played later, here or elsewhere */
    }
    j->final = true;
    j->pair = id;
    j->pairno = pairno;
    j->course = course;
    j->run = run;
    j->g = c.g;
    j->rules = c.rules;
    j->move_ms = c.move_ms;
    /* the pair's own seed: its games do not depend on which server plays it */
    j->seed = c.seed ^ 0xf1a1ULL ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(pairno + 1));
    j->final_games = games;
    j->n = 2;
    class__course_release(&c);
    j->specs = calloc(2, sizeof *j->specs);
    j->names = calloc(2, sizeof *j->names);
    j->students = calloc(2, sizeof *j->students);
    j->subs = calloc(2, sizeof *j->subs);
    bool ok = j->specs && j->names && j->students && j->subs;
    for (int i = 0; ok && i < 2; i++) {
        char spec[CLASS_SPEC_MAX];
        ok = class__sub_load(svc, subs[i], &s[i]) && class__ensure_files(svc, &s[i]) == 0;
        if (!ok)
            break;
        class__sub_spec(&s[i], spec, sizeof spec);
        j->subs[i] = s[i].id;
        j->students[i] = s[i].student;
        j->names[i] = strdup(s[i].sid);
        j->specs[i] = strdup(spec);
        ok = j->names[i] && j->specs[i];
    }
    if (!ok) {
        class__job_free(j);
        return NULL;
    }
    return j;
}

/* ---- a pair stored, and the final's standings ------------------------------------------------
 */

/* The number of a JSON array's element i of a text column (0 when absent). */
static double num_at(const char *text, int i)
{
    json_t *a = json_loads(text ? text : "[]", 0, NULL);
    json_t *v = json_array_get(a, (size_t)i);
    double x = json_is_number(v) ? json_number_value(v) : 0;
    json_decref(a);
    return x;
}

/* The final's standings from every game stored: its finalists in roster
 * order (the pairs' a and b), a round-robin of them in the tournament
 * module, each game entered as the result of the first scheduled game with
 * the same seats; then stored as the final's rows. */
static bool final_standings(class_service *svc, int64_t course)
{
    course_t c;
    if (!class__course_load(svc, course, &c))
        return false;
    done d = {.kind = DONE_FINAL, .course = course, .format = TOUR_ROUND_ROBIN};
    int64_t gpp = 2;
    db_stmt *st = class__prep(svc, "SELECT a, b, sub_a, sub_b, games FROM class_final_pairs"
                                   " WHERE course = ? ORDER BY pairno");
    bool ok = st != NULL;
    if (ok)
        db_bind_int64(st, 1, course);
    while (ok && class__step(svc, st) == DB_ROW) {
        int a = (int)db_column_int64(st, 0), b = (int)db_column_int64(st, 1);
        if (b + 1 > d.n) {
            int64_t *ns = realloc(d.subs, (size_t)(b + 1) * sizeof *ns);
            ok = ns != NULL;
            if (ok)
                d.subs = ns;
            for (int k = d.n; ok && k <= b; k++)
                d.subs[k] = 0;
            if (ok)
                d.n = b + 1;
        }
        if (ok) {
            d.subs[a] = db_column_int64(st, 2);
            d.subs[b] = db_column_int64(st, 3);
            gpp = db_column_int64(st, 4);
        }
    }
    db_finalize(st);
    ok = ok && d.n >= 2;
    d.students = ok ? calloc((size_t)d.n, sizeof *d.students) : NULL;
    d.fst = ok ? calloc((size_t)d.n, sizeof *d.fst) : NULL;
    char **names = ok ? calloc((size_t)d.n, sizeof *names) : NULL;
    tour_participant *parts = ok ? calloc((size_t)d.n, sizeof *parts) : NULL;
    ok = ok && d.students && d.fst && names && parts;
    for (int i = 0; ok && i < d.n; i++) {
        sub_t s;
        ok = class__sub_load(svc, d.subs[i], &s) && (names[i] = strdup(s.sid)) != NULL;
        if (ok) {
            d.students[i] = s.student;
            parts[i].name = parts[i].spec = names[i];
        }
    }
    tour *t = NULL;
    char err[256] = "";
    if (ok) {
        tour_spec spec;
        tour_spec_init(&spec);
        spec.format = TOUR_ROUND_ROBIN;
        spec.game = c.g;
        spec.rules = c.rules;
        spec.participants = parts;
        spec.nparticipants = d.n;
        spec.cycles = 1;
        spec.games_per_pair = gpp;
        spec.seed = c.seed;
        ok = tour_create(&spec, &t, err, sizeof err) == 0;
    }
    st = ok ? class__prep(svc, "SELECT s0, s1, scores, ranks, end_reason, culprit, think_ms, moves,"
                               " verdict FROM class_games WHERE course = ? AND stage = 'final'"
                               " ORDER BY gate, idx")
            : NULL;
    ok = ok && st;
    if (ok)
        db_bind_int64(st, 1, course);
    int64_t ngames = t ? tour_game_count(t) : 0;
    while (ok && class__step(svc, st) == DB_ROW) {
        int seat[2] = {-1, -1};
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < d.n; i++)
                if (d.students[i] == db_column_int64(st, s))
                    seat[s] = i;
        int64_t id = -1;
        for (int64_t g = 0; id < 0 && g < ngames; g++) {
            tour_game tg;
            if (tour_get_game(t, g, &tg) == 0 && tg.status == TOUR_PENDING &&
                tg.table[0] == seat[0] && tg.table[1] == seat[1])
                id = g;
        }
        tour_result r;
        tour_result_init(&r);
        for (int s = 0; s < 2; s++) {
            r.score[s] = num_at(class__col(st, 2), s);
            r.rank[s] = (int)num_at(class__col(st, 3), s);
            r.time_ms[s] = num_at(class__col(st, 6), s);
            r.moves[s] = (int)num_at(class__col(st, 7), s);
        }
        tour_end_parse(class__col(st, 4), &r.end);
        r.culprit = (int)db_column_int64(st, 5);
        r.time_loss[0] = r.end == TOUR_END_TIMEOUT && r.culprit == 0;
        r.time_loss[1] = r.end == TOUR_END_TIMEOUT && r.culprit == 1;
        ok = id >= 0 && tour_game_started(t, id, NULL) == 0 &&
             tour_game_finished(t, id, &r, err, sizeof err) == 0;
        if (id < 0)
            snprintf(err, sizeof err, "a stored game has no place in the final's schedule");
    }
    db_finalize(st);
    ok = ok && tour_is_done(t) && class_standings_fill(t, d.fst) == 0;
    if (ok)
        ok = class__store_final_rows(svc, &d);
    else
        class__log(svc, CLASS_LOG_ERROR, "course_final_standings", "{s:I, s:s}", "course",
                   (json_int_t)course, "reason", err[0] ? err : "the final's games are incomplete");
    tour_destroy(t);
    for (int i = 0; names && i < d.n; i++)
        free(names[i]);
    free(names);
    free(parts);
    free(d.students);
    free(d.subs);
    free(d.fst);
    class__course_release(&c);
    return ok;
}

bool class__store_pair(class_service *svc, const done *d, bool *stale, bool *finished)
{
    *stale = *finished = false;
    /* done, while still at its claim's run: a claim taken again since (its
     * server taken for dead) plays it again, and this result goes */
    db_stmt *up = class__prep(svc, "UPDATE class_final_pairs SET state = 'done', claim_ms = ?"
                                   " WHERE id = ? AND run = ? AND state = 'queued'");
    if (!up)
        return false;
    db_bind_int64(up, 1, class__now_ms());
    db_bind_int64(up, 2, d->pair);
    db_bind_int64(up, 3, d->run);
    bool ok = class__step(svc, up) == DB_DONE;
    bool mine = ok && db_changes(svc->db) == 1;
    db_finalize(up);
    if (!ok)
        return false;
    if (!mine) {
        *stale = true;
        return true;
    }
    if (!class__store_pair_games(svc, d))
        return false;
    /* several servers (claims, on PostgreSQL): the course's row is locked
     * before the pairs left are counted, so that of two servers storing its
     * last pairs at once the second waits for the first's commit, and its
     * count (a statement after the wait: READ COMMITTED reads what is
     * committed then) sees the first's pair done — each would otherwise count
     * the other's as not done, and neither would finish the final
     * (tests/classroom/test_final_pairs.c). The pair's row, then the course's:
     * the order an instructor's clearing or deleting of the final takes too
     * (store_manage.c), so neither waits for the other in a circle. On SQLite
     * one transaction writes at a time already. */
    if (svc->claims) {
        db_stmt *lock = class__prep(svc, "SELECT id FROM class_courses WHERE id = ? FOR UPDATE");
        if (!lock)
            return false;
        db_bind_int64(lock, 1, d->course);
        int rc = class__step(svc, lock);
        db_finalize(lock);
        if (rc != DB_ROW && rc != DB_DONE)
            return false;
    }
    db_stmt *left = class__prep(svc, "SELECT COUNT(*) FROM class_final_pairs WHERE course = ? AND"
                                     " state <> 'done'");
    if (!left)
        return false;
    db_bind_int64(left, 1, d->course);
    int64_t n = class__step(svc, left) == DB_ROW ? db_column_int64(left, 0) : -1;
    db_finalize(left);
    if (n != 0)
        return n > 0;
    *finished = true;
    return final_standings(svc, d->course) && class__pairs_clear(svc, d->course);
}
