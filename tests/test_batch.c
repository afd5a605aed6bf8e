/* The owned sample batch a worker hands over: copied, moved and fed with
 * every field of a sample (parked-at stack, figures, what was dropped),
 * under allocation failure; what it refuses is counted. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adapters/batch.h"
#include "model/extras.h"
#include "tests/util.h"

struct lines {
	char s[8][96];
	size_t n;
};

static enum status line_sample(void *ctx, const struct sample *s)
{
	struct lines *l = ctx;
	size_t i, used = 0;
	char *d = l->s[l->n++];

	for (i = 0; i < s->depth; i++)
		used += (size_t)snprintf(d + used, 96 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->frames[i].len,
		                         s->frames[i].ptr);
	used +=
	    (size_t)snprintf(d + used, 96 - used, "|%.*s|%llu|%llu|",
	                     (int)s->task.len, s->task.len ? s->task.ptr : "",
	                     (unsigned long long)s->m.v[METRIC_WAKES],
	                     (unsigned long long)s->tasks);
	for (i = 0; i < s->parked_depth; i++)
		used += (size_t)snprintf(d + used, 96 - used, "%s%.*s",
		                         i ? ";" : "", (int)s->parked[i].len,
		                         s->parked[i].ptr);
	snprintf(d + used, 96 - used, "|%u|%llu|%zu|%zu", (unsigned)s->x.known,
	         (unsigned long long)s->x.v[EXTRA_SELF_WAKES], s->dropped,
	         s->parked_dropped);
	return l->n == 3 ? STATUS_LIMIT : STATUS_OK;
}

static enum status fill(struct batch *b)
{
	struct strview fr[3] = { { "root", 4 }, { "", 0 }, { "leaf", 4 } };
	struct strview pk[3] = { { "p0", 2 }, { "p1", 2 }, { "p2", 2 } };
	struct sample s;
	int i;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < 4; i++) {
		enum status st;

		s.frames = fr;
		s.depth = (size_t)(i % 4);
		s.task = sv_c(i == 2 ? "" : "t");
		s.m.v[METRIC_WAKES] = (uint64_t)i * 10;
		s.tasks = (uint64_t)i;
		/* the parked-at stack and the figures travel too */
		s.parked = pk;
		s.parked_depth = (size_t)(3 - i);
		s.x.known = (uint32_t)i;
		s.x.v[EXTRA_SELF_WAKES] = 100 + (uint64_t)i;
		/* and what the producer left out of each stack */
		s.dropped = (size_t)i;
		s.parked_dropped = 7 * (size_t)i;
		st = batch_add(b, &s);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

static enum status batch_round(void *ctx)
{
	struct batch a, b;
	struct lines l;
	struct sample_sink sink = { line_sample, NULL, &l };
	enum status st;

	(void)ctx;
	batch_init(&a);
	batch_init(&b);
	memset(&l, 0, sizeof(l));
	st = fill(&a);
	if (st == STATUS_OK)
		st = batch_copy(&b, &a);
	if (st == STATUS_OK)
		st = batch_feed(&b, &sink);
	if (st == STATUS_OK) {
		ck_assert_uint_eq(l.n, 4);
		ck_assert_str_eq(l.s[0], "|t|0|0|p0;p1;p2|0|100|0|0");
		ck_assert_str_eq(l.s[1], "root|t|10|1|p0;p1|1|101|1|7");
		ck_assert_str_eq(l.s[2], "root;||20|2|p0|2|102|2|14");
		ck_assert_str_eq(l.s[3], "root;;leaf|t|30|3||3|103|3|21");
	} else {
		ck_assert_int_eq(st, STATUS_NOMEM);
	}
	batch_fini(&a);
	batch_fini(&b);
	return st;
}

START_TEST(batch_copies_and_feeds)
{
	struct batch a, b;
	struct sample s;
	struct strview fr = { "x", 1 };

	ck_assert_uint_gt(tu_torture(batch_round, NULL), 3);
	batch_init(&a);
	batch_init(&b);
	memset(&s, 0, sizeof(s));
	s.depth = 2; /* frames missing: refused, counted */
	ck_assert_int_eq(batch_add(&a, &s), STATUS_INVAL);
	s.frames = &fr;
	s.depth = 1;
	s.parked_depth = 1; /* parked frames missing: refused too */
	ck_assert_int_eq(batch_add(&a, &s), STATUS_INVAL);
	s.parked = &fr; /* past the frame cap, spawn and parked together */
	s.parked_depth = BATCH_MAX_FRAMES;
	ck_assert_int_eq(batch_add(&a, &s), STATUS_LIMIT);
	s.parked_depth = 0;
	ck_assert_int_eq(batch_add(&a, &s), STATUS_OK);
	ck_assert_uint_eq(a.dropped, 3);
	batch_move(&b, &a);
	ck_assert_uint_eq(a.n, 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(b.dropped, 3);
	batch_clear(&b);
	ck_assert_uint_eq(b.n, 0);
	ck_assert_uint_eq(b.dropped, 0);
	batch_fini(&a);
	batch_fini(&b);
}
END_TEST

Suite *suite_batch(void);
Suite *suite_batch(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, batch_copies_and_feeds);
	suite_add_tcase(s, tc);
	return s;
}
