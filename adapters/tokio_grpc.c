/* The tokio adapter's transport: one gRPC channel, one WatchUpdates call,
 * one receive outstanding, driven on the caller's thread (the worker's)
 * through a completion queue.  The only file of asynctop that sees gRPC. */
#include "adapters/tokio_int.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/alloc.h"

#define WATCH_UPDATES "/rs.tokio.console.instrument.Instrument/WatchUpdates"
/* A frozen peer is found by keepalive; a real subscriber (tonic) accepts
 * pings this far apart. */
#define KEEPALIVE_MS         20000
#define KEEPALIVE_TIMEOUT_MS 10000

enum tag {
	TAG_SEND = 1, /* initial metadata, the request, half-close */
	TAG_STATUS,   /* the call's final status */
	TAG_RECV,     /* one message */
};

struct tokio_stream {
	grpc_channel *ch;
	grpc_completion_queue *cq;
	grpc_call *call;
	grpc_byte_buffer *req, *recv;
	grpc_metadata_array initial, trailing;
	grpc_status_code code;
	grpc_slice details;
	const char *error_string;
	bool send_out, status_out, recv_out; /* batches not yet back */
	bool over, cancelled;
	grpc_slice held; /* the message last returned */
	bool holding;
	size_t max_recv;
	struct tokio_stream_error end;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static gpr_timespec until(uint64_t deadline_ns)
{
	uint64_t now = mono_ns();
	int64_t left = deadline_ns > now ? (int64_t)(deadline_ns - now) : 0;

	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
	                    gpr_time_from_nanos(left, GPR_TIMESPAN));
}

static enum status fail(struct tokio_stream_error *e, enum status st,
                        const char *what)
{
	e->st = st;
	snprintf(e->detail, sizeof(e->detail), "%s", what);
	return st;
}

static enum status start_recv(struct tokio_stream *s)
{
	grpc_op op;

	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &s->recv;
	if (grpc_call_start_batch(s->call, &op, 1, (void *)TAG_RECV, NULL) !=
	    GRPC_CALL_OK)
		return STATUS_IO;
	s->recv_out = true;
	return STATUS_OK;
}

enum status tokio_stream_open(const char *target, size_t max_recv,
                              uint64_t connect_ns, struct tokio_stream **out,
                              struct tokio_stream_error *e)
{
	/* grpc_arg wants mutable keys */
	static char k_max[] = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
	            k_backoff[] = GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
	            k_alive[] = GRPC_ARG_KEEPALIVE_TIME_MS,
	            k_alive_to[] = GRPC_ARG_KEEPALIVE_TIMEOUT_MS;
	int connect_ms = (int)u64_min(connect_ns / 1000000u, 60000);
	grpc_arg args[] = {
		{ .type = GRPC_ARG_INTEGER,
		  .key = k_max,
		  .value.integer = (int)size_min(max_recv, 0x7fffffff) },
		/* also the connect timeout: a peer that accepts TCP but
		 * never speaks HTTP/2 fails after this, not after 20 s */
		{ .type = GRPC_ARG_INTEGER,
		  .key = k_backoff,
		  .value.integer = connect_ms < 100 ? 100 : connect_ms },
		{ .type = GRPC_ARG_INTEGER,
		  .key = k_alive,
		  .value.integer = KEEPALIVE_MS },
		{ .type = GRPC_ARG_INTEGER,
		  .key = k_alive_to,
		  .value.integer = KEEPALIVE_TIMEOUT_MS },
	};
	grpc_channel_args ca = { .num_args = ARRAY_SIZE(args), .args = args };
	grpc_channel_credentials *creds;
	struct tokio_stream *s = mem_calloc(1, sizeof(*s));
	grpc_op ops[4];
	grpc_slice method, req;

	*out = NULL;
	if (!s)
		return fail(e, STATUS_NOMEM, "out of memory");
	grpc_init();
	s->max_recv = max_recv;
	s->details = grpc_empty_slice();
	grpc_metadata_array_init(&s->initial);
	grpc_metadata_array_init(&s->trailing);
	creds = grpc_insecure_credentials_create();
	s->ch = grpc_channel_create(target, creds, &ca);
	grpc_channel_credentials_release(creds);
	s->cq = grpc_completion_queue_create_for_next(NULL);
	method = grpc_slice_from_static_string(WATCH_UPDATES);
	s->call = grpc_channel_create_call(
	    s->ch, NULL, GRPC_PROPAGATE_DEFAULTS, s->cq, method, NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_slice_unref(method);
	/* InstrumentRequest has no fields: an empty message */
	req = grpc_empty_slice();
	s->req = grpc_raw_byte_buffer_create(&req, 1);
	grpc_slice_unref(req);
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = s->req;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &s->initial;
	if (!s->call || grpc_call_start_batch(s->call, ops, 4, (void *)TAG_SEND,
	                                      NULL) != GRPC_CALL_OK) {
		tokio_stream_close(s);
		return fail(e, STATUS_IO, "the gRPC call could not start");
	}
	s->send_out = true;
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[0].data.recv_status_on_client.trailing_metadata = &s->trailing;
	ops[0].data.recv_status_on_client.status = &s->code;
	ops[0].data.recv_status_on_client.status_details = &s->details;
	ops[0].data.recv_status_on_client.error_string = &s->error_string;
	if (grpc_call_start_batch(s->call, ops, 1, (void *)TAG_STATUS, NULL) !=
	    GRPC_CALL_OK) {
		tokio_stream_close(s);
		return fail(e, STATUS_IO, "the gRPC call could not start");
	}
	s->status_out = true;
	*out = s;
	return STATUS_OK;
}

/* The call's end, worded: what the status means for a console-api feed. */
static void ended(struct tokio_stream *s)
{
	struct tokio_stream_error *e = &s->end;
	char *d = grpc_slice_to_c_string(s->details);
	const char *why = d && *d ? d : "no details";

	switch (s->code) {
	case GRPC_STATUS_OK:
		e->st = STATUS_EOF;
		snprintf(
		    e->detail, sizeof(e->detail),
		    "the subscriber ended the stream (the application is exiting, or it dropped a reader that fell 4096 Updates behind)");
		break;
	case GRPC_STATUS_UNIMPLEMENTED:
		e->st = STATUS_UNREACHABLE;
		snprintf(
		    e->detail, sizeof(e->detail),
		    "a gRPC server answers but it is not a console-subscriber (WatchUpdates: %.200s)",
		    why);
		break;
	case GRPC_STATUS_RESOURCE_EXHAUSTED:
		e->st = STATUS_TOO_LARGE;
		snprintf(
		    e->detail, sizeof(e->detail),
		    "an Update is over asynctop's limit of %zu bytes (%.200s)",
		    s->max_recv, why);
		break;
	case GRPC_STATUS_UNAVAILABLE:
		e->st = STATUS_UNREACHABLE;
		snprintf(e->detail, sizeof(e->detail),
		         "no console-subscriber answers (%.300s)", why);
		break;
	case GRPC_STATUS_DEADLINE_EXCEEDED:
		e->st = STATUS_TIMEOUT;
		snprintf(e->detail, sizeof(e->detail), "%.300s", why);
		break;
	case GRPC_STATUS_CANCELLED:
		e->st = s->cancelled ? STATUS_STOPPED : STATUS_UNREACHABLE;
		snprintf(e->detail, sizeof(e->detail),
		         "the call was cancelled: %.300s", why);
		break;
	default:
		e->st = STATUS_UNREACHABLE;
		snprintf(e->detail, sizeof(e->detail), "gRPC status %d: %.300s",
		         (int)s->code, why);
		break;
	}
	gpr_free(d);
}

/* Makes the message just received contiguous in s->held. */
static enum status flatten(struct tokio_stream *s, const uint8_t **p, size_t *n)
{
	grpc_byte_buffer *bb = s->recv;

	s->recv = NULL;
	if (bb->type == GRPC_BB_RAW &&
	    bb->data.raw.compression == GRPC_COMPRESS_NONE &&
	    bb->data.raw.slice_buffer.count == 1) {
		s->held = grpc_slice_ref(bb->data.raw.slice_buffer.slices[0]);
	} else {
		grpc_byte_buffer_reader r;

		if (!grpc_byte_buffer_reader_init(&r, bb)) {
			grpc_byte_buffer_destroy(bb);
			return STATUS_MALFORMED;
		}
		s->held = grpc_byte_buffer_reader_readall(&r);
		grpc_byte_buffer_reader_destroy(&r);
	}
	grpc_byte_buffer_destroy(bb);
	s->holding = true;
	*p = GRPC_SLICE_START_PTR(s->held);
	*n = GRPC_SLICE_LENGTH(s->held);
	return STATUS_OK;
}

enum status tokio_stream_next(struct tokio_stream *s, uint64_t deadline_ns,
                              const uint8_t **p, size_t *n,
                              struct tokio_stream_error *e)
{
	if (s->holding) {
		grpc_slice_unref(s->held);
		s->holding = false;
	}
	if (!s->over && !s->recv_out && start_recv(s) != STATUS_OK)
		s->over = true;
	for (;;) {
		grpc_event ev;

		if (s->over && !s->status_out) {
			*e = s->end;
			return e->st;
		}
		ev =
		    grpc_completion_queue_next(s->cq, until(deadline_ns), NULL);
		if (ev.type == GRPC_QUEUE_TIMEOUT)
			return STATUS_AGAIN;
		if (ev.type != GRPC_OP_COMPLETE)
			return fail(e, STATUS_IO,
			            "the completion queue shut down");
		switch ((enum tag)(intptr_t)ev.tag) {
		case TAG_SEND:
			s->send_out = false;
			break;
		case TAG_STATUS:
			s->status_out = false;
			s->over = true;
			ended(s);
			break;
		case TAG_RECV:
			s->recv_out = false;
			if (ev.success && s->recv) {
				if (flatten(s, p, n) == STATUS_OK)
					return STATUS_OK;
				return fail(e, STATUS_MALFORMED,
				            "a message that could not be read");
			}
			/* no message: the stream is over; the status says
			 * why (a NULL message alone is not a clean end) */
			s->over = true;
			break;
		}
	}
}

void tokio_stream_close(struct tokio_stream *s)
{
	if (!s)
		return;
	if (s->holding)
		grpc_slice_unref(s->held);
	if (s->call) {
		if (s->send_out || s->status_out || s->recv_out) {
			s->cancelled = true;
			grpc_call_cancel(s->call, NULL);
		}
		while (s->send_out || s->status_out || s->recv_out) {
			grpc_event ev = grpc_completion_queue_next(
			    s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);

			if (ev.type != GRPC_OP_COMPLETE)
				break;
			if ((intptr_t)ev.tag == TAG_SEND)
				s->send_out = false;
			else if ((intptr_t)ev.tag == TAG_STATUS)
				s->status_out = false;
			else
				s->recv_out = false;
		}
		if (s->recv)
			grpc_byte_buffer_destroy(s->recv);
		grpc_call_unref(s->call);
	}
	if (s->req)
		grpc_byte_buffer_destroy(s->req);
	grpc_metadata_array_destroy(&s->initial);
	grpc_metadata_array_destroy(&s->trailing);
	grpc_slice_unref(s->details);
	if (s->error_string) { /* gRPC's, freed as mutable */
		void *es;

		memcpy(&es, &s->error_string, sizeof(es));
		gpr_free(es);
	}
	if (s->cq) {
		grpc_completion_queue_shutdown(s->cq);
		while (grpc_completion_queue_next(
		           s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
		           .type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(s->cq);
	}
	if (s->ch)
		grpc_channel_destroy(s->ch);
	grpc_shutdown();
	mem_free(s);
}
