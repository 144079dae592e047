/*
 * jail.h — the parts of a program's isolation that are decided before it
 * starts (private to players/; sandbox.c uses them): the operator's policy
 * (sandbox_configure), the pool of uids root hands out, the seccomp filter,
 * and bubblewrap's command line — the program's view of the machine.
 */
#ifndef TESSERA_PLAYERS_JAIL_H
#define TESSERA_PLAYERS_JAIL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/textbuf.h"
#include "players/sandbox.h"

/* The policy now (a copy; its hide list is borrowed). */
void jail_setup(sandbox_setup *out);

/* ---- uids (root) ------------------------------------------------------------------ */

/* Take a uid of the pool no other sandbox holds (in this process or any
 * other): *uid, and *lockfd, which holds it until jail_uid_give. 0, or
 * ENG_EINTERNAL with a reason (the lock file, an exhausted pool). */
int jail_uid_take(uid_t *uid, int *lockfd, char *err, size_t cap);

/* Give it back: what bubblewrap left for that uid outside (its empty mount
 * point in /tmp) is removed first. */
void jail_uid_give(uid_t uid, int lockfd);

/* ---- seccomp ------------------------------------------------------------------------- */

/* The filter, compiled once by libseccomp (NULL with a reason when it
 * could not be). */
const struct sock_fprog *jail_seccomp(char *err, size_t cap);

/* ---- bubblewrap -------------------------------------------------------------------------- */

/* bwrap's path ($TESSERA_BWRAP when set — none if it is not an
 * executable —, else /usr/bin/bwrap, else on PATH), or NULL. */
const char *jail_bwrap(void);

/* bwrap's options, NUL-separated, into out (for --args): the namespaces,
 * the view of the files (the system read-only, the program's folder at
 * SANDBOX_BOT_DIR, its prefix, the hidden paths covered, private tmpfs),
 * the environment, the seccomp filter from descriptor seccomp_fd; and into
 * command, NUL-separated too, the command as the program sees it (bwrap
 * takes it on its own command line, after "--"). cmd NULL: a probe that
 * runs bwrap itself (`bwrap --version`). Returns 0, or ENG_EINVAL with a
 * reason (a hidden path is the program's own folder) / ENG_ENOMEM. */
int jail_bwrap_args(const sandbox_cmd *cmd, const sandbox_limits *l, int seccomp_fd, textbuf *out,
                    textbuf *command, char *err, size_t cap);

/* Is path (absolute) inside the system's folders the sandbox always shows
 * (/usr, /etc, /opt, /bin, /sbin, /lib*)? */
bool jail_is_system(const char *path);

#endif
