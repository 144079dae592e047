/*
 * analyze.h — the `analyze` message (docs/protocol.md, docs/analysis.md): a
 * finished match searched again by analysis/ on the thread pool, in a
 * fenced process of its own (players/fenced.h), its report cached in the
 * journal's database so that the next viewer, on this server or another
 * sharing the database, gets it at once.
 */
#ifndef TESSERA_SERVER_ANALYZE_H
#define TESSERA_SERVER_ANALYZE_H

#include "internal.h"
#include "protocol/messages.h"

/* Answer m (an analyze message) of c: the cached report, or a job started
 * (or joined) whose report is sent when it is done; errors as replies. */
void analyze_handle(conn *c, const proto_msg *m);
/* The server stops: the analyses under way end (their processes killed), their
 * viewers told shutting_down, nothing stored. */
void analyze_shutdown(srv *s);

#endif
