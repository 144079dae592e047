/*
 * codec.h — one game's JSON, everywhere it crosses a process boundary: the
 * wire protocol (docs/protocol.md: the game's entry in `games`, the public
 * state, the legal moves, a seat's move) and game records (docs/records.md:
 * one turn). Each game provides one `game_codec` in one file,
 * protocol/games/<game>.c, and one line in the registry
 * (protocol/games/registry.c); generic code (record.c, wire.c, stdio.c, the
 * server, the clients) finds it by the game's registry name and never reads
 * a game's JSON back or names its pieces.
 *
 * A protocol move is a whole turn of one seat: every consecutive decision of
 * that seat (Carcassonne: placement, then meeple) in one JSON object. A
 * record turn is a whole turn too, the chance outcome that starts it
 * included (engine/eng.h, "A turn"). The public state never contains hidden
 * information (Carcassonne's bag is sent as counts per tile type).
 *
 * Error convention (docs/records.md): a turn whose JSON shape is wrong
 * (unknown key, wrong type, missing key) is ENG_EBAD_RECORD; a value of the
 * right type that names nothing (tile "Z", rot 7, square "z9") is
 * ENG_EBAD_MOVE; a well-formed turn or move that breaks the rules is
 * ENG_EILLEGAL_MOVE. Reasons go to err without a "turn N: " prefix.
 */
#ifndef TESSERA_PROTOCOL_CODEC_H
#define TESSERA_PROTOCOL_CODEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "protocol/jsontext.h"

typedef struct game_codec {
    const char *game; /* eng_game name */

    /* ---- the wire protocol ---- */
    /* Static description of the game for `games` (e.g. the tile model);
     * new reference, NULL if nothing beyond the generic fields. May be NULL. */
    json_t *(*info)(void);
    /* Public state (new reference). */
    json_t *(*state)(const void *st);
    /* Legal protocol moves of the seat to move (new reference, an array).
     * An entry is a move, or stands for several (pick_entry). */
    json_t *(*legal)(const void *st);
    /* Read a protocol move (borrowed) for the seat to move in st into the
     * engine moves it stands for (at most the game's turn_decisions),
     * checking it against the rules on a copy. Returns the number of moves,
     * or ENG_EBAD_MOVE (unreadable) / ENG_EILLEGAL_MOVE with a reason. */
    int (*parse_move)(const void *st, const json_t *move, eng_move *out, char *err, size_t errcap);
    /* The protocol move standing for engine moves[0..n) from st (new reference). */
    json_t *(*format_move)(const void *st, const eng_move *moves, int n);
    /* Optional: the legal moves in protocol 2's compact form
     * (docs/protocol.md), new reference, an array. NULL: `legal` is compact
     * already. */
    json_t *(*legal_compact)(const void *st);
    /* Optional: the same array as legal_compact, written as text into out
     * (what jt_dump of legal_compact's array writes), without building it:
     * the server writes every your_turn with it. Returns 0, or -1 when out
     * ran out of memory. */
    int (*legal_compact_text)(const void *st, textbuf *out);
    /* Optional: legal's array written as text into out, exactly what
     * jt_dump of legal(st) writes, without building it (the server writes
     * every your_turn of the game with it), and each entry's place when
     * spans is not NULL: spans[i] = {its offset from the array's '[', its
     * length} for the first cap entries. Returns the number of entries, or
     * -1 when out ran out of memory. NULL: the server dumps legal's array. */
    int (*legal_text)(const void *st, textbuf *out, uint32_t (*spans)[2], int cap);
    /* Optional: protocol 2's change (protocol/delta.h) from the public state
     * of `from` to that of `to`, written as text into out: exactly the text
     * of delta_diff(state(from), state(to)), computed from the engine states
     * without building either JSON state. `to` is a later position of
     * `from`'s game. Returns 0; 1 when it cannot tell (nothing written: diff
     * the JSON); -1 when out ran out of memory. NULL: the server diffs the
     * JSON states. */
    int (*change)(const void *from, const void *to, textbuf *out);
    /* Optional: a move made from one entry of `legal` (borrowed) that
     * stands for several moves, one of them picked uniformly with rng
     * (Carcassonne: an entry lists the meeple ports its placement allows;
     * one of them or none). New reference. NULL: every entry is a move. */
    json_t *(*pick_entry)(const json_t *entry, eng_rng *rng);
    /* Optional: the public chance outcome the seat whose turn st belongs to
     * faces (Carcassonne, after the draw: {"tile":"V"}), as fields added to
     * an update's `next` ({"seat": 1, "tile": "V"}); new reference, or NULL
     * (and NULL slot) when there is none. */
    json_t *(*next_chance)(const void *st);
    /* Optional: the update's `reason` for a turn of a chance outcome alone,
     * one that left its seat nothing to decide (Carcassonne: "dead tile", a
     * tile that fits nowhere). NULL: "no decision". Use codec_no_decision(). */
    const char *no_decision;

    /* ---- game records ---- */
    /* Encode the turn that starts at moves[*pos] in state st (the game is
     * not over). Applies the turn's moves to st, advances *pos past them
     * and returns a new reference to the turn object. The moves are checked
     * for legality all the same: on an illegal move or a turn cut short by
     * the end of moves[0..n), returns NULL with a reason in err (st is then
     * unspecified). A turn cut short also sets *cut to true (it is left
     * alone otherwise), so that a caller can tell a match that stopped
     * inside a turn (a resignation while a seat held its drawn tile) from
     * moves that are wrong. */
    json_t *(*encode_turn)(void *st, const eng_move *moves, int n, int *pos, bool *cut, char *err,
                           size_t errcap);
    /* Check one turn object (borrowed) against the rules in state st, which
     * is not over, and apply it. Returns 0, or ENG_EBAD_RECORD /
     * ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE with a reason in err (st is then
     * unspecified). Never trusts anything in the turn. When `moves` is not
     * NULL, the engine moves the turn applied (chance outcomes included) are
     * written to moves[0..*nmoves), at most ENG_MAX_TURN_MOVES. */
    int (*apply_turn)(void *st, const json_t *turn, eng_move *moves, int *nmoves, char *err,
                      size_t errcap);
} game_codec;

/* The codec of the game registered as `game`, or NULL (also for NULL). */
const game_codec *codec_find(const char *game);
/* Every registered codec, in registry order; *n gets the count. */
const game_codec *const *codec_all(int *n);
/* The reason of a turn without a decision (c->no_decision or "no decision"). */
const char *codec_no_decision(const game_codec *c);

#endif
