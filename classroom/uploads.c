/*
 * uploads.c — files larger than one protocol message, sent in chunks
 * (course_upload; docs/classroom.md, "Uploads"), staged on disk until a
 * course_submit names them.
 *
 *   begin  {token, name, bytes, sha256}: the student, the course open, the
 *          size within the course's max_upload_bytes, the connection below
 *          CLASS_UPLOADS_PER_STUDENT; a file of its own is made (0600) under
 *          DIR/uploads/, and a random id given out.
 *   chunk  {upload, offset, data}: offset must be what was received so far
 *          (else bad_chunk with `expected`: the client sends again from
 *          there), data at most CLASS_CHUNK_BYTES; written at once (never
 *          held), hashed as it comes.
 *   commit {upload}: every byte there and the SHA-256 the one declared
 *          (else bad_checksum, and the upload is gone).
 *   abort  {upload}: gone.
 *   resume {token, upload}: an upload of the same student begun on another
 *          connection (one that closed: a reload, a dropped network) is
 *          this connection's from now on; the reply says what the server
 *          has (`received`): the client sends on from there.
 *
 * An upload is its connection's: another connection's id is
 * unknown_upload until it resumes it with its student's token. When a
 * connection closes (class_service_caller_gone) its uploads are kept,
 * belonging to no connection, to be resumed; one untouched for
 * CLASS_UPLOAD_IDLE_MS is removed by the tick, whichever connection it is. course_submit takes its
 * committed uploads (class__uploads_take): from then on the submission
 * owns the staged file and removes it when it is done with it.
 *
 * Ownership: the service owns the staged list (loop thread only).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classroom/internal.h"
#include "engine/errors.h"

void class__staged_free(staged *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->path[0])
        unlink(s->path);
    EVP_MD_CTX_free(s->sha);
    free(s);
}

/* Off the service's list (not freed). */
static void unlink_staged(class_service *svc, staged *s)
{
    for (staged **p = &svc->staged; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            s->next = NULL;
            svc->nstaged--;
            return;
        }
}

static staged *find(class_service *svc, uint64_t caller, const char *id)
{
    for (staged *s = svc->staged; s; s = s->next)
        if (s->caller == caller && strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

static void drop(class_service *svc, staged *s)
{
    unlink_staged(svc, s);
    class__staged_free(s);
}

void class_service_caller_gone(class_service *svc, uint64_t caller)
{
    /* kept for its student to resume from another connection (a page reloaded), until the
     * idle limit removes it: no connection has id 0 */
    for (staged *s = svc->staged; s; s = s->next)
        if (s->caller == caller)
            s->caller = 0;
}

void class__uploads_expire(class_service *svc, int64_t now)
{
    for (staged *s = svc->staged, *next; s; s = next) {
        next = s->next;
        if (now - s->touched_ms > CLASS_UPLOAD_IDLE_MS) {
            class__log(svc, CLASS_LOG_INFO, "course_upload_expired", "{s:s, s:I, s:I}", "upload",
                       s->id, "received", (json_int_t)s->received, "bytes", (json_int_t)s->bytes);
            drop(svc, s);
        }
    }
}

void class__uploads_free_all(class_service *svc)
{
    while (svc->staged)
        drop(svc, svc->staged);
}

/* The staging folder, emptied of what a previous run left (loop, at start). */
void class__uploads_init(class_service *svc)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.4000s/uploads", svc->dir);
    if (mkdir(dir, 0700) != 0 && errno == ENOENT) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%.4000s/uploads/x", svc->dir);
        class__mkdirs(svc, tmp); /* the folders above it, made as the submissions' are */
        rmdir(tmp);
        mkdir(dir, 0700);
    }
    chmod(dir, 0700);
    /* leftovers are the files this service named up-ID: nothing else is touched */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "up-", 3) != 0)
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
}

/* Its reply: {type course_upload, op, upload, bytes, received, ...}. */
static json_t *reply(const req *r, const char *op, const staged *s)
{
    json_t *rep = proto_reply("course_upload", r->id);
    json_object_set_new(rep, "op", json_string(op));
    json_object_set_new(rep, "upload", json_string(s->id));
    json_object_set_new(rep, "name", json_string(s->name));
    json_object_set_new(rep, "bytes", json_integer(s->bytes));
    json_object_set_new(rep, "received", json_integer(s->received));
    return rep;
}

static bool hex_ok(const char *h)
{
    if (!h || strlen(h) != 64)
        return false;
    for (const char *p = h; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
            return false;
    return true;
}

static void begin(const req *r)
{
    class_service *svc = r->svc;
    student_t who;
    if (!class__need_student(r, &who))
        return;
    course_t c;
    if (!class__course_load(svc, who.course, &c)) {
        class__fail(r, ENG_EINTERNAL, NULL, "your course could not be read");
        return;
    }
    char why[120];
    const char *closed = class__closed_to(&c, &who, class__now_ms(), why, sizeof why);
    int64_t limit = class__upload_limit(svc, &c);
    class__course_release(&c);
    if (closed) {
        class__fail(r, ENG_EFORBIDDEN, closed, "%s", why);
        return;
    }
    const proto_course *m = r->c;
    if (!m->name || !class_file_name_ok(m->name)) {
        class__fail(r, ENG_EINVAL, "bad_upload",
                    "name: the file's name, 1 to %d of A-Z a-z 0-9 _ . -, not starting with a dot "
                    "(a name ending in .zip is unpacked at submit)",
                    CLASS_FILE_NAME_MAX);
        return;
    }
    if (!m->bytes.set || m->bytes.v < 0) {
        class__fail(r, ENG_EBAD_MESSAGE, "bad_upload", "bytes: the file's size in bytes");
        return;
    }
    if (m->bytes.v > limit) {
        class__fail(r, ENG_ETOO_LARGE, "too_large",
                    "%s has %lld bytes; a submission of this course is at most %lld bytes",
                    m->name, (long long)m->bytes.v, (long long)limit);
        return;
    }
    if (!hex_ok(m->sha256)) {
        class__fail(r, ENG_EBAD_MESSAGE, "bad_upload",
                    "sha256: the file's SHA-256, 64 hex digits (checked at commit)");
        return;
    }
    int mine = 0;
    for (staged *s = svc->staged; s; s = s->next)
        mine += s->student == who.id;
    if (mine >= CLASS_UPLOADS_PER_STUDENT || svc->nstaged >= CLASS_MAX_STAGED) {
        class__fail(r, ENG_ETOO_MANY, "too_many",
                    mine >= CLASS_UPLOADS_PER_STUDENT
                        ? "at most %d uploads of one student at once: submit, abort or resume one"
                        : "the server holds its most uploads at once (%d); send it again later",
                    mine >= CLASS_UPLOADS_PER_STUDENT ? CLASS_UPLOADS_PER_STUDENT
                                                      : CLASS_MAX_STAGED);
        return;
    }
    staged *s = calloc(1, sizeof *s);
    if (!s) {
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        return;
    }
    s->fd = -1;
    s->sha = EVP_MD_CTX_new();
    if (!s->sha || EVP_DigestInit_ex(s->sha, EVP_sha256(), NULL) != 1 ||
        class_token_new(s->id) != 0) {
        class__staged_free(s);
        class__fail(r, ENG_EINTERNAL, NULL, "the upload could not be begun");
        return;
    }
    snprintf(s->path, sizeof s->path, "%.4000s/uploads/up-%s", svc->dir, s->id);
    s->fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (s->fd < 0) {
        s->path[0] = '\0';
        class__staged_free(s);
        class__log(svc, CLASS_LOG_ERROR, "course_upload_file", "{s:s}", "error", strerror(errno));
        class__fail(r, ENG_EIO, NULL, "the upload's file could not be made on the server");
        return;
    }
    s->caller = r->caller;
    s->student = who.id;
    s->course = who.course;
    s->bytes = m->bytes.v;
    snprintf(s->name, sizeof s->name, "%s", m->name);
    for (int i = 0; i < 64; i++)
        s->want[i] = (char)(m->sha256[i] >= 'A' && m->sha256[i] <= 'F' ? m->sha256[i] - 'A' + 'a'
                                                                        : m->sha256[i]);
    s->touched_ms = class__now_ms();
    s->next = svc->staged;
    svc->staged = s;
    svc->nstaged++;
    json_t *rep = reply(r, "begin", s);
    json_object_set_new(rep, "chunk_bytes", json_integer(CLASS_CHUNK_BYTES));
    class__reply(r, rep);
}

/* The upload a chunk, commit or abort names, or a reply (NULL). */
static staged *named(const req *r)
{
    staged *s = r->c->upload ? find(r->svc, r->caller, r->c->upload) : NULL;
    if (!s)
        class__fail(r, ENG_EINVAL, "unknown_upload",
                    "no upload %.40s on this connection (one begun on another is taken over with "
                    "op resume; uploads are removed when submitted, aborted, refused, or idle "
                    "for %d minutes)",
                    r->c->upload ? r->c->upload : "(none: \"upload\" names it)",
                    CLASS_UPLOAD_IDLE_MS / 60000);
    return s;
}

static void bad_chunk(const req *r, const staged *s, const char *fmt, long long a)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, a);
    json_t *e = proto_error(ENG_EINVAL, msg, r->id);
    json_object_set_new(e, "reason", json_string("bad_chunk"));
    json_object_set_new(e, "upload", json_string(s->id));
    json_object_set_new(e, "expected", json_integer(s->received));
    class__reply(r, e);
}

static void chunk(const req *r)
{
    staged *s = named(r);
    if (!s)
        return;
    s->touched_ms = class__now_ms();
    if (s->committed) {
        bad_chunk(r, s, "the upload was committed%.0lld: submit it, or begin another", 0);
        return;
    }
    if (!r->c->offset.set || r->c->offset.v != s->received) {
        bad_chunk(r, s,
                  "offset %lld is not where the upload is: send again from \"expected\" "
                  "(chunks in order, each once)",
                  r->c->offset.set ? (long long)r->c->offset.v : -1LL);
        return;
    }
    const char *d = r->c->data ? r->c->data : "";
    size_t n64 = strlen(d);
    if (n64 % 4 != 0 || n64 / 4 * 3 > CLASS_CHUNK_BYTES + 2) {
        bad_chunk(r, s, "data: base64 of at most %lld bytes", (long long)CLASS_CHUNK_BYTES);
        return;
    }
    unsigned char *buf = malloc(n64 / 4 * 3 + 1);
    int k = buf && n64 ? EVP_DecodeBlock(buf, (const unsigned char *)d, (int)n64) : 0;
    if (!buf || k < 0) {
        free(buf);
        bad_chunk(r, s, "data is not base64%.0lld", 0);
        return;
    }
    size_t len = (size_t)k - ((n64 >= 1 && d[n64 - 1] == '=') + (n64 >= 2 && d[n64 - 2] == '='));
    if (s->received + (int64_t)len > s->bytes) {
        free(buf);
        bad_chunk(r, s, "the chunk goes past the %lld bytes declared at begin",
                  (long long)s->bytes);
        return;
    }
    ssize_t w = len ? pwrite(s->fd, buf, len, (off_t)s->received) : 0;
    bool ok = w == (ssize_t)len && EVP_DigestUpdate(s->sha, buf, len) == 1;
    free(buf);
    if (!ok) {
        class__log(r->svc, CLASS_LOG_ERROR, "course_upload_write", "{s:s}", "error",
                   strerror(errno));
        class__fail(r, ENG_EIO, NULL, "the chunk could not be written on the server; upload "
                                      "again later");
        drop(r->svc, s);
        return;
    }
    s->received += (int64_t)len;
    class__reply(r, reply(r, "chunk", s));
}

static void commit(const req *r)
{
    staged *s = named(r);
    if (!s)
        return;
    s->touched_ms = class__now_ms();
    if (s->committed) {
        class__reply(r, reply(r, "commit", s));
        return;
    }
    if (s->received != s->bytes) {
        bad_chunk(r, s, "%lld bytes are missing: send them, then commit",
                  (long long)(s->bytes - s->received));
        return;
    }
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned hl = 0;
    char hex[65] = "";
    if (EVP_DigestFinal_ex(s->sha, h, &hl) == 1 && hl == 32)
        for (int i = 0; i < 32; i++)
            sprintf(hex + 2 * i, "%02x", h[i]);
    if (strcmp(hex, s->want) != 0) {
        class__fail(r, ENG_EINVAL, "bad_checksum",
                    "%s: the bytes received have SHA-256 %s, not the %s declared; the upload "
                    "was removed: begin it again",
                    s->name, hex, s->want);
        drop(r->svc, s);
        return;
    }
    close(s->fd);
    s->fd = -1;
    s->committed = true;
    json_t *rep = reply(r, "commit", s);
    json_object_set_new(rep, "sha256", json_string(hex));
    class__reply(r, rep);
}

/* resume: the student's upload, begun on another connection, this one's from now on. */
static void resume(const req *r)
{
    student_t who;
    if (!class__need_student(r, &who))
        return;
    staged *s = NULL;
    for (staged *x = r->svc->staged; r->c->upload && x; x = x->next)
        if (strcmp(x->id, r->c->upload) == 0 && x->student == who.id)
            s = x;
    if (!s) {
        class__fail(r, ENG_EINVAL, "unknown_upload",
                    "no upload %.40s of yours (uploads are removed when submitted, aborted, "
                    "refused, or idle for %d minutes)",
                    r->c->upload ? r->c->upload : "(none: \"upload\" names it)",
                    CLASS_UPLOAD_IDLE_MS / 60000);
        return;
    }
    s->caller = r->caller; /* a connection still open that began it loses it: one sender */
    s->touched_ms = class__now_ms();
    json_t *rep = reply(r, "resume", s);
    json_object_set_new(rep, "chunk_bytes", json_integer(CLASS_CHUNK_BYTES));
    json_object_set_new(rep, "committed", json_boolean(s->committed));
    json_object_set_new(rep, "sha256", json_string(s->want));
    class__reply(r, rep);
}

void class__upload(const req *r)
{
    const char *op = r->c->op;
    if (strcmp(op, "begin") == 0) {
        begin(r);
    } else if (strcmp(op, "chunk") == 0) {
        chunk(r);
    } else if (strcmp(op, "commit") == 0) {
        commit(r);
    } else if (strcmp(op, "resume") == 0) {
        resume(r);
    } else if (strcmp(op, "abort") == 0) {
        staged *s = named(r);
        if (s) {
            json_t *rep = reply(r, "abort", s);
            drop(r->svc, s);
            class__reply(r, rep);
        }
    } else {
        class__fail(r, ENG_EBAD_MESSAGE, "bad_upload", "op: begin, chunk, commit, abort or resume");
    }
}

int class__uploads_take(class_service *svc, uint64_t caller, int64_t student, const json_t *ids,
                        staged **out, char *err, size_t errcap)
{
    *out = NULL;
    size_t n = json_array_size(ids);
    /* all of them checked before any is taken */
    for (size_t i = 0; i < n; i++) {
        const char *id = json_string_value(json_array_get(ids, i));
        staged *s = id ? find(svc, caller, id) : NULL;
        if (!s || s->student != student) {
            snprintf(err, errcap, "uploads[%zu]: no upload %.40s on this connection", i,
                     id ? id : "(not a string)");
            return ENG_EINVAL;
        }
        if (!s->committed) {
            snprintf(err, errcap, "uploads[%zu]: %s is not committed yet", i, s->name);
            return ENG_EINVAL;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_array_get(ids, k)), id) == 0) {
                snprintf(err, errcap, "uploads[%zu]: %s is named twice", i, s->name);
                return ENG_EINVAL;
            }
    }
    staged **tail = out;
    for (size_t i = 0; i < n; i++) {
        staged *s = find(svc, caller, json_string_value(json_array_get(ids, i)));
        unlink_staged(svc, s);
        *tail = s;
        tail = &s->next;
    }
    return 0;
}
