/* The pprof reader's checks (encode/pprof_read_int.h): everything a
 * profile must satisfy before its first sample reaches the sink, and the
 * tables that resolve its ids and frames once, made along the way.  Apart
 * from pprof_read.c, which unpacks and feeds, because a new rule for what
 * is valid lands here and nowhere else. */
#include "encode/pprof_read_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode/pprof.h"
#include "model/alloc.h"
#include "model/extras.h"

static int cmp_idpair(const void *a, const void *b)
{
	const struct rd_idpair *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static bool idmap_find(const struct rd_idmap *m, uint64_t id, uint32_t *idx)
{
	size_t lo = 0, hi = m->n;

	if (!m->v) {
		if (id == 0 || id > m->n)
			return false;
		*idx = (uint32_t)(id - 1);
		return true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].id == id) {
			*idx = m->v[mid].idx;
			return true;
		}
		if (m->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool str_is(const ProtobufCBinaryData *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && (n == 0 || memcmp(s->data, lit, n) == 0);
}

static bool str_ok(const struct rd *r, int64_t i)
{
	return i >= 0 && (uint64_t)i < r->p->n_string_table;
}

static enum status bad(struct rd *r, const char *fmt, ...) PRINTF(2, 3);

static enum status bad(struct rd *r, const char *fmt, ...)
{
	if (r->err && r->errsz) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errsz, fmt, ap);
		va_end(ap);
	}
	return STATUS_MALFORMED;
}

/* Ids: nonzero and unique; dense 1..N needs no lookup table. */
static enum status build_idmap(struct rd *r, struct rd_idmap *m,
                               const char *what, size_t n,
                               uint64_t (*id_at)(const void *, size_t),
                               const void *arr)
{
	bool dense = true;

	m->n = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = id_at(arr, i);
		if (id == 0)
			return bad(r, "%s %zu has the reserved id 0", what,
			           i + 1);
		if (id != i + 1)
			dense = false;
	}
	if (dense)
		return STATUS_OK;
	m->v = mem_realloc_array(NULL, n, sizeof(*m->v));
	if (!m->v)
		return STATUS_NOMEM;
	for (size_t i = 0; i < n; i++) {
		m->v[i].id = id_at(arr, i);
		m->v[i].idx = (uint32_t)i;
	}
	qsort(m->v, n, sizeof(*m->v), cmp_idpair);
	for (size_t i = 1; i < n; i++) {
		if (m->v[i].id == m->v[i - 1].id)
			return bad(r, "two %ss have the id %llu", what,
			           (unsigned long long)m->v[i].id);
	}
	return STATUS_OK;
}

static uint64_t mapping_id(const void *arr, size_t i)
{
	Perftools__Profiles__Mapping *const *a = arr;
	return a[i]->id;
}

static uint64_t location_id(const void *arr, size_t i)
{
	Perftools__Profiles__Location *const *a = arr;
	return a[i]->id;
}

static uint64_t function_id(const void *arr, size_t i)
{
	Perftools__Profiles__Function *const *a = arr;
	return a[i]->id;
}

/* The five asynctop types, by name and unit, in any order. */
static enum status find_types(struct rd *r)
{
	const Perftools__Profiles__Profile *p = r->p;

	for (size_t i = 0; i < p->n_sample_type; i++) {
		const Perftools__Profiles__ValueType *t = p->sample_type[i];
		if (!str_ok(r, t->type) || !str_ok(r, t->unit))
			return bad(
			    r, "sample type %zu names a string out of range",
			    i + 1);
	}
	for (size_t k = 0; k < PPROF_NTYPES; k++) {
		enum metric mt = pprof_type_metric(k);
		const char *name = metric_name(mt), *unit = metric_unit(mt);
		size_t found = SIZE_MAX;
		for (size_t i = 0; i < p->n_sample_type; i++) {
			const Perftools__Profiles__ValueType *t =
			    p->sample_type[i];
			if (!str_is(&p->string_table[t->type], name))
				continue;
			if (!str_is(&p->string_table[t->unit], unit))
				return status_errf(
				    r->err, r->errsz, STATUS_FOREIGN,
				    "not an asynctop profile: sample type %s is not in %s",
				    name, unit);
			if (found != SIZE_MAX)
				return bad(r, "sample type %s appears twice",
				           name);
			found = i;
		}
		if (found == SIZE_MAX)
			return status_errf(
			    r->err, r->errsz, STATUS_FOREIGN,
			    "not an asynctop profile: missing sample type %s/%s",
			    name, unit);
		r->type_of[mt] = found;
	}
	r->ntypes = p->n_sample_type;
	return STATUS_OK;
}

static enum status check_strings(struct rd *r)
{
	const Perftools__Profiles__Profile *p = r->p;

	if (p->period_type && (!str_ok(r, p->period_type->type) ||
	                       !str_ok(r, p->period_type->unit)))
		return bad(r, "the period type names a string out of range");
	if (!str_ok(r, p->default_sample_type))
		return bad(r,
		           "the default sample type is a string out of range");
	for (size_t i = 0; i < p->n_comment; i++) {
		if (!str_ok(r, p->comment[i]))
			return bad(r, "comment %zu is a string out of range",
			           i + 1);
	}
	for (size_t i = 0; i < p->n_mapping; i++) {
		if (!str_ok(r, p->mapping[i]->filename))
			return bad(r, "mapping %zu names a string out of range",
			           i + 1);
	}
	for (size_t i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *f = p->function[i];
		if (!str_ok(r, f->name) || !str_ok(r, f->system_name))
			return bad(r,
			           "function %zu names a string out of range",
			           i + 1);
	}
	r->kind = mem_calloc(p->n_string_table, 1);
	if (!r->kind)
		return STATUS_NOMEM;
	for (size_t i = 0; i < p->n_string_table; i++) {
		if (str_is(&p->string_table[i], "task"))
			r->kind[i] = KIND_TASK;
		else if (str_is(&p->string_table[i], "tasks"))
			r->kind[i] = KIND_TASKS;
		else if (str_is(&p->string_table[i], "parked_at"))
			r->kind[i] = KIND_PARKED_AT;
		else if (str_is(&p->string_table[i], "spawned_at"))
			r->kind[i] = KIND_SPAWNED_AT;
		for (size_t x = 0; x < EXTRA_COUNT; x++) {
			if (str_is(&p->string_table[i],
			           extra_name((enum extra)x)))
				r->kind[i] = (unsigned char)(KIND_EXTRA + x);
		}
	}
	return STATUS_OK;
}

/* A function's frame text: its name, else its system name. */
static struct strview function_frame(const struct rd *r, uint32_t fi)
{
	const Perftools__Profiles__Function *f = r->p->function[fi];
	struct strview v = rd_str_at(r, f->name);

	return v.len ? v : rd_str_at(r, f->system_name);
}

/* Lines of every location resolve to a function; each location's frames
 * are resolved here once, not again for every sample that names it. */
static enum status check_locations(struct rd *r)
{
	const Perftools__Profiles__Profile *p = r->p;
	size_t nlines = 0;
	uint32_t idx;

	for (size_t i = 0; i < p->n_location; i++) {
		if (p->location[i]->n_line > SIZE_MAX / 2 - nlines)
			return STATUS_NOMEM;
		nlines += p->location[i]->n_line;
	}
	r->lstart =
	    mem_realloc_array(NULL, p->n_location + 1, sizeof(*r->lstart));
	r->lframe =
	    mem_realloc_array(NULL, nlines ? nlines : 1, sizeof(*r->lframe));
	if (!r->lstart || !r->lframe)
		return STATUS_NOMEM;
	r->lstart[0] = 0;
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		size_t at = r->lstart[i];
		if (l->n_line == 0)
			return bad(r, "location id %llu has no line",
			           (unsigned long long)l->id);
		for (size_t j = 0; j < l->n_line; j++) {
			if (!idmap_find(&r->funcs, l->line[j]->function_id,
			                &idx))
				return bad(
				    r,
				    "location id %llu names function id %llu, which does not exist",
				    (unsigned long long)l->id,
				    (unsigned long long)l->line[j]
				        ->function_id);
			/* line 0 is the leaf side: frames go root first */
			r->lframe[at + l->n_line - 1 - j] =
			    function_frame(r, idx);
		}
		r->lstart[i + 1] = at + l->n_line;
	}
	return STATUS_OK;
}

static enum status check_labels(struct rd *r, size_t i)
{
	bool task = false, tasks = false, leaf = false;
	uint32_t figures = 0;

	r->task[i] = 0;
	r->ntasks[i] = 1;
	for (size_t j = r->s.lab_at[i]; j < r->s.lab_at[i + 1]; j++) {
		const struct pb_label *l = &r->s.lab[j];
		if (!str_ok(r, l->key) || !str_ok(r, l->str) ||
		    !str_ok(r, l->num_unit))
			return bad(
			    r,
			    "sample %zu has a label naming a string out of range",
			    i + 1);
		if (l->key == 0)
			return bad(r,
			           "sample %zu has a label with an empty key",
			           i + 1);
		if (r->kind[l->key] == KIND_TASK) {
			if (task)
				return bad(r, "sample %zu has two task labels",
				           i + 1);
			task = true;
			r->task[i] = l->str;
		} else if (r->kind[l->key] == KIND_TASKS) {
			if (tasks)
				return bad(r, "sample %zu has two tasks labels",
				           i + 1);
			if (l->num < 0)
				return bad(
				    r, "sample %zu has a negative tasks label",
				    i + 1);
			tasks = true;
			r->ntasks[i] = (uint64_t)l->num;
		} else if (r->kind[l->key] == KIND_PARKED_AT ||
		           r->kind[l->key] == KIND_SPAWNED_AT) {
			if (leaf)
				return bad(
				    r,
				    "sample %zu has two parked_at or spawned_at labels",
				    i + 1);
			leaf = true;
		} else if (r->kind[l->key] >= KIND_EXTRA) {
			unsigned x = r->kind[l->key] - KIND_EXTRA;
			if (figures & (1u << x))
				return bad(r, "sample %zu has two %s labels",
				           i + 1, extra_name((enum extra)x));
			if (l->num < 0)
				return bad(r,
				           "sample %zu has a negative %s label",
				           i + 1, extra_name((enum extra)x));
			figures |= 1u << x;
		}
	}
	return STATUS_OK;
}

static enum status check_samples(struct rd *r)
{
	const struct pb_samples *ps = &r->s;
	size_t n = ps->n ? ps->n : 1, nloc = ps->loc_at[ps->n];

	r->task = mem_realloc_array(NULL, n, sizeof(*r->task));
	r->ntasks = mem_realloc_array(NULL, n, sizeof(*r->ntasks));
	r->sloc = mem_realloc_array(NULL, nloc ? nloc : 1, sizeof(*r->sloc));
	if (!r->task || !r->ntasks || !r->sloc)
		return STATUS_NOMEM;
	for (size_t i = 0; i < ps->n; i++) {
		size_t depth = 0, nval = ps->val_at[i + 1] - ps->val_at[i];
		if (nval != r->ntypes)
			return bad(r, "sample %zu has %zu values for %zu types",
			           i + 1, nval, r->ntypes);
		for (size_t j = ps->val_at[i]; j < ps->val_at[i + 1]; j++) {
			if ((int64_t)ps->val[j] < 0)
				return bad(r, "sample %zu has a negative value",
				           i + 1);
		}
		for (size_t k = ps->loc_at[i]; k < ps->loc_at[i + 1]; k++) {
			if (!idmap_find(&r->locs, ps->loc[k], &r->sloc[k]))
				return bad(
				    r,
				    "sample %zu names location id %llu, which does not exist",
				    i + 1, (unsigned long long)ps->loc[k]);
			depth +=
			    r->lstart[r->sloc[k] + 1] - r->lstart[r->sloc[k]];
		}
		if (depth > r->maxdepth)
			r->maxdepth = depth;
		enum status st = check_labels(r, i);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

/* NUL-terminated copies of the comments (an embedded NUL, which a C string
 * cannot carry, becomes U+FFFD). */
static enum status copy_comments(struct rd *r)
{
	const Perftools__Profiles__Profile *p = r->p;

	if (!p->n_comment)
		return STATUS_OK;
	r->comments = mem_calloc(p->n_comment, sizeof(*r->comments));
	if (!r->comments)
		return STATUS_NOMEM;
	for (size_t i = 0; i < p->n_comment; i++) {
		const ProtobufCBinaryData *s = &p->string_table[p->comment[i]];
		size_t nul = 0, o = 0;
		char *d;
		for (size_t j = 0; j < s->len; j++)
			nul += s->data[j] == 0;
		if (s->len > (SIZE_MAX - 1) / 3)
			return STATUS_NOMEM;
		d = mem_alloc(s->len + 2 * nul + 1);
		if (!d)
			return STATUS_NOMEM;
		for (size_t j = 0; j < s->len; j++) {
			if (s->data[j] == 0) {
				memcpy(d + o, "\xEF\xBF\xBD", 3);
				o += 3;
			} else {
				d[o++] = (char)s->data[j];
			}
		}
		d[o] = '\0';
		r->comments[i] = d;
	}
	return STATUS_OK;
}

enum status pprof_read_validate(struct rd *r, const struct load_limits *lim)
{
	const Perftools__Profiles__Profile *p = r->p;
	enum status st;

	if (p->n_string_table == 0 || p->string_table[0].len != 0)
		return bad(
		    r, "the string table does not start with an empty string");
	if ((st = find_types(r)) != STATUS_OK)
		return st;
	/* A saved window always has both; a file without them would be saved
	 * again as one that pprof's own checks refuse. */
	if (p->time_nanos <= 0)
		return bad(r,
		           "time_nanos is %" PRId64 ", not a time after 1970",
		           p->time_nanos);
	if (p->duration_nanos <= 0)
		return bad(r, "duration_nanos is %" PRId64 ", not a length",
		           p->duration_nanos);
	if (lim->max_samples && r->s.seen > lim->max_samples)
		return status_errf(r->err, r->errsz, STATUS_TOO_LARGE,
		                   "%zu samples, over the limit of %zu",
		                   r->s.seen, lim->max_samples);
	if (p->n_location > UINT32_MAX || p->n_function > UINT32_MAX ||
	    p->n_mapping > UINT32_MAX)
		return status_errf(r->err, r->errsz, STATUS_TOO_LARGE,
		                   "too many locations or functions");
	if ((st = check_strings(r)) != STATUS_OK ||
	    (st = build_idmap(r, &r->maps, "mapping", p->n_mapping, mapping_id,
	                      p->mapping)) != STATUS_OK ||
	    (st = build_idmap(r, &r->funcs, "function", p->n_function,
	                      function_id, p->function)) != STATUS_OK ||
	    (st = build_idmap(r, &r->locs, "location", p->n_location,
	                      location_id, p->location)) != STATUS_OK ||
	    (st = check_locations(r)) != STATUS_OK ||
	    (st = check_samples(r)) != STATUS_OK ||
	    (st = copy_comments(r)) != STATUS_OK)
		return st;
	return STATUS_OK;
}
