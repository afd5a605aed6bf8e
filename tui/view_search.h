/* The filter's search, internal to tui/view.c: case folding and substring
 * matching (tui/view_fold.c), and an index of the frames and task names of a
 * model's windows (struct view_index, opaque) that a filter key searches. */
#ifndef ASYNCTOP_TUI_VIEW_SEARCH_H
#define ASYNCTOP_TUI_VIEW_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/model.h"
#include "model/status.h"
#include "model/strview.h"
#include "tui/view.h"

/* Bit i of the bit set b (borrowed; i below its size).  Cannot fail. */
static inline bool vsearch_bit(const uint64_t *b, size_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

/* True when t holds a result for w as it is now (same pointer, seq and
 * grouping: a window derived again can have a freed one's address).
 * t and w are borrowed; w is only compared and read.  Cannot fail. */
static inline bool view_tag_holds(const struct view_tag *t,
                                  const struct window *w)
{
	return t->ok && t->w == w && t->seq == w->seq &&
	       t->group.key == w->group.key &&
	       t->group.by_name == w->group.by_name;
}

/* Marks t as holding a result for w as it is now (w is borrowed: t keeps
 * its address, never dereferenced later).  Cannot fail. */
static inline void view_tag_set(struct view_tag *t, const struct window *w)
{
	t->w = w;
	t->seq = w->seq;
	t->group = w->group;
	t->ok = true;
}

/* Writes n bytes of s from at (at + n <= s.len), case-folded as
 * view_row_matches folds, to out (n bytes, not NUL-terminated).  The fold
 * keeps lengths, so folded offsets are s's offsets.  s is borrowed.  Cannot
 * fail; does not allocate. */
void vsearch_fold_span(struct strview s, size_t at, size_t n, char *out);

/* True when needle (nn >= 1 bytes) occurs in hay (hn bytes), bytes
 * compared as they are (fold both first for a case-insensitive test).
 * Both are borrowed.  Cannot fail; does not allocate. */
bool vsearch_find(const char *hay, size_t hn, const char *needle, size_t nn);

/* True when needle (len >= 1 bytes, folded or not) occurs in s, both
 * case-folded a byte at a time as vsearch_fold_span folds (the plain test,
 * for a string read once).  Both are borrowed.  Cannot fail; does not
 * allocate. */
bool vsearch_hits_slow(struct strview s, const char *needle, size_t len);

/* vsearch_hits_slow for f (len >= 1 bytes) already folded with
 * vsearch_fold_span, reading s once, without a copy: only where one of
 * its bytes could fold to f's first are the next ones folded.  Both are
 * borrowed.  Cannot fail; does not allocate. */
bool vsearch_hits(struct strview s, const char *f, size_t len);

/* Puts a new, empty index in *out, to free with view_index_free.
 * STATUS_NOMEM leaves *out untouched. */
enum status view_index_new(struct view_index **out) MUST_CHECK;

/* Frees ix and all it holds; NULL is a no-op. */
void view_index_free(struct view_index *ix);

/* True when ix holds the rows of w as it is now (by pointer and seq), read
 * from model m (m and w are only compared).  Cannot fail. */
bool view_index_current(const struct view_index *ix, const struct model *m,
                        const struct window *w);

/* Indexes the rows of w, a window of m.  The frames (case-folded copies)
 * and stacks met are kept for later windows of the same m, which is read
 * only for those not met before; another m starts the index over.  Task
 * names are not copied: view_index_entry_hits reads them.  m and w are
 * borrowed: both must stay alive (or ix be freed) until the next build.
 * The memory it keeps follows the ids of the windows built (about 16
 * bytes an id for the maps, whatever the ids).  Does not block.
 * STATUS_NOMEM leaves ix valid but not current (view_index_current is
 * false), to build again or free. */
enum status view_index_build(struct view_index *ix, const struct model *m,
                             const struct window *w) MUST_CHECK;

/* view_index_build in steps, between keys (budget SIZE_MAX: all at
 * once): the first steps sort the rows of w by stack id (three passes
 * over them, about budget rows a step all told), each next one reads
 * about budget frames of the model (a row is one, a stack met for the
 * first time one more per frame) and stops at a row, and the next
 * call for the same w and m goes on from there (another w or m starts
 * again, keeping the stacks and frames met).  *done says whether ix is
 * current now.  What view_index_build says of m, w, the memory and
 * STATUS_NOMEM holds. */
enum status view_index_step(struct view_index *ix, const struct model *m,
                            const struct window *w, size_t budget,
                            bool *done) MUST_CHECK;

/* Finds which of the indexed frames hold f (len >= 1 bytes, already
 * folded with vsearch_fold_span; borrowed, copied into ix) for
 * view_index_entry_hits; when the last search was for f, or for a part of
 * f, only what can change is searched again.  What the stacks were found
 * to hold is kept where f cannot change it: all of it for the same f, the
 * misses when f holds the last string (a key typed), the hits when the
 * last string holds f (a key erased).  ix must be current (a build
 * succeeded since the last one that failed).  STATUS_NOMEM leaves the
 * answers of view_index_entry_hits meaningless until a search succeeds. */
enum status view_index_search(struct view_index *ix, const char *f,
                              size_t len) MUST_CHECK;

/* True when ix is not current for w (m's), building it would read most
 * of w's stacks for the first time (it starts over, or holds fewer stacks
 * than half w's rows), and no view_index_scan read w before: a filter key
 * then answers sooner with view_index_scan, leaving the build to the
 * steps between keys.  A scan costs most of a build, and a key after it
 * has only the index to make its own cheap: so only the first key of a
 * window scans, and the next one that comes before the steps finished
 * builds.  Cannot fail. */
bool view_index_far(const struct view_index *ix, const struct model *m,
                    const struct window *w);

/* True when a build of w (m's) in steps is under way: begun by
 * view_index_step (or view_index_scan), not yet current.  Cannot fail. */
bool view_index_building(const struct view_index *ix, const struct model *m,
                         const struct window *w);

/* True when ix has answered a key on w, read from m, by view_index_scan
 * (then later keys on w do not scan again).  Cannot fail. */
bool view_index_scanned(const struct view_index *ix, const struct model *m,
                        const struct window *w);

/* Which rows of a window view_index_scan looks at: every one, those whose
 * bit is set (the filter narrowed: only they can change), or those whose
 * bit is clear (widened). */
enum vsearch_rows { VSEARCH_ALL, VSEARCH_SET, VSEARCH_CLEAR };

/* Sets bit r of match (a bit per row of w, a window of m) to
 * view_row_matches(m, w, r, f, len) for each row r that rows names (with
 * VSEARCH_ALL, match must be all clear), without the index: the rows are
 * read in the order of their stack ids, each frame past the prefix a
 * stack shares with the last one read is searched unless a slot keeps its
 * answer; then, in row order, the task names of the rows whose frames
 * missed.  That order is the sort of the build of w (view_index_step),
 * begun here when no build of w is under way, finished when steps began
 * it, and kept for the steps; the index's search is left as it was.
 * f (len >= 1 bytes, folded with vsearch_fold_span) and w are borrowed,
 * as m is by view_index_build.  STATUS_NOMEM leaves match partly set. */
enum status view_index_scan(struct view_index *ix, const struct model *m,
                            const struct window *w, const char *f, size_t len,
                            uint64_t *match, enum vsearch_rows rows) MUST_CHECK;

/* The built window's rows in the index's order (about that of their stack
 * ids, which is about that of the model's memory): entry e, for e below
 * the window's nrows, is row order[e].  Borrowed from ix, valid until its
 * next build or free.  Cannot fail. */
const uint32_t *view_index_order(const struct view_index *ix);

/* True when one of the frames or task names of entry e (row
 * view_index_order(ix)[e]) holds the last string view_index_search
 * searched for: view_row_matches with it.  ix must be current and
 * searched.  Cannot fail. */
bool view_index_entry_hits(struct view_index *ix, size_t e);

#endif
