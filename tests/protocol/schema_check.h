/*
 * schema_check.h — a small JSON Schema checker for the tests: the subset
 * our schemas in docs/schema/ use (type, const, enum, properties, required,
 * additionalProperties: false, items, minItems, minimum, maximum, pattern,
 * oneOf, $ref to #/$defs/...). Enough to check that what tessera writes
 * matches what it documents; not a general validator.
 */
#ifndef TESSERA_TESTS_SCHEMA_CHECK_H
#define TESSERA_TESTS_SCHEMA_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Does value match schema (root schema: the one $refs resolve in)? On a
 * mismatch, a reason naming the path ("/next/seat: ...") goes into why. */
bool schema_check(const json_t *root, const json_t *value, char *why, size_t cap);

/* Load DIR/NAME.json; NULL (and a message on stderr) if unreadable. */
json_t *schema_load(const char *dir, const char *name);

#endif
