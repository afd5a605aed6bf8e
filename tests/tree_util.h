/* Helpers of the tree's tests (tui/view_tree.h): a random source, the
 * window the tree shows (the latest, split by task name when asked), and
 * windows of frames with hundreds of callees. */
#ifndef ASYNCTOP_TESTS_TREE_UTIL_H
#define ASYNCTOP_TESTS_TREE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "tui/app.h"

/* The next of a xorshift sequence (s never 0). */
uint64_t tru_rnd(uint64_t *s);

/* Whether the windows are split by task name: the tree is then given the
 * latest window so derived (tru_shown). */
extern bool tru_by_name;

/* The window the tree shows: the latest of a, split by name when
 * tru_by_name (derived once per window; the one before freed after, so
 * never at the same address).  Fails the test out of memory. */
const struct window *tru_shown(const struct app *a);
/* Forgets the split window (before the model goes) and clears
 * tru_by_name. */
void tru_shown_fini(void);

/* Up to TRU_WIDE_ROWS stacks under one root, through one of two middle
 * frames, most ending in a leaf of their own ("leaf_I", I from 0): frames
 * with hundreds of callees.  With tru_by_name a stack has 1 to 3 task
 * names, a sample each.  Committed to a at start. */
#define TRU_WIDE_ROWS 400
void tru_wide_window(struct app *a, uint64_t *s, int64_t start);

#endif
