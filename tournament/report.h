/*
 * report.h — a tournament's standings as text: standings.md, standings.csv,
 * result.json and three SVG plots (ratings with their 95% intervals, the
 * distribution of each participant's game scores, the cross-table as a heat
 * map). Each is returned as a string the caller owns, or written into a
 * directory by tour_report_write(); nothing is printed.
 *
 * Participants are labelled by name; where seats appear they are "P1".."P5"
 * for people and 0-based "seat" in JSON (the project's convention).
 */
#ifndef TESSERA_TOURNAMENT_REPORT_H
#define TESSERA_TOURNAMENT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "tournament/standings.h"
#include "tournament/tour.h"

struct json_t;

/* Markdown: a heading, the spec in a sentence, the standings table, the
 * cross-table, the head-to-head and SPRT figures when there are any, and
 * notes on the rating model. malloc'd, NUL-terminated; NULL when out of
 * memory. */
char *tour_report_markdown(const tour *t, const tour_standings *s);
/* CSV (RFC 4180 quoting), one row per participant in place order. */
char *tour_report_csv(const tour *t, const tour_standings *s);
/* The whole result as JSON (new reference): spec, status, counts,
 * standings, cross-table, ratings, head-to-head, SPRT and, when with_games,
 * every scheduled game with its table, status, ref and result. */
struct json_t *tour_report_json(const tour *t, const tour_standings *s, bool with_games);

/* SVG documents (malloc'd). */
char *tour_svg_ratings(const tour *t, const tour_standings *s);
char *tour_svg_scores(const tour *t, const tour_standings *s);
char *tour_svg_crosstable(const tour *t, const tour_standings *s);

/* Compute the standings and write standings.md, standings.csv, result.json,
 * ratings.svg, scores.svg and crosstable.svg into dir (created if missing,
 * one level). Each file is written to a temporary name and renamed, so a
 * reader never sees half a file. Returns 0, or ENG_EIO / ENG_ENOMEM with a
 * reason naming the file. */
int tour_report_write(const tour *t, const char *dir, char *err, size_t errcap);

#endif
