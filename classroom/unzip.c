/*
 * unzip.c — a student's zip unpacked safely into a submission's files
 * (class_unzip in classroom.h; docs/classroom.md, "Uploads").
 *
 * The zip is read by libzip (Debian's libzip4: the format, its central
 * directory, inflating, the CRC of every file); what is safe is decided
 * here, before a byte is kept: only regular files, no symbolic links or
 * devices (their Unix mode in the entry's external attributes), no
 * absolute paths, `..`, backslashes or drive letters; folders kept (a
 * Java package tree, a Python package) but one holding everything (a
 * zipped folder) taken off; paths that are a submission's (class_path_ok),
 * each once, none both a file and a folder. Sizes are counted as the bytes
 * come out of the inflater, against the caller's budget: what the zip's
 * directory claims is only used to refuse early. Nothing is written to
 * disk here: the caller checks the files and writes them into the
 * submission's folder under names it made itself.
 *
 * Ownership: out's data buffers are the caller's after 0 (class_unzipped_free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

#include "classroom/classroom.h"
#include "engine/errors.h"

#define MACOS_EXTRA "__MACOSX/" /* the Finder's resource forks: not the student's files */
#define MAX_ENTRIES_SEEN                                                                           \
    4096 /* entries of the central directory looked at, folders included: past it the zip is      \
            refused without reading more */

static int refuse(const char **reason, const char *why, char *err, size_t errcap, const char *fmt,
                  const char *name, int code)
{
    *reason = why;
    char q[90];
    snprintf(q, sizeof q, "%.80s%s", name ? name : "", name && strlen(name) > 80 ? "..." : "");
    snprintf(err, errcap, fmt, q);
    return code;
}

/* Is this path one that could leave the folder it is unpacked in? */
static bool path_unsafe(const char *p)
{
    if (p[0] == '/' || strchr(p, '\\') || (p[0] && p[1] == ':'))
        return true;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        if (!e)
            break;
        s = e + 1;
    }
    return false;
}

/* The one folder everything is in ("bot/" of a zipped folder), its length
 * with the slash; 0 when there is none. */
static size_t common_folder(zip_t *z, zip_int64_t n)
{
    const char *first = NULL;
    size_t len = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || strncmp(name, MACOS_EXTRA, strlen(MACOS_EXTRA)) == 0)
            continue;
        if (!first) {
            const char *slash = strchr(name, '/');
            if (!slash)
                return 0;
            first = name;
            len = (size_t)(slash - name) + 1;
        }
        if (strncmp(name, first, len) != 0)
            return 0;
    }
    return first ? len : 0;
}

void class_unzipped_free(class_unzipped *z)
{
    for (int i = 0; i < z->n; i++)
        free(z->data[i]);
    memset(z, 0, sizeof *z);
}

/* Read entry i (its name `name`) into out's next file; 0 or a refusal. */
static int read_entry(zip_t *z, zip_uint64_t i, const char *name, zip_uint64_t claimed,
                      size_t budget, class_unzipped *out, const char **reason, char *err,
                      size_t errcap)
{
    if (claimed > budget - out->total)
        return refuse(reason, "too_large", err, errcap,
                      "the zip unpacks to more than the course allows (%s is too large)", name,
                      ENG_ETOO_LARGE);
    zip_file_t *f = zip_fopen_index(z, i, 0);
    if (!f) {
        refuse(reason, "bad_zip", err, errcap, "%s cannot be read from the zip", name, ENG_EINVAL);
        return ENG_EINVAL;
    }
    size_t cap = claimed + 1, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = buf ? 0 : ENG_ENOMEM;
    while (rc == 0) {
        if (len == cap) {
            /* the zip said less than it holds: grow, still within the budget */
            size_t ncap = cap * 2 > budget - out->total + 1 ? budget - out->total + 1 : cap * 2;
            unsigned char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                rc = ncap > cap ? ENG_ENOMEM
                                : refuse(reason, "too_large", err, errcap,
                                         "the zip unpacks to more than the course allows (%s is "
                                         "larger than its directory says)",
                                         name, ENG_ETOO_LARGE);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        zip_int64_t k = zip_fread(f, buf + len, cap - len);
        if (k < 0) {
            char what[200];
            snprintf(what, sizeof what, "%%s cannot be unpacked: %.120s", zip_file_strerror(f));
            rc = refuse(reason, "bad_zip", err, errcap, what, name, ENG_EINVAL);
            break;
        }
        if (k == 0)
            break;
        len += (size_t)k;
        if (len > budget - out->total)
            rc = refuse(reason, "too_large", err, errcap,
                        "the zip unpacks to more than the course allows (%s is too large)", name,
                        ENG_ETOO_LARGE);
    }
    zip_fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    snprintf(out->names[out->n], sizeof out->names[out->n], "%s", name);
    out->data[out->n] = buf;
    out->len[out->n] = len;
    out->n++;
    out->total += len;
    return 0;
}

int class_unzip(const char *path, int maxfiles, size_t budget, class_unzipped *out,
                const char **reason, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (maxfiles > CLASS_MAX_FILES)
        maxfiles = CLASS_MAX_FILES;
    int zerr = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        char what[200];
        snprintf(what, sizeof what, "not a zip file%%s: %.120s", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return refuse(reason, "bad_zip", err, errcap, what, "", ENG_EINVAL);
    }
    zip_int64_t n = zip_get_num_entries(z, 0);
    int rc = 0;
    if (n > MAX_ENTRIES_SEEN)
        rc = refuse(reason, "too_many_files", err, errcap,
                    "the zip has more entries than a submission may have files%s", "",
                    ENG_ETOO_MANY);
    size_t strip = rc ? 0 : common_folder(z, n);
    for (zip_int64_t i = 0; rc == 0 && i < n; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        const char *full = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!full || zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0) {
            rc = refuse(reason, "bad_zip", err, errcap, "an entry of the zip cannot be read%s", "",
                        ENG_EINVAL);
            break;
        }
        if (path_unsafe(full)) {
            rc = refuse(reason, "unsafe_path", err, errcap,
                        "%s: a path outside the submission's folder (absolute, .., a backslash "
                        "or a drive) is not unpacked",
                        full, ENG_EINVAL);
            break;
        }
        if (strncmp(full, MACOS_EXTRA, strlen(MACOS_EXTRA)) == 0)
            continue;
        zip_uint8_t opsys = 0;
        zip_uint32_t attr = 0;
        if (zip_file_get_external_attributes(z, (zip_uint64_t)i, 0, &opsys, &attr) == 0 &&
            opsys == ZIP_OPSYS_UNIX) {
            unsigned mode = (attr >> 16) & S_IFMT;
            if (mode == S_IFLNK) {
                rc = refuse(reason, "unsafe_path", err, errcap,
                            "%s is a symbolic link: a submission holds files only", full,
                            ENG_EINVAL);
                break;
            }
            if (mode && mode != S_IFREG && mode != S_IFDIR) {
                rc = refuse(reason, "unsafe_path", err, errcap,
                            "%s is not a regular file: a submission holds files only", full,
                            ENG_EINVAL);
                break;
            }
        }
        size_t flen = strlen(full);
        if (flen && full[flen - 1] == '/')
            continue; /* a folder */
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) &&
            st.encryption_method != ZIP_EM_NONE) {
            rc = refuse(reason, "bad_zip", err, errcap,
                        "%s is encrypted: zip it without a password", full, ENG_EINVAL);
            break;
        }
        const char *name = full + strip;
        if (!class_path_ok(name)) {
            rc = refuse(reason, "bad_upload", err, errcap,
                        "%s in the zip is not an accepted path (folders and files of 1 to 64 of "
                        "A-Z a-z 0-9 _ . -, none starting with a dot; 8 deep, 200 characters at "
                        "most)",
                        full, ENG_EINVAL);
            break;
        }
        for (int k = 0; k < out->n; k++)
            if (strcmp(out->names[k], name) == 0) {
                rc = refuse(reason, "bad_zip", err, errcap, "%s is twice in the zip", name,
                            ENG_EINVAL);
                break;
            }
        for (int k = 0; rc == 0 && k < out->n; k++) {
            const char *pair[2] = {out->names[k], name};
            if (class_paths_clash(2, pair) >= 0)
                rc = refuse(reason, "bad_zip", err, errcap,
                            "%s is both a file and a folder in the zip", out->names[k], ENG_EINVAL);
        }
        if (rc)
            break;
        if (out->n >= maxfiles) {
            char what[120];
            snprintf(what, sizeof what, "a submission has at most %d files%%s", maxfiles);
            rc = refuse(reason, "too_many_files", err, errcap, what, "", ENG_ETOO_MANY);
            break;
        }
        zip_uint64_t claimed = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
        rc = read_entry(z, (zip_uint64_t)i, name, claimed, budget, out, reason, err, errcap);
    }
    zip_discard(z);
    if (rc)
        class_unzipped_free(out);
    return rc;
}
