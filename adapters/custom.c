/* The custom adapter: runs an embedder's producer (adapters/asynctop.h) as
 * an adapter's collect, and the registry of stock plus embedder adapters. */
#include "adapters/custom.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/sample.h"
#include "model/strview.h"

#define DEFAULT_REMEDIATION                                                 \
	"check that the application is running, that it serves asynctop's " \
	"producer, and that -e names the right endpoint"

struct asynctop_window {
	struct adapter *a;
	struct collect *c;
	int abi;                /* the adapter's: which fields samples have */
	struct strview *frames; /* scratch for asynctop_window_add */
	size_t cap;
	bool explained;
	char detail[512];
	char remediation[512];
};

struct custom_registry {
	struct adapter_registry reg;
	const struct adapter_ops **list;
	struct adapter_ops *ops;
};

uint64_t asynctop_window_length_ns(const struct asynctop_window *w)
{
	return collect_length(w->c);
}

const char *asynctop_window_endpoint(const struct asynctop_window *w)
{
	return w->a->nendpoints ? w->a->endpoints[0] : "";
}

int asynctop_window_wait(struct asynctop_window *w)
{
	return collect_wait_until(w->c, collect_deadline(w->c)) == STATUS_OK
	           ? 0
	           : 1;
}

int asynctop_window_stopping(const struct asynctop_window *w)
{
	return collect_stopping(w->c) ? 1 : 0;
}

/* n borrowed strings as views into w->frames from at on; false for a NULL
 * pointer with a nonzero length. */
static bool views(struct strview *out, const struct asynctop_str *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (in[i].len && !in[i].ptr)
			return false;
		out[i] = sv_n(in[i].ptr, in[i].len);
	}
	return true;
}

/* The optional figures of an ABI 2 sample, bit by bit. */
static struct extras extras_of(const struct asynctop_sample *s)
{
	static const struct {
		uint32_t bit;
		enum extra e;
		size_t off;
	} map[] = {
		{ ASYNCTOP_KNOWN_SELF_WAKES, EXTRA_SELF_WAKES,
		  offsetof(struct asynctop_sample, self_wakes) },
		{ ASYNCTOP_KNOWN_MAX_POLL, EXTRA_MAX_POLL,
		  offsetof(struct asynctop_sample, max_poll_ns) },
		{ ASYNCTOP_KNOWN_WAKERS, EXTRA_WAKERS,
		  offsetof(struct asynctop_sample, wakers) },
		{ ASYNCTOP_KNOWN_POLL_NOW, EXTRA_POLL_NOW,
		  offsetof(struct asynctop_sample, poll_now_ns) },
		{ ASYNCTOP_KNOWN_NO_WAKER, EXTRA_NO_WAKER,
		  offsetof(struct asynctop_sample, no_waker) },
	};
	struct extras x = { .known = 0 };

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		if (!(s->known & map[i].bit))
			continue;
		memcpy(&x.v[map[i].e], (const char *)s + map[i].off,
		       sizeof(x.v[0]));
		x.known |= 1u << map[i].e;
	}
	return x;
}

int asynctop_window_add(struct asynctop_window *w,
                        const struct asynctop_sample *s)
{
	struct sample out;
	const struct asynctop_str *parked;
	size_t pdepth;

	if (!s) {
		collect_dropped(w->c, 1);
		return -1;
	}
	/* an ABI 1 sample ends at tasks: nothing past it is read, not even
	 * as an argument that goes unused */
	pdepth = w->abi >= 2 ? s->parked_depth : 0;
	parked = w->abi >= 2 ? s->parked : NULL;
	if ((s->depth && !s->frames) || (s->task.len && !s->task.ptr) ||
	    (pdepth && !parked) || s->depth > SIZE_MAX / 2 - pdepth ||
	    mem_grow(&w->frames, &w->cap, s->depth + pdepth,
	             sizeof(*w->frames)) ||
	    !views(w->frames, s->frames, s->depth) ||
	    !views(w->frames + s->depth, parked, pdepth)) {
		collect_dropped(w->c, 1);
		return -1;
	}
	out = (struct sample){
		.frames = w->frames,
		.depth = s->depth,
		.task = sv_n(s->task.ptr, s->task.len),
		.m.v = { [METRIC_IDLE] = s->idle_ns,
		         [METRIC_BUSY] = s->busy_ns,
		         [METRIC_SCHED] = s->scheduled_ns,
		         [METRIC_POLLS] = s->polls,
		         [METRIC_WAKES] = s->wakes },
		.tasks = s->tasks ? s->tasks : 1,
		.parked = pdepth ? w->frames + s->depth : NULL,
		.parked_depth = pdepth,
		.x = w->abi >= 2 ? extras_of(s) : (struct extras){ .known = 0 },
	};
	return collect_add(w->c, &out) == STATUS_OK ? 0 : -1;
}

/* Copies s into dst (size bytes), cut at a UTF-8 character boundary. */
static void copy_text(char *dst, size_t size, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	if (n)
		memcpy(dst, s, n);
	dst[n] = '\0';
}

void asynctop_window_explain(struct asynctop_window *w, const char *detail,
                             const char *remediation)
{
	w->explained = true;
	copy_text(w->detail, sizeof(w->detail), detail);
	copy_text(w->remediation, sizeof(w->remediation), remediation);
}

static enum status custom_collect(struct adapter *a, struct collect *c)
{
	const struct asynctop_adapter *user = a->ops->user;
	struct asynctop_window w;
	enum asynctop_result r;
	enum status st;
	const char *detail, *fix = "";

	memset(&w, 0, sizeof(w));
	w.a = a;
	w.c = c;
	w.abi = user->abi;
	r = user->produce(user->user, &w);
	mem_free(w.frames);
	switch (r) {
	case ASYNCTOP_OK:
		return STATUS_OK;
	case ASYNCTOP_UNREACHABLE:
		st = STATUS_UNREACHABLE;
		detail = "the producer could not reach it";
		fix = DEFAULT_REMEDIATION;
		break;
	case ASYNCTOP_TIMEOUT:
		st = STATUS_TIMEOUT;
		detail = "the source stopped answering";
		break;
	case ASYNCTOP_MALFORMED:
		st = STATUS_MALFORMED;
		detail = "the producer received something it could not use";
		break;
	case ASYNCTOP_FAILED:
		st = STATUS_IO;
		detail = "the producer failed";
		break;
	default:
		st = STATUS_IO;
		detail = "the producer returned an unknown result";
		break;
	}
	if (w.detail[0])
		detail = w.detail;
	if (w.remediation[0])
		fix = w.remediation;
	return collect_fail(c, st, detail, fix);
}

void custom_ops_init(struct adapter_ops *ops, const struct asynctop_adapter *a)
{
	struct adapter_ops o = {
		.name = a->name,
		.aliases = NULL,
		.summary = a->summary ? a->summary : "an embedder's producer",
		.default_endpoint =
		    a->default_endpoint ? a->default_endpoint : "",
		.flags = 0,
		.private_size = 0,
		.open = NULL,
		.collect = custom_collect,
		.close = NULL,
		.user = a,
	};

	*ops = o;
}

/* A name as an operator types it: printable ASCII, no spaces or quotes. */
static bool name_ok(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '"' || *s == '\'' ||
		    *s == '\\')
			return false;
	return true;
}

static enum status check(const struct adapter_registry *sofar,
                         const struct asynctop_adapter *a, size_t i, char *err,
                         size_t errsz)
{
	if (a->abi != 1 && a->abi != ASYNCTOP_ABI_VERSION) {
		snprintf(
		    err, errsz,
		    "embedded adapter %zu (%s) was built for asynctop ABI %d, but this library accepts ABI 1 to %d: rebuild it against this asynctop.h",
		    i + 1, name_ok(a->name) ? a->name : "unnamed", a->abi,
		    ASYNCTOP_ABI_VERSION);
		return STATUS_INVAL;
	}
	if (!name_ok(a->name)) {
		snprintf(
		    err, errsz,
		    "embedded adapter %zu has no usable name (printable ASCII without spaces or quotes, not starting with '-')",
		    i + 1);
		return STATUS_INVAL;
	}
	if (!a->produce) {
		snprintf(err, errsz, "embedded adapter \"%s\" has no producer",
		         a->name);
		return STATUS_INVAL;
	}
	if (adapter_find(sofar, a->name)) {
		snprintf(
		    err, errsz,
		    "embedded adapter \"%s\" takes a name that is already offered",
		    a->name);
		return STATUS_INVAL;
	}
	return STATUS_OK;
}

enum status custom_registry_new(const struct adapter_registry *base,
                                const struct asynctop_adapter *a, size_t n,
                                struct custom_registry **out, char *err,
                                size_t errsz)
{
	size_t nbase = base ? base->n : 0, i;
	struct custom_registry *cr;

	*out = NULL;
	if (errsz)
		err[0] = '\0';
	else
		err = NULL;
	if (n > SIZE_MAX / 2 - nbase)
		return STATUS_NOMEM;
	cr = mem_calloc(1, sizeof(*cr));
	if (!cr)
		return STATUS_NOMEM;
	cr->list = mem_calloc(nbase + n + 1, sizeof(*cr->list));
	cr->ops = mem_calloc(n + 1, sizeof(*cr->ops));
	if (!cr->list || !cr->ops) {
		custom_registry_free(cr);
		return STATUS_NOMEM;
	}
	for (i = 0; i < nbase; i++)
		cr->list[i] = base->ops[i];
	cr->reg.ops = cr->list;
	cr->reg.n = nbase;
	if (base) {
		cr->reg.launch_default = base->launch_default;
		cr->reg.attach_default = base->attach_default;
		cr->reg.hints = base->hints;
	}
	for (i = 0; i < n; i++) {
		char spare[1];
		enum status st = check(&cr->reg, &a[i], i, err ? err : spare,
		                       err ? errsz : sizeof(spare));
		if (st != STATUS_OK) {
			custom_registry_free(cr);
			return st;
		}
		custom_ops_init(&cr->ops[i], &a[i]);
		cr->list[cr->reg.n++] = &cr->ops[i];
	}
	/* an embedder's only adapter is the one to attach to */
	if (n == 1)
		cr->reg.attach_default = &cr->ops[0];
	*out = cr;
	return STATUS_OK;
}

const struct adapter_registry *
custom_registry_get(const struct custom_registry *cr)
{
	return &cr->reg;
}

void custom_registry_free(struct custom_registry *cr)
{
	if (!cr)
		return;
	mem_free(cr->list);
	mem_free(cr->ops);
	mem_free(cr);
}
