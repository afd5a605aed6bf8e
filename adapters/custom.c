/* The custom adapter: runs an embedder's producer (adapters/asynctop.h) as
 * an adapter's collect, and the registry of stock plus embedder adapters. */
#include "adapters/custom.h"

#include <stdbool.h>
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

int asynctop_window_add(struct asynctop_window *w,
                        const struct asynctop_sample *s)
{
	struct sample out;
	size_t i;

	if (!s || (s->depth && !s->frames) || (s->task.len && !s->task.ptr) ||
	    mem_grow(&w->frames, &w->cap, s->depth, sizeof(*w->frames))) {
		collect_dropped(w->c, 1);
		return -1;
	}
	for (i = 0; i < s->depth; i++) {
		if (s->frames[i].len && !s->frames[i].ptr) {
			collect_dropped(w->c, 1);
			return -1;
		}
		w->frames[i] = sv_n(s->frames[i].ptr, s->frames[i].len);
	}
	out = (struct sample){
		.frames = w->frames,
		.depth = s->depth,
		.task = sv_n(s->task.ptr, s->task.len),
		.m.v = {
			[METRIC_IDLE] = s->idle_ns,
			[METRIC_BUSY] = s->busy_ns,
			[METRIC_SCHED] = s->scheduled_ns,
			[METRIC_POLLS] = s->polls,
			[METRIC_WAKES] = s->wakes,
		},
		.tasks = s->tasks ? s->tasks : 1,
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
	if (a->abi != ASYNCTOP_ABI_VERSION) {
		snprintf(err, errsz,
		         "embedded adapter %zu (%s) was built for asynctop "
		         "ABI %d, but this library is ABI %d: rebuild it "
		         "against this asynctop.h",
		         i + 1, name_ok(a->name) ? a->name : "unnamed", a->abi,
		         ASYNCTOP_ABI_VERSION);
		return STATUS_INVAL;
	}
	if (!name_ok(a->name)) {
		snprintf(err, errsz,
		         "embedded adapter %zu has no usable name (printable "
		         "ASCII without spaces or quotes, not starting with "
		         "'-')",
		         i + 1);
		return STATUS_INVAL;
	}
	if (!a->produce) {
		snprintf(err, errsz, "embedded adapter \"%s\" has no producer",
		         a->name);
		return STATUS_INVAL;
	}
	if (adapter_find(sofar, a->name)) {
		snprintf(err, errsz,
		         "embedded adapter \"%s\" takes a name that is already "
		         "offered",
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
