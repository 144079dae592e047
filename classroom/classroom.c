/*
 * classroom.c — the roster CSV, student tokens, upload checks and the gate
 * ladder (classroom.h). Pure functions over caller data, except
 * class_check_file, which asks python3 to parse (not run) a Python file.
 */
#define _GNU_SOURCE /* pipe2, nftw */
#include "classroom/classroom.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bots/bot.h"
#include "engine/errors.h"

extern char **environ;

/* ---- roster ------------------------------------------------------------------------------ */

/* Split the CSV record starting at *pos into fields (at most maxf, each
 * copied into f[i] of cap CLASS_FIELD_MAX + 1; longer ones flagged in
 * *toolong). Returns the number of fields, -1 for an unterminated quote.
 * *pos moves past the record's line end. */
static int csv_record(const char *s, size_t len, size_t *pos, char f[][CLASS_FIELD_MAX + 2],
                      int maxf, bool *toolong)
{
    size_t i = *pos;
    int nf = 0;
    *toolong = false;
    for (;;) {
        char buf[CLASS_FIELD_MAX + 2];
        size_t bl = 0;
        if (i < len && s[i] == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return -1;
                if (s[i] == '"') {
                    if (i + 1 < len && s[i + 1] == '"') {
                        if (bl < CLASS_FIELD_MAX + 1)
                            buf[bl++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (bl < CLASS_FIELD_MAX + 1)
                    buf[bl++] = s[i];
                i++;
            }
        }
        while (i < len && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
            if (bl < CLASS_FIELD_MAX + 1)
                buf[bl++] = s[i];
            i++;
        }
        /* trim spaces */
        size_t a = 0;
        while (a < bl && (buf[a] == ' ' || buf[a] == '\t'))
            a++;
        while (bl > a && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t'))
            bl--;
        if (bl - a > CLASS_FIELD_MAX)
            *toolong = true;
        if (nf < maxf) {
            size_t n = bl - a > CLASS_FIELD_MAX ? CLASS_FIELD_MAX : bl - a;
            memcpy(f[nf], buf + a, n);
            f[nf][n] = '\0';
        }
        nf++;
        if (i < len && s[i] == ',') {
            i++;
            continue;
        }
        if (i < len && s[i] == '\r')
            i++;
        if (i < len && s[i] == '\n')
            i++;
        break;
    }
    *pos = i;
    return nf;
}

static bool printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

#define ROSTER_MAX_COLS 32

int class_roster_parse(const char *csv, size_t len, class_person **out, char *err, size_t errcap)
{
    *out = NULL;
    if (len > CLASS_MAX_ROSTER) {
        snprintf(err, errcap, "the roster is %zu bytes; at most %d are accepted", len,
                 CLASS_MAX_ROSTER);
        return ENG_ETOO_MANY;
    }
    if (memchr(csv, '\0', len)) {
        snprintf(err, errcap, "the roster is not text (it has a NUL byte)");
        return ENG_EINVAL;
    }
    static char f[ROSTER_MAX_COLS][CLASS_FIELD_MAX + 2]; /* too big for small stacks */
    char(*fl)[CLASS_FIELD_MAX + 2] = malloc(sizeof f);
    if (!fl) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    size_t pos = 0;
    int line = 0, col_name = -1, col_email = -1, col_id = -1, nf = 0;
    bool toolong;
    /* the header: the first non-blank line */
    while (pos < len) {
        line++;
        size_t start = pos;
        nf = csv_record(csv, len, &pos, fl, ROSTER_MAX_COLS, &toolong);
        if (nf < 0) {
            snprintf(err, errcap, "line %d: a quoted field is not closed", line);
            free(fl);
            return ENG_EINVAL;
        }
        if (nf == 1 && fl[0][0] == '\0' && pos - start <= 2)
            continue;
        break;
    }
    for (int i = 0; i < nf && i < ROSTER_MAX_COLS; i++) {
        const char *h = fl[i];
        if (strcasecmp(h, "name") == 0)
            col_name = i;
        else if (strcasecmp(h, "email") == 0 || strcasecmp(h, "e-mail") == 0)
            col_email = i;
        else if (strcasecmp(h, "id") == 0 || strcasecmp(h, "student_id") == 0 ||
                 strcasecmp(h, "sid") == 0)
            col_id = i;
    }
    if (col_name < 0 || col_id < 0) {
        snprintf(err, errcap,
                 "line %d: the header must name the columns 'name' and 'id' (and may name "
                 "'email'), e.g. name,email,id",
                 line ? line : 1);
        free(fl);
        return ENG_EINVAL;
    }
    class_person *ps = NULL;
    int n = 0, cap = 0, rc = 0;
    while (pos < len) {
        line++;
        size_t start = pos;
        nf = csv_record(csv, len, &pos, fl, ROSTER_MAX_COLS, &toolong);
        if (nf < 0) {
            snprintf(err, errcap, "line %d: a quoted field is not closed", line);
            rc = ENG_EINVAL;
            break;
        }
        if (nf == 1 && fl[0][0] == '\0' && pos - start <= 2)
            continue; /* blank line */
        if (toolong) {
            snprintf(err, errcap, "line %d: a field is longer than %d characters", line,
                     CLASS_FIELD_MAX);
            rc = ENG_EINVAL;
            break;
        }
        int need = col_name > col_id ? col_name : col_id;
        if (col_email > need)
            need = col_email;
        if (nf <= need && !(col_email == need && nf == need)) {
            snprintf(err, errcap, "line %d: %d field%s, the header has %d", line, nf,
                     nf == 1 ? "" : "s", need + 1);
            rc = ENG_EINVAL;
            break;
        }
        class_person p;
        memset(&p, 0, sizeof p);
        snprintf(p.sid, sizeof p.sid, "%s", fl[col_id]);
        snprintf(p.name, sizeof p.name, "%s", fl[col_name]);
        if (col_email >= 0 && col_email < nf)
            snprintf(p.email, sizeof p.email, "%s", fl[col_email]);
        if (!p.sid[0] || !p.name[0]) {
            snprintf(err, errcap, "line %d: the %s is empty", line, !p.sid[0] ? "id" : "name");
            rc = ENG_EINVAL;
            break;
        }
        if (!printable(p.sid) || !printable(p.name) || !printable(p.email)) {
            snprintf(err, errcap, "line %d: a field has a control character", line);
            rc = ENG_EINVAL;
            break;
        }
        for (int j = 0; j < n && rc == 0; j++)
            if (strcmp(ps[j].sid, p.sid) == 0) {
                snprintf(err, errcap, "line %d: the id '%s' is already on the roster", line, p.sid);
                rc = ENG_EINVAL;
            }
        if (rc)
            break;
        if (n == CLASS_MAX_STUDENTS) {
            snprintf(err, errcap, "line %d: a course takes at most %d students", line,
                     CLASS_MAX_STUDENTS);
            rc = ENG_ETOO_MANY;
            break;
        }
        if (n == cap) {
            int nc = cap ? cap * 2 : 32;
            class_person *np = realloc(ps, (size_t)nc * sizeof *np);
            if (!np) {
                snprintf(err, errcap, "out of memory");
                rc = ENG_ENOMEM;
                break;
            }
            ps = np;
            cap = nc;
        }
        ps[n++] = p;
    }
    free(fl);
    if (rc == 0 && n == 0) {
        snprintf(err, errcap, "the roster has a header but no students");
        rc = ENG_EINVAL;
    }
    if (rc) {
        free(ps);
        return rc;
    }
    *out = ps;
    return n;
}

/* ---- tokens ------------------------------------------------------------------------------- */

int class_token_new(char *out)
{
    static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
    unsigned char r[CLASS_TOKEN_LEN];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = getrandom(r + got, sizeof r - got, 0);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            out[0] = '\0';
            return ENG_EINTERNAL;
        }
        got += (size_t)k;
    }
    for (int i = 0; i < CLASS_TOKEN_LEN; i++)
        out[i] = b32[r[i] & 31];
    out[CLASS_TOKEN_LEN] = '\0';
    return 0;
}

void class_token_hash(const char *token, char *out)
{
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)token, strlen(token), h);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(out + 2 * i, "%02x", h[i]);
}

/* ---- uploads ------------------------------------------------------------------------------ */

static const char *const kind_names[CLASS_NKINDS] = {"python", "executable", "remote", "c",
                                                      "cpp",    "java",       "javascript"};

static const char *const scrim_names[] = {"off", "instructor", "class"};

const char *class_scrim_name(int setting)
{
    return setting >= CLASS_SCRIM_OFF && setting <= CLASS_SCRIM_CLASS ? scrim_names[setting] : "off";
}

bool class_scrim_parse(const char *name, int *out)
{
    for (int i = CLASS_SCRIM_OFF; name && i <= CLASS_SCRIM_CLASS; i++)
        if (strcmp(name, scrim_names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

const char *class_kind_name(class_kind k)
{
    return k >= 0 && k < CLASS_NKINDS ? kind_names[k] : "?";
}

/* What a kind's build makes, and whether it is built (build.c builds it). */
const char *class_kind_built(class_kind k)
{
    switch (k) {
    case CLASS_C:
    case CLASS_CPP: return "build.out";
    case CLASS_JAVA: return "build.jar";
    default: return NULL;
    }
}

bool class_kind_is_built(class_kind k)
{
    return k == CLASS_C || k == CLASS_CPP || k == CLASS_JAVA || k == CLASS_JS;
}

int class_kind_parse(const char *s, class_kind *out)
{
    for (int i = 0; i < CLASS_NKINDS; i++)
        if (s && strcmp(s, kind_names[i]) == 0) {
            *out = (class_kind)i;
            return 0;
        }
    return ENG_EINVAL;
}

void class_kind_spec(class_kind k, const char *dir, const char *main, char *out, size_t cap)
{
    if (k == CLASS_PYTHON)
        snprintf(out, cap, "cmd:python3 %s/%s", dir, main);
    else if (k == CLASS_JS)
        snprintf(out, cap, "cmd:node %s/%s", dir, main);
    else if (k == CLASS_JAVA) /* the serial collector: one CPU, a small heap */
        snprintf(out, cap, "cmd:java -XX:+UseSerialGC -jar %s/%s", dir, class_kind_built(k));
    else if (k == CLASS_C || k == CLASS_CPP)
        snprintf(out, cap, "cmd:%s/%s", dir, class_kind_built(k));
    else if (k == CLASS_REMOTE) /* main: the name registered for it */
        snprintf(out, cap, "remote:%s", main);
    else
        snprintf(out, cap, "cmd:%s/%s", dir, main);
}

bool class_file_runs(class_kind k, const char *name, const char *main)
{
    if (k == CLASS_ELF)
        return strcmp(name, main) == 0;
    return (k == CLASS_C || k == CLASS_CPP) && strcmp(name, class_kind_built(k)) == 0;
}

bool class_file_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > CLASS_FILE_NAME_MAX || name[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
            return false;
    return true;
}

bool class_path_ok(const char *path)
{
    size_t n = strlen(path);
    if (n == 0 || n > CLASS_PATH_MAX)
        return false;
    char part[CLASS_FILE_NAME_MAX + 1];
    int depth = 0;
    for (const char *s = path;;) {
        const char *e = strchr(s, '/');
        size_t k = e ? (size_t)(e - s) : strlen(s);
        if (k == 0 || k > CLASS_FILE_NAME_MAX || ++depth > CLASS_PATH_DEPTH)
            return false;
        memcpy(part, s, k);
        part[k] = '\0';
        if (!class_file_name_ok(part))
            return false;
        if (!e)
            return true;
        s = e + 1;
    }
}

int class_path_mkdirs(const char *dir, const char *relpath)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, relpath);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if ((mkdir(path, 0755) != 0 && errno != EEXIST) || chmod(path, 0755) != 0)
                return -1;
            *p = '/';
        }
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void class_rmtree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int class_paths_clash(int n, const char *const *paths)
{
    for (int i = 0; i < n; i++) {
        size_t l = strlen(paths[i]);
        for (int k = 0; k < n; k++)
            if (k != i && strncmp(paths[k], paths[i], l) == 0 && paths[k][l] == '/')
                return i;
    }
    return -1;
}

/* The length of the well-formed UTF-8 sequence at s[0..n), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k = c < 0x80                          ? 0
               : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 1
               : (c & 0xf0) == 0xe0              ? 2
               : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 3
                                                 : 4;
    if (k == 4 || k >= n)
        return 0;
    for (size_t j = 1; j <= k; j++)
        if ((s[j] & 0xc0) != 0x80)
            return 0;
    return k + 1;
}

void class_utf8_fix(char *text)
{
    unsigned char *s = (unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(s + i, n - i);
        if (k == 0) {
            s[i++] = '?';
            continue;
        }
        i += k;
    }
}

/* Is data well-formed UTF-8? */
static bool utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t k = c < 0x80                          ? 0
                   : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 1
                   : (c & 0xf0) == 0xe0              ? 2
                   : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 3
                                                     : 4;
        if (k == 4 || (k > 0 && i + k >= n))
            return false;
        for (size_t j = 1; j <= k; j++)
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
        i += k + 1;
    }
    return true;
}

/* Run python3's parser over data (stdin), never the code: 0 when it
 * parses, ENG_EINVAL with python's message, or 1 when python3 cannot be
 * run here (the check is skipped). */
static int python_parses(const char *name, const unsigned char *data, size_t len, char *err,
                         size_t errcap)
{
    static const char prog[] =
        "import ast,sys\n"
        "src=sys.stdin.buffer.read()\n"
        "try:\n"
        "    ast.parse(src, filename=sys.argv[1])\n"
        "except SyntaxError as e:\n"
        "    print('%s, line %s: %s' % (sys.argv[1], e.lineno, e.msg)); sys.exit(3)\n"
        "except Exception as e:\n"
        "    print('%s: %s' % (sys.argv[1], e)); sys.exit(3)\n";
    int in[2], outp[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return 1;
    if (pipe2(outp, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return 1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 2);
    char *argv[] = {"python3", "-I", "-S", "-c", (char *)prog, (char *)name, NULL};
    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8", NULL};
    pid_t pid;
    int src = posix_spawnp(&pid, "python3", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(outp[1]);
    if (src != 0) {
        close(in[1]);
        close(outp[0]);
        return 1;
    }
    /* feed and read with a deadline; the pipes are non-blocking for it */
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    char msg[512];
    size_t ml = 0, sent = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool out_open = true, timed_out = false;
    int wfd = in[1];
    while (out_open) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= CLASS_CHECK_MS) {
            timed_out = true;
            break;
        }
        struct pollfd pf[2] = {{.fd = outp[0], .events = POLLIN}, {.fd = wfd, .events = POLLOUT}};
        int np = wfd >= 0 ? 2 : 1;
        if (poll(pf, (nfds_t)np, (int)(CLASS_CHECK_MS - ms)) < 0 && errno != EINTR)
            break;
        if (np == 2 && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = write(wfd, data + sent, len - sent);
            if (k > 0)
                sent += (size_t)k;
            if (k < 0 && errno != EAGAIN) {
                close(wfd);
                wfd = -1;
            } else if (sent == len) {
                close(wfd);
                wfd = -1;
            }
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[256];
            ssize_t k = read(outp[0], buf, sizeof buf);
            if (k > 0) {
                size_t c = (size_t)k < sizeof msg - 1 - ml ? (size_t)k : sizeof msg - 1 - ml;
                memcpy(msg + ml, buf, c);
                ml += c;
            } else if (k == 0 || errno != EAGAIN) {
                out_open = false;
            }
        }
    }
    if (wfd >= 0)
        close(wfd);
    close(outp[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGPIPE, &old, NULL);
    msg[ml] = '\0';
    while (ml > 0 && (msg[ml - 1] == '\n' || msg[ml - 1] == '\r'))
        msg[--ml] = '\0';
    for (size_t i = 0; i < ml; i++)
        if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] == 0x7f)
            msg[i] = ' ';
    if (timed_out) {
        snprintf(err, errcap, "%s: python3 could not parse it within %d ms", name, CLASS_CHECK_MS);
        return ENG_EINVAL;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        snprintf(err, errcap, "not Python 3: %s", msg);
        return ENG_EINVAL;
    }
    return 1; /* python3 itself failed: no verdict on the file */
}

int class_check_file(class_kind kind, const char *name, const unsigned char *data, size_t len,
                     char *err, size_t errcap)
{
    if (!class_path_ok(name)) {
        snprintf(err, errcap,
                 "'%.70s' is not an accepted file name (1 to %d of A-Z a-z 0-9 _ . -, not "
                 "starting with a dot; in folders up to %d deep)",
                 name, CLASS_FILE_NAME_MAX, CLASS_PATH_DEPTH);
        return ENG_EINVAL;
    }
    if (len == 0) {
        snprintf(err, errcap, "%s is empty", name);
        return ENG_EINVAL;
    }
    if (kind == CLASS_REMOTE) {
        snprintf(err, errcap, "a remote bot is submitted without files");
        return ENG_EINVAL;
    }
    if (kind == CLASS_PYTHON) {
        if (memchr(data, '\0', len) || !utf8_ok(data, len)) {
            snprintf(err, errcap, "%s was declared Python but is not UTF-8 text", name);
            return ENG_EINVAL;
        }
        int rc = python_parses(name, data, len, err, errcap);
        return rc < 0 ? rc : 0;
    }
    if (kind == CLASS_ELF) {
        /* e_ident: magic, class, data; e_type at 16, e_machine at 18 */
        if (len < 20 || memcmp(data,
                               "\x7f"
                               "ELF",
                               4) != 0) {
            snprintf(err, errcap, "%s was declared an executable but is not an ELF file", name);
            return ENG_EINVAL;
        }
        int want_class = sizeof(void *) == 8 ? 2 : 1;
        unsigned one = 1;
        int want_data = *(unsigned char *)&one ? 1 : 2;
        if (data[4] != want_class || data[5] != want_data) {
            snprintf(err, errcap, "%s is an ELF file of another machine (%d-bit, %s endian)", name,
                     data[4] == 2 ? 64 : 32, data[5] == 1 ? "little" : "big");
            return ENG_EINVAL;
        }
        uint16_t type, machine;
        memcpy(&type, data + 16, 2);
        memcpy(&machine, data + 18, 2);
#if defined(__x86_64__)
        const uint16_t want_machine = 62;
#elif defined(__aarch64__)
        const uint16_t want_machine = 183;
#elif defined(__i386__)
        const uint16_t want_machine = 3;
#else
        const uint16_t want_machine = 0; /* not checked */
#endif
        if (want_machine && machine != want_machine) {
            snprintf(err, errcap, "%s is an ELF file for another processor (e_machine %u)", name,
                     machine);
            return ENG_EINVAL;
        }
        if (type != 2 && type != 3) {
            snprintf(err, errcap, "%s is an ELF file but not a program (a %s)", name,
                     type == 1   ? "relocatable object"
                     : type == 4 ? "core dump"
                                 : "unknown type");
            return ENG_EINVAL;
        }
        return 0;
    }
    snprintf(err, errcap, "unknown kind");
    return ENG_EINVAL;
}

/* ---- gates -------------------------------------------------------------------------------- */

int class_gates_parse(const json_t *arr, const eng_game *g, class_gate *out, char *err,
                      size_t errcap)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > CLASS_MAX_GATES) {
        snprintf(err, errcap, "gates: an array of 1 to %d gates {opponent, games, min_rate}",
                 CLASS_MAX_GATES);
        return ENG_EINVAL;
    }
    int n = (int)json_array_size(arr);
    for (int i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, (size_t)i);
        json_t *op = json_object_get(o, "opponent"), *gm = json_object_get(o, "games"),
               *mr = json_object_get(o, "min_rate");
        if (!json_is_object(o) || !json_is_string(op) || !json_is_integer(gm) ||
            !json_is_number(mr) || json_object_size(o) != 3) {
            snprintf(err, errcap,
                     "gates[%d]: an object with exactly opponent (a bot spec), games (an "
                     "integer) and min_rate (a number)",
                     i);
            return ENG_EINVAL;
        }
        const char *spec = json_string_value(op);
        json_int_t games = json_integer_value(gm);
        double rate = json_number_value(mr);
        if (strlen(spec) == 0 || strlen(spec) >= sizeof out[i].opponent) {
            snprintf(err, errcap, "gates[%d].opponent: 1 to %zu characters", i,
                     sizeof out[i].opponent - 1);
            return ENG_EINVAL;
        }
        if (games < 2 || games > CLASS_MAX_GATE_GAMES) {
            snprintf(err, errcap, "gates[%d].games: 2 to %d, got %lld", i, CLASS_MAX_GATE_GAMES,
                     (long long)games);
            return ENG_EINVAL;
        }
        if (!(rate >= 0 && rate <= 1)) {
            snprintf(err, errcap, "gates[%d].min_rate: a scoring rate in [0, 1]", i);
            return ENG_EINVAL;
        }
        if (strncmp(spec, "cmd:", 4) != 0 && strncmp(spec, "cmd-stateless:", 14) != 0) {
            char e2[256];
            bot *b = bot_create(spec, g, 1, e2, sizeof e2);
            if (!b) {
                snprintf(err, errcap, "gates[%d].opponent '%.100s': %s", i, spec, e2);
                return strncmp(spec, "remote:", 7) == 0 ? ENG_EBAD_BOT_SPEC : ENG_EUNKNOWN_BOT;
            }
            bot_destroy(b);
        }
        snprintf(out[i].opponent, sizeof out[i].opponent, "%s", spec);
        out[i].games = (int)(games + (games & 1));
        out[i].min_rate = rate;
    }
    return n;
}

json_t *class_gates_json(const class_gate *gates, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:i, s:f}", "opponent", gates[i].opponent,
                                           "games", gates[i].games, "min_rate", gates[i].min_rate));
    return a;
}

bool class_gate_passed(const class_gate *gate, double points, int64_t games)
{
    /* compare exactly: rate >= min_rate as points >= min_rate * games, with
     * a hair of slack for the binary fraction of min_rate (0.7 * 10) */
    return games > 0 && points + 1e-9 >= gate->min_rate * (double)games;
}

/* ---- similar submissions ---------------------------------------------------------------- */

/* One Python file's shape into the hash: its bytes without comments (from a
 * '#' outside a string literal to the end of its line) and without any
 * whitespace. Quotes are followed on one line (triple quotes as three). */
static void python_shape(EVP_MD_CTX *h, const unsigned char *d, size_t n)
{
    unsigned char buf[4096];
    size_t k = 0;
    char quote = 0;
    bool comment = false, escape = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = d[i];
        if (c == '\n') {
            comment = false;
            quote = 0;
            escape = false;
            continue;
        }
        if (comment)
            continue;
        if (quote) {
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == (unsigned char)quote)
                quote = 0;
        } else if (c == '#') {
            comment = true;
            continue;
        } else if (c == '"' || c == '\'') {
            quote = (char)c;
        } else if (isspace(c)) {
            continue;
        }
        buf[k++] = c;
        if (k == sizeof buf) {
            EVP_DigestUpdate(h, buf, k);
            k = 0;
        }
    }
    EVP_DigestUpdate(h, buf, k);
}

void class_shape_hash(class_kind kind, int n, const char *const *names,
                      const unsigned char *const *data, const size_t *len, char *out)
{
    assert(n >= 0 && out);
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    bool ok = h && EVP_DigestInit_ex(h, EVP_sha256(), NULL) == 1;
    for (int i = 0; ok && i < n; i++) {
        EVP_DigestUpdate(h, names[i], strlen(names[i]) + 1);
        if (kind == CLASS_PYTHON)
            python_shape(h, data[i], len[i]);
        else
            EVP_DigestUpdate(h, data[i], len[i]);
        EVP_DigestUpdate(h, "", 1);
    }
    unsigned char md[SHA256_DIGEST_LENGTH] = {0};
    if (!ok || EVP_DigestFinal_ex(h, md, NULL) != 1)
        memset(md, 0, sizeof md);
    EVP_MD_CTX_free(h);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
}
