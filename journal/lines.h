/*
 * lines.h — private to the journal's SQLite engine (sqlite.c): where the
 * turns' thinking lines go, apart from the moves (journal/lines.c).
 *
 * A live match's lines are appended to `info_log`, one row per commit in
 * rowid order (the commit's lines of every match together), so a commit
 * writes one page of them at the end of the table rather than one page of
 * `moves` per match. A match's lines are kept in memory too; when it
 * finishes they become one row of `infos` (its match's id, the lines), in
 * the transaction of its finish. Rows of the log no live match needs are
 * deleted from its beginning; a match that lives long while others come
 * and go has its lines written again at the log's end (relocated), so the
 * log stays within twice the live lines and a slack. At open the log is
 * read back whole: the live matches' lines survive a kill -9.
 *
 * The text of a row: entries "<ply> <len>:<line>\n" (`infos`), each after
 * "<idlen>:<id>" in the log; <len> is the line's length in bytes. Loop
 * thread only, inside the engine's transactions.
 */
#ifndef TESSERA_JOURNAL_LINES_H
#define TESSERA_JOURNAL_LINES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sq_lines sq_lines;

/* The tables (in sqlite.c's schema and its migration to schema 6). */
#define SQ_LINES_SCHEMA                                                                        \
    "CREATE TABLE IF NOT EXISTS info_log(seq INTEGER PRIMARY KEY, lines TEXT NOT NULL);"       \
    "CREATE TABLE IF NOT EXISTS infos(match TEXT PRIMARY KEY, lines TEXT NOT NULL);"

/* Prepare the statements and read the log back (the live matches' lines;
 * those of finished matches dropped). slack: the log's rows beyond twice
 * the live lines before the oldest are relocated (0: the default). Returns
 * an SQLite code. */
int sq_lines_open(sqlite3 *db, int slack, sq_lines **out);
void sq_lines_close(sq_lines *l);

/* A write of a batch, inside its transaction: begin; the lines of its
 * moves and its finished matches, in the batch's order; end (the log's
 * row, and its pruning); then, after COMMIT or ROLLBACK, done. Each but
 * begin and done returns an SQLite code (SQLITE_OK). */
void sq_lines_begin(sq_lines *l);
int sq_lines_move(sq_lines *l, const char *match, int ply, const char *line);
int sq_lines_finish(sq_lines *l, const char *match);
int sq_lines_end(sq_lines *l);
void sq_lines_done(sq_lines *l, int committed);

/* Since open: the log's rows written, the lines in them (the moves'),
 * the lines written again (relocated), the rows pruned, the prunings
 * planned (the live matches looked over: once every 64 writes). */
void sq_lines_figures(const sq_lines *l, uint64_t *rows, uint64_t *lines, uint64_t *relocated,
                      uint64_t *pruned, uint64_t *plans);

/* The lines of match `match` the journal keeps apart (its finished row,
 * then its live ones) into infos[ply] for ply < n where it is NULL: copies
 * (malloc'd), as journal.c's reader frees them. */
void sq_lines_read(sq_lines *l, const char *match, char **infos, int n);

#endif
