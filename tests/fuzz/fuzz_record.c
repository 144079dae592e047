/*
 * fuzz_record.c — libFuzzer target for the game-record reader.
 *
 * Feeds arbitrary bytes to rec_replay_buffer(), the entry point for records
 * from files and the network. The reader must never crash, read out of
 * bounds, leak or trip UBSan, whatever the input; ASan/UBSan (the fuzz build
 * is configured with TESSERA_SANITIZE=ON) turn any such bug into a crash
 * libFuzzer reports. Beyond "no crash", the target checks the reader's own
 * contract: a failure has a code from engine/errors.h, a reason, a turn
 * number within the turns checked + 1; a success reports sane scores. A
 * broken contract aborts, so the fuzzer keeps the input.
 *
 * Build and run: scripts/fuzz.sh [SECONDS] record.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Count the callbacks: turns must arrive in order, 1, 2, 3, ... */
static void on_turn(void *ud, int turn, const json_t *turn_json, const void *state)
{
    int *next = ud;
    if (turn != *next || !json_is_object(turn_json) || !state)
        abort();
    (*next)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rec_replay out;
    int next = 1;
    int rc = rec_replay_buffer((const char *)data, size, on_turn, &next, &out);
    if (rc > 0 || strcmp(eng_err_code(rc), "unknown_error") == 0)
        abort();
    if (strnlen(out.reason, sizeof out.reason) == sizeof out.reason)
        abort(); /* the reason must be NUL-terminated */
    if (rc != 0) {
        if (!out.reason[0] || out.bad_turn < 0 || out.bad_turn > out.turns + 1)
            abort();
    } else {
        if (!out.game || out.bad_turn != 0 || next != out.turns + 1)
            abort();
        for (int p = 0; p < out.rules.players; p++)
            if (out.scores[p] < 0 || out.scores[p] > 1000)
                abort();
    }
    return 0;
}
