/*
 * match_create.c — a match comes into being: created from a create_match
 * (the seats' specs checked — bots, programs, registered bots, the admin
 * token where one is needed —, the id, the chance seed and nonce and the
 * seats' tokens from getrandom(2), failing closed; its bots made, the match
 * journaled, its programs started) or restored from the journal at start-up
 * or on a takeover (its moves replayed and checked against the rules, its
 * history rebuilt, its seats' clocks and tokens as they were). What a match
 * does once it exists is match.c's; this file only hands it over, linked
 * into the server's list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "internal.h"
#include "journal/journal.h"
#include "match.h"
#include "match_views.h"
#include "players/player.h"
#include "programs.h"
#include "protocol/chance.h"
#include "registry.h"
#include "thinking.h"
#include "tokidx.h"

static match *alloc_match(srv *s, const eng_game *g, const game_codec *w, const eng_rules *r)
{
    match *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->srv = s;
    m->g = g;
    m->wire = w;
    m->ann_at = -1;
    m->rules = *r;
    m->st = malloc(g->state_size);
    m->turn_start = malloc(g->state_size);
    m->to_move = -1;
    if (!m->st || !m->turn_start) {
        free(m->st);
        free(m->turn_start);
        free(m);
        return NULL;
    }
    g->init(m->st, r);
    memcpy(m->turn_start, m->st, g->state_size);
    uv_timer_init(s->loop, &m->timer);
    m->timer.data = m;
    return m;
}

static void link_match(srv *s, match *m)
{
    m->next = s->matches;
    if (s->matches)
        s->matches->prev = m;
    s->matches = m;
    if (m->status == MATCH_FINISHED)
        s->nfinished++;
    else
        s->nlive++;
}

/* Journal a new match (its own transaction, now). */
static int write_created(match *m)
{
    json_t *tc = json_pack("{s:I, s:I, s:I, s:I}", "move_ms", (json_int_t)m->tc.move_ms,
                           "first_move_ms", (json_int_t)m->tc.first_move_ms, "bank_ms",
                           (json_int_t)m->tc.bank_ms, "increment_ms",
                           (json_int_t)m->tc.increment_ms);
    json_t *pol = json_pack(
        "{s:i, s:i, s:i, s:i, s:I, s:I, s:i}", "timeout", m->pol.timeout, "illegal", m->pol.illegal,
        "max_illegal", m->pol.max_illegal, "disconnect", m->pol.disconnect, "reconnect_grace_ms",
        (json_int_t)m->pol.reconnect_grace_ms, "grace_ms", (json_int_t)m->pol.grace_ms, "info",
        m->pol.info);
    json_t *rules = wire_rules_json(m->g, &m->rules);
    char *rt = rules ? json_dumps(rules, JSON_COMPACT) : NULL;
    char *tt = tc ? json_dumps(tc, JSON_COMPACT) : NULL;
    char *pt = pol ? json_dumps(pol, JSON_COMPACT) : NULL;
    json_decref(rules);
    json_decref(tc);
    json_decref(pol);
    char nonce[CHANCE_NONCE_HEX];
    chance_nonce_hex(m->nonce, nonce);
    journal_seat rows[ENG_MAX_PLAYERS];
    journal_match jm = {
        .id = m->id,
        .game = m->g->name,
        .move_encoding = m->g->move_encoding,
        .rules = rt,
        .time_control = tt,
        .policies = pt,
        .seed = m->seed,
        .nonce_hex = m->has_nonce ? nonce : NULL,
        .created_ms = m->created_ms,
        .demo = m->demo,
        .seats = match__seats_row(m, rows, true),
    };
    int rc = rt && tt && pt ? journal_create_match(m->srv->db, &jm) : ENG_ENOMEM;
    free(rt);
    free(tt);
    free(pt);
    return rc;
}

static int make_bots(match *m, char *err, size_t errcap, int *code)
{
    for (int i = 0; i < m->nseats; i++) {
        seat_t *t = &m->seats[i];
        if (t->kind != SEAT_BOT)
            continue;
        uint64_t seed;
        eng_rng r;
        eng_rng_seed_stream(&r, m->seed, 1000 + (uint64_t)i);
        seed = m->seat_seeds ? m->seat_seed[i] : eng_rng_next(&r);
        t->bot = bot_create(t->spec, m->g, seed, err, errcap);
        if (t->bot)
            m->srv->bots++;
        if (!t->bot) {
            *code = bot_find_type(t->spec) || strchr(t->spec, ':') ? ENG_EBAD_BOT_SPEC
                                                                   : ENG_EUNKNOWN_BOT;
            return -1;
        }
    }
    return 0;
}

/* An in-process bot's spec: bot_check_spec(), and no more search threads
 * than the server allows (limits.bot_threads: a client must not take every
 * core with mcts:threads=64). 0, or an error code with the reason in err. */
static int match_check_bot(const srv *s, const char *spec, const eng_game *g, char *err, size_t errcap)
{
    int rc = bot_check_spec(spec, g, err, errcap);
    if (rc)
        return rc;
    return bot_check_threads(spec, s->cfg.bot_threads, err, errcap);
}

/* Check the seat specs of a create_match: bots by bot_check_spec, programs
 * by resolving their command, registered bots in the registry; programs,
 * registered bots and bots whose options name a file to read (BOT_FILE, e.g.
 * evomcts:eval=FILE) only with the admin token. */
static int check_seats(srv *s, const proto_msg *msg, const eng_game *g, const match_opts *opts,
                       int *code, char *err, size_t errcap)
{
    int programs = 0;
    for (int i = 0; i < msg->nseats; i++) {
        if (msg->seats[i].open)
            continue;
        const char *spec = msg->seats[i].bot;
        int kind = match_spec_kind(spec);
        char e[320];
        int rc = 0;
        if (kind != SEAT_BOT && !(opts && opts->admin)) {
            *code = ENG_EFORBIDDEN;
            snprintf(err, errcap,
                     "seat %d: %s seats need the server's admin token (\"admin_token\")", i,
                     kind == SEAT_PROGRAM ? "program (cmd:)" : "registered bot (remote:)");
            return -1;
        }
        char opt[32];
        if (kind == SEAT_BOT && !(opts && opts->admin) &&
            bot_spec_reads_file(spec, opt, sizeof opt)) {
            /* checked before the bot is made, which would read the file:
             * the answer is the same whatever the file is */
            *code = ENG_EFORBIDDEN;
            snprintf(err, errcap,
                     "seat %d: bot option '%s' names a file the server would read; only the "
                     "server's admin may set it (\"admin_token\")",
                     i, opt);
            return -1;
        }
        if (kind == SEAT_PROGRAM) {
            player_config pc;
            player_config_default(&pc);
            player *pl = player_create(spec, g, &pc, e, sizeof e);
            if (!pl)
                rc = ENG_EBAD_BOT_SPEC;
            player_destroy(pl); /* nothing was started: player_create only checks */
            programs++;
        } else if (kind == SEAT_REMOTE) {
            const char *name = spec + 7;
            if (!name[0] || strlen(name) > PROTO_NAME_MAX) {
                rc = ENG_EBAD_BOT_SPEC;
                snprintf(e, sizeof e, "remote: needs the name of a registered bot");
            } else {
                /* one bot may hold several seats of a match (a bot playing
                 * itself, as a person may play two seats): each counts
                 * against its capacity */
                int earlier = 0;
                for (int j = 0; j < i; j++)
                    earlier += !msg->seats[j].open && strcmp(msg->seats[j].bot, spec) == 0;
                rc = registry_check(s, name, g, earlier, e, sizeof e);
            }
        } else {
            rc = match_check_bot(s, spec, g, e, sizeof e);
        }
        if (rc) {
            *code = rc;
            snprintf(err, errcap, "seat %d: %s", i, e);
            return -1;
        }
    }
    if (programs && progs_running(s) + programs > SRV_MAX_PROGRAMS) {
        *code = ENG_ETOO_MANY;
        snprintf(err, errcap, "the server runs its maximum of %d programs", SRV_MAX_PROGRAMS);
        return -1;
    }
    return 0;
}

/* Start the worker of every program seat (resumed after n moves when n > 0). */
static int start_programs(match *m, const eng_move *moves, int n, char *err, size_t errcap)
{
    void *initial = NULL;
    for (int i = 0; i < m->nseats; i++) {
        if (m->seats[i].kind != SEAT_PROGRAM)
            continue;
        if (!initial) {
            initial = malloc(m->g->state_size);
            if (!initial) {
                snprintf(err, errcap, "out of memory");
                return ENG_ENOMEM;
            }
            m->g->init(initial, &m->rules);
        }
        int rc = prog_start(m, i, initial, moves, n, match__program_done, err, errcap);
        if (rc) {
            free(initial);
            return rc;
        }
    }
    free(initial);
    return 0;
}

match *match_create(srv *s, const proto_msg *msg, int *code, char *err, size_t errcap)
{
    return match_create_ex(s, msg, NULL, code, err, errcap);
}

match *match_create_ex(srv *s, const proto_msg *msg, const match_opts *opts, int *code, char *err,
                       size_t errcap)
{
    const eng_game *g = eng_find_game(msg->game);
    const game_codec *w = g ? codec_find(g->name) : NULL;
    if (!g || !w) {
        *code = ENG_EUNKNOWN_GAME;
        snprintf(err, errcap, "no game named '%.40s' (see list_games)", msg->game);
        return NULL;
    }
    if (s->nlive >= s->max_live_matches) {
        *code = ENG_ETOO_MANY;
        snprintf(err, errcap, "the server runs its maximum of %d matches", s->max_live_matches);
        return NULL;
    }
    eng_rules rules;
    int rc = wire_rules_parse(g, msg->rules, msg->nseats, &rules, err, errcap);
    if (rc) {
        *code = rc;
        return NULL;
    }
    if (check_seats(s, msg, g, opts, code, err, errcap))
        return NULL;
    match *m = alloc_match(s, g, w, &rules);
    if (!m) {
        *code = ENG_ENOMEM;
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    /* the id, the secret seed and the seat tokens come from getrandom(2);
     * without it the match is refused (fail closed) */
    uint64_t seed = 0;
    char tok[17];
    bool random_ok = srv_random_token(m->id, SRV_MATCH_ID_LEN) == 0;
    while (random_ok && match_find(s, m->id))
        random_ok = srv_random_token(m->id, SRV_MATCH_ID_LEN) == 0;
    random_ok = random_ok && srv_random_token(tok, 16) == 0;
    for (int i = 0; random_ok && i < 16; i++)
        seed = seed * 33 + (unsigned char)tok[i];
    if (s->test.seed_set)
        seed = s->test.seed++; /* test hook: reproducible matches */
    if (opts && opts->has_seed)
        seed = opts->seed; /* a tournament group's games share their chance seed */
    m->seed = seed;
    if (opts && opts->has_seat_seeds) {
        m->seat_seeds = true;
        memcpy(m->seat_seed, opts->seat_seed, sizeof m->seat_seed);
    }
    /* the nonce of the commitment: random bytes as well, fail closed */
    for (size_t got = 0; random_ok && got < sizeof m->nonce;) {
        ssize_t r = srv__getrandom(m->nonce + got, sizeof m->nonce - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        random_ok = r > 0;
        got += r > 0 ? (size_t)r : 0;
    }
    chance_secret secret = {.seed = seed};
    memcpy(secret.nonce, m->nonce, sizeof m->nonce);
    m->has_nonce = random_ok && chance_commitment(&secret, m->commitment) == 0;
    random_ok = random_ok && m->has_nonce;
    m->tc = msg->tc;
    m->pol = msg->pol;
    m->nseats = msg->nseats;
    bool open = false;
    for (int i = 0; i < m->nseats; i++) {
        seat_t *t = &m->seats[i];
        t->kind = msg->seats[i].open ? SEAT_OPEN : match_spec_kind(msg->seats[i].bot);
        snprintf(t->name, sizeof t->name, "%s", msg->seats[i].name);
        snprintf(t->spec, sizeof t->spec, "%s", msg->seats[i].bot);
        if (t->kind == SEAT_REMOTE) { /* the seat's name is the registered bot's */
            size_t len = strnlen(t->spec + 7, PROTO_NAME_MAX); /* checked: at most 64 */
            memcpy(t->name, t->spec + 7, len);
            t->name[len] = 0;
        }
        if (t->kind == SEAT_OPEN) {
            /* kept as its hash; the text goes to the creator only */
            char text[SRV_TOKEN_LEN + 1];
            random_ok = random_ok && srv_random_token(text, SRV_TOKEN_LEN) == 0;
            if (random_ok)
                access_token_hash(text, t->token);
            if (opts && opts->join_tokens)
                memcpy(opts->join_tokens[i], text, sizeof text);
            open = true;
        }
        t->bank_ms = m->tc.bank_ms;
        t->grace_ms = m->pol.timeout == PROTO_TIMEOUT_GRACE ? m->pol.grace_ms : 0;
    }
    if (!random_ok) {
        *code = ENG_EINTERNAL;
        snprintf(err, errcap, "the server could not get random bytes for the match's tokens");
        match__discard(m);
        return NULL;
    }
    if (make_bots(m, err, errcap, code)) {
        match__discard(m);
        return NULL;
    }
    m->status = open ? MATCH_WAITING : MATCH_LIVE;
    m->created_ms = srv_epoch_ms();
    if (s->db && write_created(m) != 0) {
        *code = ENG_ESTORAGE;
        snprintf(err, errcap, "the match could not be stored");
        match__discard(m);
        return NULL;
    }
    link_match(s, m);
    /* a registered bot is away until its connection takes the seat
     * (table_attach_remote): its clock runs, the disconnect policy applies */
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].kind == SEAT_REMOTE && m->status == MATCH_LIVE)
            m->seats[i].gone_since = srv_now(s);
    int prc = start_programs(m, NULL, 0, err, errcap);
    if (prc) {
        /* stored already: it ends at once, recorded as such */
        srv_log(LOG_ERROR, "program_failed", "{s:s, s:s}", "match", m->id, "reason", err);
        *code = prc;
        m->status = MATCH_LIVE;
        match__finish(m, "aborted", -1, err);
        return NULL;
    }
    srv_log(LOG_INFO, "match_created", "{s:s, s:s, s:i, s:s}", "match", m->id, "game", g->name,
            "seats", m->nseats, "status", match_status_name(m->status));
    return m;
}

match *match_restore(srv *s, const journal_stored *stored, char *err, size_t errcap)
{
    const eng_game *g = eng_find_game(stored->game);
    const game_codec *w = g ? codec_find(g->name) : NULL;
    if (!g || !w) {
        snprintf(err, errcap, "unknown game '%s'", stored->game);
        return NULL;
    }
    const int status = stored->status, nmoves = stored->nmoves;
    const eng_move *moves = stored->moves;
    json_error_t je;
    json_t *rj = json_loads(stored->rules_json, 0, &je), *sj = json_loads(stored->seats_json, 0, &je);
    json_t *tj = json_loads(stored->tc_json, 0, &je), *pj = json_loads(stored->pol_json, 0, &je);
    match *m = NULL;
    eng_rules rules;
    const char *bad = !rj                         ? "rules"
                      : !sj || !json_is_array(sj) ? "seats"
                      : !tj                       ? "time_control"
                      : !pj                       ? "policies"
                                                  : NULL;
    if (bad) {
        snprintf(err, errcap, "the stored %s are not valid JSON", bad);
        goto out;
    }
    int nseats = (int)json_array_size(sj);
    if (nseats < g->min_players || nseats > g->max_players) {
        snprintf(err, errcap, "%d stored seats", nseats);
        goto out;
    }
    if (wire_rules_parse(g, rj, nseats, &rules, err, errcap))
        goto out;
    m = alloc_match(s, g, w, &rules);
    if (!m)
        goto out;
    snprintf(m->id, sizeof m->id, "%s", stored->id);
    m->seed = stored->seed;
    m->demo = stored->demo;
    /* a match journaled before commitments has no nonce: no chance block */
    if (stored->nonce_hex && chance_nonce_parse(stored->nonce_hex, m->nonce) == 0) {
        chance_secret secret = {.seed = stored->seed};
        memcpy(secret.nonce, m->nonce, sizeof m->nonce);
        m->has_nonce = chance_commitment(&secret, m->commitment) == 0;
    }
    m->nseats = (int)json_array_size(sj);
    json_int_t v;
    m->tc.move_ms = json_unpack(tj, "{s:I}", "move_ms", &v) == 0 ? v : 10000;
    m->tc.first_move_ms = json_unpack(tj, "{s:I}", "first_move_ms", &v) == 0 ? v : m->tc.move_ms;
    m->tc.bank_ms = json_unpack(tj, "{s:I}", "bank_ms", &v) == 0 ? v : 0;
    m->tc.increment_ms = json_unpack(tj, "{s:I}", "increment_ms", &v) == 0 ? v : 0;
    json_unpack(pj, "{s:i, s:i, s:i, s:i, s:I, s:I}", "timeout", &m->pol.timeout, "illegal",
                &m->pol.illegal, "max_illegal", &m->pol.max_illegal, "disconnect",
                &m->pol.disconnect, "reconnect_grace_ms", &m->pol.reconnect_grace_ms, "grace_ms",
                &m->pol.grace_ms);
    /* journaled before the setting: live, its default */
    if (json_unpack(pj, "{s:i}", "info", &m->pol.info) || m->pol.info < PROTO_INFO_LIVE ||
        m->pol.info > PROTO_INFO_NEVER)
        m->pol.info = PROTO_INFO_LIVE;
    for (int i = 0; i < m->nseats; i++) {
        seat_t *t = &m->seats[i];
        const char *kind = "", *name = "", *spec = "", *token = "", *res = "";
        json_int_t bank = 0, grace = 0;
        int joined = 0, takeover = 0;
        json_unpack(json_array_get(sj, (size_t)i),
                    "{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:b, s:b}", "kind", &kind,
                    "name", &name, "spec", &spec, "token", &token, "resume", &res, "bank_ms", &bank,
                    "grace_ms", &grace, "illegal", &t->illegal, "moves", &t->moves, "joined",
                    &joined, "takeover", &takeover);
        t->kind = strcmp(kind, "bot") == 0       ? SEAT_BOT
                  : strcmp(kind, "program") == 0 ? SEAT_PROGRAM
                  : strcmp(kind, "remote") == 0  ? SEAT_REMOTE
                                                 : SEAT_OPEN;
        json_int_t used = 0;
        json_unpack(json_array_get(sj, (size_t)i), "{s:I}", "used_ms", &used);
        t->used_ms = used;
        snprintf(t->name, sizeof t->name, "%s", name);
        snprintf(t->spec, sizeof t->spec, "%s", spec);
        snprintf(t->token, sizeof t->token, "%s", token);
        snprintf(t->resume, sizeof t->resume, "%s", res);
        /* a journal of before hashed tokens: hashed now (the seats row and
         * the token index get the hashes with the next write) */
        access_token_upgrade(t->token);
        access_token_upgrade(t->resume);
        t->bank_ms = bank;
        t->grace_ms = grace;
        t->joined = joined;
        t->takeover = takeover;
    }
    int code;
    if (status != MATCH_FINISHED && make_bots(m, err, errcap, &code))
        goto fail;
    /* replay the journal, rebuilding the history turn by turn */
    m->status = MATCH_LIVE;
    m->turn_first = 0;
    for (int i = 0; i < nmoves; i++) {
        int p = g->current_player(m->st);
        m->chance_k += p == ENG_CHANCE;
        if (p == ENG_TERMINAL || match__push_move(m, moves[i]) ||
            (p == ENG_CHANCE && !eng_is_legal(g, m->st, moves[i])) ||
            (p >= 0 && !eng_is_legal(g, m->st, moves[i]))) {
            snprintf(err, errcap, "journal move %d does not fit the game", i);
            goto fail;
        }
        if (stored->times)
            m->times[i] = stored->times[i];
        if (stored->infos && stored->infos[i] && p >= 0) /* the turn's, with its first move */
            thinking_restore_line(m, m->turns + 1, stored->infos[i]);
        g->apply(m->st, moves[i]);
        /* a turn ends when the next thing is a draw, the end, or another seat */
        int q = g->current_player(m->st);
        bool ends = q == ENG_CHANCE || q == ENG_TERMINAL || (p >= 0 && q != p);
        if (ends) {
            char e2[128];
            json_t *rec = wire_record_turn(g, m->turn_start, m->moves + m->turn_first,
                                           m->nmoves - m->turn_first, e2, sizeof e2);
            match__history_add(m, rec);
            json_decref(rec);
            m->turns++;
            m->turn_first = m->nmoves;
            memcpy(m->turn_start, m->st, g->state_size);
        }
    }
    /* future draws go on from chance event chance_k of the same seed */
    m->status = status;
    m->created_ms = stored->created_ms;
    m->finished_ms = stored->finished_ms;
    if (status == MATCH_FINISHED) {
        m->result = json_loads(stored->result_json, 0, &je);
        double sc[ENG_MAX_PLAYERS];
        g->scores(m->st, sc);
        for (int i = 0; i < m->nseats; i++)
            m->final_scores[i] = sc[i];
    } else {
        /* everyone reconnects from scratch; the seat to move gets a fresh move */
        for (int i = 0; i < m->nseats; i++)
            if (((m->seats[i].kind == SEAT_OPEN && m->seats[i].joined) ||
                 m->seats[i].kind == SEAT_REMOTE) &&
                status == MATCH_LIVE)
                m->seats[i].gone_since = srv_now(s);
    }
    link_match(s, m);
    for (int i = 0; i < m->nseats; i++)
        tokidx_add(s, m->seats[i].resume, m, i);
    if (status != MATCH_FINISHED && start_programs(m, moves, nmoves, err, errcap) != 0)
        /* its program seats play random moves or forfeit at their turns */
        srv_log(LOG_ERROR, "program_failed", "{s:s, s:s}", "match", m->id, "reason", err);
    goto out;
fail:
    match__discard(m);
    m = NULL;
out:
    json_decref(rj);
    json_decref(sj);
    json_decref(tj);
    json_decref(pj);
    return m;
}

match *match_find_stored(srv *s, const char *id)
{
    match *m = match_find(s, id);
    if (m || !s->db || !id)
        return m;
    char err[256];
    journal_restorer r = match_journal_restorer(s);
    if (journal_load_finished(s->db, id, &r, err, sizeof err) != 0)
        return NULL;
    m = match_find(s, id);
    if (m)
        match_trim_finished(s, m);
    return m;
}

static bool restorer_held(void *s, const char *id)
{
    return match_find(s, id) != NULL;
}

static bool restorer_restore(void *s, const journal_stored *m, char *err, size_t errcap)
{
    return match_restore(s, m, err, errcap) != NULL;
}

journal_restorer match_journal_restorer(srv *s)
{
    return (journal_restorer){s, restorer_held, restorer_restore};
}
