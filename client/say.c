/*
 * say.c — what `tessera bot` and `tessera bridge` print (session.h): one
 * line on stderr per event, text from the server or a program made safe
 * for a terminal, a session named when several play at once; and reading
 * a string field of a message. It calls no other file of client/.
 */
#include <stdarg.h>
#include <stdio.h>

#include "session.h"

/* Text from the server or a program (codes, messages, names, close reasons,
 * stderr) reaches the terminal only through here: control characters,
 * which could drive the terminal, become '?'. In place; returns s. */
char *cl__printable(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return s;
}

void cl__say(const botclient *bc, bool error, const char *fmt, ...)
{
    if (!error && bc->cfg.quiet)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s%s\n", bc->logname, error ? "error: " : "", cl__printable(line));
}

/* The prefix naming a session in logs: nothing for a single seat, the
 * match id when registered (several games at once). */
const char *cl__who(const session *s)
{
    static char buf[80];
    if (!s->bc->registering)
        return "";
    snprintf(buf, sizeof buf, "%s: ", s->match[0] ? s->match : "?");
    return buf;
}

const char *cl__str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}
