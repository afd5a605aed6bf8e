/* Helpers of the table-state tests (tui/view.h): windows committed from
 * plain rows, a model and view opened on them and closed, the leaf of a
 * shown row, and a filter applied with the rows it keeps checked one by
 * one against view_row_matches. */
#ifndef ASYNCTOP_TESTS_VIEW_UTIL_H
#define ASYNCTOP_TESTS_VIEW_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "tui/view.h"

/* One window: leaf[i] (one frame, then "main" as root) with idle[i] and
 * busy[i]; n rows; task "Task-i".  Fails the test unless it commits. */
const struct window *vu_commit(struct model *m, const char *const *leaf,
                               const uint64_t *idle, const uint64_t *busy,
                               size_t n);

/* A row of a test window: up to 4 frames root first, tasks' names. */
struct vu_row {
	const char *f[4];
	const char *task[3];
	uint64_t idle, busy;
};

/* One window of rows t[0 .. n): a sample per task name (the first, "t"
 * when it has none), idle + k and busy + 1 for the k-th. */
const struct window *vu_commit_rows(struct model *m, const struct vu_row *t,
                                    size_t n);

/* The opening of most filter tests: a new model into *m holding the one
 * window of rows t[0 .. n) (vu_commit_rows), and v made on it weighting
 * idle (view_init); returns the window.  vu_close frees both. */
const struct window *vu_open_rows(struct model **m, struct view *v,
                                  const struct vu_row *t, size_t n);
/* view_fini(v), then model_free(m). */
void vu_close(struct model *m, struct view *v);

/* The leaf frame of the row shown at pos into dst (cut to size); dst. */
const char *vu_leaf(const struct view *v, size_t pos, char *dst, size_t size);
/* vu_leaf into a buffer of the enclosing block (an assertion's). */
#define VU_LEAF_AT(v, pos) vu_leaf((v), (pos), (char[64]){ 0 }, 64)

/* Sets v's filter to the C string f (shorter than the filter's room). */
void vu_set_filter(struct view *v, const char *f);
/* The rows v's filter keeps, checked one by one against view_row_matches
 * and in the order of the weighting (ties by row); returns how many. */
size_t vu_check_rows(const struct view *v);
/* Builds v on w with filter f, checks the rows, returns how many it kept. */
size_t vu_kept(struct view *v, const struct model *m, const struct window *w,
               const char *f);

#endif
