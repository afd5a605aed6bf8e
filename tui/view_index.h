/* The filter's index (struct view_index), private to the two files that
 * make and read it: tui/view_search.c builds and searches it, and
 * tui/view_scan.c answers a key without it (view_index_scan).  Nothing
 * else includes this header. */
#ifndef ASYNCTOP_TUI_VIEW_INDEX_H
#define ASYNCTOP_TUI_VIEW_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/status.h"
#include "tui/view.h"
#include "tui/view_idmap.h"
#include "tui/view_search.h"

/* Buckets of the sort of a window's rows by stack id. */
#define BUCKETS 4096

/* Slots of a scan's answers per frame id: 64 KiB, within a core's cache. */
#define FCACHE_BITS 13
#define FCACHE      ((size_t)1 << FCACHE_BITS)

/* The filter's index: the distinct frames met so far, case-folded, end
 * to end in text (string k is text[soff[k] .. soff[k + 1])), and the
 * stacks met, numbered in order of meeting: stack k's depth is
 * sref[stk[k]], then its frames' string numbers, leaf first.  Ids are
 * never reused within a model, so these outlive a window; when mostly
 * unused, the index starts over.  For the window of tag: its rows about
 * in the order of their stack ids, which is about the order of the model's
 * memory (row ord[e] is of stack number est[e]).  Task names are only read
 * for the rows whose stack misses:
 * each name's answer is kept in names (val: the string asked it answers,
 * gen, times two, plus one when it holds). */
struct view_index {
	const struct model *m;
	bool stale;                     /* start over at the next build */
	struct view_map frames, stacks; /* id: its number + 1 */
	struct view_table names;
	char *text;
	size_t text_len, text_cap;
	size_t *soff; /* soff[nstr] == text_len */
	size_t nstr, soff_cap;
	uint32_t *sref;
	size_t nsref, sref_cap;
	uint32_t *stk;
	size_t nstk, stk_cap;
	struct view_tag tag;
	uint32_t *ord;
	size_t ord_cap;
	uint32_t *est;
	size_t est_cap;
	uint32_t *ids; /* scratch of a build: each row's stack id */
	size_t ids_cap;
	/* each row's task name when it has one (0: read its entries), made
	 * when a row's stack first misses: a later key then reads 4 bytes a
	 * row, not the row and its entries */
	uint32_t *rname;
	size_t rname_cap;
	bool rname_ok;
	size_t bucket[BUCKETS + 1];
	uint64_t *used; /* the strings the window refers to */
	size_t used_cap, used_n;
	/* a bit per string below hits_n: it holds hits_fold */
	uint64_t *hits;
	size_t hits_cap, hits_n;
	bool hits_ok;
	char hits_fold[VIEW_FILTER_MAX];
	size_t hits_len;
	/* the string the kept answers of names and fcache are for (ask),
	 * numbered gen, from 1, each time it changes */
	char ask[VIEW_FILTER_MAX];
	size_t ask_len;
	bool ask_ok;
	uint32_t gen;
	uint32_t last_name, last_gen; /* the last name asked, and its answer */
	bool last_hit;
	/* a scan without the index (view_index_scan): answers per frame
	 * id, in the slot of its hash (val as in names; a frame whose slot
	 * another took is searched again) */
	struct view_slot fcache[FCACHE];
	struct view_tag scanned; /* the window a scan last read */
	uint64_t *pend; /* a bit per row: its frames missed, names unread */
	size_t pend_cap;
	/* a bit per stack: whether one of its strings holds hits_fold is
	 * known (sknown), and then whether one does (shit) */
	uint64_t *sknown, *shit;
	size_t sbits_cap;
	/* a build in steps (view_index_step): for the window of btag, of
	 * bm, its rows sorted into ord and est (in steps too: sort says
	 * which pass, from row spos), and est[e] a stack number for e below
	 * bpos (a stack id from there) */
	struct view_tag btag;
	const struct model *bm;
	size_t bpos;
	bool bfresh;
	enum { SORT_READ, SORT_COUNT, SORT_PLACE, SORT_DONE } sort;
	size_t spos;
	uint32_t slo, shi;
	unsigned sshift;
};

static inline void vindex_set_bit(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Begins a build of the index for w of m (its rows' sort by stack id
 * first).  STATUS_NOMEM. */
enum status vindex_build_begin(struct view_index *ix, const struct model *m,
                               const struct window *w) MUST_CHECK;
/* Sorts up to about budget rows of the build's window by stack id. */
void vindex_rows(struct view_index *ix, size_t budget);
/* Makes f (folded, len bytes) the string the kept answers are for. */
void vindex_answers_for(struct view_index *ix, const char *f, size_t len);
/* Whether task name id of m holds the string asked, found and kept. */
bool vindex_name_hits(struct view_index *ix, const struct model *m,
                      uint32_t id);

#endif
