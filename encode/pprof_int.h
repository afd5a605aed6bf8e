/* Internal to the pprof encoder: its state and the steps that fill it.
 * pprof_strings.c sanitises, re-interns and numbers the strings,
 * pprof_order.c merges and orders the samples, pprof_write.c packs. */
#ifndef ASYNCTOP_ENCODE_PPROF_INT_H
#define ASYNCTOP_ENCODE_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/alloc.h"
#include "model/arena.h"
#include "model/base.h"
#include "model/buf.h"
#include "model/hash.h"
#include "model/extras.h"
#include "model/model.h"
#include "model/status.h"
#include "model/strview.h"

/* The strings of one encode, unique by content; ids from 0 in order of
 * arrival.  Views are borrowed from static text, the model, the window's
 * comments or the encoder's arena, all alive for the encode. */
struct strtab {
	struct strview *v; /* by id */
	size_t n, cap;
	struct hash_table idx; /* id + 1, by content */
};

/* Model ids (frames or names) -> string ids, so that each model string
 * is validated and sanitised once per encode. */
struct idpair {
	uint32_t key, val;
};

struct idmap {
	struct idpair *pair; /* in order of insertion */
	size_t n, cap;
	struct hash_table idx; /* pair index + 1, by key */
};

/* One output sample: a (sanitised stack, sanitised task, sanitised leaf
 * of the other stack) made of the window entries order[start .. start +
 * count) (entry k itself when order is NULL). */
struct osample {
	uint32_t group; /* output stack number, in sorted order */
	uint32_t row;   /* a row with that stack (for its frames) */
	uint32_t name;  /* string id of the task; UINT32_MAX with omit_task */
	uint32_t start, count;
	uint32_t leaf;   /* string id of the other stack's leaf, or NO_LEAF */
	struct extras x; /* the entries' optional figures, folded */
};

/* No label for the other stack: the task was not parked (or omit_task). */
#define NO_LEAF UINT32_MAX

enum fixed { /* strings interned first, in this (the table's) order */
	     FX_EMPTY,
	     FX_POLLS,
	     FX_COUNT,
	     FX_WAKES,
	     FX_BUSY,
	     FX_NANOS,
	     FX_SCHED,
	     FX_IDLE,
	     FX_TASK,
	     FX_TASKS,
	     FX_FILENAME,
	     FX_NOSTACK,
	     FX_UNKNOWN,
	     FX_UNNAMED,
	     FX_LEAFKEY, /* "parked_at", or "spawned_at" by parked-at stack */
	     FX_COUNT_
};

struct enc {
	const struct model *m;
	const struct window *w;
	bool omit;
	struct arena arena; /* sanitised copies */
	struct buf scratch; /* one string being sanitised */
	struct strtab st;
	uint32_t fx[FX_COUNT_]; /* string ids of the fixed strings */
	uint32_t xkey[EXTRA_COUNT], xunit[EXTRA_COUNT]; /* figures' labels */
	struct idmap frames, names;
	size_t *rowoff;  /* nrows + 1: row r's frames are fr[rowoff[r]..] */
	uint32_t *fr;    /* string ids, root first */
	uint32_t *ename; /* per entry: string id of its task name */
	uint32_t *eleaf; /* per entry: its other stack's leaf, or NO_LEAF */
	uint32_t *order; /* entries in output order; NULL: as in the window */
	struct osample *os;
	size_t nos, nlocs;
	uint32_t *fidx; /* string id -> final string index; UINT32_MAX */
	uint32_t *func; /* string id -> function id; 0 = none */
	uint32_t *strs; /* final string index -> string id */
	size_t nstrs;
	uint32_t *funcs; /* function id - 1 -> string id */
	size_t nfuncs;
};

/* An uninitialised array of n items (at least one), through mem_*; NULL
 * on failure or overflow. */
static inline void *pprof_array(size_t n, size_t size)
{
	return mem_realloc_array(NULL, n ? n : 1, size);
}

static inline struct strview pprof_str(const struct enc *e, uint32_t id)
{
	return e->st.v[id];
}

/* The window entry at place k of the output order. */
static inline uint32_t pprof_entry_at(const struct enc *e, size_t k)
{
	return e->order ? e->order[k] : (uint32_t)k;
}

/* Interns the fixed strings, then the sanitised frames of every row (into
 * rowoff and fr) and, unless omit, the sanitised name of every entry
 * (ename) and the leaf of its other stack (eleaf).  STATUS_NOMEM. */
enum status pprof_strings_collect(struct enc *e) MUST_CHECK;

/* Interns the sanitised comments (their string ids into comments, one per
 * window comment), then numbers strings and functions by first use:
 * the header strings, the comments, then each sample's frames root first
 * and its task name (fidx, strs, func, funcs).  STATUS_NOMEM. */
enum status pprof_strings_number(struct enc *e, uint32_t *comments) MUST_CHECK;

/* Builds the output samples (os, nos, nlocs and, when sanitising changed
 * the order or made texts equal, order): sorted by (stack text, task
 * name, other leaf: none first), the entries that read the same merged
 * (their figures folded), all-zero ones left out.  Needs
 * pprof_strings_collect first.  STATUS_NOMEM. */
enum status pprof_order_build(struct enc *e) MUST_CHECK;

#endif
