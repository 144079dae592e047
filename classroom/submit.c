/*
 * submit.c — a student's upload (course_submit; internal.h), and the
 * submissions' folders.
 *
 * An upload goes in three steps: checked here on the loop (token,
 * deadline, shape, names, sizes), its files checked against the declared
 * kind on the host's thread pool (python3's parse takes tens of
 * milliseconds, far more on a loaded machine: not on the loop), then stored
 * back on the loop in one transaction — its row with the version the
 * database counts, its files (also in class_files, for the other servers of
 * a cluster) and its folder — and its ladder queued. A remote bot (kind
 * "remote") has no files: the host registers a name for it, with a secret
 * given out once and kept only in its sealed form.
 *
 * A stored submission goes to its ladder (class__queue_ladder): the
 * workers' queue, or a remote bot's job.
 */
#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classroom/internal.h"
#include "classroom/pool.h"
#include "engine/errors.h"

/* Queue a submission's ladder (its state becomes running when a worker
 * takes it; queued until then). On several servers it stays queued in the
 * database, for the first server with a worker free to claim. */
void class__queue_ladder(class_service *svc, int64_t sub)
{
    sub_t s;
    if (!class__sub_load(svc, sub, &s))
        return;
    if (strcmp(s.kind, "remote") == 0) {
        class__remote_queue(svc, &s);
        return;
    }
    if (svc->claims) {
        class__claim_pump(svc);
        return;
    }
    job *j = class__ladder_job(svc, &s);
    if (j)
        class__push_job(svc, j);
}

/* ---- an upload ---------------------------------------------------------------------------------
 */

typedef struct upload {
    class_service *svc;
    uint64_t caller; /* whom to answer (the host drops it when they are gone) */
    json_t *id;      /* the request's id (owned) */
    student_t who;
    class_kind kind;
    char main[CLASS_PATH_MAX + 1];
    bool main_given;  /* main was named; else the only file */
    int64_t limit;    /* bytes of the submission at most: the course's */
    staged *uploads;  /* the course_upload files it took (removed with it) */
    bool waiting;     /* told "waiting" for the build pool */
    int nf;
    /* the student's files, and the file their build made (class_kind_built) */
    char names[CLASS_MAX_FILES + 1][CLASS_PATH_MAX + 1]; /* paths in its folder tree */
    unsigned char *data[CLASS_MAX_FILES + 1];
    size_t len[CLASS_MAX_FILES + 1], total;
    /* a remote bot: the secret given out once, its sealed form (made on the
     * pool), the name registered */
    char secret[CLASS_TOKEN_LEN + 1];
    class_cred cred;
    bool sealed;
    char rname[PROTO_NAME_MAX + 1];
    int rc; /* the check's verdict */
    const char *reason;
    char err[600];
} upload;

static void upload_free(upload *u)
{
    for (int i = 0; i < u->nf; i++)
        free(u->data[i]);
    while (u->uploads) {
        staged *next = u->uploads->next;
        class__staged_free(u->uploads);
        u->uploads = next;
    }
    json_decref(u->id);
    OPENSSL_cleanse(u->secret, sizeof u->secret); /* given out once, kept only sealed */
    OPENSSL_cleanse(&u->cred, sizeof u->cred);
    free(u);
}

static bool b64_decode(const char *in, unsigned char **out, size_t *outlen)
{
    size_t n = strlen(in);
    if (n % 4 != 0)
        return false;
    unsigned char *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return false;
    int k = n ? EVP_DecodeBlock(buf, (const unsigned char *)in, (int)n) : 0;
    if (k < 0) {
        free(buf);
        return false;
    }
    size_t pad = (n >= 1 && in[n - 1] == '=') + (n >= 2 && in[n - 2] == '=');
    *out = buf;
    *outlen = (size_t)k - pad;
    return true;
}

/* A kind built on the server (build.c): compiled in the sandbox, in a
 * folder of its own beside the submissions'; what it made becomes a file
 * of the submission. A compile error is the upload's refusal. */
static void build_upload(upload *u)
{
    char rnd[CLASS_TOKEN_LEN + 1];
    if (class_token_new(rnd) != 0) {
        u->rc = ENG_EINTERNAL;
        snprintf(u->err, sizeof u->err, "no random bytes for the build's folder");
        return;
    }
    char work[PATH_MAX];
    snprintf(work, sizeof work, "%.3900s/build-%.16s", u->svc->dir, rnd);
    /* the folders above it as the submissions' are (0711), it 0755 */
    if (class__mkdirs(u->svc, work) != 0) {
        u->rc = ENG_EIO;
        snprintf(u->err, sizeof u->err, "the build's folder could not be made");
        return;
    }
    const char *names[CLASS_MAX_FILES + 1];
    const unsigned char *data[CLASS_MAX_FILES + 1];
    for (int i = 0; i < u->nf; i++) {
        names[i] = u->names[i];
        data[i] = u->data[i];
    }
    unsigned char *made = NULL;
    size_t mlen = 0;
    u->rc = class_build(u->kind, work, u->nf, names, data, u->len, u->main, &made, &mlen, u->err,
                        sizeof u->err);
    if (u->rc == ENG_EINVAL)
        u->reason = "compile_error";
    if (u->rc || !made)
        return;
    snprintf(u->names[u->nf], sizeof u->names[u->nf], "%s", class_kind_built(u->kind));
    u->data[u->nf] = made;
    u->len[u->nf] = mlen;
    u->nf++;
    u->total += mlen;
}

static bool upload_error(upload *u, int rc, const char *text);

/* A staged upload's bytes into u: a zip unpacked (unzip.c), another file
 * read whole. false with rc/err/reason. */
static bool take_staged(upload *u, const staged *s)
{
    size_t room = u->limit > (int64_t)u->total ? (size_t)(u->limit - (int64_t)u->total) : 0;
    size_t nl = strlen(s->name);
    if (nl > 4 && strcmp(s->name + nl - 4, ".zip") == 0) {
        class_unzipped *z = malloc(sizeof *z);
        if (!z) {
            u->reason = NULL;
            return upload_error(u, ENG_ENOMEM, "out of memory");
        }
        char err[400];
        const char *reason = NULL;
        int rc = class_unzip(s->path, CLASS_MAX_FILES - u->nf, room, z, &reason, err, sizeof err);
        if (rc) {
            free(z);
            u->reason = reason;
            snprintf(u->err, sizeof u->err, "%s: %s", s->name, err);
            u->rc = rc;
            return false;
        }
        for (int i = 0; i < z->n; i++) {
            snprintf(u->names[u->nf], sizeof u->names[u->nf], "%s", z->names[i]);
            u->data[u->nf] = z->data[i];
            u->len[u->nf] = z->len[i];
            u->nf++;
        }
        u->total += z->total;
        free(z); /* its buffers are u's now */
        return true;
    }
    if (u->nf >= CLASS_MAX_FILES) {
        u->reason = "too_many_files";
        snprintf(u->err, sizeof u->err, "a submission has at most %d files", CLASS_MAX_FILES);
        u->rc = ENG_ETOO_MANY;
        return false;
    }
    if ((size_t)s->bytes > room) {
        u->reason = "too_large";
        snprintf(u->err, sizeof u->err, "a submission of this course is at most %lld bytes",
                 (long long)u->limit);
        u->rc = ENG_ETOO_LARGE;
        return false;
    }
    FILE *f = fopen(s->path, "rb");
    unsigned char *buf = malloc((size_t)s->bytes + 1);
    bool ok = f && buf && fread(buf, 1, (size_t)s->bytes, f) == (size_t)s->bytes;
    if (f)
        fclose(f);
    if (!ok) {
        free(buf);
        u->reason = NULL;
        return upload_error(u, ENG_EIO, "an upload could not be read back on the server");
    }
    snprintf(u->names[u->nf], sizeof u->names[u->nf], "%s", s->name);
    u->data[u->nf] = buf;
    u->len[u->nf] = (size_t)s->bytes;
    u->nf++;
    u->total += (size_t)s->bytes;
    return true;
}

/* Every file in u (the inline ones, the uploads, the zips unpacked): the
 * names once each, the main file one of them and fit for the kind. false
 * with rc/err/reason. */
static bool gather(upload *u)
{
    for (const staged *s = u->uploads; s; s = s->next)
        if (!take_staged(u, s))
            return false;
    u->reason = "bad_upload";
    if (u->nf == 0)
        return upload_error(u, ENG_EINVAL, "no files: send some in files or uploads");
    if (u->total > (size_t)u->limit) {
        u->reason = "too_large";
        snprintf(u->err, sizeof u->err, "a submission of this course is at most %lld bytes",
                 (long long)u->limit);
        u->rc = ENG_ETOO_LARGE;
        return false;
    }
    const char *built = class_kind_built(u->kind);
    for (int i = 0; i < u->nf; i++) {
        for (int k = 0; k < i; k++)
            if (strcmp(u->names[k], u->names[i]) == 0) {
                snprintf(u->err, sizeof u->err, "two files are named %s", u->names[i]);
                u->rc = ENG_EINVAL;
                return false;
            }
        if (built && strcmp(u->names[i], built) == 0) {
            snprintf(u->err, sizeof u->err, "%s is the name of what the build makes",
                     u->names[i]);
            u->rc = ENG_EINVAL;
            return false;
        }
    }
    const char *paths[CLASS_MAX_FILES + 1];
    for (int i = 0; i < u->nf; i++)
        paths[i] = u->names[i];
    int clash = class_paths_clash(u->nf, paths);
    if (clash >= 0) {
        snprintf(u->err, sizeof u->err, "%s is both a file and a folder", u->names[clash]);
        u->rc = ENG_EINVAL;
        return false;
    }
    if (!u->main_given && u->nf == 1)
        snprintf(u->main, sizeof u->main, "%s", u->names[0]);
    bool found = false;
    for (int i = 0; i < u->nf; i++)
        found = found || strcmp(u->names[i], u->main) == 0;
    if (!found) {
        snprintf(u->err, sizeof u->err, "main: the name of the file to run, one of the files%s",
                 u->main_given ? "" : " (needed when there are several)");
        u->rc = ENG_EINVAL;
        return false;
    }
    u->rc = class_build_check_main(u->kind, u->main, u->err, sizeof u->err);
    if (u->rc)
        return false;
    u->reason = "not_declared_kind";
    return true;
}

/* On the builds' pool (a remote bot: the host's): the files gathered and
 * checked against the declared kind (or built), a remote bot's secret
 * sealed. */
static void upload_work(void *arg)
{
    upload *u = arg;
    if (u->kind == CLASS_REMOTE) {
        u->sealed = u->svc->host.seal_secret &&
                    u->svc->host.seal_secret(u->svc->host.user, u->secret, &u->cred);
        return;
    }
    if (!gather(u))
        return;
    if (class_kind_is_built(u->kind)) {
        build_upload(u);
        return;
    }
    for (int i = 0; i < u->nf && u->rc == 0; i++) {
        /* the main file, and every .py file of a Python submission, is
         * checked; other files are data it may read (a book, weights) */
        size_t nl = strlen(u->names[i]);
        bool py = nl > 3 && strcmp(u->names[i] + nl - 3, ".py") == 0;
        if ((u->kind == CLASS_PYTHON && py) || strcmp(u->names[i], u->main) == 0)
            u->rc = class_check_file(u->kind, u->names[i], u->data[i], u->len[i], u->err,
                                     sizeof u->err);
    }
}

static bool upload_error(upload *u, int rc, const char *text)
{
    u->rc = rc;
    snprintf(u->err, sizeof u->err, "%s", text);
    return false;
}

/* A remote submission's registered name, given out with its secret (course
 * C, student S, version N and a random tail no one can guess before it is
 * given out), reserved and written to its row. false with rc/err. */
static bool remote_name(upload *u, int64_t sub, int64_t version)
{
    class_service *svc = u->svc;
    if (!u->sealed)
        return upload_error(u, ENG_EINTERNAL, "the bot's secret could not be hashed; submit again");
    int rc = ENG_EINVAL;
    for (int tries = 0; tries < 3 && rc == ENG_EINVAL; tries++) {
        char rnd[CLASS_TOKEN_LEN + 1];
        if (class_token_new(rnd) != 0) {
            rc = ENG_EINTERNAL;
            break;
        }
        for (char *p = rnd; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        snprintf(u->rname, sizeof u->rname, "course%lld-s%lld-v%lld-%.6s", (long long)u->who.course,
                 (long long)u->who.id, (long long)version, rnd);
        rc = svc->host.reserve_name ? svc->host.reserve_name(svc->host.user, u->rname, &u->cred)
                                    : ENG_EINTERNAL;
    }
    if (rc == ENG_ETOO_MANY)
        return upload_error(u, ENG_ETOO_MANY, "the server holds its maximum of registered names");
    if (rc)
        return upload_error(u, ENG_ESTORAGE, "the bot's registration could not be stored");
    if (!class__sub_set_main(svc, sub, u->rname))
        return upload_error(u, ENG_ESTORAGE, "the submission could not be stored");
    return true;
}

/* Remove what write_files wrote of u under dir (the transaction that
 * would have named them was rolled back). */
static void remove_files(const upload *u, const char *dir)
{
    (void)u;
    class_rmtree(dir); /* its files and their folders: the folder is this upload's alone */
}

/* A checked upload's folder and files, written to its row (the bytes too,
 * for class__ensure_files). false with rc/err (and *dir the folder if it
 * was made: the caller removes it). */
static bool write_files(upload *u, int64_t sub, int64_t version, char *dir, size_t dircap)
{
    class_service *svc = u->svc;
    char rnd[CLASS_TOKEN_LEN + 1];
    dir[0] = '\0';
    if (class_token_new(rnd) != 0)
        return upload_error(u, ENG_EINTERNAL, "no random bytes for the submission's directory");
    char path0[PATH_MAX];
    snprintf(path0, sizeof path0, "%.3900s/course-%lld/student-%lld/v%lld-%.16s", svc->dir,
             (long long)u->who.course, (long long)u->who.id, (long long)version, rnd);
    if (class__mkdirs(svc, path0) != 0)
        return upload_error(u, ENG_EIO, "the submission's directory could not be made");
    snprintf(dir, dircap, "%s", path0);
    json_t *fl = json_array();
    for (int i = 0; u->rc == 0 && i < u->nf; i++) {
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", dir, u->names[i]);
        bool exe = class_file_runs(u->kind, u->names[i], u->main);
        FILE *f = class_path_mkdirs(dir, u->names[i]) == 0 ? fopen(path, "wbx") : NULL;
        bool ok = f && fwrite(u->data[i], 1, u->len[i], f) == u->len[i];
        if (f && fclose(f) != 0)
            ok = false;
        if (ok && chmod(path, exe ? 0755 : 0644) != 0)
            ok = false;
        if (!ok)
            upload_error(u, ENG_EIO, "the submission's files could not be written");
        json_array_append_new(
            fl, json_pack("{s:s, s:I}", "name", u->names[i], "bytes", (json_int_t)u->len[i]));
    }
    char *ftext = u->rc ? NULL : json_dumps(fl, JSON_COMPACT);
    json_decref(fl);
    if (u->rc)
        return false;
    bool ok = ftext != NULL;
    for (int i = 0; ok && i < u->nf; i++)
        ok = class__sub_add_file(svc, sub, u->names[i], u->data[i], u->len[i]);
    ok = ok && class__sub_set_files(svc, sub, ftext, dir);
    free(ftext);
    return ok || upload_error(u, ENG_ESTORAGE, "the submission could not be stored");
}

/* Store a checked upload in one transaction: its row, then its folder and
 * files or a remote bot's registered name. Returns the submission's id, or
 * 0 with rc/err set (*again: its version was taken by another server's
 * upload meanwhile; nothing was kept, try again). */
static int64_t store_once(upload *u, int64_t now, const char *hex, int64_t *version, bool *again)
{
    class_service *svc = u->svc;
    *again = false;
    int rc = DB_EFAIL;
    int64_t sub = class__begin(svc)
                      ? class__sub_insert(svc, &u->who, class_kind_name(u->kind), u->main,
                                          (int64_t)u->total, hex, now, version, &rc)
                      : 0;
    if (!sub) {
        class__commit(svc, false);
        *again = rc == DB_ECONSTRAINT;
        upload_error(u, ENG_ESTORAGE, "the submission could not be stored");
        return 0;
    }
    if (*version > CLASS_MAX_VERSIONS) {
        class__commit(svc, false);
        u->rc = ENG_ETOO_MANY;
        snprintf(u->err, sizeof u->err, "at most %d submissions per student", CLASS_MAX_VERSIONS);
        return 0;
    }
    char dir[PATH_MAX] = "";
    bool ok = u->kind == CLASS_REMOTE ? remote_name(u, sub, *version)
                                      : write_files(u, sub, *version, dir, sizeof dir);
    if (ok && u->kind != CLASS_REMOTE) {
        /* in the order of their names: the same files sent in another order
         * have the same shape */
        const char *names[CLASS_MAX_FILES + 1];
        const unsigned char *data[CLASS_MAX_FILES + 1];
        size_t lens[CLASS_MAX_FILES + 1];
        for (int i = 0; i < u->nf; i++) {
            int j = i;
            for (; j > 0 && strcmp(names[j - 1], u->names[i]) > 0; j--) {
                names[j] = names[j - 1];
                data[j] = data[j - 1];
                lens[j] = lens[j - 1];
            }
            names[j] = u->names[i];
            data[j] = u->data[i];
            lens[j] = u->len[i];
        }
        char shape[65];
        class_shape_hash(u->kind, u->nf, names, data, lens, shape);
        ok = class__sub_set_shape(svc, sub, shape);
    }
    if (!class__commit(svc, ok)) {
        if (dir[0])
            remove_files(u, dir);
        if (!u->rc)
            upload_error(u, ENG_ESTORAGE, "the submission could not be stored");
        return 0;
    }
    return sub;
}

/* Store a checked upload: its folder, files and row (a remote bot: its
 * registered name and row). Returns the submission's id, or 0 with rc/err
 * set; hex gets the SHA-256 of the files (names and bytes). */
static int64_t upload_store(upload *u, int64_t now, int64_t *version_out, char *hex)
{
    unsigned char hash[SHA256_DIGEST_LENGTH];
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    bool hok = h && EVP_DigestInit_ex(h, EVP_sha256(), NULL) == 1;
    for (int i = 0; hok && i < u->nf; i++)
        hok = EVP_DigestUpdate(h, u->names[i], strlen(u->names[i]) + 1) == 1 &&
              EVP_DigestUpdate(h, u->data[i], u->len[i]) == 1;
    hok = hok && EVP_DigestFinal_ex(h, hash, NULL) == 1;
    EVP_MD_CTX_free(h);
    if (!hok)
        memset(hash, 0, sizeof hash);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(hex + 2 * i, "%02x", hash[i]);
    u->reason = NULL;
    int64_t sub = 0;
    bool again = true;
    for (int tries = 0; !sub && again && tries < 3; tries++) {
        u->rc = 0;
        sub = store_once(u, now, u->kind == CLASS_REMOTE ? "" : hex, version_out, &again);
    }
    return sub;
}

/* Back on the loop: stored (and its ladder queued) or refused, answered. */
static void upload_done(void *arg, int status)
{
    upload *u = arg;
    class_service *svc = u->svc;
    if (u->kind == CLASS_REMOTE)
        svc->checking--;
    if (status != 0 && u->rc == 0) {
        upload_error(u, ENG_EINTERNAL, "the upload could not be checked; send it again");
        u->reason = NULL;
    }
    int64_t now = class__now_ms(), sub = 0, version = 0;
    char hex[65] = "";
    course_t crs;
    bool have = false;
    if (u->rc == 0 && svc->stopping) {
        upload_error(u, ENG_ESHUTTING_DOWN, "the server is shutting down; send it again later");
        u->reason = NULL;
    } else if (u->rc == 0 && !(have = class__course_load(svc, u->who.course, &crs))) {
        /* deleted while the files were checked */
        upload_error(u, ENG_EBAD_TOKEN, "no student has that token");
        u->reason = "bad_token";
    } else if (u->rc == 0) {
        /* the deadline may have passed while the files were checked */
        char why[120];
        const char *closed = class__closed_to(&crs, &u->who, now, why, sizeof why);
        if (closed) {
            upload_error(u, ENG_EFORBIDDEN, why);
            u->reason = closed;
        }
    }
    if (u->rc == 0)
        sub = upload_store(u, now, &version, hex);
    if (sub) {
        class__log(svc, CLASS_LOG_INFO, "course_submission", "{s:I, s:I, s:s, s:I, s:s, s:I}",
                   "course", (json_int_t)u->who.course, "submission", (json_int_t)sub, "student",
                   u->who.sid, "version", (json_int_t)version, "kind", class_kind_name(u->kind),
                   "bytes", (json_int_t)u->total);
        class__queue_ladder(svc, sub);
        json_t *rep = proto_reply("course_submitted", u->id);
        json_object_set_new(rep, "submission", json_integer(sub));
        json_object_set_new(rep, "version", json_integer(version));
        json_object_set_new(rep, "created_ms", json_integer(now));
        json_object_set_new(rep, "sha256", json_string(hex));
        json_object_set_new(rep, "bytes", json_integer((json_int_t)u->total));
        json_object_set_new(rep, "kind", json_string(class_kind_name(u->kind)));
        if (u->kind == CLASS_REMOTE)
            json_object_set_new(rep, "remote",
                                json_pack("{s:s, s:s, s:s}", "name", u->rname, "secret", u->secret,
                                          "game", have ? crs.g->name : ""));
        svc->host.reply(svc->host.user, u->caller, rep);
    } else {
        /* refused for what the student sent — its check or build (a syntax or
         * compile error, a file that is not what its kind says) — counted for
         * the grades; not for the server's troubles or a closed course */
        if (u->who.id > 0 && (u->rc == ENG_EINVAL || u->rc == ENG_ETOO_LARGE || u->rc == ENG_ETOO_MANY) &&
            !class__student_refused(svc, u->who.id))
            class__log(svc, CLASS_LOG_WARN, "course_refused_uncounted", "{s:I}", "student",
                       (json_int_t)u->who.id);
        class__fail_to(svc, u->caller, u->id, u->rc, u->reason, "%s", u->err);
    }
    if (have)
        class__course_release(&crs);
    upload_free(u);
}

/* On the loop: a build thread took u; its submitter is told. */
static void upload_started(void *arg)
{
    upload *u = arg;
    if (!u->waiting)
        return; /* told nothing yet: the reply comes soon enough */
    u->svc->host.reply(u->svc->host.user, u->caller,
                       json_pack("{s:s, s:s}", "type", "course_build", "state", "building"));
}

/* Hand u to the builds' pool (a remote bot: the host's pool); false after
 * replying. A submitter whose upload waits behind others is told so
 * (course_build, no id: the reply to course_submit comes after it). */
static bool upload_queue(const req *r, upload *u)
{
    class_service *svc = r->svc;
    int ahead = 0;
    bool waits = false;
    int rc = u->kind == CLASS_REMOTE
                 ? svc->host.queue_work(svc->host.user, upload_work, upload_done, u)
                 : class_pool_push(svc->builds,
                                   &(class_pool_job){.work = upload_work,
                                                     .started = upload_started,
                                                     .done = upload_done,
                                                     .arg = u},
                                   &waits, &ahead);
    if (rc != 0) {
        if (u->kind == CLASS_REMOTE)
            class__fail(r, ENG_EINTERNAL, NULL, "the submission could not be made; send it again");
        else
            class__fail(r, ENG_ETOO_MANY, "too_many",
                        "%d uploads wait to be checked or built: send yours again in a minute",
                        CLASS_POOL_MAX_WAITING);
        upload_free(u);
        return false;
    }
    if (u->kind == CLASS_REMOTE) {
        svc->checking++;
    } else if (waits) {
        u->waiting = true;
        int running, waiting, threads;
        class_pool_counts(svc->builds, &running, &waiting, &threads);
        class__reply(r, json_pack("{s:s, s:s, s:i, s:i, s:i}", "type", "course_build", "state",
                                  "waiting", "ahead", ahead, "building", running, "threads",
                                  threads));
    }
    return true;
}

static upload *upload_new(const req *r, const student_t *who, class_kind kind)
{
    upload *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->svc = r->svc;
    u->who = *who;
    u->kind = kind;
    u->caller = r->caller;
    u->id = r->id ? json_deep_copy(r->id) : NULL;
    u->reason = "not_declared_kind";
    return u;
}

/* At most CLASS_MAX_CHECKS remote bots' secrets sealed at once (PBKDF2 on
 * the host's pool, beside the gate opponents' checks); false after replying. */
static bool room_to_check(const req *r)
{
    if (r->svc->checking < CLASS_MAX_CHECKS)
        return true;
    class__fail(r, ENG_ETOO_MANY, NULL,
                "%d checks are running; send yours again in a moment", r->svc->checking);
    return false;
}

/* course_submit of kind "remote": no files; the host registers a name
 * and the service gives out a secret (sealed on the pool) for the
 * student's bot. */
static void submit_remote(const req *r, const student_t *who)
{
    const json_t *files = r->c->files;
    if ((files && json_array_size(files) != 0) || r->c->main) {
        class__fail(r, ENG_EINVAL, "bad_upload",
                    "a remote bot is submitted without files or main: it runs on your machine");
        return;
    }
    if (!room_to_check(r))
        return;
    upload *u = upload_new(r, who, CLASS_REMOTE);
    if (!u || class_token_new(u->secret) != 0) {
        if (u)
            upload_free(u);
        class__fail(r, ENG_EINTERNAL, NULL, "no random bytes for the bot's secret");
        return;
    }
    upload_queue(r, u);
}

/* The files sent inline in the message into u, checked for names and
 * sizes (the rest is checked with the uploads, on the pool: gather): 0,
 * or a code with u->err and *reason. */
static int read_files(const req *r, upload *u, const char **reason)
{
    const json_t *files = r->c->files;
    size_t nf = json_array_size(files);
    char *err = u->err;
    size_t errcap = sizeof u->err;
    *reason = "bad_upload";
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(files, i);
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *d = json_string_value(json_object_get(f, "data"));
        if (!name || !d) {
            snprintf(err, errcap, "files[%zu]: {name, data (base64)}", i);
            return ENG_EBAD_MESSAGE;
        }
        if (strlen(d) / 4 * 3 > CLASS_MAX_UPLOAD + 3) {
            *reason = "too_large";
            snprintf(err, errcap,
                     "files sent inline are at most %d bytes together: send larger ones with "
                     "course_upload",
                     CLASS_MAX_UPLOAD);
            return ENG_ETOO_LARGE;
        }
        if (!class_path_ok(name)) {
            snprintf(err, errcap,
                     "files[%zu]: '%.70s' is not an accepted file name (1 to %d of A-Z a-z 0-9 _ "
                     ". -, not starting with a dot; in folders up to %d deep)",
                     i, name, CLASS_FILE_NAME_MAX, CLASS_PATH_DEPTH);
            return ENG_EINVAL;
        }
        snprintf(u->names[i], sizeof u->names[i], "%s", name);
        u->nf = (int)i + 1;
        if (!b64_decode(d, &u->data[i], &u->len[i])) {
            snprintf(err, errcap, "files[%zu].data is not base64", i);
            return ENG_EINVAL;
        }
        u->total += u->len[i];
        if (u->total > CLASS_MAX_UPLOAD) {
            *reason = "too_large";
            snprintf(err, errcap,
                     "files sent inline are at most %d bytes together; these have %zu+: send "
                     "larger ones with course_upload",
                     CLASS_MAX_UPLOAD, u->total);
            return ENG_ETOO_LARGE;
        }
    }
    const char *main = r->c->main;
    if (main) {
        if (strlen(main) > CLASS_PATH_MAX) {
            snprintf(err, errcap, "main: the name of the file to run, one of the files");
            return ENG_EINVAL;
        }
        snprintf(u->main, sizeof u->main, "%s", main);
        u->main_given = true;
    }
    return 0;
}

void class__submit(const req *r)
{
    student_t who;
    if (!class__need_student(r, &who))
        return;
    course_t c;
    if (!class__course_load(r->svc, who.course, &c)) {
        class__fail(r, ENG_EINTERNAL, NULL, "your course could not be read");
        return;
    }
    char why[120];
    const char *closed = class__closed_to(&c, &who, class__now_ms(), why, sizeof why);
    int64_t limit = class__upload_limit(r->svc, &c);
    class__course_release(&c);
    if (closed) {
        class__fail(r, ENG_EFORBIDDEN, closed, "%s", why);
        return;
    }
    class_kind kind;
    if (!r->c->kind || class_kind_parse(r->c->kind, &kind) != 0) {
        class__fail(r, ENG_EINVAL, "bad_upload",
                    "kind: \"python\" (Python 3 source), \"java\", \"c\", \"cpp\" (sources "
                    "built on the server), \"javascript\" (run by node), \"executable\" (a "
                    "native ELF program) or \"remote\" (a bot you run yourself, registered on "
                    "this server)");
        return;
    }
    if (kind == CLASS_REMOTE) {
        submit_remote(r, &who);
        return;
    }
    size_t nf = json_array_size(r->c->files), nu = json_array_size(r->c->uploads);
    if (nf > CLASS_MAX_INLINE_FILES || nf + nu < 1 || nu > CLASS_UPLOADS_PER_STUDENT) {
        class__fail(r, ENG_EBAD_MESSAGE, "bad_upload",
                    "files: an array of 0 to %d {name, data (base64)}, and uploads: 0 to %d ids "
                    "of course_upload files; one file at least",
                    CLASS_MAX_INLINE_FILES, CLASS_UPLOADS_PER_STUDENT);
        return;
    }
    upload *u = upload_new(r, &who, kind);
    if (!u) {
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        return;
    }
    u->limit = limit;
    const char *reason;
    int rc = read_files(r, u, &reason);
    if (rc == 0 && nu) {
        reason = "unknown_upload";
        rc = class__uploads_take(r->svc, r->caller, who.id, r->c->uploads, &u->uploads, u->err,
                                 sizeof u->err);
    }
    if (rc) {
        class__fail(r, rc, reason, "%s", u->err);
        upload_free(u);
        return;
    }
    upload_queue(r, u);
}
