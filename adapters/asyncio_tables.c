/* The asyncio adapter's mirror of the agent's per-connection tables:
 * decoding STRINGS, STACKS, TASKS, AGGS and END replies into them. */
#include "adapters/asyncio_int.h"

#include <string.h>

#include "model/alloc.h"
#include "model/hash.h"

/* ---- the id map ---------------------------------------------------------- */

void aio_idmap_fini(struct idmap *m)
{
	mem_free(m->keys);
	mem_free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
	return (size_t)hash_mix64(key) & (m->cap - 1);
}

/* The index stored under key, or false. */
bool aio_idmap_get(const struct idmap *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	for (i = idmap_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	}
	return false;
}

static void idmap_put_raw(struct idmap *m, uint64_t key, uint32_t val)
{
	size_t i;

	for (i = idmap_slot(m, key); m->keys[i] && m->keys[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

/* Sets key (nonzero) to val. */
enum status aio_idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		struct idmap g;
		size_t i;

		memset(&g, 0, sizeof(g));
		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = mem_calloc(g.cap, sizeof(*g.keys));
		g.vals = mem_calloc(g.cap, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			aio_idmap_fini(&g);
			return STATUS_NOMEM;
		}
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				idmap_put_raw(&g, m->keys[i], m->vals[i]);
		aio_idmap_fini(m);
		*m = g;
	}
	idmap_put_raw(m, key, val);
	return STATUS_OK;
}

void aio_idmap_del(struct idmap *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;

	if (!m->cap)
		return;
	for (i = idmap_slot(m, key); m->keys[i] && m->keys[i] != key;
	     i = (i + 1) & mask)
		;
	if (!m->keys[i])
		return;
	m->keys[i] = 0;
	m->n--;
	/* backward shift: pull later entries of the run into the hole */
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = idmap_slot(m, m->keys[j]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
}

/* ---- the mirror: strings, stacks, tasks, sites ----------------------------
 */

/* The index + 1 of string id (0 for id 0); false when undefined. */
static bool str_ref(const struct aio *p, uint32_t id, uint32_t *ref)
{
	uint32_t v;

	*ref = 0;
	if (!id)
		return true;
	if (!aio_idmap_get(&p->str_ids, id, &v) || p->strs[v].retiring)
		return false;
	*ref = v + 1;
	return true;
}

static bool stk_ref(const struct aio *p, uint32_t id, uint32_t *ref)
{
	uint32_t v;

	*ref = 0;
	if (!id)
		return true;
	if (!aio_idmap_get(&p->stk_ids, id, &v))
		return false;
	*ref = v + 1;
	return true;
}

static enum status nomem(struct failure *f)
{
	return aio_failf(f, STATUS_NOMEM, NULL, NULL, "%s",
	                 status_str(STATUS_NOMEM));
}

enum status aio_take_strings(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, i;

	(void)wire_u32(w, "the string count", &count);
	(void)wire_count(w, "the string count", count, 8);
	if (wire_status(w) == STATUS_OK &&
	    p->nstrs - p->nfree + count > MAX_ENTRIES)
		(void)wire_fail(w, 0, "more than %zu strings", MAX_ENTRIES);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *bytes;
		uint32_t id, len, dummy, slot;
		char *copy;

		(void)wire_u32(w, "a string id", &id);
		(void)wire_u32(w, "a string length", &len);
		if (wire_status(w) != STATUS_OK)
			break;
		if (id != 0 && aio_idmap_get(&p->str_ids, id, &dummy) &&
		    p->strs[dummy].retiring) {
			/* named again before it was freed: it stays, with
			 * the same text (an id never means another) */
			if (wire_bytes(w, "a string", len, &bytes) != STATUS_OK)
				break;
			if (len != p->strs[dummy].len ||
			    memcmp(bytes, p->strs[dummy].p, len)) {
				(void)wire_fail(
				    w, at,
				    "string id %u, retired, is defined again with another text",
				    id);
				break;
			}
			p->strs[dummy].retiring = false;
			p->nretiring--;
			continue;
		}
		if (id == 0 || aio_idmap_get(&p->str_ids, id, &dummy)) {
			(void)wire_fail(w, at, "string id %u %s", id,
			                id ? "defined twice" : "is reserved");
			break;
		}
		if (len > MAX_STRING) {
			(void)wire_fail(w, at + 4,
			                "string %u is %u bytes long, over %d",
			                id, len, MAX_STRING);
			break;
		}
		if (wire_bytes(w, "a string", len, &bytes) != STATUS_OK)
			break;
		if (!p->nfree && mem_grow(&p->strs, &p->capstrs, p->nstrs + 1,
		                          sizeof(*p->strs)) != STATUS_OK)
			return nomem(f);
		slot =
		    p->nfree ? p->free_strs[p->nfree - 1] : (uint32_t)p->nstrs;
		copy = mem_strndup((const char *)bytes, len);
		if (!copy)
			return nomem(f);
		if (aio_idmap_put(&p->str_ids, id, slot) != STATUS_OK) {
			mem_free(copy);
			return nomem(f);
		}
		p->strs[slot] = (struct str){ .p = copy, .len = len, .id = id };
		if (p->nfree)
			p->nfree--;
		else
			p->nstrs++;
	}
	(void)wire_end(w, "the last string");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "STRINGS");
}

enum status aio_take_stacks(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, i;

	(void)wire_u32(w, "the stack count", &count);
	(void)wire_count(w, "the stack count", count, 20);
	if (wire_status(w) == STATUS_OK && p->nstks + count > MAX_ENTRIES)
		(void)wire_fail(w, 0, "more than %zu stacks", MAX_ENTRIES);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		uint32_t id, parent, n, dropped, j, pref = 0, dummy;

		(void)wire_u32(w, "a stack id", &id);
		(void)wire_u32(w, "a stack's parent", &parent);
		(void)wire_u32(w, "a stack's frame count", &n);
		(void)wire_u32(w, "a stack's dropped frames", &dropped);
		if (wire_status(w) != STATUS_OK)
			break;
		if (id == 0 || aio_idmap_get(&p->stk_ids, id, &dummy)) {
			(void)wire_fail(w, at, "stack id %u %s", id,
			                id ? "defined twice" : "is reserved");
			break;
		}
		if (parent && parent >= id) {
			(void)wire_fail(
			    w, at + 4,
			    "stack %u names parent %u, which is not "
			    "below it (a cycle)",
			    id, parent);
			break;
		}
		if (!stk_ref(p, parent, &pref)) {
			(void)wire_fail(
			    w, at + 4,
			    "stack %u names parent %u, which is not "
			    "defined",
			    id, parent);
			break;
		}
		if (n < 1 || n > MAX_OWN) {
			(void)wire_fail(
			    w, at + 8,
			    "stack %u has %u frames (1 to %d allowed)", id, n,
			    MAX_OWN);
			break;
		}
		if (wire_count(w, "a stack's frame count", n, 4) != STATUS_OK)
			break;
		if (mem_grow(&p->frame_pool, &p->capframes, p->nframes + n,
		             sizeof(*p->frame_pool)) != STATUS_OK ||
		    mem_grow(&p->stks, &p->capstks, p->nstks + 1,
		             sizeof(*p->stks)) != STATUS_OK)
			return nomem(f);
		for (j = 0; j < n; j++) {
			uint32_t fid, ref;

			(void)wire_u32(w, "a frame id", &fid);
			if (!str_ref(p, fid, &ref) || !ref) {
				(void)wire_fail(
				    w, w->off - 4,
				    "stack %u names string %u, which "
				    "is not defined",
				    id, fid);
				break;
			}
			p->frame_pool[p->nframes + j] = ref - 1;
			p->strs[ref - 1].framed = true;
		}
		if (wire_status(w) != STATUS_OK)
			break;
		if (aio_idmap_put(&p->stk_ids, id, (uint32_t)p->nstks) !=
		    STATUS_OK)
			return nomem(f);
		p->stks[p->nstks] = (struct stk){
			.parent = pref,
			.n = n,
			.off = (uint32_t)p->nframes,
			.dropped = dropped,
			.total = u64_add_sat(pref ? p->stks[pref - 1].total : 0,
			                     (uint64_t)n + dropped),
		};
		p->nframes += n;
		p->nstks++;
	}
	(void)wire_end(w, "the last stack");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "STACKS");
}

/* The index of the task table entry for id, made (with no baseline, and
 * only its id set) if new. */
static enum status task_slot(struct aio *p, uint64_t id, uint32_t *out,
                             struct failure *f)
{
	if (aio_idmap_get(&p->task_ids, id, out))
		return STATUS_OK;
	if (p->ntasks >= MAX_TASKS)
		return aio_failf(f, STATUS_MALFORMED, NULL, NULL,
		                 "TASKS frame: more than %zu tasks", MAX_TASKS);
	if (mem_grow(&p->tasks, &p->captasks, p->ntasks + 1,
	             sizeof(*p->tasks)) != STATUS_OK ||
	    aio_idmap_put(&p->task_ids, id, (uint32_t)p->ntasks) != STATUS_OK)
		return nomem(f);
	*out = (uint32_t)p->ntasks++;
	memset(&p->tasks[*out], 0, sizeof(p->tasks[*out]));
	return STATUS_OK;
}

/* The parked-at stack of record n (at offset at) into n->parked, checked:
 * defined, whole (no parent: it is not a chain), only for a task that is
 * waiting, and the no-waker flag only with one; a longest step within the
 * busy time.  On failure w's error is set; returns false. */
static bool check_parked(const struct aio *p, struct wire *w, size_t at,
                         struct task *n, uint32_t parked_id)
{
	unsigned long long id = (unsigned long long)n->id;

	if (!stk_ref(p, parked_id, &n->parked))
		(void)wire_fail(
		    w, at + 36,
		    "task %llu is parked at stack %u, which is not defined", id,
		    parked_id);
	else if (n->parked && p->stks[n->parked - 1].parent)
		(void)wire_fail(
		    w, at + 36,
		    "task %llu is parked at stack %u, which has a parent (a parked-at stack stands alone)",
		    id, parked_id);
	else if (n->parked && n->state != TASK_SCHEDULED &&
	         n->state != TASK_IDLE)
		(void)wire_fail(w, at + 36,
		                "task %llu is %s but has a parked-at stack", id,
		                n->state == TASK_DONE ? "done" : "running");
	else if (n->no_waker && !n->parked)
		(void)wire_fail(w, at + 34,
		                "task %llu has no waker but no parked-at stack",
		                id);
	else if (n->max_step > n->busy)
		(void)wire_fail(
		    w, at + 112,
		    "task %llu has a longest step (%llu ns) longer than all its busy time (%llu ns)",
		    id, (unsigned long long)n->max_step,
		    (unsigned long long)n->busy);
	else
		return true;
	return false;
}

enum status aio_take_tasks(struct aio *p, uint64_t *records, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, size, i;

	(void)wire_u32(w, "the task count", &count);
	(void)wire_u32(w, "the task record size", &size);
	if (wire_status(w) == STATUS_OK && size != TASK_RECORD)
		(void)wire_fail(w, 4, "task records of %u bytes, not %d", size,
		                TASK_RECORD);
	(void)wire_count(w, "the task count", count, TASK_RECORD);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *r;
		struct task n;
		uint32_t ti = 0;
		uint32_t stack_id, name_id, thread_id, parked_id;
		uint16_t flags;
		enum status st;

		if (wire_bytes(w, "a task record", TASK_RECORD, &r) !=
		    STATUS_OK)
			break;
		memset(&n, 0, sizeof(n));
		n.id = wire_le64(r);
		stack_id = wire_le32(r + 16);
		name_id = wire_le32(r + 20);
		thread_id = wire_le32(r + 24);
		n.state = r[32];
		flags = wire_le16(r + 34);
		parked_id = wire_le32(r + 36);
		n.created = wire_le64(r + 40);
		n.ended = wire_le64(r + 48);
		n.t_mark = wire_le64(r + 56);
		n.polls = wire_le64(r + 64);
		n.wakes = wire_le64(r + 72);
		n.self_wakes = wire_le64(r + 80);
		n.busy = wire_le64(r + 88);
		n.sched = wire_le64(r + 96);
		n.idle = wire_le64(r + 104);
		n.max_step = wire_le64(r + 112);
		n.unknown_site = (flags & TASK_SPAWN_UNKNOWN) != 0;
		n.no_waker = (flags & TASK_NO_WAKER) != 0;
		if (n.id == 0)
			(void)wire_fail(w, at, "task id 0");
		else if (n.state < TASK_SCHEDULED || n.state > TASK_DONE)
			(void)wire_fail(w, at + 32, "task %llu has state %u",
			                (unsigned long long)n.id, n.state);
		else if ((n.state == TASK_DONE) != (n.ended != 0))
			(void)wire_fail(w, at + 48,
			                "task %llu is %s but its end time is "
			                "%llu",
			                (unsigned long long)n.id,
			                n.state == TASK_DONE ? "done"
			                                     : "not done",
			                (unsigned long long)n.ended);
		else if (n.t_mark < n.created)
			(void)wire_fail(w, at + 56,
			                "task %llu changed state before it was "
			                "created",
			                (unsigned long long)n.id);
		else if (n.self_wakes > n.wakes)
			(void)wire_fail(
			    w, at + 80,
			    "task %llu has more self-wakes than wakes",
			    (unsigned long long)n.id);
		else if (!stk_ref(p, stack_id, &n.stack))
			(void)wire_fail(
			    w, at + 16,
			    "task %llu names stack %u, which is not "
			    "defined",
			    (unsigned long long)n.id, stack_id);
		else if (!str_ref(p, name_id, &n.name))
			(void)wire_fail(
			    w, at + 20,
			    "task %llu names string %u, which is not "
			    "defined",
			    (unsigned long long)n.id, name_id);
		else if (!str_ref(p, thread_id, &n.thread))
			(void)wire_fail(
			    w, at + 24,
			    "task %llu names thread string %u, which "
			    "is not defined",
			    (unsigned long long)n.id, thread_id);
		else
			(void)check_parked(p, w, at, &n, parked_id);
		if (wire_status(w) != STATUS_OK)
			break;
		if (n.unknown_site)
			n.stack = 0;
		st = task_slot(p, n.id, &ti, f);
		if (st != STATUS_OK)
			return st;
		n.has_base = p->tasks[ti].has_base;
		n.base = p->tasks[ti].base;
		n.base_self_wakes = p->tasks[ti].base_self_wakes;
		/* each record carries the longest step since the previous
		 * one: the window's is the largest received in it */
		if (p->tasks[ti].max_step > n.max_step)
			n.max_step = p->tasks[ti].max_step;
		if (p->have_start && n.t_mark <= p->t_start) {
			/* protocol §6: a record whose state began before the
			 * window's start is exact there: it is the baseline */
			aio_task_at(&n, p->t_start, &n.base);
			n.base_self_wakes = n.self_wakes;
			n.has_base = true;
		}
		p->tasks[ti] = n;
		(*records)++;
	}
	(void)wire_end(w, "the last task record");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "TASKS");
}

enum status aio_take_aggs(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, size, i;

	(void)wire_u32(w, "the aggregate count", &count);
	(void)wire_u32(w, "the aggregate record size", &size);
	if (wire_status(w) == STATUS_OK && size != AGG_RECORD)
		(void)wire_fail(w, 4, "aggregate records of %u bytes, not %d",
		                size, AGG_RECORD);
	(void)wire_count(w, "the aggregate count", count, AGG_RECORD);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		const unsigned char *r;
		uint32_t sref, tref, idx;
		uint64_t key;
		struct site *s;

		if (wire_bytes(w, "an aggregate record", AGG_RECORD, &r) !=
		    STATUS_OK)
			break;
		if (!stk_ref(p, wire_le32(r), &sref)) {
			(void)wire_fail(w, at,
			                "an aggregate names stack %u, "
			                "which is not defined",
			                wire_le32(r));
			break;
		}
		if (!str_ref(p, wire_le32(r + 4), &tref)) {
			(void)wire_fail(w, at + 4,
			                "an aggregate names thread string %u, "
			                "which is not defined",
			                wire_le32(r + 4));
			break;
		}
		key = ((uint64_t)sref << 32 | tref) + 1;
		if (!aio_idmap_get(&p->site_ids, key, &idx)) {
			if (p->nsites >= MAX_SITES)
				return aio_failf(
				    f, STATUS_MALFORMED, NULL, NULL,
				    "AGGS frame: more than %zu sites",
				    MAX_SITES);
			if (mem_grow(&p->sites, &p->capsites, p->nsites + 1,
			             sizeof(*p->sites)) != STATUS_OK ||
			    aio_idmap_put(&p->site_ids, key,
			                  (uint32_t)p->nsites) != STATUS_OK)
				return nomem(f);
			idx = (uint32_t)p->nsites++;
			memset(&p->sites[idx], 0, sizeof(p->sites[idx]));
			p->sites[idx].key = key;
			p->sites[idx].stack = sref;
			p->sites[idx].thread = tref;
		}
		s = &p->sites[idx];
		s->cur[0] = wire_le64(r + 8);  /* tasks */
		s->cur[1] = wire_le64(r + 16); /* polls */
		s->cur[2] = wire_le64(r + 24); /* wakes */
		s->cur[3] = wire_le64(r + 40); /* busy */
		s->cur[4] = wire_le64(r + 48); /* sched */
		s->cur[5] = wire_le64(r + 56); /* idle */
		s->cur[6] = wire_le64(r + 32); /* self_wakes */
	}
	(void)wire_end(w, "the last aggregate record");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "AGGS");
}

enum status aio_take_end(struct aio *p, struct end *e, struct failure *f)
{
	struct wire *w = &p->w;
	uint64_t gen, fin, live, agg, real;

	if (wire_left(w) != END_SIZE) {
		(void)wire_fail(w, 0, "an END of %zu bytes, not %d",
		                wire_left(w), END_SIZE);
		return aio_malformed(f, w, "END");
	}
	(void)wire_u64(w, "boundary_ns", &e->boundary);
	(void)wire_u64(w, "boundary_real_ns", &real);
	(void)wire_u64(w, "generation", &gen);
	(void)wire_u64(w, "finished_total", &fin);
	(void)wire_u64(w, "live_tasks", &live);
	(void)wire_u32(w, "loop_threads", &e->loop_threads);
	(void)wire_u32(w, "flags", &e->flags);
	(void)wire_u64(w, "aggregated_total", &agg);
	(void)wire_u64(w, "task_records", &e->records);
	e->real = (int64_t)(real > INT64_MAX ? INT64_MAX : real);
	if (wire_status(w) == STATUS_OK && e->boundary < p->t_last)
		(void)wire_fail(
		    w, 0,
		    "the boundary %llu ns precedes the previous one "
		    "(%llu ns)",
		    (unsigned long long)e->boundary,
		    (unsigned long long)p->t_last);
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "END");
}

/* Why string slot v may not be retired now, or NULL. */
static const char *in_use(const struct aio *p, uint32_t v)
{
	size_t i;

	if (p->strs[v].framed)
		return "a stack names it";
	for (i = 0; i < p->ntasks; i++) {
		const struct task *t = &p->tasks[i];

		if (t->thread == v + 1)
			return "a task's thread has it";
		if (t->name == v + 1 && t->state != TASK_DONE)
			return "an unfinished task is named so";
	}
	for (i = 0; i < p->nsites; i++)
		if (p->sites[i].thread == v + 1)
			return "an aggregate's thread has it";
	return NULL;
}

enum status aio_take_retire(struct aio *p, struct failure *f)
{
	struct wire *w = &p->w;
	uint32_t count, i;

	(void)wire_u32(w, "the retired count", &count);
	(void)wire_count(w, "the retired count", count, 4);
	for (i = 0; i < count && wire_status(w) == STATUS_OK; i++) {
		size_t at = w->off;
		uint32_t id, v;
		const char *why;

		if (wire_u32(w, "a retired string id", &id) != STATUS_OK)
			break;
		if (!aio_idmap_get(&p->str_ids, id, &v)) {
			(void)wire_fail(
			    w, at, "string id %u is retired but not defined",
			    id);
			break;
		}
		if (p->strs[v].retiring) {
			(void)wire_fail(w, at, "string id %u is retired twice",
			                id);
			break;
		}
		why = in_use(p, v);
		if (why) {
			(void)wire_fail(
			    w, at, "string id %u is retired while %s", id, why);
			break;
		}
		p->strs[v].retiring = true;
		p->nretiring++;
	}
	(void)wire_end(w, "the last retired id");
	return wire_status(w) == STATUS_OK ? STATUS_OK
	                                   : aio_malformed(f, w, "RETIRE");
}

void aio_forget_retired(struct aio *p)
{
	size_t i;

	for (i = 0; i < p->nstrs && p->nretiring; i++) {
		struct str *s = &p->strs[i];

		if (!s->p || !s->retiring)
			continue;
		if (mem_grow(&p->free_strs, &p->capfree, p->nfree + 1,
		             sizeof(*p->free_strs)) != STATUS_OK)
			return; /* kept retiring: tried again at the next roll
			         */
		aio_idmap_del(&p->str_ids, s->id);
		mem_free(s->p);
		*s = (struct str){ .p = NULL };
		p->free_strs[p->nfree++] = (uint32_t)i;
		p->nretiring--;
	}
}
