/*
 * test_report.c — the text reports (tournament/report.c): Markdown, CSV
 * and JSON carry the standings of the tournament they describe, names are
 * escaped for each format, the SVG plots are complete documents with one
 * row per participant, and tour_report_write() leaves the six files in a
 * directory (and a clear error for a directory it cannot create).
 */
#include "util.h"

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tournament/report.h"
#include "tournament/standings.h"

static int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        c++;
    return c;
}

static tour *played(spec_fixture *f, int n)
{
    static int nn;
    nn = n;
    tour *t;
    char err[256];
    assert_int_equal(tour_create(&f->spec, &t, err, sizeof err), 0);
    model m = {.strength = strength_by_index, .user = &nn, .draw = 0.2, .seed = 5};
    drive(t, &m, 2, 0);
    return t;
}

static void test_text_reports(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 4, 6);
    f.parts[1].name = "pipe|name";
    f.parts[2].name = "comma, \"quoted\"";
    f.parts[3].name = "<svg&>";
    f.spec.label = "unit league";
    tour *t = played(&f, 4);
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);

    char *md = tour_report_markdown(t, s);
    assert_non_null(md);
    const char *head = "# unit league: round-robin of Reversi 8x8, 4 participants\n";
    assert_true(strncmp(md, head, strlen(head)) == 0);
    assert_non_null(strstr(md, "pipe\\|name"));
    assert_null(strstr(md, "pipe|name"));
    assert_non_null(strstr(md, "## Cross-table"));
    assert_non_null(strstr(md, "Status: finished"));
    assert_int_equal(count(md, "\n| 1 | "), 1);
    assert_int_equal(count(md, "\n| 4 | "), 1);
    assert_null(strstr(md, "## SPRT"));
    free(md);

    char *csv = tour_report_csv(t, s);
    assert_non_null(csv);
    assert_int_equal(count(csv, "\r\n"), 5); /* header + 4 */
    assert_non_null(strstr(csv, "\"comma, \"\"quoted\"\"\""));
    assert_true(strncmp(csv, "place,name,spec,games,", 22) == 0);
    free(csv);

    json_t *o = tour_report_json(t, s, true);
    assert_non_null(o);
    json_t *rows = json_object_get(o, "standings");
    assert_int_equal(json_array_size(rows), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "place")), 1);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "finished");
    json_t *games = json_object_get(o, "games");
    assert_int_equal(json_array_size(games), 6 * 6);
    json_t *g0 = json_array_get(games, 0);
    assert_string_equal(json_string_value(json_object_get(g0, "status")), "done");
    assert_int_equal(json_array_size(json_object_get(g0, "score")), 2);
    assert_non_null(json_object_get(o, "crosstable"));
    assert_int_equal(json_array_size(json_object_get(json_object_get(o, "crosstable"), "points")),
                     4);
    /* the spec in the result reads back */
    char err[256];
    tour_spec *back = tour_spec_from_json(json_object_get(o, "spec"), err, sizeof err);
    assert_non_null(back);
    assert_string_equal(back->participants[3].name, "<svg&>");
    tour_spec_free(back);
    /* every number is finite: the document is valid JSON */
    char *text = json_dumps(o, 0);
    assert_non_null(text);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    free(text);
    json_decref(o);

    char *svgs[3] = {tour_svg_ratings(t, s), tour_svg_scores(t, s), tour_svg_crosstable(t, s)};
    for (int i = 0; i < 3; i++) {
        assert_non_null(svgs[i]);
        assert_true(strncmp(svgs[i], "<svg xmlns=", 11) == 0);
        assert_non_null(strstr(svgs[i], "</svg>\n"));
        assert_non_null(strstr(svgs[i], "&lt;svg&amp;&gt;"));
        assert_null(strstr(svgs[i], "<svg&>"));
        assert_null(strstr(svgs[i], "nan"));
        free(svgs[i]);
    }
    tour_standings_free(s);
    tour_destroy(t);
}

/* The strongest is the last seeded, by far (2000 Elo a step: the model
 * then never lets a weaker one win): the standings reverse the seeding. */
static double strength_reversed(int i, void *user)
{
    (void)user;
    return 2000.0 * i;
}

/* Issue 30, item 14: the cross-table numbered its rows by seeding while the
 * standings beside it number by place ("2. random" beside a standings
 * table whose #2 is someone else). Both now go in standings order, with the
 * standings' number: in the Markdown, the SVG and the JSON (where the web
 * page takes it from). */
static void test_crosstable_numbering(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 4, 6);
    tour *t;
    char err[256];
    assert_int_equal(tour_create(&f.spec, &t, err, sizeof err), 0);
    model m = {.strength = strength_reversed, .draw = 0.0, .seed = 5};
    drive(t, &m, 2, 0);
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    /* the standings are not the seeding: P3 first, P0 last */
    assert_int_equal(s->rows[0].participant, 3);
    assert_int_equal(s->rows[3].participant, 0);
    char *md = tour_report_markdown(t, s), *svg = tour_svg_crosstable(t, s);
    assert_non_null(md);
    assert_non_null(svg);
    const char *cross = strstr(md, "## Cross-table");
    assert_non_null(cross);
    const char *prev = cross;
    for (int r = 0; r < s->n; r++) {
        char row[64], label[64];
        snprintf(row, sizeof row, "\n| %d. P%d |", s->rows[r].place, s->rows[r].participant);
        snprintf(label, sizeof label, ">%d. P%d</text>", s->rows[r].place, s->rows[r].participant);
        const char *at = strstr(cross, row);
        if (!at || !strstr(svg, label))
            print_error("row %d (place %d, P%d) not found:\n%s\n%s\n", r, s->rows[r].place,
                        s->rows[r].participant, cross, svg);
        assert_non_null(at);
        assert_true(at > prev); /* in standings order */
        prev = at;
        assert_non_null(strstr(svg, label));
    }
    /* the columns: the same numbers, in the same order */
    char cols[128] = "|   |";
    for (int r = 0; r < s->n; r++)
        snprintf(cols + strlen(cols), sizeof cols - strlen(cols), " %d |", s->rows[r].place);
    assert_non_null(strstr(cross, cols));
    /* the cell of the winner's row against the last's column: its points */
    int a = s->rows[0].participant, b = s->rows[s->n - 1].participant, n = s->n;
    char cell[64];
    snprintf(cell, sizeof cell, "| 1. P%d | · | ", a);
    assert_non_null(strstr(cross, cell));
    snprintf(cell, sizeof cell, " %g/%g |\n", s->cross_points[a * n + b], s->cross_games[a * n + b]);
    const char *line = strstr(cross, "| 1. ");
    assert_non_null(strstr(line, cell));
    assert_true(strstr(line, cell) < strstr(line, "\n| 2. "));
    free(md);
    free(svg);
    tour_standings_free(s);
    tour_destroy(t);
}

static void test_format_sections(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_KNOCKOUT, "reversi", 2, 5, 2);
    tour *t = played(&f, 5);
    tour_standings *s = tour_standings_new(t);
    char *md = tour_report_markdown(t, s);
    assert_non_null(strstr(md, "| reached |"));
    assert_int_equal(count(md, " winner |"), 1);
    assert_int_equal(count(md, " final |"), 1);
    free(md);
    json_t *o = tour_report_json(t, s, false);
    assert_null(json_object_get(o, "games"));
    json_t *ko = json_object_get(json_array_get(json_object_get(o, "standings"), 0), "knockout");
    assert_string_equal(json_string_value(json_object_get(ko, "stage")), "winner");
    json_decref(o);
    tour_standings_free(s);
    tour_destroy(t);

    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 2, 400);
    f.spec.sprt.enabled = true;
    f.spec.sprt.elo1 = 10;
    t = played(&f, 2);
    s = tour_standings_new(t);
    md = tour_report_markdown(t, s);
    assert_non_null(strstr(md, "## SPRT"));
    assert_non_null(strstr(md, "**H1 accepted**"));
    assert_non_null(strstr(md, "## Head to head"));
    free(md);
    o = tour_report_json(t, s, false);
    json_t *sp = json_object_get(o, "sprt");
    assert_string_equal(json_string_value(json_object_get(sp, "state")), "H1");
    assert_string_equal(json_string_value(json_object_get(sp, "model")), "normalized");
    assert_non_null(json_object_get(o, "head_to_head"));
    json_decref(o);
    tour_standings_free(s);
    tour_destroy(t);
}

static void test_write_files(void **state)
{
    (void)state;
    char dir[64], sub[96], err[256];
    snprintf(dir, sizeof dir, "/tmp/tour-report-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/out", dir);
    spec_fixture f;
    fixture(&f, TOUR_SWISS, "carcassonne", 3, 6, 3);
    f.spec.rounds = 2;
    tour *t = played(&f, 6);
    assert_int_equal(tour_report_write(t, sub, err, sizeof err), 0);
    const char *files[] = {"standings.md", "standings.csv", "result.json",
                           "ratings.svg",  "scores.svg",    "crosstable.svg"};
    for (int i = 0; i < 6; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", sub, files[i]);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 100);
    }
    char path[160];
    snprintf(path, sizeof path, "%s/result.json", sub);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    assert_non_null(o);
    assert_int_equal(json_array_size(json_object_get(o, "standings")), 6);
    assert_non_null(json_object_get(json_array_get(json_object_get(o, "standings"), 0), "swiss"));
    json_decref(o);
    /* written again over the old files */
    assert_int_equal(tour_report_write(t, sub, err, sizeof err), 0);
    /* a directory that cannot be made */
    snprintf(path, sizeof path, "%s/missing/deeper", dir);
    assert_int_equal(tour_report_write(t, path, err, sizeof err), ENG_EIO);
    assert_err_has(err, "cannot create the directory");
    tour_destroy(t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_reports),
        cmocka_unit_test(test_crosstable_numbering),
        cmocka_unit_test(test_format_sections),
        cmocka_unit_test(test_write_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
