/* The pprof encoder's strings (docs/design.md §3): sanitised to
 * valid UTF-8, re-interned by content so that what reads the same is one
 * string, then numbered by first use. */
#include "encode/pprof_int.h"

#include <string.h>

#include "encode/utf8.h"
#include "model/reserved.h"

struct strprobe {
	const struct strtab *t;
	struct strview v;
};

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct strprobe *p = ctx;

	(void)key;
	return sv_eq(p->t->v[id - 1], p->v);
}

/* The id of v (borrowed for the encode), added when new. */
static enum status strtab_intern(struct strtab *t, struct strview v,
                                 uint32_t *id)
{
	struct strprobe p = { t, v };
	uint32_t h = hash_fold32(hash_bytes(v.ptr, v.len));
	uint32_t k = hash_table_find(&t->idx, h, str_eq, &p);

	if (k) {
		*id = k - 1;
		return STATUS_OK;
	}
	if (t->n >= UINT32_MAX - 1 || hash_table_reserve(&t->idx, 1) ||
	    mem_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return STATUS_NOMEM;
	t->v[t->n] = v;
	hash_table_insert(&t->idx, h, (uint32_t)t->n + 1, NULL);
	*id = (uint32_t)t->n++;
	return STATUS_OK;
}

struct idprobe {
	const struct idmap *m;
	uint32_t key;
};

static bool id_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct idprobe *p = ctx;

	(void)key;
	return p->m->pair[id - 1].key == p->key;
}

/* utf8_valid, past an ASCII head: most names are all ASCII. */
static bool valid_utf8(struct strview v)
{
	size_t i = 0;

	while (i < v.len && (unsigned char)v.ptr[i] < 0x80)
		i++;
	return i == v.len || utf8_valid(sv_n(v.ptr + i, v.len - i));
}

/* The string id of the sanitised form of v: only invalid subparts are
 * replaced (by U+FFFD); control characters and NUL stay.  Where U+FFFD made
 * it longer than the model's bound, the form is cut to the bound at a
 * character boundary: a name longer than that would be cut on reading
 * back, and replaying and saving a profile would not reproduce it. */
static enum status intern_sanitised(struct enc *e, struct strview v,
                                    uint32_t *id)
{
	if (!valid_utf8(v)) {
		struct buf *b = &e->scratch;
		size_t max = model_get_limits(e->m)->max_name, len;
		char *d;
		buf_reset(b);
		if (utf8_sanitize(b, v, UTF8_KEEP_CONTROL) != STATUS_OK)
			return buf_status(b);
		len = b->len;
		if (len > max) {
			len = max;
			while (len > 0 &&
			       ((unsigned char)b->data[len] & 0xc0) == 0x80)
				len--;
		}
		d = arena_alloc(&e->arena, len);
		if (!d)
			return STATUS_NOMEM;
		memcpy(d, b->data, len);
		v = sv_n(d, len);
	}
	return strtab_intern(&e->st, v, id);
}

/* The string id of frame (or task name) key, sanitised once per id. */
static enum status map_id(struct enc *e, bool frame, uint32_t key, uint32_t *id)
{
	struct idmap *map = frame ? &e->frames : &e->names;
	struct idprobe p = { map, key };
	uint32_t h = hash_u32(key), k;
	struct strview v;
	enum status st;

	k = hash_table_find(&map->idx, h, id_eq, &p);
	if (k) {
		*id = map->pair[k - 1].val;
		return STATUS_OK;
	}
	v = frame ? model_frame(e->m, key) : model_name(e->m, key);
	if (v.len == 0)
		*id = e->fx[frame ? FX_UNKNOWN : FX_UNNAMED];
	else if ((st = intern_sanitised(e, v, id)) != STATUS_OK)
		return st;
	if (map->n >= UINT32_MAX - 1 || hash_table_reserve(&map->idx, 1) ||
	    mem_grow(&map->pair, &map->cap, map->n + 1, sizeof(*map->pair)))
		return STATUS_NOMEM;
	map->pair[map->n].key = key;
	map->pair[map->n].val = *id;
	hash_table_insert(&map->idx, h, (uint32_t)map->n + 1, NULL);
	map->n++;
	return STATUS_OK;
}

static enum status intern_fixed(struct enc *e)
{
	static const char *const fixed[FX_COUNT_] = {
		[FX_EMPTY] = "",
		[FX_POLLS] = "polls",
		[FX_COUNT] = "count",
		[FX_WAKES] = "wakes",
		[FX_BUSY] = "busy",
		[FX_NANOS] = "nanoseconds",
		[FX_SCHED] = "scheduled",
		[FX_IDLE] = "idle",
		[FX_TASK] = "task",
		[FX_TASKS] = "tasks",
		[FX_FILENAME] = "asynctop",
	};
	struct strview v;

	for (int i = 0; i < FX_COUNT_; i++) {
		if (i == FX_NOSTACK)
			v = reserved_name(RESERVED_NO_STACK);
		else if (i == FX_UNKNOWN)
			v = reserved_name(RESERVED_UNKNOWN_FRAME);
		else if (i == FX_UNNAMED)
			v = reserved_name(RESERVED_UNNAMED);
		else if (i == FX_LEAFKEY)
			v = sv_c(e->w->group.key == GROUP_PARKED ? "spawned_at"
			                                         : "parked_at");
		else
			v = sv_c(fixed[i]);
		if (strtab_intern(&e->st, v, &e->fx[i]))
			return STATUS_NOMEM;
	}
	for (size_t x = 0; x < EXTRA_COUNT; x++) {
		if (strtab_intern(&e->st, sv_c(extra_name((enum extra)x)),
		                  &e->xkey[x]) ||
		    strtab_intern(&e->st, sv_c(extra_unit((enum extra)x)),
		                  &e->xunit[x]))
			return STATUS_NOMEM;
	}
	return STATUS_OK;
}

/* The string id of the leaf of stack (NO_LEAF for the reserved "not
 * parked" one: no label). */
static enum status leaf_of(struct enc *e, uint32_t stack, uint32_t *id)
{
	size_t depth;
	const uint32_t *f;

	if (stack == model_not_parked(e->m)) {
		*id = NO_LEAF;
		return STATUS_OK;
	}
	f = model_stack(e->m, stack, &depth);
	if (!f || !depth) {
		*id = e->fx[FX_NOSTACK];
		return STATUS_OK;
	}
	return map_id(e, true, f[depth - 1], id);
}

/* Sanitised string ids of every row's frames. */
static enum status collect_frames(struct enc *e)
{
	const struct window *w = e->w;
	const uint32_t **ids;
	size_t total = 0, depth, r, k;
	enum status st = STATUS_OK;

	/* Distinct stacks mostly end in distinct frames: room for one frame
	 * per row up front saves both tables their early doublings. */
	if (hash_table_reserve(&e->frames.idx, w->nrows) ||
	    hash_table_reserve(&e->st.idx, w->nrows))
		return STATUS_NOMEM;
	e->rowoff = pprof_array(w->nrows + 1, sizeof(*e->rowoff));
	ids = pprof_array(w->nrows, sizeof(*ids));
	if (!e->rowoff || !ids) {
		mem_free(ids);
		return STATUS_NOMEM;
	}
	for (r = 0; r < w->nrows; r++) {
		ids[r] = model_stack(e->m, w->rows[r].stack, &depth);
		if (!ids[r] || !depth) {
			ids[r] = NULL;
			depth = 0;
		}
		e->rowoff[r] = total;
		total += depth ? depth : 1; /* [no spawn stack] */
	}
	e->rowoff[w->nrows] = total;
	e->fr = pprof_array(total, sizeof(*e->fr));
	for (r = 0; e->fr && r < w->nrows && st == STATUS_OK; r++) {
		uint32_t *out = e->fr + e->rowoff[r];
		depth = e->rowoff[r + 1] - e->rowoff[r];
		if (!ids[r]) {
			out[0] = e->fx[FX_NOSTACK];
			continue;
		}
		/* Sorted rows share their root side: reuse the row before's
		 * ids while the frames are the same. */
		size_t same = 0;
		if (r > 0 && ids[r - 1]) {
			size_t prev = e->rowoff[r] - e->rowoff[r - 1];
			while (same < depth && same < prev &&
			       ids[r][same] == ids[r - 1][same]) {
				out[same] = e->fr[e->rowoff[r - 1] + same];
				same++;
			}
		}
		for (k = same; k < depth && st == STATUS_OK; k++)
			st = map_id(e, true, ids[r][k], &out[k]);
	}
	mem_free(ids);
	if (!e->fr)
		return STATUS_NOMEM;
	return st;
}

enum status pprof_strings_collect(struct enc *e)
{
	const struct window *w = e->w;
	enum status st;

	if ((st = intern_fixed(e)) || (st = collect_frames(e)) || e->omit)
		return st;
	e->ename = pprof_array(w->nentries, sizeof(*e->ename));
	e->eleaf = pprof_array(w->nentries, sizeof(*e->eleaf));
	if (!e->ename || !e->eleaf)
		return STATUS_NOMEM;
	for (size_t k = 0; k < w->nentries; k++) {
		const struct fold_entry *en = &w->entries[k];
		st = map_id(e, false, en->name, &e->ename[k]);
		if (st == STATUS_OK)
			st =
			    leaf_of(e, window_other_stack(w, en), &e->eleaf[k]);
		if (st)
			return st;
	}
	return STATUS_OK;
}

static void use_string(struct enc *e, uint32_t id)
{
	if (e->fidx[id] == UINT32_MAX) {
		e->fidx[id] = (uint32_t)e->nstrs;
		e->strs[e->nstrs++] = id;
	}
}

enum status pprof_strings_number(struct enc *e, uint32_t *comments)
{
	const struct window_meta *meta = &e->w->meta;
	size_t n;
	static const enum fixed head[] = {
		FX_EMPTY, FX_POLLS, FX_COUNT, FX_WAKES, FX_BUSY,     FX_NANOS,
		FX_SCHED, FX_IDLE,  FX_TASK,  FX_TASKS, FX_FILENAME,
	};

	for (size_t i = 0; i < meta->ncomments; i++) {
		const char *c = meta->comments ? meta->comments[i] : NULL;
		enum status st = intern_sanitised(e, sv_c(c), &comments[i]);
		if (st)
			return st;
	}
	n = e->st.n;
	e->fidx = pprof_array(n, sizeof(*e->fidx));
	e->func = mem_calloc(n, sizeof(*e->func));
	e->strs = pprof_array(n, sizeof(*e->strs));
	e->funcs = pprof_array(n, sizeof(*e->funcs));
	if (!e->fidx || !e->func || !e->strs || !e->funcs)
		return STATUS_NOMEM;
	memset(e->fidx, 0xFF, n * sizeof(*e->fidx));
	for (size_t i = 0; i < ARRAY_SIZE(head); i++) {
		if (head[i] != FX_TASK || !e->omit)
			use_string(e, e->fx[head[i]]);
	}
	for (size_t i = 0; i < meta->ncomments; i++)
		use_string(e, comments[i]);
	for (size_t i = 0; i < e->nos; i++) {
		const struct osample *o = &e->os[i];
		if (i == 0 || o->group != e->os[i - 1].group) {
			size_t a = e->rowoff[o->row], b = e->rowoff[o->row + 1];
			for (size_t k = a; k < b; k++) {
				uint32_t id = e->fr[k];
				if (!e->func[id]) {
					e->funcs[e->nfuncs++] = id;
					e->func[id] = (uint32_t)e->nfuncs;
					use_string(e, id);
				}
			}
		}
		if (!e->omit)
			use_string(e, o->name);
		if (o->leaf != NO_LEAF) {
			use_string(e, e->fx[FX_LEAFKEY]);
			use_string(e, o->leaf);
		}
		for (size_t x = 0; x < EXTRA_COUNT; x++) {
			if (extras_get(&o->x, (enum extra)x, NULL)) {
				use_string(e, e->xkey[x]);
				use_string(e, e->xunit[x]);
			}
		}
	}
	return STATUS_OK;
}
