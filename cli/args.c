/*
 * args.c — the argument helpers every subcommand shares (cli.h): usage
 * errors, integers, seeds, a game and its rules from --players and --rule,
 * a program's spec from the words after `--`, the monotonic clock. The floor under the cmd_*.c files: it calls none of
 * them, nor main.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "protocol/record.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tessera %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `tessera %s --help`)\n", cmd);
    return CLI_USAGE;
}

int cli_int(const char *cmd, const char *opt, const char *val, long long min, long long max,
            long long *out)
{
    char *end;
    long long v;
    /* digits with an optional sign: no spaces, nothing after, no overflow */
    if (!val || !(isdigit((unsigned char)val[0]) || ((val[0] == '-' || val[0] == '+') &&
                                                     isdigit((unsigned char)val[1]))))
        goto bad;
    errno = 0;
    v = strtoll(val, &end, 10);
    if (*end || errno == ERANGE || v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    cli_usage_error(cmd, "%s needs an integer from %lld to %lld, got '%s'", opt, min, max,
                    val ? val : "");
    return -1;
}

int cli_seed(const char *cmd, const char *val, uint64_t *out)
{
    char *end;
    if (val && isdigit((unsigned char)val[0])) {
        errno = 0;
        unsigned long long v = strtoull(val, &end, 10);
        if (!*end && errno != ERANGE) {
            *out = v;
            return 0;
        }
    }
    cli_usage_error(cmd, "--seed needs a non-negative integer of at most 18446744073709551615, got '%s'", val ? val : "");
    return -1;
}

const eng_game *cli_game(const char *cmd, const char *name)
{
    const eng_game *g = eng_find_game(name);
    if (g)
        return g;
    int n;
    const eng_game *const *all = eng_games(&n);
    fprintf(stderr, "tessera %s: unknown game '%s'; games:", cmd, name ? name : "");
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s", all[i]->name);
    fprintf(stderr, "\n");
    return NULL;
}

int cli_rule(const char *cmd, const eng_game *g, eng_rules *r, const char *kv)
{
    char err[160];
    if (eng_rules_set(g, r, kv, err, sizeof err) != 0) {
        cli_usage_error(cmd, "%s", err);
        return -1;
    }
    return 0;
}

const eng_game *cli_game_rules(const char *cmd, const char *name, const char *players,
                               const char *const *rules_kv, int nrules, eng_rules *rules)
{
    const eng_game *g = cli_game(cmd, name);
    if (!g)
        return NULL;
    eng_rules_default(g, rules);
    if (players) {
        long long v;
        if (cli_int(cmd, "--players", players, g->min_players, g->max_players, &v))
            return NULL;
        rules->players = (int32_t)v;
    }
    for (int i = 0; i < nrules; i++)
        if (cli_rule(cmd, g, rules, rules_kv[i]))
            return NULL;
    if (cli_rules_check(cmd, g, rules))
        return NULL;
    return g;
}

int cli_game_opts_rule(const char *cmd, cli_game_opts *o, const char *kv)
{
    if (o->nrules == CLI_MAX_RULES) {
        cli_usage_error(cmd, "more than %d --rule options", CLI_MAX_RULES);
        return -1;
    }
    o->rules_kv[o->nrules++] = kv;
    return 0;
}

const eng_game *cli_game_operand(const char *cmd, int argc, char **argv, int first,
                                 const cli_game_opts *o, eng_rules *rules)
{
    if (first >= argc) {
        cli_usage_error(cmd, "which game? (see `tessera games`)");
        return NULL;
    }
    if (argc - first > 1) {
        cli_usage_error(cmd, "unexpected argument '%s'", argv[first + 1]);
        return NULL;
    }
    return cli_game_rules(cmd, argv[first], o->players, o->rules_kv, o->nrules, rules);
}

int cli_rules_check(const char *cmd, const eng_game *g, const eng_rules *r)
{
    char err[160];
    if (eng_rules_check(g, r, err, sizeof err) != 0) {
        cli_usage_error(cmd, "%s", err);
        return -1;
    }
    return 0;
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cli_program_spec(const char *cmd, char **words, int n, bool stateless, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "%s", stateless ? "cmd-stateless:" : "cmd:");
    for (int i = 0; i < n; i++) {
        if (!words[i][0] || strpbrk(words[i], " \t\n\r"))
            return cli_usage_error(cmd,
                                   "the program's arguments cannot be empty or hold spaces (they "
                                   "are passed without a shell), got '%s'",
                                   words[i]);
        int k = snprintf(out + o, cap - o, "%s%s", i ? " " : "", words[i]);
        if (k < 0 || (size_t)k >= cap - o)
            return cli_usage_error(cmd, "the program's command is longer than %zu bytes", cap - 1);
        o += (size_t)k;
    }
    return 0;
}

/* Read all of f, up to REC_MAX_BYTES + 1 bytes (one more than a record may
 * hold, to tell "too large" apart), into a new buffer (*len bytes). Returns
 * the buffer or NULL on a read error / no memory (errno). */
static char *read_capped(FILE *f, size_t *len)
{
    size_t cap = (size_t)REC_MAX_BYTES + 1;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t n = 0;
    while (n < cap) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

int cli_read_record(const char *path, char **buf, size_t *len, const char **why)
{
    bool is_stdin = strcmp(path, "-") == 0;
    struct stat sb;
    FILE *f = stdin;
    *buf = NULL;
    *why = NULL;
    if (!is_stdin) {
        if (stat(path, &sb) != 0)
            *why = strerror(errno);
        else if (S_ISDIR(sb.st_mode))
            *why = "is a directory, not a record file";
        else if (!(f = fopen(path, "rb")))
            *why = strerror(errno);
        if (*why)
            return CLI_USAGE;
    }
    errno = 0;
    *buf = read_capped(f, len);
    int read_errno = errno;
    if (!is_stdin)
        fclose(f);
    if (!*buf) {
        *why = strerror(read_errno ? read_errno : EIO);
        return CLI_FAIL;
    }
    return CLI_OK;
}

const char *cli_record_operand(const char *cmd, int argc, char **argv, int first)
{
    if (first >= argc) {
        cli_usage_error(cmd, "which record? (a file, or '-' for standard input)");
        return NULL;
    }
    if (argc - first > 1) {
        cli_usage_error(cmd, "unexpected argument '%s'", argv[first + 1]);
        return NULL;
    }
    return argv[first];
}

void cli_print_json(json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    printf("%s\n", text ? text : "{\"valid\":false,\"code\":\"out_of_memory\"}");
    free(text);
    json_decref(o);
}
