/*
 * test_messages.c — client messages (protocol/messages.h) that must decode,
 * and what they decode into; the reply builders; and the agreement between
 * the decoder, the JSON Schemas in docs/schema/ and the examples in
 * docs/protocol.md.
 *
 * Usage: test_messages DOCS_DIR CORPUS_DIR. DOCS_DIR holds protocol.md and
 * schema/; CORPUS_DIR is the fuzz seed corpus of messages (its ok-* files
 * must decode, its bad-* files must not). Invalid messages are tested one
 * directory per case by test_messages_cases.c.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "protocol/messages.h"

static const char *docs_dir;
static const char *corpus_dir;

/* The client message types, as named on the wire. */
static const char *const client_types[PROTO_NTYPES] = {
    "hello",
    "ping",
    "list_games",
    "list_bots",
    "list_matches",
    "create_match",
    "join",
    "spectate",
    "unspectate",
    "move",
    "resign",
    "resume",
    "replay",
    "server_stats",
    "get_record",
    "register",
    "unregister",
    "create_tournament",
    "start_tournament",
    "pause_tournament",
    "cancel_tournament",
    "list_tournaments",
    "watch_tournament",
    "unwatch_tournament",
    "get_tournament_plots",
    "course_create",
    "course_add_students",
    "course_set_deadline",
    "course_start_final",
    "course_grades",
    "course_list",
    "course_rerun_gates",
    "course_archive",
    "course_delete",
    "course_settings",
    "course_view",
    "course_game",
    "course_code",
    "course_submit",
    "course_upload",
    "analyze",
    "info",
};

/* ---- helpers ------------------------------------------------------------ */

static void decode_ok(const char *text, proto_msg *m)
{
    char err[256] = "";
    json_t *id = NULL;
    int rc = proto_decode(text, strlen(text), m, &id, err, sizeof err);
    if (rc != 0)
        fail_msg("decode of %s failed: %s (%s)", text, eng_err_code(rc), err);
    assert_null(id);
    assert_non_null(m->root);
}

/* Decode text expecting code, a reason containing want (if not NULL). */
static void decode_err(const char *text, size_t len, int code, const char *want)
{
    proto_msg m;
    char err[256] = "";
    json_t *id = NULL;
    int rc = proto_decode(text, len, &m, &id, err, sizeof err);
    if (rc != code)
        fail_msg("decode of %.80s: got %s (%s), want %s", text, rc ? eng_err_code(rc) : "ok", err,
                 eng_err_code(code));
    if (want && !strstr(err, want))
        fail_msg("decode of %.80s: reason '%s' lacks '%s'", text, err, want);
    assert_null(m.root);
    json_decref(id);
}

static json_t *load_schema(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/schema/%s.json", docs_dir, name);
    json_error_t e;
    json_t *s = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!s)
        fail_msg("%s: %s (line %d)", path, e.text, e.line);
    return s;
}

/* ---- valid messages of every type --------------------------------------- */

static void test_hello(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"hello\",\"protocol\":1,\"client\":\"mybot/0.3\",\"id\":\"h1\"}", &m);
    assert_int_equal(m.type, PROTO_HELLO);
    assert_int_equal(m.protocol, 1);
    assert_string_equal(m.client, "mybot/0.3");
    assert_string_equal(json_string_value(m.id), "h1");
    assert_ptr_equal(m.id, json_object_get(m.root, "id"));
    proto_msg_free(&m);
    assert_null(m.root);
    proto_msg_free(&m); /* twice is harmless */

    decode_ok("{\"type\":\"hello\",\"protocol\":1}", &m);
    assert_null(m.client);
    assert_null(m.id);
    proto_msg_free(&m);
}

static void test_bare_messages(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        proto_type type;
    } cases[] = {
        {"{\"type\":\"ping\"}", PROTO_PING},
        {"{\"type\":\"ping\",\"id\":7}", PROTO_PING},
        {"{\"type\":\"list_games\",\"id\":\"g\"}", PROTO_LIST_GAMES},
        {"{\"type\":\"list_bots\"}", PROTO_LIST_BOTS},
        {" \r\n\t{ \"id\" : -1 , \"type\" : \"ping\" }\n", PROTO_PING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        proto_msg m;
        decode_ok(cases[i].text, &m);
        assert_int_equal(m.type, cases[i].type);
        assert_null(m.match);
        proto_msg_free(&m);
    }
    proto_msg m;
    decode_ok("{\"type\":\"ping\",\"id\":-9223372036854775808}", &m);
    assert_true(json_is_integer(m.id));
    assert_true(json_integer_value(m.id) == INT64_MIN);
    proto_msg_free(&m);
}

static void test_list_matches(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int status;
    } cases[] = {
        {"{\"type\":\"list_matches\"}", PROTO_LIST_ALL},
        {"{\"type\":\"list_matches\",\"status\":\"all\"}", PROTO_LIST_ALL},
        {"{\"type\":\"list_matches\",\"status\":\"live\"}", PROTO_LIST_LIVE},
        {"{\"type\":\"list_matches\",\"status\":\"finished\"}", PROTO_LIST_FINISHED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        proto_msg m;
        decode_ok(cases[i].text, &m);
        assert_int_equal(m.type, PROTO_LIST_MATCHES);
        assert_int_equal(m.status, cases[i].status);
        proto_msg_free(&m);
    }
}

static const char full_create[] =
    "{\"type\":\"create_match\",\"id\":\"c1\",\"game\":\"carcassonne\","
    "\"rules\":{\"players\":2,\"farms\":true},"
    "\"seats\":[{\"bot\":\"mcts:sims=400\"},{\"open\":true,\"name\":\"alice\"}],"
    "\"time_control\":{\"move_ms\":5000,\"first_move_ms\":30000,\"bank_ms\":60000,"
    "\"increment_ms\":1000},"
    "\"policies\":{\"timeout\":\"random_move\",\"illegal\":\"forfeit\",\"max_illegal\":7,"
    "\"disconnect\":\"random_move\",\"reconnect_grace_ms\":45000,\"grace_ms\":2000,"
    "\"info\":\"delayed\"},"
    "\"admin_token\":\"a1\"}";

/* create_tournament with every field. */
static const char full_tournament[] =
    "{\"type\":\"create_tournament\",\"id\":1,\"admin_token\":\"a1\",\"format\":\"round-robin\","
    "\"game\":\"carcassonne\",\"rules\":{\"players\":2},"
    "\"participants\":[{\"name\":\"a\",\"spec\":\"random\",\"reference\":true},"
    "{\"name\":\"b\",\"spec\":\"remote:bob\"}],\"games_per_pair\":4,\"cycles\":2,\"rounds\":3,"
    "\"best_of\":1,\"concurrency\":3,\"time_control\":{\"move_ms\":1000,\"first_move_ms\":2000,"
    "\"bank_ms\":0,\"increment_ms\":0},\"policies\":{\"timeout\":\"forfeit\",\"illegal\":"
    "\"reject\","
    "\"max_illegal\":3,\"disconnect\":\"forfeit\",\"reconnect_grace_ms\":1000,\"grace_ms\":0,"
    "\"info\":\"never\"},"
    "\"seed\":7,\"sprt\":{\"elo0\":0,\"elo1\":5,\"alpha\":0.05,\"beta\":0.05,\"model\":"
    "\"logistic\"},"
    "\"label\":\"league\",\"anchor\":\"a\",\"placement_games\":10,\"registered\":false}";

/* register, the tournament messages: what is read, defaults, limits. */
/* The course_* family: each field where its type puts it, a sibling's
 * field ignored, a field of no course message refused, "game" a name in
 * course_create and an id in course_game. */
static void test_course_messages(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"course_create\",\"admin_token\":\"a1\",\"name\":\"c\",\"game\":\"reversi\","
              "\"move_ms\":500,\"gates\":[{\"opponent\":\"random\"}],\"rules\":{}}",
              &m);
    assert_int_equal(m.type, PROTO_COURSE_CREATE);
    assert_true(proto_is_course(m.type));
    assert_string_equal(m.admin_token, "a1");
    assert_string_equal(m.course.name, "c");
    assert_string_equal(m.course.game, "reversi");
    assert_true(m.course.move_ms.set);
    assert_int_equal(m.course.move_ms.v, 500);
    assert_false(m.course.qualify.set);
    assert_int_equal(json_array_size(m.course.gates), 1);
    assert_true(json_is_object(m.course.rules));
    proto_msg_free(&m);
    decode_ok("{\"type\":\"course_game\",\"token\":\"t\",\"game\":12}", &m);
    assert_int_equal(m.type, PROTO_COURSE_GAME);
    assert_true(m.course.game_id.set);
    assert_int_equal(m.course.game_id.v, 12);
    assert_null(m.course.game);
    assert_string_equal(m.course.token, "t");
    proto_msg_free(&m);
    /* a student acting as the instructor sends what the page sends: the
     * fields of course_add_students on course_start_final are ignored */
    decode_ok("{\"type\":\"course_start_final\",\"token\":\"t\",\"course\":3,\"csv\":\"x\","
              "\"deadline_ms\":0}",
              &m);
    assert_int_equal(m.course.course.v, 3);
    assert_null(m.course.csv);
    assert_false(m.course.deadline_ms.set);
    proto_msg_free(&m);
    decode_ok("{\"type\":\"course_submit\",\"token\":\"t\",\"kind\":\"python\",\"files\":[{}]}", &m);
    assert_string_equal(m.course.kind, "python");
    assert_int_equal(json_array_size(m.course.files), 1);
    proto_msg_free(&m);
    assert_false(proto_is_course(PROTO_GET_TOURNAMENT_PLOTS));
    static const char *const bad[][2] = {
        {"{\"type\":\"course_view\",\"token\":\"t\",\"dealine_ms\":1}", "unknown field"},
        {"{\"type\":\"course_create\",\"name\":\"c\"}", "missing field \"game\""},
        {"{\"type\":\"course_create\",\"name\":1,\"game\":\"g\"}", "name must be a string"},
        {"{\"type\":\"course_game\",\"game\":\"reversi\"}", "game must be an integer"},
        {"{\"type\":\"course_add_students\",\"course\":1}", "missing field \"csv\""},
        {"{\"type\":\"course_list\",\"admin_token\":\"a b\"}", "admin_token may hold only"},
        {"{\"type\":\"course_submit\",\"files\":{}}", "files must be an array"},
        {"{\"type\":\"course_create\",\"name\":\"c\",\"game\":\"g\",\"rules\":[]}",
         "rules must be an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        decode_err(bad[i][0], strlen(bad[i][0]), ENG_EBAD_MESSAGE, bad[i][1]);
    decode_err("{\"type\":\"course_nothing\"}", 25, ENG_EUNKNOWN_TYPE, "unknown message type");
}

static void test_register_and_tournaments(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"register\",\"name\":\"alice.v2\",\"secret\":\"12345678\"}", &m);
    assert_string_equal(m.name, "alice.v2");
    assert_string_equal(m.secret, "12345678");
    assert_int_equal(m.capacity, 1);
    assert_int_equal(m.ngames, 0);
    proto_msg_free(&m);
    decode_ok("{\"type\":\"register\",\"name\":\"b\",\"secret\":\"12345678\",\"capacity\":16,"
              "\"games\":[\"reversi\",\"carcassonne\"]}",
              &m);
    assert_int_equal(m.capacity, 16);
    assert_int_equal(m.ngames, 2);
    assert_string_equal(m.games[1], "carcassonne");
    proto_msg_free(&m);
    static const char *const bad_reg[][2] = {
        {"{\"type\":\"register\",\"name\":\"a b\",\"secret\":\"12345678\"}", "name may hold only"},
        {"{\"type\":\"register\",\"name\":\"a\",\"secret\":\"1234567\"}", "8 to 64"},
        {"{\"type\":\"register\",\"name\":\"a\",\"secret\":\"12345678\",\"capacity\":17}",
         "capacity must be 1 to 16"},
        {"{\"type\":\"register\",\"name\":\"a\",\"secret\":\"12345678\",\"games\":[]}",
         "games must have 1 to"},
        {"{\"type\":\"register\",\"name\":\"\",\"secret\":\"12345678\"}", "name must have"},
    };
    for (size_t i = 0; i < sizeof bad_reg / sizeof bad_reg[0]; i++)
        decode_err(bad_reg[i][0], strlen(bad_reg[i][0]), ENG_EBAD_MESSAGE, bad_reg[i][1]);

    decode_ok(full_tournament, &m);
    assert_int_equal(m.tour.format, PROTO_TOUR_ROUND_ROBIN);
    assert_int_equal(m.tour.nparticipants, 2);
    assert_int_equal(m.tour.games_per_pair, 4);
    assert_int_equal(m.tour.concurrency, 3);
    assert_true(m.tour.has_sprt);
    assert_string_equal(m.tour.sprt_model, "logistic");
    assert_true(m.tour.has_seed);
    assert_false(m.tour.registered);
    assert_string_equal(m.admin_token, "a1");
    proto_msg_free(&m);
    decode_ok("{\"type\":\"create_tournament\",\"format\":\"ladder\",\"game\":\"reversi\","
              "\"participants\":[]}",
              &m);
    assert_int_equal(m.tour.format, PROTO_TOUR_LADDER);
    assert_int_equal(m.tour.games_per_pair, 2);
    assert_int_equal(m.tour.cycles, 1);
    assert_int_equal(m.tour.concurrency, 2);
    assert_int_equal(m.tour.placement_games, 10);
    assert_true(m.tour.registered);
    assert_null(m.admin_token);
    proto_msg_free(&m);
    static const char *const bad_tour[][2] = {
        {"{\"type\":\"create_tournament\",\"format\":\"league\",\"game\":\"g\",\"participants\":[]"
         "}",
         "format must be one of round-robin, gauntlet, swiss, knockout, ladder"},
        {"{\"type\":\"create_tournament\",\"format\":\"swiss\",\"game\":\"g\",\"participants\":[],"
         "\"games_per_pair\":0}",
         "games_per_pair must be 1 to 100000, not 0"},
        {"{\"type\":\"create_tournament\",\"format\":\"swiss\",\"game\":\"g\","
         "\"participants\":[{\"name\":\"a\"}]}",
         "missing field \"spec\" in participants[0]"},
        {"{\"type\":\"create_tournament\",\"format\":\"swiss\",\"game\":\"g\",\"participants\":[],"
         "\"sprt\":{\"elo0\":0}}",
         "missing field \"elo1\" in sprt"},
        {"{\"type\":\"start_tournament\",\"tournament\":0}", "tournament must be 1 to"},
        {"{\"type\":\"watch_tournament\",\"tournament\":\"1\"}", "tournament must be an integer"},
    };
    for (size_t i = 0; i < sizeof bad_tour / sizeof bad_tour[0]; i++)
        decode_err(bad_tour[i][0], strlen(bad_tour[i][0]), ENG_EBAD_MESSAGE, bad_tour[i][1]);
    assert_string_equal(proto_tour_format_name(PROTO_TOUR_LADDER), "ladder");
    assert_string_equal(proto_tour_format_name(5), "unknown");
}

static void test_create_match_full(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok(full_create, &m);
    assert_int_equal(m.type, PROTO_CREATE_MATCH);
    assert_string_equal(m.game, "carcassonne");
    assert_non_null(m.rules);
    assert_ptr_equal(m.rules, json_object_get(m.root, "rules"));
    assert_int_equal(json_integer_value(json_object_get(m.rules, "players")), 2);
    assert_int_equal(m.nseats, 2);
    assert_false(m.seats[0].open);
    assert_string_equal(m.seats[0].bot, "mcts:sims=400");
    assert_string_equal(m.seats[0].name, "");
    assert_true(m.seats[1].open);
    assert_string_equal(m.seats[1].bot, "");
    assert_string_equal(m.seats[1].name, "alice");
    assert_int_equal(m.tc.move_ms, 5000);
    assert_int_equal(m.tc.first_move_ms, 30000);
    assert_int_equal(m.tc.bank_ms, 60000);
    assert_int_equal(m.tc.increment_ms, 1000);
    assert_int_equal(m.pol.timeout, PROTO_TIMEOUT_RANDOM);
    assert_int_equal(m.pol.illegal, PROTO_ILLEGAL_FORFEIT);
    assert_int_equal(m.pol.max_illegal, 7);
    assert_int_equal(m.pol.disconnect, PROTO_DISCONNECT_RANDOM);
    assert_int_equal(m.pol.reconnect_grace_ms, 45000);
    assert_int_equal(m.pol.grace_ms, 2000);
    assert_int_equal(m.pol.info, PROTO_INFO_DELAYED);
    proto_msg_free(&m);
}

static void test_create_match_defaults(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"create_match\",\"game\":\"reversi\","
              "\"seats\":[{\"bot\":\"random\",\"name\":\"r\"},{\"open\":true}]}",
              &m);
    assert_string_equal(m.game, "reversi");
    assert_null(m.rules);
    assert_null(m.id);
    assert_int_equal(m.nseats, 2);
    assert_string_equal(m.seats[0].bot, "random");
    assert_string_equal(m.seats[0].name, "r");
    assert_true(m.seats[1].open);
    assert_string_equal(m.seats[1].name, "");
    assert_int_equal(m.tc.move_ms, 10000);
    assert_int_equal(m.tc.first_move_ms, 30000);
    assert_int_equal(m.tc.bank_ms, 0);
    assert_int_equal(m.tc.increment_ms, 0);
    assert_int_equal(m.pol.timeout, PROTO_TIMEOUT_FORFEIT);
    assert_int_equal(m.pol.illegal, PROTO_ILLEGAL_REJECT);
    assert_int_equal(m.pol.max_illegal, 3);
    assert_int_equal(m.pol.disconnect, PROTO_DISCONNECT_FORFEIT);
    assert_int_equal(m.pol.reconnect_grace_ms, 30000);
    assert_int_equal(m.pol.grace_ms, 10000);
    assert_int_equal(m.pol.info, PROTO_INFO_LIVE);
    proto_msg_free(&m);

    /* Empty objects mean "all defaults" too. */
    decode_ok("{\"type\":\"create_match\",\"game\":\"reversi\",\"rules\":{},"
              "\"seats\":[{\"open\":true}],\"time_control\":{},\"policies\":{}}",
              &m);
    assert_non_null(m.rules);
    assert_int_equal(m.nseats, 1);
    assert_int_equal(m.tc.move_ms, 10000);
    assert_int_equal(m.tc.first_move_ms, 30000);
    assert_int_equal(m.pol.max_illegal, 3);
    proto_msg_free(&m);
}

static void test_first_move_default(void **state)
{
    (void)state;
    static const struct {
        const char *tc;
        long long first;
    } cases[] = {
        {"{\"move_ms\":5000}", 15000},
        {"{\"move_ms\":1}", 3},
        {"{\"move_ms\":28800000}", 86400000},  /* exactly a third of a day */
        {"{\"move_ms\":28800001}", 86400000},  /* capped */
        {"{\"move_ms\":86400000}", 86400000},  /* capped */
        {"{\"move_ms\":5000,\"first_move_ms\":1000}", 1000}, /* given: taken as is */
        {"{\"first_move_ms\":86400000}", 86400000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"type\":\"create_match\",\"game\":\"reversi\",\"seats\":[{\"bot\":\"random\"}],"
                 "\"time_control\":%s}",
                 cases[i].tc);
        proto_msg m;
        decode_ok(text, &m);
        assert_int_equal(m.tc.first_move_ms, cases[i].first);
        proto_msg_free(&m);
    }
}

static void test_create_match_limits(void **state)
{
    (void)state;
    char name[PROTO_NAME_MAX + 1], spec[PROTO_SPEC_MAX + 1];
    memset(name, '~', PROTO_NAME_MAX);
    name[PROTO_NAME_MAX] = 0;
    memset(spec, 's', PROTO_SPEC_MAX);
    spec[PROTO_SPEC_MAX] = 0;
    char *text = malloc(4096);
    assert_non_null(text);
    snprintf(text, 4096,
             "{\"type\":\"create_match\",\"game\":\"%s\",\"seats\":[{\"bot\":\"%s\",\"name\":\"%s\"},"
             "{\"open\":true,\"name\":\" \"},{\"bot\":\"a\"},{\"bot\":\"b\"},{\"open\":true}]}",
             name, spec, name);
    proto_msg m;
    decode_ok(text, &m);
    assert_int_equal(m.nseats, ENG_MAX_PLAYERS);
    assert_string_equal(m.game, name);
    assert_string_equal(m.seats[0].bot, spec);
    assert_string_equal(m.seats[0].name, name);
    assert_string_equal(m.seats[1].name, " ");
    assert_true(m.seats[4].open);
    proto_msg_free(&m);
    free(text);
}

static void test_join(void **state)
{
    (void)state;
    char token[PROTO_TOKEN_MAX + 1], match[PROTO_MATCH_ID_MAX + 1], text[512];
    memset(token, 'T', PROTO_TOKEN_MAX);
    token[PROTO_TOKEN_MAX] = 0;
    memset(match, '-', PROTO_MATCH_ID_MAX);
    match[PROTO_MATCH_ID_MAX] = 0;
    for (int seat = 0; seat < ENG_MAX_PLAYERS; seat++) {
        snprintf(text, sizeof text,
                 "{\"type\":\"join\",\"match\":\"%s\",\"seat\":%d,\"token\":\"%s\",\"id\":%d}", match,
                 seat, token, seat * 10);
        proto_msg m;
        decode_ok(text, &m);
        assert_int_equal(m.type, PROTO_JOIN);
        assert_string_equal(m.match, match);
        assert_int_equal(m.seat, seat);
        assert_string_equal(m.token, token);
        assert_int_equal(json_integer_value(m.id), seat * 10);
        proto_msg_free(&m);
    }
}

static void test_spectate(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"spectate\",\"match\":\"m7k2q9\"}", &m);
    assert_int_equal(m.type, PROTO_SPECTATE);
    assert_string_equal(m.match, "m7k2q9");
    proto_msg_free(&m);
    decode_ok("{\"type\":\"unspectate\",\"match\":\"A_b-9\"}", &m);
    assert_int_equal(m.type, PROTO_UNSPECTATE);
    assert_string_equal(m.match, "A_b-9");
    proto_msg_free(&m);
}

static void test_move(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"move\",\"match\":\"m7k2q9\",\"turn\":13,"
              "\"move\":{\"x\":1,\"y\":0,\"rot\":1,\"meeple\":\"S\"}}",
              &m);
    assert_int_equal(m.type, PROTO_MOVE);
    assert_string_equal(m.match, "m7k2q9");
    assert_true(m.has_turn);
    assert_int_equal(m.turn, 13);
    assert_ptr_equal(m.move, json_object_get(m.root, "move"));
    assert_int_equal(json_integer_value(json_object_get(m.move, "rot")), 1);
    proto_msg_free(&m);

    decode_ok("{\"type\":\"move\",\"move\":{\"move\":\"pass\"}}", &m);
    assert_null(m.match);
    assert_false(m.has_turn);
    assert_string_equal(json_string_value(json_object_get(m.move, "move")), "pass");
    proto_msg_free(&m);

    decode_ok("{\"type\":\"move\",\"turn\":9223372036854775807,\"move\":{}}", &m);
    assert_true(m.turn == INT64_MAX);
    assert_false(m.has_think_ms);
    proto_msg_free(&m);

    /* contract 2: the client's own measure of its thinking, optional */
    decode_ok("{\"type\":\"move\",\"think_ms\":0,\"move\":{}}", &m);
    assert_true(m.has_think_ms);
    assert_int_equal(m.think_ms, 0);
    proto_msg_free(&m);
    decode_ok("{\"type\":\"move\",\"think_ms\":86400000,\"move\":{}}", &m);
    assert_true(m.has_think_ms);
    assert_int_equal(m.think_ms, 86400000);
    proto_msg_free(&m);
}

static void test_resign_resume(void **state)
{
    (void)state;
    proto_msg m;
    decode_ok("{\"type\":\"resign\",\"match\":\"m7k2q9\"}", &m);
    assert_int_equal(m.type, PROTO_RESIGN);
    assert_string_equal(m.match, "m7k2q9");
    proto_msg_free(&m);
    decode_ok("{\"type\":\"resign\"}", &m);
    assert_null(m.match);
    proto_msg_free(&m);
    decode_ok("{\"type\":\"resume\",\"resume_token\":\"r_8WJ2\",\"id\":\"x\"}", &m);
    assert_int_equal(m.type, PROTO_RESUME);
    assert_string_equal(m.resume_token, "r_8WJ2");
    assert_null(m.match);
    proto_msg_free(&m);
}

/* ---- limits and errors -------------------------------------------------- */

static void test_id_limits(void **state)
{
    (void)state;
    /* 64 characters of 3 bytes each (U+2603) are fine; 65 are not. */
    char text[512];
    size_t o = (size_t)snprintf(text, sizeof text, "{\"type\":\"ping\",\"id\":\"");
    for (int i = 0; i < 64; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "\xe2\x98\x83");
    snprintf(text + o, sizeof text - o, "\"}");
    proto_msg m;
    decode_ok(text, &m);
    assert_int_equal(json_string_length(m.id), 192);
    proto_msg_free(&m);
    o = strlen(text) - 2;
    snprintf(text + o, sizeof text - o, "\xe2\x98\x83\"}");
    decode_err(text, strlen(text), ENG_EBAD_MESSAGE, "id is too long (65 characters");
    /* An empty id is still an id. */
    decode_ok("{\"type\":\"ping\",\"id\":\"\"}", &m);
    assert_string_equal(json_string_value(m.id), "");
    proto_msg_free(&m);
}

static void test_size_limit(void **state)
{
    (void)state;
    size_t cap = PROTO_MAX_MESSAGE + 2;
    char *buf = malloc(cap);
    assert_non_null(buf);
    static const char msg[] = "{\"type\":\"ping\"}";
    memset(buf, ' ', cap);
    memcpy(buf, msg, strlen(msg));
    proto_msg m;
    char err[128];
    assert_int_equal(proto_decode(buf, PROTO_MAX_MESSAGE, &m, NULL, err, sizeof err), 0);
    proto_msg_free(&m);
    decode_err(buf, PROTO_MAX_MESSAGE + 1, ENG_ETOO_LARGE, "65537 bytes");
    /* The size is checked before anything is parsed: garbage is too large too. */
    memset(buf, 0xff, cap);
    decode_err(buf, cap, ENG_ETOO_LARGE, NULL);
    free(buf);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* Far past jansson's depth limit, but within the size limit. */
    enum { DEPTH = 30000 };
    char *buf = malloc(2 * DEPTH + 64);
    assert_non_null(buf);
    memset(buf, '[', DEPTH);
    memset(buf + DEPTH, ']', DEPTH);
    decode_err(buf, 2 * DEPTH, ENG_EBAD_JSON, "nested deeper");
    /* Unclosed, and inside a message with an id: still bad_json, no id. */
    size_t o = (size_t)sprintf(buf, "{\"id\":1,\"type\":\"move\",\"move\":");
    memset(buf + o, '{', DEPTH);
    proto_msg m;
    json_t *id = NULL;
    char err[128];
    assert_int_equal(proto_decode(buf, o + DEPTH, &m, &id, err, sizeof err), ENG_EBAD_JSON);
    assert_null(id);
    /* Just under the limit inside move: decodes, the server's codec decides. */
    o = (size_t)sprintf(buf, "{\"type\":\"move\",\"move\":{\"a\":");
    memset(buf + o, '[', 2000);
    memset(buf + o + 2000, ']', 2000);
    memcpy(buf + o + 4000, "}}", 2);
    assert_int_equal(proto_decode(buf, o + 4002, &m, NULL, err, sizeof err), 0);
    proto_msg_free(&m);
    free(buf);
}

static void test_id_echo(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int code;
        const char *id; /* JSON of the id that must come back, or NULL */
    } cases[] = {
        {"{\"type\":\"join\",\"id\":\"q1\"}", ENG_EBAD_MESSAGE, "\"q1\""},
        {"{\"type\":\"dance\",\"id\":5}", ENG_EUNKNOWN_TYPE, "5"},
        {"{\"id\":\"t\"}", ENG_EBAD_MESSAGE, "\"t\""},
        {"{\"type\":\"hello\",\"protocol\":3,\"id\":[1]}", ENG_EBAD_MESSAGE, NULL},
        {"{\"type\":\"hello\",\"protocol\":3,\"id\":\"v3\"}", ENG_EBAD_VERSION, "\"v3\""},
        {"{\"type\":\"ping\",\"id\":1.0}", ENG_EBAD_MESSAGE, NULL},
        {"{\"type\":\"ping\",\"id\":\"x\",}", ENG_EBAD_JSON, NULL},
        {"[{\"type\":\"ping\",\"id\":\"x\"}]", ENG_EBAD_JSON, NULL},
        {"{\"type\":\"move\",\"id\":\"z\",\"move\":{},\"turn\":0}", ENG_EBAD_MESSAGE, "\"z\""},
        {"{\"type\":\"create_match\",\"id\":99,\"game\":\"g\",\"seats\":[{\"open\":false}]}",
         ENG_EBAD_MESSAGE, "99"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        proto_msg m;
        json_t *id = (json_t *)&m;
        char err[256];
        int rc = proto_decode(cases[i].text, strlen(cases[i].text), &m, &id, err, sizeof err);
        if (rc != cases[i].code)
            fail_msg("%s: got %s (%s)", cases[i].text, eng_err_code(rc), err);
        if (!cases[i].id) {
            assert_null(id);
            continue;
        }
        json_t *want = json_loads(cases[i].id, JSON_DECODE_ANY, NULL);
        assert_non_null(want);
        if (!id || !json_equal(id, want))
            fail_msg("%s: the id did not come back", cases[i].text);
        /* A new reference that outlives the message. */
        assert_int_equal(id->refcount, 1);
        json_decref(want);
        json_decref(id);
    }
    /* On success id_out is NULL and the id is m.id. */
    proto_msg m;
    json_t *id = (json_t *)&m;
    static const char ping3[] = "{\"type\":\"ping\",\"id\":3}";
    assert_int_equal(proto_decode(ping3, strlen(ping3), &m, &id, NULL, 0), 0);
    assert_null(id);
    assert_int_equal(json_integer_value(m.id), 3);
    proto_msg_free(&m);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char err[64];
    assert_int_equal(proto_decode("{}", 2, NULL, NULL, err, sizeof err), ENG_EINVAL);
    proto_msg m;
    assert_int_equal(proto_decode(NULL, 5, &m, NULL, err, sizeof err), ENG_EINVAL);
    assert_int_equal(proto_decode(NULL, 0, &m, NULL, err, sizeof err), ENG_EBAD_JSON);
    /* No reason buffer at all. */
    assert_int_equal(proto_decode("{\"type\":1}", 10, &m, NULL, NULL, 0), ENG_EBAD_MESSAGE);
    /* A small buffer gets a cut, terminated reason. */
    char small[8];
    memset(small, 'x', sizeof small);
    assert_int_equal(proto_decode("{\"type\":1}", 10, &m, NULL, small, sizeof small),
                     ENG_EBAD_MESSAGE);
    assert_int_equal(strlen(small), sizeof small - 1);
    /* The length is honoured: what follows it is not read. */
    assert_int_equal(proto_decode("{\"type\":\"ping\"}garbage", 15, &m, NULL, err, sizeof err), 0);
    proto_msg_free(&m);
    proto_msg_free(NULL);
}

/* ---- replies and names -------------------------------------------------- */

static void test_error_reply(void **state)
{
    (void)state;
    json_t *id = json_string("7");
    json_t *r = proto_error(ENG_EILLEGAL_MOVE, "no tile at (3,-1) to attach to", id);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "type")), "error");
    assert_string_equal(json_string_value(json_object_get(r, "code")), "illegal_move");
    assert_string_equal(json_string_value(json_object_get(r, "message")),
                        "no tile at (3,-1) to attach to");
    assert_true(json_equal(json_object_get(r, "id"), id));
    assert_ptr_not_equal(json_object_get(r, "id"), id); /* a copy */
    assert_int_equal(json_object_size(r), 4);
    json_decref(r);
    json_decref(id);

    r = proto_error(ENG_EBAD_JSON, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(r, "message")),
                        eng_err_message(ENG_EBAD_JSON));
    assert_null(json_object_get(r, "id"));
    json_decref(r);
    /* A message that is not UTF-8 falls back to the table's. */
    r = proto_error(ENG_EBAD_MOVE, "bad \xff byte", NULL);
    assert_string_equal(json_string_value(json_object_get(r, "message")),
                        eng_err_message(ENG_EBAD_MOVE));
    json_decref(r);
    id = json_integer(-1);
    r = proto_error(ENG_ETOO_LARGE, "", id);
    json_decref(id);
    assert_string_equal(json_string_value(json_object_get(r, "code")), "message_too_large");
    assert_string_equal(json_string_value(json_object_get(r, "message")),
                        eng_err_message(ENG_ETOO_LARGE));
    assert_int_equal(json_integer_value(json_object_get(r, "id")), -1);
    json_decref(r);
}

static void test_reply(void **state)
{
    (void)state;
    json_t *id = json_integer(42);
    json_t *r = proto_reply("pong", id);
    assert_string_equal(json_string_value(json_object_get(r, "type")), "pong");
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 42);
    assert_int_equal(json_object_size(r), 2);
    json_decref(r);
    json_decref(id);
    r = proto_reply("welcome", NULL);
    assert_int_equal(json_object_size(r), 1);
    json_decref(r);
    assert_null(proto_reply(NULL, NULL));
}

static void test_names(void **state)
{
    (void)state;
    for (int t = 0; t < PROTO_NTYPES; t++) {
        assert_string_equal(proto_type_name((proto_type)t), client_types[t]);
        /* The name is what the decoder accepts as the type. */
        char text[128];
        snprintf(text, sizeof text, "{\"type\":\"%s\",\"colour\":1}", client_types[t]);
        char err[256];
        proto_msg m;
        assert_int_equal(proto_decode(text, strlen(text), &m, NULL, err, sizeof err),
                         ENG_EBAD_MESSAGE);
        char want[64];
        snprintf(want, sizeof want, "%s: unknown field \"colour\"", client_types[t]);
        assert_string_equal(err, want);
    }
    assert_string_equal(proto_type_name(PROTO_NTYPES), "unknown");
    assert_string_equal(proto_type_name((proto_type)-1), "unknown");
    assert_string_equal(proto_timeout_name(PROTO_TIMEOUT_FORFEIT), "forfeit");
    assert_string_equal(proto_timeout_name(PROTO_TIMEOUT_RANDOM), "random_move");
    assert_string_equal(proto_timeout_name(PROTO_TIMEOUT_GRACE), "grace");
    assert_string_equal(proto_timeout_name(3), "unknown");
    assert_string_equal(proto_illegal_name(PROTO_ILLEGAL_REJECT), "reject");
    assert_string_equal(proto_illegal_name(PROTO_ILLEGAL_FORFEIT), "forfeit");
    assert_string_equal(proto_illegal_name(PROTO_ILLEGAL_RANDOM), "random_move");
    assert_string_equal(proto_illegal_name(-1), "unknown");
    assert_string_equal(proto_disconnect_name(PROTO_DISCONNECT_FORFEIT), "forfeit");
    assert_string_equal(proto_disconnect_name(PROTO_DISCONNECT_RANDOM), "random_move");
    assert_string_equal(proto_disconnect_name(2), "unknown");
}

/* Every policy name the decoder reads comes back from the name functions. */
static void test_policy_round_trip(void **state)
{
    (void)state;
    static const char *const timeouts[] = {"forfeit", "random_move", "grace"};
    static const char *const illegals[] = {"reject", "forfeit", "random_move"};
    static const char *const disconnects[] = {"forfeit", "random_move"};
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"type\":\"create_match\",\"game\":\"g\",\"seats\":[{\"open\":true}],"
                 "\"policies\":{\"timeout\":\"%s\",\"illegal\":\"%s\",\"disconnect\":\"%s\"}}",
                 timeouts[i], illegals[i], disconnects[i % 2]);
        proto_msg m;
        decode_ok(text, &m);
        assert_string_equal(proto_timeout_name(m.pol.timeout), timeouts[i]);
        assert_string_equal(proto_illegal_name(m.pol.illegal), illegals[i]);
        assert_string_equal(proto_disconnect_name(m.pol.disconnect), disconnects[i % 2]);
        proto_msg_free(&m);
    }
}

/* ---- out of memory ------------------------------------------------------ */

static long alloc_budget = -1; /* allocations left before failing; -1: unlimited */

static void *failing_malloc(size_t n)
{
    if (alloc_budget == 0)
        return NULL;
    if (alloc_budget > 0)
        alloc_budget--;
    return malloc(n);
}

/* Every allocation jansson makes while decoding may fail: the decoder must
 * return an error with a reason (and leak nothing, which ASan and valgrind
 * check) or succeed. Regression: valgrind once found the reason chosen from
 * an uninitialised json_error_t, which jansson leaves unwritten when an
 * allocation fails early. */
static void test_out_of_memory(void **state)
{
    (void)state;
    json_set_alloc_funcs(failing_malloc, free);
    int failures = 0;
    int nomem = 0;
    for (long budget = 0; budget < 400; budget++) {
        alloc_budget = budget;
        proto_msg m;
        json_t *id = NULL;
        char err[256];
        int rc = proto_decode(full_create, strlen(full_create), &m, &id, err, sizeof err);
        if (rc == 0) {
            alloc_budget = -1;
            proto_msg_free(&m);
            break;
        }
        failures++;
        nomem += rc == ENG_ENOMEM;
        assert_true(rc == ENG_ENOMEM || rc == ENG_EBAD_JSON || rc == ENG_EBAD_MESSAGE);
        assert_true(err[0] != 0);
        assert_null(m.root);
        json_decref(id);
        /* The reply builders fail cleanly too. */
        alloc_budget = budget % 5;
        json_decref(proto_error(rc, err, NULL));
        alloc_budget = -1;
    }
    alloc_budget = -1;
    json_set_alloc_funcs(malloc, free);
    assert_true(failures > 10);
    assert_true(nomem > 0); /* budget 0 fails before jansson can say why */
}

/* ---- schemas ------------------------------------------------------------ */

static const char *const server_types[] = {
    "welcome",
    "pong",
    "games",
    "bots",
    "matches",
    "match_created",
    "joined",
    "spectating",
    "resumed",
    "move_accepted",
    "your_turn",
    "update",
    "seats",
    "game_over",
    "error",
    "unspectated",
    "resigned",
    "replayed",
    "stats",
    "record",
    "registered",
    "unregistered",
    "tournament_created",
    "tournament_state",
    "tournaments",
    "tournament",
    "tournament_update",
    "unwatched",
    "tournament_plots",
    "analysis",
    "thinking",
};
#define N_SERVER_TYPES (sizeof server_types / sizeof server_types[0])

static void check_schema_common(const char *name, json_t *s, bool client)
{
    if (!json_is_object(s))
        fail_msg("%s: not an object", name);
    assert_string_equal(json_string_value(json_object_get(s, "$schema")),
                        "https://json-schema.org/draft/2020-12/schema");
    assert_string_equal(json_string_value(json_object_get(s, "type")), "object");
    assert_true(json_is_string(json_object_get(s, "title")));
    assert_true(json_is_string(json_object_get(s, "description")));
    json_t *props = json_object_get(s, "properties");
    assert_true(json_is_object(props));
    json_t *type = json_object_get(props, "type");
    if (!type || !json_is_string(json_object_get(type, "const")) ||
        strcmp(json_string_value(json_object_get(type, "const")), name) != 0)
        fail_msg("%s: properties.type must be {\"const\":\"%s\"}", name, name);
    json_t *req = json_object_get(s, "required");
    assert_true(json_is_array(req));
    assert_string_equal(json_string_value(json_array_get(req, 0)), "type");
    size_t i;
    json_t *r;
    json_array_foreach(req, i, r)
    {
        if (!json_is_string(r) || !json_object_get(props, json_string_value(r)))
            fail_msg("%s: required names no property", name);
    }
    json_t *addl = json_object_get(s, "additionalProperties");
    if (client && !json_is_false(addl))
        fail_msg("%s: a client schema must say additionalProperties: false", name);
    if (!client && json_is_false(addl))
        fail_msg("%s: a server schema must allow additional properties", name);
    assert_non_null(json_object_get(props, "id"));
}

static void test_schema_files(void **state)
{
    (void)state;
    for (int t = 0; t < PROTO_NTYPES; t++) {
        json_t *s = load_schema(client_types[t]);
        check_schema_common(client_types[t], s, true);
        json_decref(s);
    }
    for (size_t i = 0; i < N_SERVER_TYPES; i++) {
        json_t *s = load_schema(server_types[i]);
        check_schema_common(server_types[i], s, false);
        json_decref(s);
    }
    /* Nothing else in the directory but the README. */
    char path[4096];
    snprintf(path, sizeof path, "%s/schema", docs_dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0)
            files++;
    }
    closedir(d);
    assert_int_equal(files, PROTO_NTYPES + (int)N_SERVER_TYPES);
}

/* A message of each type with every field the schema knows. */
static const char *const full_messages[PROTO_NTYPES] = {
    [PROTO_HELLO] = "{\"type\":\"hello\",\"id\":1,\"protocol\":1,\"client\":\"c\"}",
    [PROTO_PING] = "{\"type\":\"ping\",\"id\":1}",
    [PROTO_LIST_GAMES] = "{\"type\":\"list_games\",\"id\":1}",
    [PROTO_LIST_BOTS] = "{\"type\":\"list_bots\",\"id\":1}",
    [PROTO_LIST_MATCHES] = "{\"type\":\"list_matches\",\"id\":1,\"status\":\"live\"}",
    [PROTO_CREATE_MATCH] = full_create,
    [PROTO_JOIN] = "{\"type\":\"join\",\"id\":1,\"match\":\"m\",\"seat\":0,\"token\":\"t\"}",
    [PROTO_SPECTATE] = "{\"type\":\"spectate\",\"id\":1,\"match\":\"m\"}",
    [PROTO_UNSPECTATE] = "{\"type\":\"unspectate\",\"id\":1,\"match\":\"m\"}",
    [PROTO_MOVE] = "{\"type\":\"move\",\"id\":1,\"match\":\"m\",\"seat\":1,\"turn\":2,"
                   "\"think_ms\":5,\"move\":{},\"info\":{\"winprob\":0.5}}",
    [PROTO_RESIGN] = "{\"type\":\"resign\",\"id\":1,\"match\":\"m\",\"seat\":0}",
    [PROTO_RESUME] = "{\"type\":\"resume\",\"id\":1,\"resume_token\":\"r\"}",
    /* replay takes match or record, never both: its full form is checked
     * specially in test_schemas_match_decoder */
    [PROTO_REPLAY] = "{\"type\":\"replay\",\"id\":1,\"match\":\"m\"}",
    [PROTO_SERVER_STATS] = "{\"type\":\"server_stats\",\"id\":1}",
    [PROTO_GET_RECORD] = "{\"type\":\"get_record\",\"id\":1,\"match\":\"m\",\"admin_token\":\"a\"}",
    [PROTO_ANALYZE] = "{\"type\":\"analyze\",\"id\":1,\"match\":\"m\"}",
    [PROTO_INFO] = "{\"type\":\"info\",\"id\":1,\"match\":\"m\",\"seat\":0,\"turn\":3,\"score\":1.5,"
                   "\"winprob\":0.6,\"candidates\":[{\"move\":{\"move\":\"d3\"},\"visits\":9,"
                   "\"weight\":0.5,\"score\":1.5,\"winprob\":0.6}],\"pv\":[{\"move\":\"d3\"}],"
                   "\"iterations\":40,\"nodes\":30,\"depth\":2,\"elapsed_ms\":100,\"text\":\"t\"}",
    [PROTO_REGISTER] = "{\"type\":\"register\",\"id\":1,\"name\":\"n\",\"secret\":\"12345678\","
                       "\"capacity\":2,\"games\":[\"carcassonne\"]}",
    [PROTO_UNREGISTER] = "{\"type\":\"unregister\",\"id\":1}",
    [PROTO_CREATE_TOURNAMENT] = full_tournament,
    [PROTO_START_TOURNAMENT] =
        "{\"type\":\"start_tournament\",\"id\":1,\"tournament\":1,\"admin_token\":\"a\"}",
    [PROTO_PAUSE_TOURNAMENT] =
        "{\"type\":\"pause_tournament\",\"id\":1,\"tournament\":1,\"admin_token\":\"a\"}",
    [PROTO_CANCEL_TOURNAMENT] =
        "{\"type\":\"cancel_tournament\",\"id\":1,\"tournament\":1,\"admin_token\":\"a\"}",
    [PROTO_LIST_TOURNAMENTS] = "{\"type\":\"list_tournaments\",\"id\":1}",
    [PROTO_WATCH_TOURNAMENT] = "{\"type\":\"watch_tournament\",\"id\":1,\"tournament\":1}",
    [PROTO_UNWATCH_TOURNAMENT] = "{\"type\":\"unwatch_tournament\",\"id\":1,\"tournament\":1}",
    [PROTO_GET_TOURNAMENT_PLOTS] = "{\"type\":\"get_tournament_plots\",\"id\":1,\"tournament\":1}",
    [PROTO_COURSE_CREATE] =
        "{\"type\":\"course_create\",\"id\":1,\"admin_token\":\"a\",\"name\":\"n\",\"game\":\"g\","
        "\"rules\":{},\"gates\":[],\"move_ms\":1,\"qualify\":1,\"final_games\":2,\"deadline_ms\":0,"
        "\"seed\":1,\"remote_wait_ms\":1000,\"max_upload_bytes\":1,\"scrimmage\":\"class\"}",
    [PROTO_COURSE_ADD_STUDENTS] =
        "{\"type\":\"course_add_students\",\"id\":1,\"admin_token\":\"a\",\"course\":1,\"csv\":\"\"}",
    [PROTO_COURSE_SET_DEADLINE] = "{\"type\":\"course_set_deadline\",\"id\":1,\"admin_token\":\"a\","
                                  "\"course\":1,\"deadline_ms\":0,\"student\":\"s1\"}",
    [PROTO_COURSE_START_FINAL] = "{\"type\":\"course_start_final\",\"id\":1,\"admin_token\":\"a\","
                                 "\"course\":1,\"games_per_pair\":2,\"format\":\"swiss\","
                                 "\"rerun\":true}",
    [PROTO_COURSE_RERUN_GATES] = "{\"type\":\"course_rerun_gates\",\"id\":1,\"admin_token\":\"a\","
                                 "\"course\":1,\"gates\":[],\"qualify\":1,\"submission\":1}",
    [PROTO_COURSE_ARCHIVE] = "{\"type\":\"course_archive\",\"id\":1,\"admin_token\":\"a\","
                             "\"course\":1,\"archived\":true}",
    [PROTO_COURSE_DELETE] = "{\"type\":\"course_delete\",\"id\":1,\"admin_token\":\"a\","
                            "\"course\":1,\"confirm\":\"n\"}",
    [PROTO_COURSE_SETTINGS] = "{\"type\":\"course_settings\",\"id\":1,\"admin_token\":\"a\","
                              "\"course\":1,\"scrimmage\":\"off\",\"max_upload_bytes\":1}",
    [PROTO_COURSE_GRADES] =
        "{\"type\":\"course_grades\",\"id\":1,\"admin_token\":\"a\",\"course\":1}",
    [PROTO_COURSE_LIST] = "{\"type\":\"course_list\",\"id\":1,\"admin_token\":\"a\"}",
    [PROTO_COURSE_VIEW] =
        "{\"type\":\"course_view\",\"id\":1,\"admin_token\":\"a\",\"token\":\"t\",\"course\":1}",
    [PROTO_COURSE_GAME] =
        "{\"type\":\"course_game\",\"id\":1,\"admin_token\":\"a\",\"token\":\"t\",\"game\":1}",
    [PROTO_COURSE_CODE] =
        "{\"type\":\"course_code\",\"id\":1,\"admin_token\":\"a\",\"token\":\"t\",\"submission\":1}",
    [PROTO_COURSE_SUBMIT] = "{\"type\":\"course_submit\",\"id\":1,\"token\":\"t\",\"kind\":\"python\","
                            "\"main\":\"a.py\",\"files\":[],\"uploads\":[]}",
    [PROTO_COURSE_UPLOAD] = "{\"type\":\"course_upload\",\"id\":1,\"token\":\"t\",\"op\":\"begin\","
                            "\"name\":\"w.bin\",\"bytes\":3,\"sha256\":\"ab\",\"upload\":\"u\","
                            "\"offset\":0,\"data\":\"\"}",
};

static int decode_json(json_t *msg, char *err, size_t errcap)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    assert_non_null(text);
    proto_msg m;
    int rc = proto_decode(text, strlen(text), &m, NULL, err, errcap);
    if (rc == 0)
        proto_msg_free(&m);
    free(text);
    return rc;
}

static bool in_array(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

/* The keys of obj are exactly the properties of schema (an object schema). */
static void same_keys(const char *what, json_t *obj, json_t *schema)
{
    json_t *props = json_object_get(schema, "properties");
    assert_true(json_is_object(props));
    if (json_object_size(obj) != json_object_size(props))
        fail_msg("%s: %zu fields in the full message, %zu in the schema", what,
                 json_object_size(obj), json_object_size(props));
    const char *k;
    json_t *v;
    json_object_foreach(props, k, v)
    {
        if (!json_object_get(obj, k))
            fail_msg("%s: the schema knows \"%s\", the full message lacks it", what, k);
    }
}

/* For every integer property of schema (in container, part of msg) with a
 * minimum or maximum: the bounds decode, one past them does not. */
static void check_int_bounds(const char *what, json_t *msg, json_t *container, json_t *schema)
{
    json_t *props = json_object_get(schema, "properties");
    const char *k;
    json_t *p;
    char err[256];
    json_object_foreach(props, k, p)
    {
        json_t *ty = json_object_get(p, "type");
        if (!json_is_string(ty) || strcmp(json_string_value(ty), "integer") != 0)
            continue;
        json_t *saved = json_incref(json_object_get(container, k));
        json_t *lo = json_object_get(p, "minimum"), *hi = json_object_get(p, "maximum");
        if (lo) {
            json_int_t v = json_integer_value(lo);
            json_object_set_new(container, k, json_integer(v));
            if (decode_json(msg, err, sizeof err) != 0)
                fail_msg("%s.%s = minimum %lld refused: %s", what, k, (long long)v, err);
            if (v > INT64_MIN) {
                json_object_set_new(container, k, json_integer(v - 1));
                if (decode_json(msg, err, sizeof err) != ENG_EBAD_MESSAGE)
                    fail_msg("%s.%s = %lld accepted", what, k, (long long)v - 1);
            }
        }
        if (hi) {
            json_int_t v = json_integer_value(hi);
            json_object_set_new(container, k, json_integer(v));
            if (decode_json(msg, err, sizeof err) != 0)
                fail_msg("%s.%s = maximum %lld refused: %s", what, k, (long long)v, err);
            if (v < INT64_MAX) {
                json_object_set_new(container, k, json_integer(v + 1));
                if (decode_json(msg, err, sizeof err) != ENG_EBAD_MESSAGE)
                    fail_msg("%s.%s = %lld accepted", what, k, (long long)v + 1);
            }
        }
        json_object_set_new(container, k, saved);
    }
}

/* Every enum value of schema's properties decodes in container. */
static void check_enums(const char *what, json_t *msg, json_t *container, json_t *schema)
{
    json_t *props = json_object_get(schema, "properties");
    const char *k;
    json_t *p;
    char err[256];
    json_object_foreach(props, k, p)
    {
        json_t *en = json_object_get(p, "enum");
        if (!en)
            continue;
        json_t *saved = json_incref(json_object_get(container, k));
        size_t i;
        json_t *v;
        json_array_foreach(en, i, v)
        {
            json_object_set(container, k, v);
            if (decode_json(msg, err, sizeof err) != 0)
                fail_msg("%s.%s = %s refused: %s", what, k, json_string_value(v), err);
        }
        json_object_set_new(container, k, json_string("no_such_value"));
        if (decode_json(msg, err, sizeof err) != ENG_EBAD_MESSAGE)
            fail_msg("%s.%s: a value outside the enum was accepted", what, k);
        json_object_set_new(container, k, saved);
    }
}

/* The client schemas and the decoder agree on fields, required fields,
 * integer bounds and enum values. */
static void test_schemas_match_decoder(void **state)
{
    (void)state;
    for (int t = 0; t < PROTO_NTYPES; t++) {
        const char *name = client_types[t];
        if (t == PROTO_REPLAY || t == PROTO_ANALYZE) {
            /* exactly one of match and record: each form decodes, both or
             * neither do not, and the schema knows exactly these fields */
            json_t *s = load_schema(name);
            json_t *props = json_object_get(s, "properties");
            assert_int_equal(json_object_size(props), 4);
            assert_non_null(json_object_get(props, "match"));
            assert_non_null(json_object_get(props, "record"));
            char err[256], text[128];
            static const char *const ok[] = {
                "{\"type\":\"%s\",\"id\":1,\"match\":\"m\"}",
                "{\"type\":\"%s\",\"id\":1,\"record\":{}}",
            };
            static const char *const bad[] = {
                "{\"type\":\"%s\",\"id\":1}",
                "{\"type\":\"%s\",\"match\":\"m\",\"record\":{}}",
                "{\"type\":\"%s\",\"record\":[]}",
                "{\"type\":\"%s\",\"match\":\"a b\"}",
            };
            for (size_t i = 0; i < 2; i++) {
                snprintf(text, sizeof text, ok[i], name);
                json_t *msg = json_loads(text, 0, NULL);
                if (decode_json(msg, err, sizeof err) != 0)
                    fail_msg("%s form %zu refused: %s", name, i, err);
                json_decref(msg);
            }
            for (size_t i = 0; i < 4; i++) {
                snprintf(text, sizeof text, bad[i], name);
                json_t *msg = json_loads(text, 0, NULL);
                if (decode_json(msg, err, sizeof err) != ENG_EBAD_MESSAGE)
                    fail_msg("%s bad form %zu accepted", name, i);
                json_decref(msg);
            }
            json_decref(s);
            continue;
        }
        json_t *s = load_schema(name);
        json_t *msg = json_loads(full_messages[t], 0, NULL);
        assert_non_null(msg);
        char err[256];
        if (decode_json(msg, err, sizeof err) != 0)
            fail_msg("%s: the full message does not decode: %s", name, err);
        same_keys(name, msg, s);

        /* Leave out each field in turn. */
        json_t *req = json_object_get(s, "required");
        const char *k;
        json_t *v, *tmp;
        json_object_foreach_safe(msg, tmp, k, v)
        {
            json_t *copy = json_deep_copy(msg);
            json_object_del(copy, k);
            int rc = decode_json(copy, err, sizeof err);
            char want[64];
            snprintf(want, sizeof want, "missing field \"%s\"", k);
            if (in_array(req, k) && (rc != ENG_EBAD_MESSAGE || !strstr(err, want)))
                fail_msg("%s without required %s: got %s (%s)", name, k, eng_err_code(rc), err);
            if (!in_array(req, k) && rc != 0)
                fail_msg("%s without optional %s: %s", name, k, err);
            json_decref(copy);
        }
        check_int_bounds(name, msg, msg, s);
        check_enums(name, msg, msg, s);

        if (t == PROTO_CREATE_MATCH) {
            json_t *defs = json_object_get(s, "$defs");
            static const char *const nested[] = {"time_control", "policies"};
            for (int i = 0; i < 2; i++) {
                json_t *sub = json_object_get(defs, nested[i]);
                json_t *obj = json_object_get(msg, nested[i]);
                assert_true(json_is_false(json_object_get(sub, "additionalProperties")));
                same_keys(nested[i], obj, sub);
                check_int_bounds(nested[i], msg, obj, sub);
                check_enums(nested[i], msg, obj, sub);
            }
            /* Seat entries: bot, open, name; closed. */
            json_t *seat = json_object_get(defs, "seat");
            json_t *all = json_pack("{s:s, s:b, s:s}", "bot", "x", "open", 1, "name", "n");
            same_keys("seat", all, seat);
            assert_true(json_is_false(json_object_get(seat, "additionalProperties")));
            json_decref(all);
        }
        if (t == PROTO_CREATE_TOURNAMENT) {
            json_t *defs = json_object_get(s, "$defs");
            static const char *const nested[] = {"time_control", "policies", "sprt"};
            for (int i = 0; i < 3; i++) {
                json_t *sub = json_object_get(defs, nested[i]);
                json_t *obj = json_object_get(msg, nested[i]);
                assert_true(json_is_false(json_object_get(sub, "additionalProperties")));
                same_keys(nested[i], obj, sub);
                check_int_bounds(nested[i], msg, obj, sub);
                check_enums(nested[i], msg, obj, sub);
            }
            json_t *part = json_object_get(defs, "participant");
            json_t *first = json_array_get(json_object_get(msg, "participants"), 0);
            same_keys("participant", first, part);
            assert_true(json_is_false(json_object_get(part, "additionalProperties")));
        }
        json_decref(msg);
        json_decref(s);
    }
}

/* The defaults the schemas document are the ones the decoder fills in. */
static void test_schema_defaults(void **state)
{
    (void)state;
    json_t *s = load_schema("create_match");
    json_t *defs = json_object_get(s, "$defs");
    proto_msg m;
    decode_ok("{\"type\":\"create_match\",\"game\":\"g\",\"seats\":[{\"open\":true}]}", &m);
    json_t *tcp = json_object_get(json_object_get(defs, "time_control"), "properties");
    json_t *pp = json_object_get(json_object_get(defs, "policies"), "properties");
#define DEF(props, key) json_object_get(json_object_get(props, key), "default")
    assert_int_equal(json_integer_value(DEF(tcp, "move_ms")), m.tc.move_ms);
    assert_int_equal(json_integer_value(DEF(tcp, "bank_ms")), m.tc.bank_ms);
    assert_int_equal(json_integer_value(DEF(tcp, "increment_ms")), m.tc.increment_ms);
    assert_string_equal(json_string_value(DEF(pp, "timeout")), proto_timeout_name(m.pol.timeout));
    assert_string_equal(json_string_value(DEF(pp, "illegal")), proto_illegal_name(m.pol.illegal));
    assert_string_equal(json_string_value(DEF(pp, "disconnect")),
                        proto_disconnect_name(m.pol.disconnect));
    assert_int_equal(json_integer_value(DEF(pp, "max_illegal")), m.pol.max_illegal);
    assert_int_equal(json_integer_value(DEF(pp, "reconnect_grace_ms")), m.pol.reconnect_grace_ms);
    assert_int_equal(json_integer_value(DEF(pp, "grace_ms")), m.pol.grace_ms);
    assert_string_equal(json_string_value(DEF(pp, "info")), proto_info_name(m.pol.info));
#undef DEF
    proto_msg_free(&m);
    json_decref(s);

    s = load_schema("list_matches");
    decode_ok("{\"type\":\"list_matches\"}", &m);
    json_t *st = json_object_get(json_object_get(s, "properties"), "status");
    assert_string_equal(json_string_value(json_object_get(st, "default")), "all");
    assert_int_equal(m.status, PROTO_LIST_ALL);
    proto_msg_free(&m);
    json_decref(s);
}

/* ---- docs/protocol.md --------------------------------------------------- */

/* Length of the JSON object starting at s[0] == '{' (strings honoured), or
 * 0 if it does not close. */
static size_t object_extent(const char *s)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; s[i]; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\' && s[i + 1])
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '{') {
            depth++;
        } else if (ch == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* Every example of a client message in the doc (fenced blocks and inline
 * code alike: anything that starts {"type":"<client type>") decodes, and
 * every client type has at least one example. */
static void test_doc_examples(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/protocol.md", docs_dir);
    char *doc = case_slurp(path, NULL);
    if (!doc)
        fail_msg("cannot read %s", path);
    int count[PROTO_NTYPES] = {0};
    int total = 0;
    for (const char *p = strstr(doc, "{\"type\":\""); p; p = strstr(p + 1, "{\"type\":\"")) {
        const char *tname = p + 9;
        int t = 0;
        while (t < PROTO_NTYPES && !(strncmp(tname, client_types[t], strlen(client_types[t])) == 0 &&
                                     tname[strlen(client_types[t])] == '"'))
            t++;
        if (t == PROTO_NTYPES)
            continue; /* a server message */
        size_t n = object_extent(p);
        if (!n)
            fail_msg("protocol.md: unclosed example at '%.40s'", p);
        proto_msg m;
        char err[256];
        int rc = proto_decode(p, n, &m, NULL, err, sizeof err);
        if (rc != 0)
            fail_msg("protocol.md example %.*s does not decode: %s (%s)", (int)n, p,
                     eng_err_code(rc), err);
        assert_int_equal(m.type, t);
        proto_msg_free(&m);
        count[t]++;
        total++;
    }
    for (int t = 0; t < PROTO_NTYPES; t++)
        if (count[t] == 0)
            fail_msg("protocol.md has no example of %s", client_types[t]);
    assert_true(total >= PROTO_NTYPES);
    free(doc);
}

/* ---- the fuzz seed corpus ----------------------------------------------- */

static void test_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(corpus_dir);
    if (!d)
        fail_msg("cannot open %s", corpus_dir);
    int seen[PROTO_NTYPES] = {0}, ok = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, e->d_name);
        size_t len;
        char *buf = case_slurp(path, &len);
        assert_non_null(buf);
        proto_msg m;
        char err[256];
        int rc = proto_decode(buf, len, &m, NULL, err, sizeof err);
        if (strncmp(e->d_name, "ok-", 3) == 0) {
            if (rc != 0)
                fail_msg("%s: %s (%s)", e->d_name, eng_err_code(rc), err);
            seen[m.type]++;
            ok++;
            proto_msg_free(&m);
        } else if (strncmp(e->d_name, "bad-", 4) == 0) {
            if (rc == 0)
                fail_msg("%s decodes", e->d_name);
            bad++;
        } else {
            fail_msg("%s: a seed is named ok-* or bad-*", e->d_name);
        }
        free(buf);
    }
    closedir(d);
    for (int t = 0; t < PROTO_NTYPES; t++)
        if (!seen[t])
            fail_msg("the corpus has no valid %s", client_types[t]);
    assert_true(bad >= 3);
    assert_true(ok >= PROTO_NTYPES);
}

/* The wire's own codes (protocol/errors.h) come after the engine's, each
 * with a wire string no code of either table shares, found again from it. */
/* Where each message is answered on several servers (proto_route_of),
 * against what its schema says it names: a message about one match goes to
 * the match's owner, one about a tournament to the server that runs it, the
 * courses to the coordinator. A new family that names a match and forgets
 * its route is caught here, not by a cluster that answers it wrongly. */
static void test_routes(void **state)
{
    (void)state;
    for (int t = 0; t < PROTO_NTYPES; t++) {
        const char *name = client_types[t];
        json_t *s = load_schema(name);
        json_t *props = json_object_get(s, "properties");
        proto_route r = proto_route_of((proto_type)t);
        if (proto_is_course((proto_type)t))
            assert_int_equal(r, PROTO_ROUTE_COORDINATOR);
        else if (json_object_get(props, "tournament"))
            assert_int_equal(r, PROTO_ROUTE_TOURNAMENT);
        else if (json_object_get(props, "match") && strcmp(name, "analyze") != 0) {
            /* (analyze reads the journal, or the record it carries: any server answers it,
             * docs/analysis.md) */
            if (r != PROTO_ROUTE_MATCH && r != PROTO_ROUTE_SEAT)
                fail_msg("%s names a match but is routed %d", name, (int)r);
        } else if (strcmp(name, "resume") == 0)
            assert_int_equal(r, PROTO_ROUTE_RESUME);
        else if (strcmp(name, "create_match") == 0)
            assert_int_equal(r, PROTO_ROUTE_CREATE);
        else if (strcmp(name, "register") == 0 || strcmp(name, "unregister") == 0 ||
                 strcmp(name, "create_tournament") == 0)
            assert_int_equal(r, PROTO_ROUTE_COORDINATOR);
        else if (r != PROTO_ROUTE_HERE)
            fail_msg("%s names nothing another server holds but is routed %d", name, (int)r);
        json_decref(s);
    }
    assert_int_equal(proto_route_of(PROTO_NTYPES), PROTO_ROUTE_HERE);
}

static void test_wire_error_table(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *wire, *msg;
    } rows[] = {
#define ROW_(name, wire, msg) {WIRE_E##name, wire, msg},
        WIRE_ERR_MAP(ROW_)
#undef ROW_
    };
    const int n = (int)(sizeof rows / sizeof rows[0]);
    assert_int_equal(WIRE_ERR_COUNT, ENG_ERR_COUNT + n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(rows[i].code, -(ENG_ERR_COUNT + 1 + i));
        assert_string_equal(wire_err_code(rows[i].code), rows[i].wire);
        assert_string_equal(wire_err_message(rows[i].code), rows[i].msg);
        assert_int_equal(wire_err_from_code(rows[i].wire), rows[i].code);
        /* the engine does not know it, and names none of its codes so */
        assert_string_equal(eng_err_code(rows[i].code), "unknown_error");
        assert_int_equal(eng_err_from_code(rows[i].wire), 0);
    }
    /* every code of both tables: one wire string each */
    for (int a = -1; a >= -WIRE_ERR_COUNT; a--) {
        const char *wa = wire_err_code(a);
        assert_string_not_equal(wa, "unknown_error");
        assert_int_equal(wire_err_from_code(wa), a);
        for (int b = a - 1; b >= -WIRE_ERR_COUNT; b--)
            assert_string_not_equal(wa, wire_err_code(b));
    }
    assert_string_equal(wire_err_code(ENG_EILLEGAL_MOVE), "illegal_move");
    assert_string_equal(wire_err_code(-WIRE_ERR_COUNT - 1), "unknown_error");
    assert_string_equal(wire_err_code(1), "unknown_error");
    assert_int_equal(wire_err_from_code("no_such_code"), 0);
    /* an error reply carries the string */
    json_t *e = proto_error(WIRE_ESEAT_TAKEN, NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(e, "code")), "seat_taken");
    json_decref(e);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DOCS_DIR CORPUS_DIR\n", argv[0]);
        return 2;
    }
    docs_dir = argv[1];
    corpus_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello),
        cmocka_unit_test(test_bare_messages),
        cmocka_unit_test(test_list_matches),
        cmocka_unit_test(test_create_match_full),
        cmocka_unit_test(test_create_match_defaults),
        cmocka_unit_test(test_first_move_default),
        cmocka_unit_test(test_create_match_limits),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_spectate),
        cmocka_unit_test(test_move),
        cmocka_unit_test(test_resign_resume),
        cmocka_unit_test(test_id_limits),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_id_echo),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_error_reply),
        cmocka_unit_test(test_reply),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_policy_round_trip),
        cmocka_unit_test(test_register_and_tournaments),
        cmocka_unit_test(test_course_messages),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_schema_files),
        cmocka_unit_test(test_schemas_match_decoder),
        cmocka_unit_test(test_schema_defaults),
        cmocka_unit_test(test_doc_examples),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_wire_error_table),
        cmocka_unit_test(test_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
