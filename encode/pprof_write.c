/* The pprof encoder's output (docs/formats.md): the Profile message of one
 * committed window (or a grouping derived from one: docs/formats.md says
 * how its labels read), assembled from pprof_strings.c's string numbering
 * and pprof_order.c's samples, and packed in parts with protobuf-c. */
#include "encode/pprof.h"

#include <stdint.h>
#include <string.h>

#include "encode/pprof_int.h"
#include "encode/profile.pb-c.h"

static const enum metric type_metric[PPROF_NTYPES] = {
	METRIC_POLLS, METRIC_WAKES, METRIC_BUSY, METRIC_SCHED, METRIC_IDLE,
};

enum metric pprof_type_metric(size_t i)
{
	return i < PPROF_NTYPES ? type_metric[i] : METRIC_COUNT;
}

static int64_t clamp64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Samples are packed in batches of this many, each as a Profile message
 * holding only them: protobuf-c writes fields in number order, so the
 * parts (sample types; the batches; everything else) concatenate to the
 * same bytes as one message, without 100k structures alive at once. */
enum { BATCH = 4096, SHARED_COUNTS = 64 };

/* Labels of a sample at most: task, the other leaf, the figures, tasks. */
enum { MAX_LABELS = 3 + EXTRA_COUNT };

/* Block size of the arena that holds sanitised strings (rarely used). */
enum { SANITISED_BLOCK = 65536 };

/* The protobuf-c structures. */
struct msg {
	Perftools__Profiles__Profile p;
	Perftools__Profiles__ValueType types[PPROF_NTYPES + 1];
	Perftools__Profiles__ValueType *typep[PPROF_NTYPES];
	Perftools__Profiles__Mapping map;
	Perftools__Profiles__Mapping *mapp;
	ProtobufCBinaryData *strtab;
	char *strbytes;
	Perftools__Profiles__Function *fn;
	Perftools__Profiles__Function **fnp;
	Perftools__Profiles__Location *loc;
	Perftools__Profiles__Location **locp;
	Perftools__Profiles__Line *line;
	Perftools__Profiles__Line **linep;
	int64_t *comment;
	/* one batch of samples */
	Perftools__Profiles__Sample smp[BATCH], *smpp[BATCH];
	int64_t values[BATCH * PPROF_NTYPES];
	Perftools__Profiles__Label *labp[BATCH * MAX_LABELS];
	Perftools__Profiles__Label nlab[BATCH]; /* large tasks counts */
	Perftools__Profiles__Label xlab[BATCH * EXTRA_COUNT]; /* figures */
	/* shared labels */
	Perftools__Profiles__Label *tlab; /* task, by string index */
	unsigned char *tlab_set;
	Perftools__Profiles__Label *llab; /* other leaf, by string index */
	unsigned char *llab_set;
	Perftools__Profiles__Label clab[SHARED_COUNTS]; /* small counts */
	uint64_t *locids; /* per stack, leaf first */
};

static void msg_free(struct msg *g)
{
	mem_free(g->strtab);
	mem_free(g->strbytes);
	mem_free(g->fn);
	mem_free(g->fnp);
	mem_free(g->loc);
	mem_free(g->locp);
	mem_free(g->line);
	mem_free(g->linep);
	mem_free(g->comment);
	mem_free(g->tlab);
	mem_free(g->tlab_set);
	mem_free(g->llab);
	mem_free(g->llab_set);
	mem_free(g->locids);
	mem_free(g);
}

static int64_t sidx(const struct enc *e, enum fixed f)
{
	return e->fidx[e->fx[f]];
}

/* Appends p packed to out. */
static enum status pack_part(const Perftools__Profiles__Profile *p,
                             struct buf *out)
{
	size_t size = perftools__profiles__profile__get_packed_size(p);

	if (buf_reserve(out, size) != STATUS_OK)
		return buf_status(out);
	size = perftools__profiles__profile__pack(p, (uint8_t *)out->data +
	                                                 out->len);
	out->len += size;
	out->data[out->len] = '\0';
	return STATUS_OK;
}

static void build_types(struct enc *e, struct msg *g)
{
	static const enum fixed names[PPROF_NTYPES] = {
		FX_POLLS, FX_WAKES, FX_BUSY, FX_SCHED, FX_IDLE,
	};

	for (size_t t = 0; t <= PPROF_NTYPES; t++)
		perftools__profiles__value_type__init(&g->types[t]);
	for (size_t t = 0; t < PPROF_NTYPES; t++) {
		g->types[t].type = sidx(e, names[t]);
		g->types[t].unit =
		    sidx(e, metric_is_duration(type_metric[t]) ? FX_NANOS
		                                               : FX_COUNT);
		g->typep[t] = &g->types[t];
	}
	g->types[PPROF_NTYPES].type = sidx(e, FX_POLLS);
	g->types[PPROF_NTYPES].unit = sidx(e, FX_COUNT);
}

static enum status build_strings(struct enc *e, struct msg *g)
{
	size_t bytes = 0, off = 0;

	for (size_t i = 0; i < e->nstrs; i++)
		bytes += pprof_str(e, e->strs[i]).len;
	g->strtab = pprof_array(e->nstrs, sizeof(*g->strtab));
	g->strbytes = pprof_array(bytes, 1);
	if (!g->strtab || !g->strbytes)
		return STATUS_NOMEM;
	for (size_t i = 0; i < e->nstrs; i++) {
		struct strview v = pprof_str(e, e->strs[i]);
		if (v.len)
			memcpy(g->strbytes + off, v.ptr, v.len);
		g->strtab[i].data = (uint8_t *)g->strbytes + off;
		g->strtab[i].len = v.len;
		off += v.len;
	}
	g->p.n_string_table = e->nstrs;
	g->p.string_table = g->strtab;
	return STATUS_OK;
}

static enum status build_functions(struct enc *e, struct msg *g)
{
	size_t n = e->nfuncs;

	g->fn = pprof_array(n, sizeof(*g->fn));
	g->fnp = pprof_array(n, sizeof(*g->fnp));
	g->loc = pprof_array(n, sizeof(*g->loc));
	g->locp = pprof_array(n, sizeof(*g->locp));
	g->line = pprof_array(n, sizeof(*g->line));
	g->linep = pprof_array(n, sizeof(*g->linep));
	if (!g->fn || !g->fnp || !g->loc || !g->locp || !g->line || !g->linep)
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++) {
		perftools__profiles__function__init(&g->fn[i]);
		g->fn[i].id = i + 1;
		g->fn[i].name = e->fidx[e->funcs[i]];
		g->fn[i].system_name = g->fn[i].name;
		g->fnp[i] = &g->fn[i];
		perftools__profiles__line__init(&g->line[i]);
		g->line[i].function_id = i + 1;
		g->linep[i] = &g->line[i];
		perftools__profiles__location__init(&g->loc[i]);
		g->loc[i].id = i + 1;
		g->loc[i].mapping_id = 1;
		g->loc[i].n_line = 1;
		g->loc[i].line = &g->linep[i];
		g->locp[i] = &g->loc[i];
	}
	g->p.n_function = n;
	g->p.function = g->fnp;
	g->p.n_location = n;
	g->p.location = g->locp;
	return STATUS_OK;
}

/* Labels are shared: one per task name, one per small tasks count. */
static Perftools__Profiles__Label *task_label(struct enc *e, struct msg *g,
                                              uint32_t name)
{
	Perftools__Profiles__Label *l = &g->tlab[e->fidx[name]];

	if (!g->tlab_set[e->fidx[name]]) {
		g->tlab_set[e->fidx[name]] = 1;
		perftools__profiles__label__init(l);
		l->key = sidx(e, FX_TASK);
		l->str = e->fidx[name];
	}
	return l;
}

/* The label of the other stack's leaf: parked_at (or spawned_at). */
static Perftools__Profiles__Label *leaf_label(struct enc *e, struct msg *g,
                                              uint32_t leaf)
{
	Perftools__Profiles__Label *l = &g->llab[e->fidx[leaf]];

	if (!g->llab_set[e->fidx[leaf]]) {
		g->llab_set[e->fidx[leaf]] = 1;
		perftools__profiles__label__init(l);
		l->key = sidx(e, FX_LEAFKEY);
		l->str = e->fidx[leaf];
	}
	return l;
}

/* The labels of the known figures of o into lp; returns how many. */
static size_t extra_labels(struct enc *e, struct msg *g,
                           const struct osample *o, size_t b,
                           Perftools__Profiles__Label **lp)
{
	size_t n = 0;

	for (size_t x = 0; x < EXTRA_COUNT; x++) {
		uint64_t v;
		Perftools__Profiles__Label *l = &g->xlab[b * EXTRA_COUNT + x];
		if (!extras_get(&o->x, (enum extra)x, &v))
			continue;
		perftools__profiles__label__init(l);
		l->key = e->fidx[e->xkey[x]];
		l->num = clamp64(v);
		l->num_unit = e->fidx[e->xunit[x]];
		lp[n++] = l;
	}
	return n;
}

static Perftools__Profiles__Label *tasks_label(struct enc *e, struct msg *g,
                                               uint64_t tasks, size_t i)
{
	Perftools__Profiles__Label *l;

	if (tasks < SHARED_COUNTS) {
		l = &g->clab[tasks];
		if (l->key)
			return l;
	} else {
		l = &g->nlab[i];
	}
	perftools__profiles__label__init(l);
	l->key = sidx(e, FX_TASKS);
	l->num = clamp64(tasks);
	l->num_unit = sidx(e, FX_TASKS);
	return l;
}

/* Location ids of every output stack, leaf first; os[i] then finds its
 * own at locids + offset, kept in li across batches. */
static enum status build_locids(struct enc *e, struct msg *g)
{
	size_t li = 0;

	g->locids = pprof_array(e->nlocs, sizeof(*g->locids));
	g->tlab = pprof_array(e->nstrs, sizeof(*g->tlab));
	g->tlab_set = mem_calloc(e->nstrs, 1);
	g->llab = pprof_array(e->nstrs, sizeof(*g->llab));
	g->llab_set = mem_calloc(e->nstrs, 1);
	if (!g->locids || !g->tlab || !g->tlab_set || !g->llab || !g->llab_set)
		return STATUS_NOMEM;
	for (size_t i = 0; i < e->nos; i++) {
		const struct osample *o = &e->os[i];
		size_t a = e->rowoff[o->row], b = e->rowoff[o->row + 1];
		if (i > 0 && o->group == e->os[i - 1].group)
			continue;
		for (size_t k = b; k > a; k--)
			g->locids[li++] = e->func[e->fr[k - 1]];
	}
	return STATUS_OK;
}

/* Fills the batch with samples [from, from + n); *li tracks where the
 * current stack's location ids start. */
static void build_batch(struct enc *e, struct msg *g, size_t from, size_t n,
                        size_t *li)
{
	for (size_t b = 0; b < n; b++) {
		size_t i = from + b, nl = 0;
		const struct osample *o = &e->os[i];
		Perftools__Profiles__Sample *s = &g->smp[b];
		Perftools__Profiles__Label **lp = &g->labp[b * MAX_LABELS];
		size_t depth = e->rowoff[o->row + 1] - e->rowoff[o->row];
		const struct fold_entry *en =
		    &e->w->entries[pprof_entry_at(e, o->start)];
		struct metrics sum = en->m;
		uint64_t tasks = en->tasks;

		for (size_t k = o->start + 1; k < o->start + o->count; k++) {
			en = &e->w->entries[pprof_entry_at(e, k)];
			metrics_add(&sum, &en->m);
			tasks = u64_add_sat(tasks, en->tasks);
		}
		if (i > 0 && o->group != e->os[i - 1].group)
			*li += e->rowoff[e->os[i - 1].row + 1] -
			       e->rowoff[e->os[i - 1].row];
		perftools__profiles__sample__init(s);
		s->n_location_id = depth;
		s->location_id = g->locids + *li;
		s->n_value = PPROF_NTYPES;
		s->value = g->values + b * PPROF_NTYPES;
		for (size_t t = 0; t < PPROF_NTYPES; t++)
			s->value[t] = clamp64(sum.v[type_metric[t]]);
		if (!e->omit)
			lp[nl++] = task_label(e, g, o->name);
		if (o->leaf != NO_LEAF)
			lp[nl++] = leaf_label(e, g, o->leaf);
		nl += extra_labels(e, g, o, b, lp + nl);
		lp[nl++] = tasks_label(e, g, tasks, b);
		s->n_label = nl;
		s->label = lp;
		g->smpp[b] = s;
	}
}

/* The tail part: every field after the samples. */
static enum status build_tail(struct enc *e, struct msg *g,
                              const uint32_t *comments)
{
	const struct window_meta *meta = &e->w->meta;
	enum status st;

	perftools__profiles__profile__init(&g->p);
	g->p.period_type = &g->types[PPROF_NTYPES];
	g->p.period = 1;
	g->p.default_sample_type = sidx(e, FX_IDLE);
	g->p.time_nanos = meta->time_nanos;
	g->p.duration_nanos = meta->duration_nanos;
	perftools__profiles__mapping__init(&g->map);
	g->map.id = 1;
	g->map.filename = sidx(e, FX_FILENAME);
	g->map.has_functions = 1;
	g->mapp = &g->map;
	g->p.n_mapping = 1;
	g->p.mapping = &g->mapp;
	if (meta->ncomments) {
		g->comment = pprof_array(meta->ncomments, sizeof(*g->comment));
		if (!g->comment)
			return STATUS_NOMEM;
		for (size_t i = 0; i < meta->ncomments; i++)
			g->comment[i] = e->fidx[comments[i]];
		g->p.n_comment = meta->ncomments;
		g->p.comment = g->comment;
	}
	if ((st = build_strings(e, g)) || (st = build_functions(e, g)))
		return st;
	return STATUS_OK;
}

static enum status emit(struct enc *e, struct msg *g, const uint32_t *comments,
                        struct buf *out)
{
	size_t li = 0;
	enum status st;

	build_types(e, g);
	perftools__profiles__profile__init(&g->p);
	g->p.n_sample_type = PPROF_NTYPES;
	g->p.sample_type = g->typep;
	if ((st = pack_part(&g->p, out)) || (st = build_locids(e, g)))
		return st;
	for (size_t from = 0; from < e->nos; from += BATCH) {
		size_t n = e->nos - from < BATCH ? e->nos - from : BATCH;
		build_batch(e, g, from, n, &li);
		perftools__profiles__profile__init(&g->p);
		g->p.n_sample = n;
		g->p.sample = g->smpp;
		if ((st = pack_part(&g->p, out)) != STATUS_OK)
			return st;
	}
	if ((st = build_tail(e, g, comments)) != STATUS_OK)
		return st;
	return pack_part(&g->p, out);
}

static enum status encode(struct enc *e, struct buf *out)
{
	size_t start = out->len;
	uint32_t *comments;
	struct msg *g;
	enum status st;

	if ((st = pprof_strings_collect(e)) || (st = pprof_order_build(e)))
		return st;
	if (e->nos == 0)
		return STATUS_EMPTY_WINDOW;
	comments = pprof_array(e->w->meta.ncomments, sizeof(*comments));
	g = mem_calloc(1, sizeof(*g));
	if (!comments || !g) {
		mem_free(comments);
		mem_free(g);
		return STATUS_NOMEM;
	}
	st = pprof_strings_number(e, comments);
	if (!st)
		st = emit(e, g, comments, out);
	if (st && out->data) {
		out->len = start; /* nothing written */
		out->data[start] = '\0';
	}
	msg_free(g);
	mem_free(comments);
	return st;
}

static void enc_fini(struct enc *e)
{
	arena_fini(&e->arena);
	buf_fini(&e->scratch);
	mem_free(e->st.v);
	hash_table_fini(&e->st.idx);
	mem_free(e->frames.pair);
	hash_table_fini(&e->frames.idx);
	mem_free(e->names.pair);
	hash_table_fini(&e->names.idx);
	mem_free(e->rowoff);
	mem_free(e->fr);
	mem_free(e->ename);
	mem_free(e->eleaf);
	mem_free(e->order);
	mem_free(e->os);
	mem_free(e->fidx);
	mem_free(e->func);
	mem_free(e->strs);
	mem_free(e->funcs);
}

enum status pprof_encode(const struct model *m, const struct window *w,
                         const struct pprof_opts *opts, struct buf *out)
{
	struct enc e;
	enum status st;

	if (!m || !w || !out)
		return STATUS_INVAL;
	if (buf_status(out))
		return buf_status(out);
	if (w->empty || w->nentries == 0 || w->nrows == 0)
		return STATUS_EMPTY_WINDOW;
	if (w->nentries > UINT32_MAX || w->nrows > UINT32_MAX)
		return STATUS_LIMIT;
	memset(&e, 0, sizeof(e));
	e.m = m;
	e.w = w;
	e.omit = opts && opts->omit_task;
	arena_init(&e.arena, SANITISED_BLOCK);
	buf_init(&e.scratch);
	hash_table_init(&e.st.idx);
	hash_table_init(&e.frames.idx);
	hash_table_init(&e.names.idx);
	st = encode(&e, out);
	enc_fini(&e);
	return st;
}
