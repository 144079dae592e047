/*
 * sandbox_start.c — what starting an untrusted program costs (bench/README.md,
 * "Program start-up"): a course's gates start hundreds of them, and a
 * stateless program one per turn.
 *
 * Each round starts the program in the sandbox (players/sandbox.h), writes
 * one `your_turn` line and reads the first line it answers — start to first
 * reply, the program's own start-up included — then ends it (destroy: the
 * kill, the reaping, the cgroup removed). Prints the median, the min and the
 * max of both, in ms, and a JSON line.
 *
 * Usage: tessera-sandbox-start [-n ROUNDS] [-w WARMUP] COMMAND...
 *   e.g. tessera-sandbox-start -n 50 build/tests/stdio_bot
 * It uses only the parts of the sandbox's interface that have not changed
 * (sandbox_cmd_parse, sandbox_start, sandbox_send, sandbox_read_line,
 * sandbox_destroy), so that the same file built against an older tree
 * measures the older sandbox: run the two alternately and compare medians.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "players/sandbox.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = 20, warmup = 2, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
            warmup = atoi(argv[++i]);
        else
            break;
    }
    if (i >= argc || rounds < 1 || rounds > 10000 || warmup < 0) {
        fprintf(stderr, "usage: %s [-n ROUNDS] [-w WARMUP] COMMAND...\n", argv[0]);
        return 2;
    }
    char line[4096] = "";
    for (size_t o = 0; i < argc; i++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", o ? " " : "", argv[i]);
    sandbox_cmd cmd;
    char err[1024];
    if (sandbox_cmd_parse(line, NULL, &cmd, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double *reply = malloc(sizeof(double) * (size_t)rounds);
    double *end = malloc(sizeof(double) * (size_t)rounds);
    const char *ask = "{\"type\":\"your_turn\",\"game\":\"reversi\",\"turn\":1,\"seat\":0,"
                      "\"time_left_ms\":10000,\"legal\":[{\"x\":3,\"y\":2},{\"x\":2,\"y\":3}],\"state\":{\"board\":"
                      "\"...........................OX......XO...........................\","
                      "\"to_move\":0}}\n";
    for (int r = -warmup; r < rounds; r++) {
        double t0 = now_ms();
        sandbox *s = sandbox_start(&cmd, NULL, NULL, err, sizeof err);
        if (!s) {
            fprintf(stderr, "start: %s\n", err);
            return 1;
        }
        sandbox_send(s, ask, strlen(ask));
        const char *got;
        size_t len;
        sandbox_event ev = sandbox_read_line(s, t0 + 30000, NULL, &got, &len);
        double t1 = now_ms();
        if (ev != SANDBOX_LINE) {
            char tail[8192];
            sandbox_stderr_take(s, tail, sizeof tail, NULL);
            fprintf(stderr, "no reply (event %d): %s\n", (int)ev, tail);
            return 1;
        }
        sandbox_destroy(s, 0);
        double t2 = now_ms();
        if (r >= 0) {
            reply[r] = t1 - t0;
            end[r] = t2 - t1;
        }
    }
    qsort(reply, (size_t)rounds, sizeof *reply, cmp);
    qsort(end, (size_t)rounds, sizeof *end, cmp);
    printf("%d starts of %s\n", rounds, line);
    printf("start to first reply: median %.2f ms (min %.2f, max %.2f)\n", reply[rounds / 2],
           reply[0], reply[rounds - 1]);
    printf("end (kill, reap, clean): median %.2f ms (min %.2f, max %.2f)\n", end[rounds / 2],
           end[0], end[rounds - 1]);
    printf("{\"rounds\":%d,\"reply_median_ms\":%.3f,\"reply_min_ms\":%.3f,\"reply_max_ms\":%.3f,"
           "\"end_median_ms\":%.3f}\n",
           rounds, reply[rounds / 2], reply[0], reply[rounds - 1], end[rounds / 2]);
    free(reply);
    free(end);
    return 0;
}
