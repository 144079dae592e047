/*
 * common.c — the text helpers of common.h that the codecs, record.c,
 * wire.c and info.c share: JSON type names, quoted excerpts and jansson's
 * shape errors in our words, for messages such as "x must be an integer,
 * not a string". Leaf code: it calls nothing of protocol/, so every file
 * that reports a bad value can stand on it without a way back.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

const char *rec__type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

const char *rec__quote_bytes(const char *s, size_t len, char buf[REC_QUOTE_MAX])
{
    enum { SHOWN = 16 };
    size_t o = 0;
    buf[o++] = '"';
    for (size_t i = 0; i < len && i < SHOWN; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? (char)c : '?';
    }
    buf[o++] = '"';
    if (len > SHOWN) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

const char *rec__quote(const json_t *str, char buf[REC_QUOTE_MAX])
{
    if (!json_is_string(str))
        return rec__quote_bytes("", 0, buf);
    return rec__quote_bytes(json_string_value(str), json_string_length(str), buf);
}

const char *rec__shape_error(const json_error_t *e, char buf[REC_SHAPE_MAX])
{
    static const char unpacked[] = " object item(s) left unpacked: ";
    static const char not_found[] = "Object item not found: ";
    const char *u = strstr(e->text, unpacked);
    if (u)
        snprintf(buf, REC_SHAPE_MAX, "unknown key(s): %s", u + strlen(unpacked));
    else if (strncmp(e->text, not_found, strlen(not_found)) == 0)
        snprintf(buf, REC_SHAPE_MAX, "missing key: %s", e->text + strlen(not_found));
    else
        snprintf(buf, REC_SHAPE_MAX, "%s", e->text);
    /* jansson's text names the keys as they came, from whoever sent them: a
     * reason is printable ASCII (as rec__quote makes a string), so a byte
     * that is not is a '?' */
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    return buf;
}
