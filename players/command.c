/*
 * command.c — a command line resolved on this machine, and the program's
 * view of its files (sandbox_cmd_parse, sandbox_cmd_describe: sandbox.h).
 *
 * The program is looked up on the caller's PATH, and the file found there
 * is the file that runs: its last link is not followed, so that a virtual
 * environment's `python3` (a link to the system's) still finds its
 * environment (CPython reads pyvenv.cfg beside the path it was started
 * as). Found by a student whose packages vanished when tessera ran
 * /usr/bin/python3 in place of the venv's python3 first on their PATH
 * (issue 30). Its argv[0] is that path too, for the same reason.
 *
 * The program's folder is what the program may read of the caller's files:
 * the folder of its first file argument (a script), or the folder named,
 * or the program's own folder when it is not a system program. A file
 * argument elsewhere is refused now, with the reason, rather than missing
 * inside the sandbox later.
 *
 * The caller's PYTHONPATH is kept: its folders are shown read-only at their
 * own paths, so that a bot that imports a library kept outside its folder
 * (the kit of a checkout: PYTHONPATH=kit/python) runs in the sandbox as it
 * does outside. The caller chose them, as it chose the program; what the
 * server hides is refused there as anywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/eng.h"
#include "engine/errors.h"
#include "jail.h"
#include "sandbox.h"

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Can a user who is neither owner nor group reach path (every directory on
 * the way searchable by others) and use it (mode bits `need` of S_IROTH,
 * S_IXOTH)? What a uid of the pool can do, as root drops to one. */
static bool others_can(const char *path, mode_t need)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0 || (st.st_mode & need) != need)
        return false;
    for (char *slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        *slash = 0;
        if (stat(dir, &st) != 0 || !(st.st_mode & S_IXOTH))
            return false;
    }
    return true;
}

/* p as an absolute path whose folders are resolved but whose last part is
 * kept as it is (a link stays a link). */
static bool abs_keep_last(const char *p, char *out)
{
    char copy[PATH_MAX], copy2[PATH_MAX], dir[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", p);
    snprintf(copy2, sizeof copy2, "%s", p);
    const char *base = basename(copy2);
    if (!realpath(dirname(copy), dir))
        return false;
    return snprintf(out, PATH_MAX, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, base) < PATH_MAX;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n && strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

static void parent_of(const char *p, char *out)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", p);
    snprintf(out, PATH_MAX, "%s", dirname(copy));
}

/* The installation a program outside the system's folders belongs to: the
 * folder above its bin/ when that is a prefix (a virtual environment with
 * its pyvenv.cfg, or one with a lib/ beside bin/, as pyenv's), never "/",
 * /usr or the user's home; else the program's own folder. */
static void install_root(const char *prog, char *out)
{
    char dir[PATH_MAX], top[PATH_MAX], probe[PATH_MAX + 16];
    parent_of(prog, dir);
    snprintf(out, PATH_MAX, "%s", dir);
    const char *slash = strrchr(dir, '/');
    if (!slash || strcmp(slash, "/bin") != 0)
        return;
    parent_of(dir, top);
    const char *home = getenv("HOME");
    if (strcmp(top, "/") == 0 || strcmp(top, "/usr") == 0 || (home && strcmp(top, home) == 0))
        return;
    struct stat st;
    snprintf(probe, sizeof probe, "%s/pyvenv.cfg", top);
    bool venv = stat(probe, &st) == 0;
    snprintf(probe, sizeof probe, "%s/lib", top);
    if (venv || (stat(probe, &st) == 0 && S_ISDIR(st.st_mode)))
        snprintf(out, PATH_MAX, "%s", top);
}

/* Is host path p at or below one of the hidden paths of the policy? */
static bool is_hidden(const char *p)
{
    sandbox_setup cfg;
    jail_setup(&cfg);
    for (const char *const *h = cfg.hide; h && *h; h++) {
        char real[PATH_MAX];
        if (realpath(*h, real) && under(p, real))
            return true;
    }
    return false;
}

/* The caller's PYTHONPATH, each folder resolved (a relative one from the
 * current directory; one that does not exist left out, as Python leaves it
 * out), into out->pypath. */
static int python_path(sandbox_cmd *out, bool as_other, char *err, size_t errcap)
{
    const char *env = getenv("PYTHONPATH");
    size_t o = 0;
    int n = 0;
    for (const char *p = env; p && *p;) {
        size_t len = strcspn(p, ":");
        char entry[PATH_MAX], real[PATH_MAX];
        snprintf(entry, sizeof entry, "%.*s", (int)(len < PATH_MAX ? len : PATH_MAX - 1), p);
        p += len + (p[len] == ':');
        struct stat st;
        if (!entry[0] || !realpath(entry, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (strcmp(real, "/") == 0)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "PYTHONPATH names / (the whole machine): name the library's "
                              "own folder");
        if (is_hidden(real))
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "PYTHONPATH names %.200s, hidden from programs (the server keeps "
                              "its data there)",
                              real);
        if (as_other && !others_can(real, S_IXOTH | S_IROTH))
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "PYTHONPATH names %.200s, which the sandbox's users (uids of a pool "
                              "when tessera runs as root) cannot read: make it and its folders "
                              "readable by all",
                              real);
        if (++n > SANDBOX_MAX_PYPATH)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "PYTHONPATH names more than %d folders: a program is shown %d at "
                              "most",
                              SANDBOX_MAX_PYPATH, SANDBOX_MAX_PYPATH);
        int w = snprintf(out->pypath + o, sizeof out->pypath - o, "%s%s", o ? ":" : "", real);
        if (w < 0 || (size_t)w >= sizeof out->pypath - o)
            return eng_seterr(err, errcap, ENG_EINVAL, "PYTHONPATH is too long");
        o += (size_t)w;
    }
    return 0;
}

/* Is host path p visible to the program (the system, its folder, its
 * prefix)? */
static bool visible(const sandbox_cmd *c, const char *p)
{
    return jail_is_system(p) || (c->folder[0] && under(p, c->folder)) ||
           (c->prefix[0] && under(p, c->prefix));
}

int sandbox_cmd_parse(const char *cmdline, const sandbox_limits *lim, sandbox_cmd *out, char *err,
                      size_t errcap)
{
    (void)lim;
    memset(out, 0, sizeof *out);
    /* as root, the program runs as a uid of the pool: it must be able to
     * reach its files as "others" */
    bool as_other = geteuid() == 0;
    if (!cmdline)
        return eng_seterr(err, errcap, ENG_EINVAL, "no command");
    char words[SANDBOX_CMD_MAX];
    if (strlen(cmdline) >= sizeof words)
        return eng_seterr(err, errcap, ENG_EINVAL, "the command is longer than %d bytes",
                          SANDBOX_CMD_MAX - 1);
    strcpy(words, cmdline);
    char *arg[SANDBOX_MAX_ARGS + 1];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == SANDBOX_MAX_ARGS)
            return eng_seterr(err, errcap, ENG_EINVAL, "more than %d arguments",
                              SANDBOX_MAX_ARGS);
        arg[n++] = w;
    }
    if (n == 0)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "empty command: name a program, e.g. \"cmd:python3 bot.py\"");

    /* the program: the first one on the caller's PATH */
    char found[PATH_MAX] = "";
    if (strchr(arg[0], '/')) {
        snprintf(found, sizeof found, "%s", arg[0]);
        struct stat st;
        if (stat(found, &st) != 0)
            return eng_seterr(err, errcap, ENG_EINVAL, "program %.200s: %s", arg[0],
                              strerror(errno));
    } else {
        const char *path = getenv("PATH");
        if (!path || !path[0])
            path = "/usr/local/bin:/usr/bin:/bin";
        for (const char *p = path; !found[0];) {
            size_t len = strcspn(p, ":");
            char cand[PATH_MAX], real[PATH_MAX];
            if (len == 0)
                snprintf(cand, sizeof cand, "%s", arg[0]);
            else
                snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, arg[0]);
            if (is_exec_file(cand) && realpath(cand, real) &&
                (!as_other || others_can(real, S_IXOTH)))
                snprintf(found, sizeof found, "%s", cand);
            if (!p[len])
                break;
            p += len + 1;
        }
        if (!found[0])
            return eng_seterr(err, errcap, ENG_EINVAL, "program %.200s not found on PATH",
                              arg[0]);
    }
    if (!is_exec_file(found) || !abs_keep_last(found, out->path) || !realpath(found, out->real))
        return eng_seterr(err, errcap, ENG_EINVAL, "program %.200s is not an executable file",
                          arg[0]);
    if (as_other && (!others_can(out->real, S_IXOTH) || !others_can(out->path, S_IXOTH)))
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "program %.200s cannot be run by the sandbox's users (uids of a pool "
                          "when tessera runs as root): make it and its folders readable by all",
                          out->path);

    /* the arguments: relative paths to existing files become absolute; the
     * first of them gives the program's folder */
    size_t o = 0;
    int first_file = -1;
    bool first_is_dir = false;
    for (int i = 0; i < n; i++) {
        const char *a = i == 0 ? out->path : arg[i];
        char abs[PATH_MAX];
        struct stat st;
        if (i > 0 && a[0] != '-' && stat(a, &st) == 0 && realpath(a, abs)) {
            a = abs;
            if (first_file < 0) {
                first_file = i;
                first_is_dir = S_ISDIR(st.st_mode);
            }
            if (as_other && !others_can(a, S_ISDIR(st.st_mode) ? S_IXOTH : S_IROTH))
                return eng_seterr(err, errcap, ENG_EINVAL,
                                  "%.200s cannot be read by the sandbox's users (uids of a pool "
                                  "when tessera runs as root): make it and its folders readable "
                                  "by all",
                                  a);
        }
        size_t len = strlen(a);
        if (o + len + 1 > sizeof out->text)
            return eng_seterr(err, errcap, ENG_EINVAL, "the command is longer than %d bytes",
                              SANDBOX_CMD_MAX - 1);
        memcpy(out->text + o, a, len + 1);
        out->argv[i] = out->text + o;
        o += len + 1;
    }
    out->argv[n] = NULL;
    out->argc = n;

    /* the program's folder, and the program's installation */
    if (first_file > 0) {
        if (first_is_dir)
            snprintf(out->folder, sizeof out->folder, "%s", out->argv[first_file]);
        else
            parent_of(out->argv[first_file], out->folder);
    } else if (!jail_is_system(out->path)) {
        char root[PATH_MAX];
        install_root(out->path, root);
        char dir[PATH_MAX];
        parent_of(out->path, dir);
        if (strcmp(root, dir) == 0)
            snprintf(out->folder, sizeof out->folder, "%s", dir);
        else
            snprintf(out->prefix, sizeof out->prefix, "%s", root);
    }
    if (jail_is_system(out->folder))
        out->folder[0] = 0; /* shown anyway, where it is */
    if (strcmp(out->folder, "/") == 0)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "the program's folder would be / (the whole machine): put the program "
                          "and its files in a folder of their own");
    if (!visible(out, out->path) && !out->prefix[0])
        install_root(out->path, out->prefix);
    if (!visible(out, out->real)) {
        if (out->prefix[0])
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "program %.200s is a link to %.200s, outside its folder and the "
                              "system's: name that file instead",
                              out->path, out->real);
        install_root(out->real, out->prefix);
    }
    if (as_other && out->folder[0] && !others_can(out->folder, S_IXOTH))
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "the program's folder %.200s cannot be opened by the sandbox's users: "
                          "make it and the folders above it searchable by all (chmod o+x)",
                          out->folder);
    for (int i = 1; i < n; i++) {
        if (out->argv[i][0] != '/')
            continue;
        struct stat st;
        if (stat(out->argv[i], &st) == 0 && !visible(out, out->argv[i]))
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "%.200s is outside the program's folder %.200s: a program sees "
                              "only its own folder (and the system's); put its files there",
                              out->argv[i], out->folder[0] ? out->folder : "(none)");
    }
    int rc = python_path(out, as_other, err, errcap);
    if (rc)
        return rc;
    /* the folder must not be what the server hides */
    sandbox_setup cfg;
    jail_setup(&cfg);
    for (const char *const *h = cfg.hide; out->folder[0] && h && *h; h++) {
        char real[PATH_MAX];
        if (realpath(*h, real) && strcmp(real, out->folder) == 0)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the program's folder %.200s is hidden from programs (the server "
                              "keeps its data there): put the program in a folder of its own",
                              out->folder);
    }
    return 0;
}

const char *sandbox_cmd_describe(const sandbox_cmd *cmd, char *buf, size_t cap)
{
    size_t o = 0;
    int w = snprintf(buf, cap, "%s", cmd->path);
    if (w > 0)
        o = (size_t)w;
    if (strcmp(cmd->path, cmd->real) != 0 && o < cap) {
        w = snprintf(buf + o, cap - o, " (a link to %s)", cmd->real);
        if (w > 0)
            o += (size_t)w;
    }
    for (int i = 1; i < cmd->argc && o < cap; i++) {
        const char *a = cmd->argv[i];
        if (cmd->folder[0] && under(a, cmd->folder))
            w = snprintf(buf + o, cap - o, " %s%s", SANDBOX_BOT_DIR, a + strlen(cmd->folder));
        else
            w = snprintf(buf + o, cap - o, " %s", a);
        if (w > 0)
            o += (size_t)w;
    }
    if (cmd->pypath[0] && o < cap)
        snprintf(buf + o, cap - o, " (PYTHONPATH=%s)", cmd->pypath);
    return buf;
}
