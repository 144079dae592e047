/*
 * build.c — the languages a course builds on the server (classroom.h,
 * "uploads"): C and C++ compiled by gcc/g++, Java by javac into a jar,
 * JavaScript checked by node — each in the sandbox of players/sandbox.h,
 * as untrusted as the bot it makes (a compiler fed a student's source is
 * code under test too: `#include "/etc/shadow"`, a template bomb). The
 * sources are written to a folder of their own that the sandbox shows at
 * /bot; a small script of ours compiles them into the sandbox's private
 * HOME, prints what it made as base64 on stdout, and the compiler's
 * messages on stderr (their first CLASS_BUILD_LOG bytes), which are what
 * the student is shown when it fails ("bot.c:3:5: error: ...").
 */
#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bots/bot.h"
#include "classroom/classroom.h"
#include "engine/errors.h"
#include "players/sandbox.h"

/* The script run in the sandbox: $1 the kind, $2 the main file. Sources at
 * /bot (read-only), the build in HOME (/home/bot, private, in memory). */
#define STR_(x) #x
#define STR(x)  STR_(x)
static const char script[] =
    "#!/bin/sh\n"
    "# tessera's build of a course submission (classroom/build.c), in the sandbox\n"
    "kind=$1; main=$2; out=$HOME; log=$out/build.log; art=\n"
    "cd /bot || exit 3\n"
    "# the sources anywhere in the tree (a Java package's folders); paths are [A-Za-z0-9_./-]\n"
    "srcs() { for e in \"$@\"; do find . -type f -name \"*.$e\"; done | sed 's|^\\./||' | sort; }\n"
    "case $kind in\n"
    "c) art=$out/build.out; gcc -O2 -std=gnu17 -o $art $(srcs c) -lm >$log 2>&1 ;;\n"
    "cpp) art=$out/build.out; g++ -O2 -std=gnu++17 -o $art $(srcs cpp cc cxx) -lm >$log "
    "2>&1 ;;\n"
    "java) art=$out/build.jar; mkdir -p $out/classes && javac -J-XX:+UseSerialGC -encoding UTF-8 "
    "-d $out/classes $(srcs java) >$log 2>&1 && jar --create --file $art --main-class "
    "\"$(echo \"${main%.java}\" | tr / .)\" -C $out/classes . >>$log 2>&1 ;;\n"
    "javascript) : >$log; ok=0; for f in $(srcs js mjs cjs); do node --check \"$f\" "
    ">>$log 2>&1 || { ok=1; break; }; done; [ $ok -eq 0 ] ;;\n"
    "*) echo \"unknown kind $kind\" >$log; false ;;\n"
    "esac\n"
    "rc=$?\n"
    "head -c " STR(CLASS_BUILD_LOG) " $log >&2\n"
    "[ $rc -eq 0 ] || exit 1\n"
    "[ -z \"$art\" ] || base64 -w 76 $art\n";

/* Does the main file's name fit the kind (bot.c, Bot.java, bot.js)? */
static bool main_fits(class_kind k, const char *main, char *err, size_t errcap)
{
    const char *dot = strrchr(main, '.');
    const char *ext = dot ? dot + 1 : "";
    bool ok = false;
    const char *want = "";
    switch (k) {
    case CLASS_C:
        ok = strcmp(ext, "c") == 0;
        want = "a .c file";
        break;
    case CLASS_CPP:
        ok = strcmp(ext, "cpp") == 0 || strcmp(ext, "cc") == 0 || strcmp(ext, "cxx") == 0;
        want = "a .cpp, .cc or .cxx file";
        break;
    case CLASS_JAVA:
        /* its class is the one run: a name Java takes, in the package its folders name
         * (pkg/Main.java: class pkg.Main) */
        ok = strcmp(ext, "java") == 0 && dot > main;
        for (const char *p = main; ok && p < dot; p++) {
            bool first = p == main || p[-1] == '/';
            ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_' ||
                 (!first && *p >= '0' && *p <= '9') || (!first && *p == '/' && p + 1 < dot);
        }
        want = "a .java file named after its class, in the folders of its package "
               "(Bot.java: class Bot, with main, in no package; pkg/Main.java: class Main in "
               "package pkg)";
        break;
    case CLASS_JS:
        ok = strcmp(ext, "js") == 0 || strcmp(ext, "mjs") == 0 || strcmp(ext, "cjs") == 0;
        want = "a .js, .mjs or .cjs file";
        break;
    default: return true;
    }
    if (!ok)
        snprintf(err, errcap, "main: a %s submission runs %s; %s is not", class_kind_name(k), want,
                 main);
    return ok;
}

int class_build_check_main(class_kind k, const char *main, char *err, size_t errcap)
{
    return main_fits(k, main, err, errcap) ? 0 : ENG_EINVAL;
}

/* Write one file, world-readable (the sandbox's uid reads it). */
static bool put(const char *dir, const char *name, const void *data, size_t len)
{
    char path[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = class_path_mkdirs(dir, name) == 0 ? fopen(path, "wbx") : NULL;
    bool ok = f && (len == 0 || fwrite(data, 1, len, f) == len);
    if (f && fclose(f) != 0)
        ok = false;
    return ok && chmod(path, 0644) == 0;
}

/* The build's folder, its sources and their folders: it is the build's alone. */
static void remove_dir(const char *dir, int n, const char *const *names)
{
    (void)n;
    (void)names;
    class_rmtree(dir);
}

/* Decode one base64 line onto the growing output. */
static bool add_line(const char *line, size_t len, unsigned char **out, size_t *olen, size_t *cap)
{
    if (len == 0)
        return true;
    if (len % 4 != 0 || *olen + len / 4 * 3 > CLASS_MAX_BUILT)
        return false;
    if (*olen + len / 4 * 3 + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 65536);
        while (nc < *olen + len / 4 * 3 + 1)
            nc *= 2;
        unsigned char *nb = realloc(*out, nc);
        if (!nb)
            return false;
        *out = nb;
        *cap = nc;
    }
    int k = EVP_DecodeBlock(*out + *olen, (const unsigned char *)line, (int)len);
    if (k < 0)
        return false;
    size_t pad = (line[len - 1] == '=') + (len >= 2 && line[len - 2] == '=');
    *olen += (size_t)k - pad;
    return true;
}

int class_build(class_kind k, const char *work, int n, const char *const *names,
                const unsigned char *const *data, const size_t *len, const char *main,
                unsigned char **out, size_t *outlen, char *err, size_t errcap)
{
    *out = NULL;
    *outlen = 0;
    if (!class_kind_is_built(k))
        return 0;
    if (!main_fits(k, main, err, errcap))
        return ENG_EINVAL;
    if ((mkdir(work, 0755) != 0 && errno != EEXIST) || chmod(work, 0755) != 0) {
        snprintf(err, errcap, "the build's folder could not be made: %s", strerror(errno));
        return ENG_EIO;
    }
    bool ok = put(work, "tessera-build.sh", script, strlen(script));
    for (int i = 0; ok && i < n; i++)
        ok = put(work, names[i], data[i], len[i]);
    if (!ok) {
        remove_dir(work, n, names);
        snprintf(err, errcap, "the sources could not be written for the build");
        return ENG_EIO;
    }
    /* a compiler's limits: a JVM (javac) under the cgroup's memory alone,
     * the artifact's base64 on stdout */
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.as_mb = -1;
    lim.max_stdout = (int64_t)CLASS_MAX_BUILT * 2;
    lim.tmp_mb = CLASS_MAX_BUILT * 4 / (1024 * 1024);
    char cmdline[PATH_MAX + 200];
    snprintf(cmdline, sizeof cmdline, "sh %s/tessera-build.sh %s %s", work, class_kind_name(k),
             main);
    sandbox_cmd *cmd = malloc(sizeof *cmd);
    int rc = cmd ? sandbox_cmd_parse(cmdline, &lim, cmd, err, errcap) : ENG_ENOMEM;
    sandbox *sb = NULL;
    if (rc == 0) {
        int code;
        sb = sandbox_start(cmd, &lim, &code, err, errcap);
        if (!sb)
            rc = ENG_EINTERNAL;
    }
    free(cmd);
    unsigned char *buf = NULL;
    size_t blen = 0, bcap = 0;
    bool bad = false, late = false;
    if (sb) {
        sandbox_close_stdin(sb);
        double deadline = bot_now_ms() + CLASS_BUILD_MS;
        for (;;) {
            const char *line;
            size_t ll;
            sandbox_event ev = sandbox_read_line(sb, deadline, NULL, &line, &ll);
            if (ev == SANDBOX_LINE) {
                bad = bad || !add_line(line, ll, &buf, &blen, &bcap);
                continue;
            }
            if (ev == SANDBOX_TIMEOUT || ev == SANDBOX_FLOOD || ev == SANDBOX_LONG_LINE ||
                ev == SANDBOX_CPU_LIMIT || ev == SANDBOX_STOPPED) {
                late = ev == SANDBOX_TIMEOUT;
                bad = true;
                sandbox_kill(sb);
                break;
            }
            if (ev == SANDBOX_CLOSED && !sandbox_wait_exit(sb, deadline)) {
                late = bad = true;
                sandbox_kill(sb);
            }
            break;
        }
        sandbox_status st;
        sandbox_get_status(sb, &st);
        char log[CLASS_BUILD_LOG + 1];
        size_t got = sandbox_stderr_take(sb, log, sizeof log, NULL);
        log[got] = 0;
        class_utf8_fix(log);
        while (got > 0 && (log[got - 1] == '\n' || log[got - 1] == ' '))
            log[--got] = 0;
        sandbox_destroy(sb, 0);
        if (late) {
            snprintf(err, errcap, "the build took longer than %d s: %.300s", CLASS_BUILD_MS / 1000,
                     log);
            rc = ENG_EINVAL;
        } else if (!st.exited || st.signaled || st.code != 0) {
            /* the compiler said no: its words are the reason */
            snprintf(err, errcap, "%s", got ? log : "the build failed without a message");
            rc = ENG_EINVAL;
        } else if (bad || (class_kind_built(k) && blen == 0)) {
            snprintf(err, errcap, "the build made nothing usable (larger than %d bytes?)",
                     CLASS_MAX_BUILT);
            rc = ENG_EINVAL;
        }
    }
    remove_dir(work, n, names);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *outlen = blen;
    return 0;
}
