/* The console-api simulator (tokio_sim.h): scenario parsing, the tasks'
 * cycles and their Stats, and a gRPC C core server on its own thread. */
#include "tests/tokio_sim.h"

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/tokio_sim_build.h"

#define WATCH     "/rs.tokio.console.instrument.Instrument/WatchUpdates"
#define MAX_CALLS 8
#define MS        ((uint64_t)1000000)

/* ---- scenarios ----------------------------------------------------------- */

static bool duration(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	double mul;

	if (end == s || v < 0)
		return false;
	if (strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "us") == 0)
		mul = 1e3;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "s") == 0)
		mul = 1e9;
	else
		return false;
	*out = (uint64_t)(v * mul + 0.5);
	return true;
}

static bool family(char **tok, size_t n, struct sim_family *f, char *err,
                   size_t errsz)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	if (n < 3) {
		snprintf(err, errsz, "family NAME COUNT key=value...");
		return false;
	}
	snprintf(f->name, sizeof(f->name), "%s", tok[1]);
	snprintf(f->kind, sizeof(f->kind), "task");
	f->count = strtoul(tok[2], NULL, 10);
	for (i = 3; i < n; i++) {
		char *v = strchr(tok[i], '=');
		bool ok = true;

		if (strcmp(tok[i], "named") == 0) {
			f->named = true;
			continue;
		}
		if (!v) {
			snprintf(err, errsz, "\"%s\": key=value", tok[i]);
			return false;
		}
		*v++ = '\0';
		if (strcmp(tok[i], "busy") == 0)
			ok = duration(v, &f->busy);
		else if (strcmp(tok[i], "idle") == 0)
			ok = duration(v, &f->idle);
		else if (strcmp(tok[i], "sched") == 0)
			ok = duration(v, &f->sched);
		else if (strcmp(tok[i], "spawn") == 0)
			ok = duration(v, &f->spawn);
		else if (strcmp(tok[i], "stagger") == 0)
			ok = duration(v, &f->stagger);
		else if (strcmp(tok[i], "polls") == 0)
			f->polls = strtoull(v, NULL, 10);
		else if (strcmp(tok[i], "wakes") == 0)
			f->wakes = strtoull(v, NULL, 10);
		else if (strcmp(tok[i], "kind") == 0)
			snprintf(f->kind, sizeof(f->kind), "%s", v);
		else if (strcmp(tok[i], "loc") == 0)
			snprintf(f->loc, sizeof(f->loc), "%s", v);
		else
			ok = false;
		if (!ok) {
			snprintf(err, errsz, "bad %s=%s", tok[i], v);
			return false;
		}
	}
	if (f->busy == 0 || f->count == 0) {
		snprintf(err, errsz, "family %s: COUNT and busy must be > 0",
		         f->name);
		return false;
	}
	return true;
}

bool sim_parse(const char *text, struct sim_scenario *sc, char *err,
               size_t errsz)
{
	char line[512];
	unsigned lineno = 0;

	memset(sc, 0, sizeof(*sc));
	sc->interval = 100 * MS;
	while (*text) {
		size_t len = strcspn(text, "\n");
		char *tok[16], *save = NULL, *t;
		size_t n = 0;
		char why[200] = "";
		bool ok = true;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		text += len + (text[len] == '\n');
		if ((t = strchr(line, '#')))
			*t = '\0';
		for (t = strtok_r(line, " \t", &save); t && n < 16;
		     t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (n == 0)
			continue;
		if (strcmp(tok[0], "interval") == 0 && n == 2) {
			ok = duration(tok[1], &sc->interval) && sc->interval;
		} else if (strcmp(tok[0], "family") == 0) {
			ok = sc->nfam < SIM_MAX_FAMILIES &&
			     family(tok, n, &sc->fam[sc->nfam], why,
			            sizeof(why));
			sc->nfam += ok;
		} else if (strcmp(tok[0], "reuse") == 0) {
			sc->reuse = true;
		} else if (strcmp(tok[0], "old") == 0) {
			sc->old = true;
		} else if (strcmp(tok[0], "unimplemented") == 0) {
			sc->unimplemented = true;
		} else if ((strcmp(tok[0], "stall") == 0 && n == 3) ||
		           ((strcmp(tok[0], "end") == 0 ||
		             strcmp(tok[0], "junk") == 0) &&
		            n == 2)) {
			struct sim_event *e = &sc->ev[sc->nev];

			ok = sc->nev < SIM_MAX_EVENTS &&
			     duration(tok[1], &e->at);
			e->kind = tok[0][0] == 's'   ? SIM_STALL
			          : tok[0][0] == 'e' ? SIM_END
			                             : SIM_JUNK;
			if (ok && n == 3)
				ok = duration(tok[2], &e->len);
			sc->nev += ok;
		} else {
			ok = false;
		}
		if (!ok) {
			snprintf(err, errsz, "line %u: %s", lineno,
			         *why ? why : "not understood");
			return false;
		}
	}
	return true;
}

bool sim_load(const char *path, struct sim_scenario *sc, char *err,
              size_t errsz)
{
	FILE *f = fopen(path, "r");
	char buf[16384];
	size_t n;

	if (!f) {
		snprintf(err, errsz, "%s: cannot open", path);
		return false;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return sim_parse(buf, sc, err, errsz);
}

/* ---- the cycle ------------------------------------------------------------
 */

static uint64_t clampu(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint64_t t0_of(const struct sim_family *f, size_t i)
{
	return f->spawn + i * f->stagger;
}

static uint64_t period(const struct sim_family *f)
{
	return f->busy + f->idle + f->sched;
}

/* When the task completes (the end of its last poll), or UINT64_MAX. */
static uint64_t td_of(const struct sim_family *f, size_t i)
{
	return f->polls ? t0_of(f, i) + (f->polls - 1) * period(f) + f->busy
	                : UINT64_MAX;
}

/* Cumulative figures at t by integrating the cycle. */
static void truth_at(const struct sim_family *f, size_t i, uint64_t t,
                     struct metrics *m)
{
	uint64_t t0 = t0_of(f, i), td = td_of(f, i), P = period(f), k, r;
	uint64_t lived;

	memset(m, 0, sizeof(*m));
	if (t < t0)
		return;
	lived = (t < td ? t : td) - t0;
	k = lived / P;
	r = lived % P;
	if (t >= td) { /* it ends as its last poll does */
		k = f->polls - 1;
		r = f->busy;
	}
	m->v[METRIC_BUSY] = k * f->busy + (r < f->busy ? r : f->busy);
	m->v[METRIC_IDLE] =
	    k * f->idle + clampu(r, f->busy, f->busy + f->idle) - f->busy;
	m->v[METRIC_SCHED] = k * f->sched + clampu(r, f->busy + f->idle, P) -
	                     (f->busy + f->idle);
	m->v[METRIC_POLLS] = k + 1;
	/* the wake that ends the idle part: at its end, unless the task
	 * ended there (then r is exactly busy) */
	m->v[METRIC_WAKES] = (k + (r >= f->busy + f->idle && t < td ? 1 : 0)) *
	                     (f->wakes ? f->wakes : 1);
}

void sim_truth(const struct sim_family *f, size_t i, uint64_t a, uint64_t b,
               struct metrics *m)
{
	struct metrics x, y;
	int j;

	truth_at(f, i, a, &x);
	truth_at(f, i, b, &y);
	for (j = 0; j < METRIC_COUNT; j++)
		m->v[j] = y.v[j] - x.v[j];
}

/* The Stats console-subscriber would send for the task at t (events, not
 * integrals: completed polls, the latest poll and wake). */
static void stats_at(const struct sim_family *f, size_t i, uint64_t span,
                     uint64_t t, bool old, struct tb_stats *s)
{
	uint64_t t0 = t0_of(f, i), td = td_of(f, i), P = period(f), k, r;
	uint64_t at = t < td ? t : td;
	int64_t base = SIM_EPOCH + (int64_t)t0;

	*s = tb_stats_none(span, base);
	s->no_sched = old;
	k = (at - t0) / P;
	r = (at - t0) % P;
	if (t >= td) { /* it ends as its last poll does */
		k = f->polls - 1;
		r = f->busy;
	}
	s->polls = k + 1;
	s->started = base + (int64_t)(k * P);
	s->busy = k * f->busy + (r >= f->busy ? f->busy : 0);
	if (r >= f->busy)
		s->ended = s->started + (int64_t)f->busy;
	else if (k > 0)
		s->ended = s->started - (int64_t)P + (int64_t)f->busy;
	s->wakes = (k + (r >= f->busy + f->idle && t < td ? 1 : 0)) *
	           (f->wakes ? f->wakes : 1);
	if (r >= f->busy + f->idle && t < td)
		s->last_wake = s->started + (int64_t)(f->busy + f->idle);
	else if (k > 0)
		s->last_wake =
		    s->started - (int64_t)P + (int64_t)(f->busy + f->idle);
	s->sched = k * f->sched;
	s->clones = s->wakes + 1;
	s->drops = s->wakes;
	if (t >= td) {
		s->dropped = SIM_EPOCH + (int64_t)td;
		s->drops = s->clones;
	}
}

/* ---- the server -----------------------------------------------------------
 */

struct stask {
	const struct sim_family *f;
	size_t i;
	uint64_t span, id, t0, td;
};

enum tag_kind {
	TAG_NEW,
	TAG_GENERIC,
	TAG_SEND,
	TAG_CLOSE,
	TAG_STATUS,
	TAG_UNIMPL,
	TAG_SHUTDOWN,
};

struct gcall;

struct tagbox {
	enum tag_kind kind;
	struct scall *c;
	struct gcall *g;
};

/* A call to a method we do not serve, answered UNIMPLEMENTED. */
struct gcall {
	grpc_call *call;
	int cancelled;
	struct tagbox t;
};

struct scall {
	bool used;
	grpc_call *call;
	grpc_metadata_array md;
	grpc_byte_buffer *payload, *out;
	int cancelled;
	bool send_out, close_out, status_out, ended, first;
	uint64_t prev; /* offset of the last Update sent */
	struct tagbox t_send, t_close, t_status;
};

struct sim {
	struct sim_scenario sc;
	struct stask *tasks;
	size_t ntasks;
	grpc_server *server;
	grpc_completion_queue *cq;
	void *method;
	pthread_t thread;
	pthread_mutex_t mu;
	bool stop;
	uint64_t offset;
	unsigned calls;
	size_t largest;
	bool started;
	uint64_t wall0, next_tick;
	bool fired[SIM_MAX_EVENTS];
	struct scall c[MAX_CALLS];
	/* the armed requests */
	grpc_call *new_call, *gen_call;
	grpc_call_details gen_details;
	grpc_metadata_array new_md, gen_md;
	grpc_byte_buffer *new_payload;
	gpr_timespec new_deadline;
	struct tagbox t_new, t_gen, t_shutdown;
	bool new_out, gen_out;
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_t0(const void *a, const void *b)
{
	const struct stask *x = a, *y = b;

	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static bool tasks_build(struct sim *s)
{
	size_t n = 0, i, j, k;

	for (i = 0; i < s->sc.nfam; i++)
		n += s->sc.fam[i].count;
	s->tasks = calloc(n ? n : 1, sizeof(*s->tasks));
	if (!s->tasks)
		return false;
	for (i = 0; i < s->sc.nfam; i++)
		for (j = 0; j < s->sc.fam[i].count; j++) {
			struct stask *t = &s->tasks[s->ntasks++];

			t->f = &s->sc.fam[i];
			t->i = j;
			t->t0 = t0_of(t->f, j);
			t->td = td_of(t->f, j);
		}
	qsort(s->tasks, s->ntasks, sizeof(*s->tasks), cmp_t0);
	for (i = 0; i < s->ntasks; i++) {
		s->tasks[i].id = i + 1;
		s->tasks[i].span = (i + 1) * 4096 + 1; /* span-id like */
		if (!s->sc.reuse)
			continue;
		/* the lowest span a completed task freed, else a new one */
		for (k = 0; k < i; k++) {
			bool taken = false;

			/* freed in an earlier Update than the spawn's, as
			 * one stats map cannot hold two tasks of one id */
			uint64_t I = s->sc.interval;
			uint64_t told = (s->tasks[k].td + I - 1) / I * I;

			if (s->tasks[k].td == UINT64_MAX ||
			    told >= s->tasks[i].t0)
				continue;
			for (j = 0; j < i; j++)
				taken |= j != k &&
				         s->tasks[j].span == s->tasks[k].span &&
				         (s->tasks[j].td + I - 1) / I * I >=
				             s->tasks[i].t0;
			if (!taken) {
				s->tasks[i].span = s->tasks[k].span;
				break;
			}
		}
	}
	return true;
}

static struct tb_task describe(const struct stask *t, char *loc, size_t size,
                               uint32_t *line, uint32_t *col)
{
	struct tb_task d = {
		.span = t->span,
		.kind = t->f->kind,
		.name = t->f->named ? t->f->name : "",
		.task_id = t->id,
	};
	char *c2;

	snprintf(loc, size, "%s", t->f->loc);
	c2 = strrchr(loc, ':');
	if (c2) {
		char *c1;

		*c2 = '\0';
		c1 = strrchr(loc, ':');
		if (c1) {
			*c1 = '\0';
			*line = (uint32_t)strtoul(c1 + 1, NULL, 10);
			*col = (uint32_t)strtoul(c2 + 1, NULL, 10);
		} else {
			*line = (uint32_t)strtoul(c2 + 1, NULL, 10);
		}
	}
	if (*loc) {
		d.file = loc;
		d.line = *line;
		d.col = *col;
	}
	return d;
}

/* The Update for a call whose last one was at prev (first: everything). */
static uint8_t *update(struct sim *s, struct scall *c, size_t *len)
{
	struct tb_task *nt = calloc(s->ntasks + 1, sizeof(*nt));
	struct tb_stats *st = calloc(s->ntasks + 1, sizeof(*st));
	char(*locs)[128] = calloc(s->ntasks + 1, sizeof(*locs));
	uint32_t line, col;
	size_t n = 0, m = 0, i;
	uint64_t now = s->offset;
	uint8_t *out = NULL;

	if (!nt || !st || !locs)
		goto done;
	for (i = 0; i < s->ntasks; i++) {
		const struct stask *t = &s->tasks[i];
		struct tb_stats a, b;
		bool fresh =
		    c->first ? t->t0 <= now : t->t0 > c->prev && t->t0 <= now;

		if (t->t0 > now)
			break; /* sorted by spawn time */
		line = col = 0;
		if (fresh) {
			nt[n] =
			    describe(t, locs[n], sizeof(locs[n]), &line, &col);
			n++;
		}
		if (!fresh && t->td < c->prev)
			continue; /* completed and reported */
		stats_at(t->f, t->i, t->span, now, s->sc.old, &b);
		if (!fresh) {
			stats_at(t->f, t->i, t->span, c->prev, s->sc.old, &a);
			if (memcmp(&a, &b, sizeof(a)) == 0)
				continue; /* unchanged: not sent */
		}
		st[m++] = b;
	}
	out = tb_update(SIM_EPOCH + (int64_t)now, nt, n, st, m, 0, len);
done:
	free(nt);
	free(st);
	free(locs);
	return out;
}

static void send_bytes(struct scall *c, const void *p, size_t n, bool md)
{
	grpc_slice sl = grpc_slice_from_copied_buffer(p, n);
	grpc_op ops[2];
	size_t k = 0;

	c->out = grpc_raw_byte_buffer_create(&sl, 1);
	grpc_slice_unref(sl);
	memset(ops, 0, sizeof(ops));
	if (md)
		ops[k++].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[k].op = GRPC_OP_SEND_MESSAGE;
	ops[k++].data.send_message.send_message = c->out;
	if (grpc_call_start_batch(c->call, ops, k, &c->t_send, NULL) ==
	    GRPC_CALL_OK)
		c->send_out = true;
}

static void send_update(struct sim *s, struct scall *c, bool junk)
{
	static const uint8_t bad[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	size_t len = 0;
	uint8_t *b;

	if (junk) {
		send_bytes(c, bad, sizeof(bad), false);
		return;
	}
	b = update(s, c, &len);
	if (!b)
		return;
	pthread_mutex_lock(&s->mu);
	if (len > s->largest)
		s->largest = len;
	pthread_mutex_unlock(&s->mu);
	send_bytes(c, b, len, c->first);
	c->first = false;
	c->prev = s->offset;
	free(b);
}

static void end_call(struct scall *c, grpc_status_code code)
{
	grpc_op ops[2];
	size_t k = 0;

	if (c->ended || c->status_out)
		return;
	memset(ops, 0, sizeof(ops));
	if (c->first)
		ops[k++].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[k].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[k++].data.send_status_from_server.status = code;
	if (grpc_call_start_batch(c->call, ops, k, &c->t_status, NULL) ==
	    GRPC_CALL_OK)
		c->status_out = true;
	c->ended = true;
}

static void call_done_maybe(struct scall *c)
{
	if (!c->used || c->send_out || c->close_out || c->status_out)
		return;
	grpc_call_unref(c->call);
	grpc_metadata_array_destroy(&c->md);
	if (c->payload)
		grpc_byte_buffer_destroy(c->payload);
	memset(c, 0, sizeof(*c));
}

static void arm(struct sim *s)
{
	if (!s->new_out && !s->sc.unimplemented) {
		grpc_metadata_array_init(&s->new_md);
		s->new_payload = NULL;
		if (grpc_server_request_registered_call(
		        s->server, s->method, &s->new_call, &s->new_deadline,
		        &s->new_md, &s->new_payload, s->cq, s->cq,
		        &s->t_new) == GRPC_CALL_OK)
			s->new_out = true;
	}
	if (!s->gen_out) {
		grpc_call_details_init(&s->gen_details);
		grpc_metadata_array_init(&s->gen_md);
		if (grpc_server_request_call(s->server, &s->gen_call,
		                             &s->gen_details, &s->gen_md, s->cq,
		                             s->cq, &s->t_gen) == GRPC_CALL_OK)
			s->gen_out = true;
	}
}

static void new_call(struct sim *s)
{
	struct scall *c = NULL;
	grpc_op op;
	size_t i;

	for (i = 0; i < MAX_CALLS && !c; i++)
		if (!s->c[i].used)
			c = &s->c[i];
	if (!c) {
		grpc_call_cancel(s->new_call, NULL);
		grpc_call_unref(s->new_call);
		grpc_metadata_array_destroy(&s->new_md);
		if (s->new_payload)
			grpc_byte_buffer_destroy(s->new_payload);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->call = s->new_call;
	c->md = s->new_md;
	c->payload = s->new_payload;
	c->first = true;
	c->t_send = (struct tagbox){ TAG_SEND, c, NULL };
	c->t_close = (struct tagbox){ TAG_CLOSE, c, NULL };
	c->t_status = (struct tagbox){ TAG_STATUS, c, NULL };
	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c->cancelled;
	if (grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL) ==
	    GRPC_CALL_OK)
		c->close_out = true;
	pthread_mutex_lock(&s->mu);
	s->calls++;
	if (!s->started) {
		s->started = true;
		s->wall0 = wall_ns();
		s->next_tick = s->sc.interval;
		s->offset = 0;
	}
	pthread_mutex_unlock(&s->mu);
	send_update(s, c, false); /* at once, as a subscriber does */
}

static void unimplemented(struct sim *s)
{
	struct gcall *g = calloc(1, sizeof(*g));
	grpc_op ops[3];

	if (!g) {
		grpc_call_unref(s->gen_call);
		return;
	}
	g->call = s->gen_call;
	g->t = (struct tagbox){ TAG_UNIMPL, NULL, g };
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[1].data.send_status_from_server.status = GRPC_STATUS_UNIMPLEMENTED;
	ops[2].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	ops[2].data.recv_close_on_server.cancelled = &g->cancelled;
	if (grpc_call_start_batch(g->call, ops, 3, &g->t, NULL) !=
	    GRPC_CALL_OK) {
		grpc_call_unref(g->call);
		free(g);
	}
}

/* One publish tick: events due, then an Update to every idle call. */
static void tick(struct sim *s)
{
	bool junk = false, stalled = false, end = false;
	size_t i;

	for (i = 0; i < s->sc.nev; i++) {
		const struct sim_event *e = &s->sc.ev[i];

		if (e->kind == SIM_STALL && s->offset >= e->at &&
		    s->offset < e->at + e->len)
			stalled = true;
		if (e->kind != SIM_STALL && !s->fired[i] &&
		    s->offset >= e->at) {
			s->fired[i] = true;
			if (e->kind == SIM_END)
				end = true;
			else
				junk = true;
		}
	}
	for (i = 0; i < MAX_CALLS; i++) {
		struct scall *c = &s->c[i];

		if (!c->used || c->ended || !c->close_out)
			continue;
		if (end) {
			if (!c->send_out)
				end_call(c, GRPC_STATUS_OK);
			continue;
		}
		if (stalled || c->send_out)
			continue;
		send_update(s, c, junk);
	}
}

static void *serve(void *arg)
{
	struct sim *s = arg;
	sigset_t all;
	bool stopping = false, shut = false;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	arm(s);
	for (;;) {
		uint64_t now = wall_ns();
		gpr_timespec dl;
		grpc_event ev;
		struct tagbox *t;
		bool busy = false;
		size_t i;

		pthread_mutex_lock(&s->mu);
		if (s->stop && !stopping) {
			stopping = true;
			grpc_server_shutdown_and_notify(s->server, s->cq,
			                                &s->t_shutdown);
			grpc_server_cancel_all_calls(s->server);
		}
		pthread_mutex_unlock(&s->mu);
		for (i = 0; i < MAX_CALLS; i++)
			busy |= s->c[i].used;
		if (stopping && shut && !busy && !s->new_out && !s->gen_out)
			break;
		if (s->started && !stopping) {
			if (now >= s->wall0 + s->next_tick) {
				pthread_mutex_lock(&s->mu);
				s->offset = s->next_tick;
				pthread_mutex_unlock(&s->mu);
				s->next_tick += s->sc.interval;
				tick(s);
				continue;
			}
		}
		dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
		                  gpr_time_from_millis(20, GPR_TIMESPAN));
		ev = grpc_completion_queue_next(s->cq, dl, NULL);
		if (ev.type != GRPC_OP_COMPLETE)
			continue;
		t = ev.tag;
		switch (t->kind) {
		case TAG_NEW:
			s->new_out = false;
			if (ev.success)
				new_call(s);
			if (!stopping)
				arm(s);
			break;
		case TAG_GENERIC:
			s->gen_out = false;
			if (ev.success)
				unimplemented(s);
			grpc_call_details_destroy(&s->gen_details);
			grpc_metadata_array_destroy(&s->gen_md);
			if (!stopping)
				arm(s);
			break;
		case TAG_UNIMPL:
			grpc_call_unref(t->g->call);
			free(t->g);
			break;
		case TAG_SEND:
			t->c->send_out = false;
			grpc_byte_buffer_destroy(t->c->out);
			t->c->out = NULL;
			if (!ev.success)
				t->c->ended = true;
			call_done_maybe(t->c);
			break;
		case TAG_CLOSE:
			t->c->close_out = false;
			t->c->ended = true;
			call_done_maybe(t->c);
			break;
		case TAG_STATUS:
			t->c->status_out = false;
			call_done_maybe(t->c);
			break;
		case TAG_SHUTDOWN:
			shut = true;
			break;
		}
	}
	return NULL;
}

struct sim *sim_start(const struct sim_scenario *sc, const char *bind,
                      int *port, char *err, size_t errsz)
{
	static char k_reuse[] = GRPC_ARG_ALLOW_REUSEPORT;
	grpc_arg a = { .type = GRPC_ARG_INTEGER,
		       .key = k_reuse,
		       .value.integer = 0 };
	grpc_channel_args args;
	grpc_server_credentials *cr;
	struct sim *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	args.num_args = 1;
	args.args = &a;
	s->sc = *sc;
	if (!tasks_build(s)) {
		free(s);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	s->t_new = (struct tagbox){ TAG_NEW, NULL, NULL };
	s->t_gen = (struct tagbox){ TAG_GENERIC, NULL, NULL };
	s->t_shutdown = (struct tagbox){ TAG_SHUTDOWN, NULL, NULL };
	grpc_init();
	s->cq = grpc_completion_queue_create_for_next(NULL);
	s->server = grpc_server_create(&args, NULL);
	grpc_server_register_completion_queue(s->server, s->cq, NULL);
	if (!sc->unimplemented)
		s->method = grpc_server_register_method(
		    s->server, WATCH, NULL,
		    GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
	cr = grpc_insecure_server_credentials_create();
	*port = grpc_server_add_http2_port(s->server, bind, cr);
	grpc_server_credentials_release(cr);
	if (*port == 0) {
		snprintf(err, errsz, "cannot listen on %s", bind);
		grpc_server_destroy(s->server);
		grpc_completion_queue_shutdown(s->cq);
		while (grpc_completion_queue_next(
		           s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
		           .type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(s->cq);
		grpc_shutdown();
		free(s->tasks);
		free(s);
		return NULL;
	}
	grpc_server_start(s->server);
	if (pthread_create(&s->thread, NULL, serve, s) != 0) {
		snprintf(err, errsz, "no thread");
		return NULL;
	}
	return s;
}

uint64_t sim_offset(struct sim *s)
{
	uint64_t v;

	pthread_mutex_lock(&s->mu);
	v = s->offset;
	pthread_mutex_unlock(&s->mu);
	return v;
}

size_t sim_largest(struct sim *s)
{
	size_t v;

	pthread_mutex_lock(&s->mu);
	v = s->largest;
	pthread_mutex_unlock(&s->mu);
	return v;
}

unsigned sim_calls(struct sim *s)
{
	unsigned v;

	pthread_mutex_lock(&s->mu);
	v = s->calls;
	pthread_mutex_unlock(&s->mu);
	return v;
}

void sim_stop(struct sim *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	grpc_server_destroy(s->server);
	grpc_completion_queue_shutdown(s->cq);
	while (grpc_completion_queue_next(
	           s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
	           .type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(s->cq);
	grpc_shutdown();
	pthread_mutex_destroy(&s->mu);
	free(s->tasks);
	free(s);
}
