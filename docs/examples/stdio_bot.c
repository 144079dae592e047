/*
 * stdio_bot.c — a tessera bot in C (C99, no library), for the stdio protocol
 * of docs/stdio.md: one JSON object per line on stdin, one per line on stdout.
 *
 * It plays any game without knowing its rules: on `your_turn` it copies a
 * random entry of `legal` into its move, unchanged (tessera accepts an entry
 * of `legal` as the move it describes). It reads no JSON beyond finding
 * that array and the bounds of its entries: tessera writes compact JSON
 * with "type" first.
 *
 *   cc -O2 -o stdio_bot docs/examples/stdio_bot.c
 *   tessera match "cmd:./stdio_bot" heuristic
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The end of the JSON value starting at p (an object or array): the
 * character after its closing bracket. Strings may hold brackets. */
static const char *value_end(const char *p)
{
    int depth = 0, in_string = 0;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    srand((unsigned)time(NULL));
    while (getline(&line, &cap, stdin) > 0) {
        if (strncmp(line, "{\"type\":\"your_turn\"", 19) != 0)
            continue; /* start, update, game_over, error: nothing to do */
        const char *legal = strstr(line, "\"legal\":[");
        if (!legal)
            continue;
        const char *entry[1024], *end[1024];
        int n = 0;
        for (const char *p = legal + 9; *p == '{' && n < 1024; n++) {
            entry[n] = p;
            end[n] = value_end(p);
            if (!end[n])
                break;
            p = *end[n] == ',' ? end[n] + 1 : end[n];
        }
        if (n == 0)
            continue;
        int k = rand() % n;
        printf("{\"type\":\"move\",\"move\":%.*s}\n", (int)(end[k] - entry[k]), entry[k]);
        fflush(stdout); /* the move must leave now */
        fprintf(stderr, "played entry %d of %d\n", k + 1, n);
    }
    free(line);
    return 0;
}
