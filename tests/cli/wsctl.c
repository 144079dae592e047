/*
 * wsctl.c — a tiny WebSocket control client for the integration tests
 * (tests/cli/botclient.sh): says hello to a tessera server, sends the JSON
 * messages given on the command line, and prints every reply, one JSON
 * object per line, exactly as received.
 *
 *   wsctl URL [--until TYPE] [--timeout-ms MS] JSON...
 *
 * Without --until it stops after one reply per message sent; with it, at
 * the first message of that type (e.g. `--until game_over` after a
 * spectate). Exit status: 0 done, 1 connection failure or timeout, 2 usage.
 * The WebSocket work is client/'s botclient_exchange (only server/ and
 * client/ include libwebsockets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/botclient.h"

int main(int argc, char **argv)
{
    const char *url = NULL, *until = NULL;
    long long timeout_ms = 10000;
    const char **msgs = calloc((size_t)argc, sizeof *msgs);
    int n = 0;
    if (!msgs)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--until") == 0 && i + 1 < argc) {
            until = argv[++i];
        } else if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc) {
            timeout_ms = atoll(argv[++i]);
        } else if (!url) {
            url = argv[i];
        } else {
            msgs[n++] = argv[i];
        }
    }
    if (!url) {
        fprintf(stderr, "usage: wsctl URL [--until TYPE] [--timeout-ms MS] JSON...\n");
        free(msgs);
        return 2;
    }
    int rc = botclient_exchange(url, msgs, n, until, timeout_ms, stdout);
    free(msgs);
    return rc;
}
