/*
 * pgtest.h — a fresh PostgreSQL database for one test, on the throwaway
 * cluster of scripts/services.sh (the CTest fixture `services`, whose folder
 * the environment variable TESSERA_SERVICES names).
 *
 * pgtest_create("name") makes the database name_PID and returns its
 * connection string (static buffer); pgtest_drop() drops it. Without the
 * fixture (TESSERA_SERVICES unset or its cluster down) pgtest_create fails
 * the test with what is missing — CTest counts a skip as a pass, so a
 * missing database is never skipped silently.
 */
#ifndef TESSERA_TESTS_PGTEST_H
#define TESSERA_TESTS_PGTEST_H

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pgtest_admin[512], pgtest_conninfo[600], pgtest_name[64];

/* The value of KEY='...' in the services.env file, into out. */
static int pgtest_env_value(const char *file, const char *key, char *out, size_t cap)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    char line[1024];
    size_t kl = strlen(key);
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) || line[kl] != '=')
            continue;
        char *v = line + kl + 1;
        if (*v == '\'')
            v++;
        size_t n = strcspn(v, "'\n");
        snprintf(out, cap, "%.*s", (int)n, v);
        found = 0;
        break;
    }
    fclose(f);
    return found;
}

/* NULL with a message on stderr when there is no cluster. */
static const char *pgtest_create(const char *name)
{
    const char *dir = getenv("TESSERA_SERVICES");
    if (!dir || !*dir) {
        fprintf(stderr, "MISSING: TESSERA_SERVICES is not set: run this test through ctest, whose "
                        "fixture `services` starts PostgreSQL (scripts/services.sh)\n");
        return NULL;
    }
    char file[512];
    snprintf(file, sizeof file, "%s/services.env", dir);
    if (pgtest_env_value(file, "TESSERA_PG_ADMIN", pgtest_admin, sizeof pgtest_admin)) {
        fprintf(stderr,
                "MISSING: %s has no TESSERA_PG_ADMIN: did scripts/services.sh start fail?\n", file);
        return NULL;
    }
    static int serial;
    snprintf(pgtest_name, sizeof pgtest_name, "%s_%d_%d", name, (int)getpid(), ++serial);
    PGconn *c = PQconnectdb(pgtest_admin);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "MISSING: PostgreSQL at %s: %s", pgtest_admin, PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    char sql[160];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", pgtest_name);
    PQclear(PQexec(c, sql));
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", pgtest_name);
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf(stderr, "CREATE DATABASE: %s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    if (!ok)
        return NULL;
    /* the admin string names dbname=postgres: ours overrides it (later wins) */
    snprintf(pgtest_conninfo, sizeof pgtest_conninfo, "%s dbname=%s", pgtest_admin, pgtest_name);
    return pgtest_conninfo;
}

static void pgtest_drop(void)
{
    if (!pgtest_name[0])
        return;
    PGconn *c = PQconnectdb(pgtest_admin);
    if (PQstatus(c) == CONNECTION_OK) {
        char sql[160];
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", pgtest_name);
        PQclear(PQexec(c, sql));
    }
    PQfinish(c);
    pgtest_name[0] = 0;
}

#endif
