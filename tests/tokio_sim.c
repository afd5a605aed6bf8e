/* The console-api simulator (tokio_sim.h): a gRPC C core server on its own
 * thread, serving WatchUpdates with the Updates of tokio_sim_tasks.c on
 * the scenario's clock, its events (stall, end, junk) included. */
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

#include "tests/tokio_sim_int.h"

#define WATCH     "/rs.tokio.console.instrument.Instrument/WatchUpdates"
#define MAX_CALLS 8

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
	struct sim_task *tasks;
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
	b = sim_update(&s->sc, s->tasks, s->ntasks, s->offset, c->first,
	               c->prev, &len);
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
	if (!sim_tasks_build(&s->sc, &s->tasks, &s->ntasks)) {
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
