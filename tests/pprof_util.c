/* Helpers shared by the pprof tests (see pprof_util.h). */
#include "tests/pprof_util.h"

#include <check.h>
#include <inttypes.h>
#include <string.h>

const struct pt_sample pt_small[5] = {
	{ { "main", "serve", "handle" },
	  3,
	  "worker-2",
	  { 500, 20, 5, 3, 2 },
	  2 },
	{ { "main", "serve" }, 2, "worker-1", { 70, 1, 1, 4, 1 }, 1 },
	{ { "main", "serve", "handle" },
	  3,
	  "worker-1",
	  { 100, 0, 0, 1, 0 },
	  1 },
	{ { "main", "idle" }, 2, "idle", { 9, 9, 9, 9, 9 }, 5 },
	{ { "boot" }, 1, "", { 1, 0, 0, 0, 0 }, 0 },
};

const char *const pt_small_comments[2] = { "asynctop test", "second" };

void pt_set_meta(struct window_meta *meta, const char *const *comments,
                 size_t n)
{
	memset(meta, 0, sizeof(*meta));
	meta->time_nanos = INT64_C(1700000000123456789);
	meta->duration_nanos = INT64_C(5000000000);
	meta->comments = comments;
	meta->ncomments = n;
}

void pt_add_in(struct model *m, const struct pt_sample *in)
{
	struct strview fr[6];
	struct sample s;

	for (size_t k = 0; k < in->depth; k++)
		fr[k] = sv_c(in->frames[k]);
	memset(&s, 0, sizeof(s));
	s.frames = fr;
	s.depth = in->depth;
	s.task = sv_c(in->task);
	memcpy(s.m.v, in->v, sizeof(s.m.v));
	s.tasks = in->tasks;
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
}

struct model *pt_make_model(const struct pt_sample *in, size_t n,
                            const size_t *perm, const struct window **w)
{
	struct window_meta meta;
	struct model *m;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++)
		pt_add_in(m, &in[perm ? perm[i] : i]);
	pt_set_meta(&meta, pt_small_comments, ARRAY_SIZE(pt_small_comments));
	ck_assert_int_eq(model_commit(m, &meta, w), STATUS_OK);
	return m;
}

void pt_encode_ok(const struct model *m, const struct window *w,
                  const struct pprof_opts *o, struct buf *b)
{
	buf_init(b);
	ck_assert_int_eq(pprof_encode(m, w, o, b), STATUS_OK);
	ck_assert_uint_gt(b->len, 0);
}

Perftools__Profiles__Profile *pt_unpack(const struct buf *b)
{
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(
	    NULL, b->len, (const uint8_t *)b->data);

	ck_assert_ptr_nonnull(p);
	return p;
}

static enum status rec_sample(void *ctx, const struct sample *s)
{
	struct pt_rec *r = ctx;

	r->n++;
	if (r->stop_at && r->n == r->stop_at)
		return r->stop_st;
	for (size_t i = 0; i < s->depth; i++) {
		if (i)
			buf_addc(&r->log, ';');
		buf_addv(&r->log, s->frames[i]);
	}
	buf_adds(&r->log, " | ");
	buf_addv(&r->log, s->task);
	buf_printf(&r->log, " | %" PRIu64 " |", s->tasks);
	for (int k = 0; k < METRIC_COUNT; k++)
		buf_printf(&r->log, " %" PRIu64, s->m.v[k]);
	return buf_addc(&r->log, '\n');
}

static enum status rec_meta(void *ctx, const struct window_meta *meta)
{
	struct pt_rec *r = ctx;

	r->nmeta++;
	ck_assert_ptr_null(meta->source);
	buf_printf(&r->log, "meta %" PRId64 " %" PRId64, meta->time_nanos,
	           meta->duration_nanos);
	for (size_t i = 0; i < meta->ncomments; i++)
		buf_printf(&r->log, " [%s]", meta->comments[i]);
	return buf_addc(&r->log, '\n');
}

struct sample_sink pt_rec_sink(struct pt_rec *r)
{
	struct sample_sink k;

	memset(r, 0, sizeof(*r));
	buf_init(&r->log);
	k.sample = rec_sample;
	k.meta = rec_meta;
	k.ctx = r;
	return k;
}

void pt_decode_expect(const void *data, size_t len,
                      const struct load_limits *lim, enum status want,
                      const char *errpart, struct pt_rec *r)
{
	struct sample_sink k = pt_rec_sink(r);
	char err[256];
	enum status st;

	st = pprof_decode(data, len, lim, &k, err, sizeof(err));
	ck_assert_msg(st == want, "got %s (%s), want %s", status_name(st), err,
	              status_name(want));
	if (st != STATUS_OK) {
		ck_assert_int_eq(r->n, 0);
		ck_assert_int_eq(r->nmeta, 0);
		ck_assert_msg(err[0] != '\0', "no reason given");
		ck_assert(strchr(err, '\n') == NULL);
	}
	if (errpart)
		ck_assert_msg(strstr(err, errpart), "err '%s' lacks '%s'", err,
		              errpart);
}

const char pt_small_log[] =
    "boot | <unnamed> | 1 | 1 0 0 0 0\n"
    "main;idle | idle | 5 | 9 9 9 9 9\n"
    "main;serve | worker-1 | 1 | 70 1 1 4 1\n"
    "main;serve;handle | worker-1 | 1 | 100 0 0 1 0\n"
    "main;serve;handle | worker-2 | 2 | 500 20 5 3 2\n"
    "meta 1700000000123456789 5000000000 [asynctop test] [second]\n";

/* One sample of pt_parked_model. */
static void add_parked(struct model *m, const char *const *spawn, size_t ns,
                       const char *const *parked, size_t np, const char *task,
                       const struct metrics *v, const struct extras *x)
{
	struct strview f[4], pk[4];
	struct sample s;

	for (size_t i = 0; i < ns; i++)
		f[i] = sv_c(spawn[i]);
	for (size_t i = 0; i < np; i++)
		pk[i] = sv_c(parked[i]);
	s = (struct sample){ .frames = f,
		             .depth = ns,
		             .task = sv_c(task),
		             .m = *v,
		             .tasks = 1,
		             .parked = pk,
		             .parked_depth = np,
		             .x = *x };
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
}

struct model *pt_parked_model(const struct window **w)
{
	static const char *const comment[] = { "parked" };
	static const char *const serve[] = { "app:main", "app:serve" };
	static const char *const main_only[] = { "app:main" };
	static const char *const lock1[] = { "app:handle",
		                             "asyncio:Lock.acquire" };
	static const char *const lock2[] = { "lib:other",
		                             "asyncio:Lock.acquire" };
	static const char *const sleep[] = { "asyncio:sleep" };
	struct metrics v = { { 0 } };
	struct extras x = { .known = (1u << EXTRA_SELF_WAKES) |
		                     (1u << EXTRA_MAX_POLL) };
	struct window_meta meta;
	struct model *m;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	v.v[METRIC_IDLE] = 100;
	x.v[EXTRA_SELF_WAKES] = 2;
	x.v[EXTRA_MAX_POLL] = 500;
	add_parked(m, serve, 2, lock1, 2, "w1", &v, &x);
	v.v[METRIC_IDLE] = 50;
	x = (struct extras){ .known = 1u << EXTRA_MAX_POLL };
	x.v[EXTRA_MAX_POLL] = 900;
	add_parked(m, serve, 2, lock2, 2, "w1", &v, &x);
	v.v[METRIC_IDLE] = 0;
	v.v[METRIC_BUSY] = 7;
	x = (struct extras){ .known = 0 };
	add_parked(m, serve, 2, NULL, 0, "w2", &v, &x);
	v.v[METRIC_BUSY] = 0;
	v.v[METRIC_IDLE] = 30;
	x = (struct extras){ .known = (1u << EXTRA_NO_WAKER) |
		                      (1u << EXTRA_WAKERS) };
	x.v[EXTRA_WAKERS] = 1;
	add_parked(m, main_only, 1, sleep, 1, "bg", &v, &x);
	pt_set_meta(&meta, comment, 1);
	ck_assert_int_eq(model_commit(m, &meta, w), STATUS_OK);
	return m;
}
