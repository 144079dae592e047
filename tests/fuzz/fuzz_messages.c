/*
 * fuzz_messages.c — libFuzzer target for the client-message decoder.
 *
 * Feeds arbitrary bytes to proto_decode(), the first thing the server does
 * with every WebSocket text message. The decoder must never crash, read out
 * of bounds, leak or trip UBSan, whatever the input; ASan/UBSan (the fuzz
 * build is configured with TESSERA_SANITIZE=ON) turn any such bug into a
 * crash libFuzzer reports. Beyond "no crash", the target checks the
 * decoder's contract (messages.h) and aborts when it is broken, so the
 * fuzzer keeps the input:
 *   - a failure is one of the documented codes, with a non-empty printable
 *     ASCII reason, nothing left owned, and an echoed id (if any) that is a
 *     string or an integer; the error reply can be built and serialised;
 *   - a success holds every documented range (seat 0..4, 1..5 seats, times
 *     within a day, known enum values, ...) and is stable: the message
 *     serialised again by jansson decodes to the same type.
 *
 * Build and run: scripts/fuzz.sh [SECONDS] (every target) — see
 * tests/fuzz/CMakeLists.txt.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
    if (!ok)
        abort();
}

static bool printable(const char *s, size_t max)
{
    size_t n = strnlen(s, max + 1);
    if (n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

static bool ident(const char *s, size_t max)
{
    if (!s || !*s || strlen(s) > max)
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
           strlen(s);
}

static bool ms(int64_t v, int64_t lo)
{
    return v >= lo && v <= PROTO_MAX_MS;
}

/* The ranges a decoded message promises. */
static void check_message(const proto_msg *m)
{
    check(m->root && json_is_object(m->root));
    check((unsigned)m->type < PROTO_NTYPES);
    check(!m->id || json_is_string(m->id) || json_is_integer(m->id));
    switch (m->type) {
    case PROTO_HELLO:
        check(m->protocol >= PROTO_VERSION && m->protocol <= PROTO_VERSION_MAX);
        check(!m->client || (*m->client && printable(m->client, PROTO_NAME_MAX)));
        break;
    case PROTO_LIST_MATCHES:
        check(m->status >= PROTO_LIST_ALL && m->status <= PROTO_LIST_FINISHED);
        break;
    case PROTO_JOIN:
        check(ident(m->match, PROTO_MATCH_ID_MAX) && ident(m->token, PROTO_TOKEN_MAX));
        check(m->seat >= 0 && m->seat < ENG_MAX_PLAYERS);
        break;
    case PROTO_SPECTATE:
    case PROTO_UNSPECTATE: check(ident(m->match, PROTO_MATCH_ID_MAX)); break;
    case PROTO_MOVE:
        check(json_is_object(m->move));
        check(!m->has_turn || m->turn >= 1);
        check(!m->match || ident(m->match, PROTO_MATCH_ID_MAX));
        break;
    case PROTO_RESIGN: check(!m->match || ident(m->match, PROTO_MATCH_ID_MAX)); break;
    case PROTO_RESUME: check(ident(m->resume_token, PROTO_TOKEN_MAX)); break;
    case PROTO_CREATE_MATCH:
        check(m->game && *m->game && printable(m->game, PROTO_NAME_MAX));
        check(!m->rules || json_is_object(m->rules));
        check(m->nseats >= 1 && m->nseats <= ENG_MAX_PLAYERS);
        for (int i = 0; i < m->nseats; i++) {
            const proto_seat_spec *s = &m->seats[i];
            check(printable(s->name, PROTO_NAME_MAX) && printable(s->bot, PROTO_SPEC_MAX));
            check(s->open ? s->bot[0] == 0 : s->bot[0] != 0);
        }
        check(ms(m->tc.move_ms, PROTO_MIN_MOVE_MS) && ms(m->tc.first_move_ms, PROTO_MIN_MOVE_MS));
        check(ms(m->tc.bank_ms, 0) && ms(m->tc.increment_ms, 0));
        check(m->pol.timeout >= 0 && m->pol.timeout <= PROTO_TIMEOUT_GRACE);
        check(m->pol.illegal >= 0 && m->pol.illegal <= PROTO_ILLEGAL_RANDOM);
        check(m->pol.disconnect >= 0 && m->pol.disconnect <= PROTO_DISCONNECT_RANDOM);
        check(m->pol.max_illegal >= 1 && m->pol.max_illegal <= PROTO_MAX_ILLEGAL);
        check(ms(m->pol.reconnect_grace_ms, 0) && ms(m->pol.grace_ms, 0));
        break;
    default: break;
    }
    json_t *r = proto_reply(proto_type_name(m->type), m->id);
    check(r != NULL);
    json_decref(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    proto_msg m;
    json_t *id = NULL;
    char err[256];
    int rc = proto_decode((const char *)data, size, &m, &id, err, sizeof err);
    check(strnlen(err, sizeof err) < sizeof err);
    check(size <= PROTO_MAX_MESSAGE || rc == ENG_ETOO_LARGE);
    if (rc != 0) {
        check(rc == ENG_ETOO_LARGE || rc == ENG_EBAD_JSON || rc == ENG_EBAD_MESSAGE ||
              rc == ENG_EUNKNOWN_TYPE || rc == ENG_EBAD_VERSION || rc == ENG_ENOMEM);
        check(err[0] && printable(err, sizeof err - 1));
        check(m.root == NULL && m.id == NULL);
        check(!id || json_is_string(id) || json_is_integer(id));
        json_t *reply = proto_error(rc, err, id);
        check(reply != NULL);
        char *text = json_dumps(reply, JSON_COMPACT);
        check(text != NULL);
        free(text);
        json_decref(reply);
        json_decref(id);
        return 0;
    }
    check(id == NULL && err[0] == 0);
    check_message(&m);

    /* Stable under re-serialisation: what jansson writes back decodes the
     * same way (unless reals grew it past the size limit). */
    char *again = json_dumps(m.root, JSON_COMPACT);
    check(again != NULL);
    size_t n = strlen(again);
    if (n <= PROTO_MAX_MESSAGE) {
        proto_msg m2;
        int rc2 = proto_decode(again, n, &m2, NULL, err, sizeof err);
        check(rc2 == 0 && m2.type == m.type && m2.nseats == m.nseats);
        proto_msg_free(&m2);
    }
    free(again);
    proto_msg_free(&m);
    return 0;
}
