/*
 * analyze_main.h — the program side of an analysis job (server/analyze.c):
 * the server starts its own binary as `tessera fenced-analysis SIMS` (0:
 * the default budget), the record on its standard input, and cli/main.c
 * hands that command here. The process reads the record, fences itself
 * (players/fenced.h) and answers in fenced.h's framing. Not a command for
 * people. Apart from analyze.h (the server's side, private to server/), so
 * that the program's entry needs nothing of the server's insides.
 */
#ifndef TESSERA_SERVER_ANALYZE_MAIN_H
#define TESSERA_SERVER_ANALYZE_MAIN_H

#define SRV_FENCED_ANALYSIS "fenced-analysis"

/* Returns only through fenced_answer (it exits). */
int srv_fenced_analysis_main(int argc, char **argv);

#endif
