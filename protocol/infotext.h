/*
 * infotext.h — the info message (protocol/info.h) read from its text, without
 * a JSON tree: the common line of a searching bot, read and written back in
 * its canonical form at a fraction of the cost of jansson's tree and
 * info_read() (bench/README.md, "the relay's cost": parsing the message into
 * a tree and freeing it was over half of what a line cost the server).
 *
 * Why a reader of our own here, where the guide prefers a library: a bot
 * sends a line every 100-250 ms of its thinking, to every spectator of
 * every match, and the bound is that relaying them costs a move
 * under 10% more. The reader is deliberately narrow and strict: it takes
 * the documented shape written plainly — known fields only, each at most
 * once, strings of printable ASCII without escapes, numbers in range,
 * integers of at most 18 digits, nesting at most 16 deep — and declines
 * everything else, which then goes the general way (jansson, info_read())
 * and gets exactly the verdict and the reasons it always had. Declining
 * costs a second read of a line that is unusual or bad; it never changes
 * an answer. tests/protocol/test_info_text.c holds both ways to the same
 * verdicts and bytes over the info cases, the fuzz corpus and generated
 * lines; tests/fuzz/fuzz_info.c does the same on whatever it finds.
 *
 * Two steps, as the server needs them: info_parse() reads the text alone
 * (the envelope — type, match, seat, turn — and the values; no position
 * needed), so the connection's match can be found; info_write() then checks
 * the moves against the position and writes the canonical text, the bytes
 * jt_dump() writes of info_read()'s canonical object. A candidate's move is
 * checked by the game's codec once per distinct text and position
 * (info_moves: a bot names the same moves line after line in a turn).
 */
#ifndef TESSERA_PROTOCOL_INFOTEXT_H
#define TESSERA_PROTOCOL_INFOTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "protocol/codec.h"
#include "protocol/info.h"
#include "protocol/jsontext.h"
#include "protocol/messages.h"

#define INFO_TEXT_DEPTH 16 /* nesting read here; deeper goes the general way */
#define INFO_MOVES_KEPT 32 /* move texts remembered per position: 8 candidates of 4 lines */

typedef struct info_span {
    uint32_t at, len; /* bytes [at, at + len) of the message */
} info_span;

/* What info_parse() read; the `has` bits say which fields were there. */
enum {
    INFO_HAS_MATCH = 1u << 0,
    INFO_HAS_SEAT = 1u << 1,
    INFO_HAS_TURN = 1u << 2,
    INFO_HAS_SCORE = 1u << 3,
    INFO_HAS_WINPROB = 1u << 4,
    INFO_HAS_CANDIDATES = 1u << 5,
    INFO_HAS_PV = 1u << 6,
    INFO_HAS_ITERATIONS = 1u << 7,
    INFO_HAS_NODES = 1u << 8,
    INFO_HAS_DEPTH = 1u << 9,
    INFO_HAS_ELAPSED = 1u << 10,
    INFO_HAS_TEXT = 1u << 11,
    INFO_HAS_TYPE = 1u << 12,
    /* a candidate's */
    INFO_HAS_MOVE = 1u << 13,
    INFO_HAS_VISITS = 1u << 14,
    INFO_HAS_WEIGHT = 1u << 15,
};

typedef struct info_cand {
    unsigned has;        /* INFO_HAS_MOVE, _VISITS, _WEIGHT, _SCORE, _WINPROB */
    info_span move;      /* the move object's text */
    long long visits;    /* 0..1e15 */
    double weight;       /* 0..1e15 */
    double score;        /* -INFO_MAX_SCORE..INFO_MAX_SCORE */
    double winprob;      /* 0..1 */
} info_cand;

typedef struct info_parsed {
    const char *buf;     /* the message (borrowed: valid as long as the caller keeps it) */
    size_t len;
    unsigned has;        /* INFO_HAS_* */
    char match[33];      /* the match id, NUL-terminated, when INFO_HAS_MATCH */
    int seat;            /* 0..ENG_MAX_PLAYERS - 1 */
    long long turn;      /* >= 1 */
    double score, winprob;
    int ncand;
    info_cand cand[INFO_MAX_CANDIDATES];
    int npv;             /* the pv's moves read (at most INFO_MAX_PV: the rest is only checked as JSON) */
    info_span pv[INFO_MAX_PV];
    long long iterations, nodes, depth, elapsed_ms;
    info_span text;      /* the text's characters, without the quotes */
} info_parsed;

/* Read buf[0..len) as an info message {"type":"info",...} written plainly
 * (above). Returns 0 and fills *p (which borrows buf), or 1: not read here —
 * not an info message, or one to read the general way (proto_decode or
 * stdio_decode, then info_read) — with *p unspecified. Never an error of
 * its own: whatever is wrong is for the general way to say. */
int info_parse(const char *buf, size_t len, info_parsed *p);

/* The body a move carries in "info" (docs/protocol.md, "A move that
 * carries its line"): buf[0..len) as the fields of an info message without
 * its envelope ("type", "match", "seat": the move's; "turn" may be given),
 * written plainly. 0 and *p, or 1: read it the general way
 * (info_body_check, then info_read). */
int info_parse_body(const char *buf, size_t len, info_parsed *p);

/* A move message that carries its line, split in one read: buf[0..len) a
 * {"type":"move",...,"info":{...}} written plainly (its other members as
 * plain as the reader takes, any order). Returns 0: *p is the body read
 * plainly (info_parse_body's, borrowing buf) and rest[0..*restlen) the
 * message without its "info" member, for proto_decode (restcap bytes at
 * most); or 1: not such a message, or not plainly — decode the whole
 * message (proto_decode reads "info" as any JSON value). Never a verdict:
 * a move without "info" is declined too. */
int info_move_split(const char *buf, size_t len, char *rest, size_t restcap, size_t *restlen,
                    info_parsed *p);

/* The envelope p read (type info, match, seat, turn), as proto_decode
 * reads it into *m (the rest zero, no root): test_info_text holds the two
 * to the same. */
void info_envelope(const info_parsed *p, proto_msg *m);

/* The move texts checked at one position (caller-owned; zero it to init),
 * and the legal moves' texts there when the caller has them written
 * (info_moves_legal). */
typedef struct info_moves {
    /* what a line looks at first, in one cache line (the entries after it
     * are for moves that are not the legal ones' texts) */
    uint64_t key;                 /* the caller's name for the position (0: none yet) */
    int nlegal;                   /* the legal moves' texts kept (-1: none) */
    int legal_cap;
    uint32_t (*legal)[2];         /* each one's [at, len) in text (owned) */
    int n;
    textbuf text;
    struct {
        uint32_t hash;            /* of the move's text as it came */
        uint32_t src_at, src_len; /* it, in text */
        uint32_t at, len;         /* its canonical text, in text */
        int nmv;                  /* engine moves it stands for; -1: the codec refused it */
        eng_move mv[ENG_MAX_TURN_MOVES];
    } e[INFO_MOVES_KEPT];
} info_moves;

/* The entries are about the position named key (nonzero): forgotten when it
 * changes. */
void info_moves_at(info_moves *mc, uint64_t key);
void info_moves_free(info_moves *mc);
/* Append the codec's legal moves at the position named key (legal, the
 * array c->legal(st) returned, borrowed) to out, the bytes jt_dump writes,
 * and, when mc, keep each entry's text in mc (once per position): a
 * candidate written as one of them is legal and canonical as it is,
 * without the codec (found by its bytes). Only for a codec whose entries
 * are moves (no pick_entry): test_info_text holds each entry to be the
 * codec's canonical text of its move. Returns 0, or -1 when out ran out of
 * memory (mc then keeps nothing for key). */
int info_legal_dump(textbuf *out, const json_t *legal, info_moves *mc, uint64_t key);
/* The same for a codec that writes its legal moves as text (its
 * legal_text, at st; max: the game's max_moves), no JSON array built. */
int info_legal_write(textbuf *out, const game_codec *c, const void *st, int max, info_moves *mc,
                     uint64_t key);

/* Check p against st, where the seat to move is the one that sent it, and
 * append the canonical text to out: the bytes jt_dump() writes of
 * info_read()'s *out for the same message, without "turn" unless
 * with_turn. mc (may be NULL) remembers move texts checked at st: st must
 * be the position mc's key names. Returns 0; or 1 (out is then as it was)
 * when the general way must read it: a move the codec refuses or does not
 * write back as it came in the cache's words, no seat to move, memory. */
int info_write(const eng_game *g, const game_codec *c, const void *st, const info_parsed *p,
               info_moves *mc, bool with_turn, textbuf *out);

/* The record's line from a canonical info text (info_write's or jt_dump of
 * info_read's): without turn, nodes, depth and text, the first `cands`
 * candidates and the first `pv` moves; appended to out. Returns 1 when it
 * is the line as it came (nothing left out: out holds a copy), 0 when
 * shorter, -1 when memory ran out. The text must be canonical (it is
 * trusted: ours). */
int info_compact(const char *canon, size_t len, int cands, int pv, textbuf *out);

/* Is what info_write() writes of p without the turn its own record line,
 * info_compact()'s with cands and pv (nothing it would cut)? */
bool info_parsed_compact(const info_parsed *p, int cands, int pv);

/* The spectators' message about a line, {"type":"thinking","match","seat",
 * "turn","info":LINE} (docs/protocol.md), up to the line: appended to b,
 * the caller appends the line and the closing brace. 0, or -1 (memory). */
int info_thinking_head(textbuf *b, const char *match, int seat, int turn);

/* The record lines of a match's turns, all in one block (a turn costs no
 * allocation of its own: a thousand live matches' lines among the relay's
 * short-lived blocks spread the heap, bench/README.md). Zero it to init. A
 * line replaced (its turn played again after the journal refused it)
 * leaves its bytes in the block: rare, and freed with the match. */
typedef struct info_turns {
    uint32_t *at; /* at[t - 1]: where turn t's line is in text, plus one (0: none) */
    int n;
    textbuf text; /* the lines, each NUL-terminated */
} info_turns;

/* A line is appended to it->text after info_turns_begin's mark, then made
 * turn t's (t >= 1) by info_turns_end: its text (valid until the next
 * change of it), or NULL when memory ran out (the block as it was). The
 * block grows four times over when it has less than INFO_TURNS_ROOM left
 * (each growth copies it: a thousand matches' blocks, cold). */
#define INFO_TURNS_ROOM 1024
size_t info_turns_begin(info_turns *it);
const char *info_turns_end(info_turns *it, int turn, size_t mark);
/* Turn t's line, or NULL. */
const char *info_turns_get(const info_turns *it, int turn);
void info_turns_free(info_turns *it);

#endif
