/* Foundation: status messages, metrics, buffers, allocation hook. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/buf.h"
#include "model/fileio.h"
#include "model/metric.h"
#include "model/reserved.h"
#include "model/status.h"
#include "model/window.h"
#include "tests/util.h"

START_TEST(status_messages)
{
	ck_assert_str_eq(status_str(STATUS_OK), "success");
	ck_assert_str_eq(status_name(STATUS_EMPTY_WINDOW), "EMPTY_WINDOW");
	ck_assert_str_eq(status_str((enum status)999), "unknown status");
	for (int i = 0; i < STATUS_COUNT; i++)
		ck_assert_ptr_nonnull(status_str((enum status)i));
}
END_TEST

START_TEST(metric_names_and_parse)
{
	enum metric m;

	ck_assert_str_eq(metric_name(METRIC_SCHED), "scheduled");
	ck_assert_str_eq(metric_unit(METRIC_POLLS), "count");
	ck_assert(metric_is_duration(METRIC_IDLE));
	ck_assert(!metric_is_duration(METRIC_WAKES));
	ck_assert(metric_parse(sv_c("IDLE"), &m) && m == METRIC_IDLE);
	ck_assert(metric_parse(sv_c("sched"), &m) && m == METRIC_SCHED);
	ck_assert(metric_parse(sv_c("Scheduled"), &m) && m == METRIC_SCHED);
	ck_assert(metric_parse(sv_c("p"), &m) && m == METRIC_POLLS);
	ck_assert(metric_parse(sv_c("w"), &m) && m == METRIC_WAKES);
	ck_assert(!metric_parse(sv_c(""), &m));
	ck_assert(!metric_parse(sv_c("nope"), &m));
	ck_assert(!metric_parse(sv_c("idlex"), &m));
}
END_TEST

START_TEST(metrics_saturate)
{
	struct metrics a = { { UINT64_MAX - 1, 1, 0, 0, 0 } };
	struct metrics b = { { 5, 2, 0, 0, 0 } };

	metrics_add(&a, &b);
	ck_assert_uint_eq(a.v[0], UINT64_MAX);
	ck_assert_uint_eq(a.v[1], 3);
	ck_assert(!metrics_zero(&a));
	memset(&a, 0, sizeof(a));
	ck_assert(metrics_zero(&a));
}
END_TEST

START_TEST(buf_sticky_error)
{
	struct buf b;

	buf_init(&b);
	ck_assert_str_eq(buf_cstr(&b), "");
	ck_assert_int_eq(buf_adds(&b, "abc"), STATUS_OK);
	ck_assert_int_eq(buf_printf(&b, "-%d-%.1f", 42, 0.5), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "abc-42-0.5");
	b.limit = 12;
	ck_assert_int_eq(buf_adds(&b, "xyz"), STATUS_LIMIT);
	ck_assert_int_eq(buf_addc(&b, 'q'), STATUS_LIMIT);
	ck_assert_ptr_null(buf_cstr(&b));
	ck_assert_uint_eq(b.len, 10);
	buf_reset(&b);
	ck_assert_int_eq(buf_adds(&b, "ok"), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&b), "ok");
	buf_fini(&b);
}
END_TEST

START_TEST(buf_nomem_is_sticky)
{
	struct buf b;

	buf_init(&b);
	mem_fail_at(1);
	ck_assert_int_eq(buf_adds(&b, "abc"), STATUS_NOMEM);
	mem_fail_at(0);
	ck_assert_int_eq(buf_adds(&b, "abc"), STATUS_NOMEM);
	ck_assert_uint_eq(b.len, 0);
	buf_fini(&b);
}
END_TEST

START_TEST(alloc_overflow_and_hook)
{
	void *p = NULL;
	size_t cap = 0;

	ck_assert_ptr_null(mem_realloc_array(NULL, SIZE_MAX / 2, 4));
	ck_assert_int_eq(mem_grow(&p, &cap, 3, 4), STATUS_OK);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(mem_grow(&p, &cap, 9, 4), STATUS_OK);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(mem_grow(&p, &cap, SIZE_MAX, 4), STATUS_NOMEM);
	ck_assert_uint_eq(cap, 16);
	mem_fail_at(2);
	void *a = mem_alloc(1);
	void *b = mem_alloc(1);
	void *c = mem_alloc(1);
	mem_fail_at(0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(b);
	ck_assert_ptr_nonnull(c);
	mem_free(a);
	mem_free(c);
	mem_free(p);
}
END_TEST

/* mem_fresh grows as mem_grow does, allocating anew; a failure leaves the
 * array and its capacity as they were. */
START_TEST(alloc_fresh)
{
	uint32_t *p = NULL, *q;
	size_t cap = 0;

	ck_assert_int_eq(mem_fresh(&p, &cap, 3, sizeof(*p)), STATUS_OK);
	ck_assert_uint_eq(cap, 8);
	for (size_t i = 0; i < cap; i++)
		p[i] = (uint32_t)i;
	q = p;
	ck_assert_int_eq(mem_fresh(&p, &cap, 8, sizeof(*p)), STATUS_OK);
	ck_assert_ptr_eq(p, q); /* room enough: kept, contents and all */
	ck_assert_uint_eq(p[7], 7);
	ck_assert_int_eq(mem_fresh(&p, &cap, 9, sizeof(*p)), STATUS_OK);
	ck_assert_uint_eq(cap, 16);
	for (size_t i = 0; i < cap; i++) /* all of it writable */
		p[i] = (uint32_t)i;
	q = p;
	mem_fail_at(1);
	ck_assert_int_eq(mem_fresh(&p, &cap, 17, sizeof(*p)), STATUS_NOMEM);
	mem_fail_at(0);
	ck_assert_ptr_eq(p, q);
	ck_assert_uint_eq(cap, 16);
	ck_assert_uint_eq(p[15], 15);
	ck_assert_int_eq(mem_fresh(&p, &cap, SIZE_MAX, sizeof(*p)),
	                 STATUS_NOMEM);
	ck_assert_int_eq(mem_fresh(&p, &cap, SIZE_MAX / 4 + 1, 8),
	                 STATUS_NOMEM);
	ck_assert_uint_eq(cap, 16);
	mem_free(p);
}
END_TEST

START_TEST(reserved_table)
{
	char t[64];

	ck_assert(sv_eq(reserved_name(RESERVED_OTHER), sv_c("[other]")));
	ck_assert(sv_eq(reserved_name(RESERVED_UNNAMED), sv_c("<unnamed>")));
	ck_assert_uint_eq(reserved_truncated(t, sizeof(t), 3), 20);
	ck_assert_str_eq(t, "[truncated 3 frames]");
	reserved_truncated(t, sizeof(t), 1);
	ck_assert_str_eq(t, "[truncated 1 frame]");
	ck_assert_uint_eq(reserved_truncated(t, 5, 3), 4);
	ck_assert_str_eq(t, "[tru");
}
END_TEST

START_TEST(clamp_window)
{
	bool c;

	ck_assert_uint_eq(window_clamp(5000000000u, &c), 5000000000u);
	ck_assert(!c);
	ck_assert_uint_eq(window_clamp(WINDOW_MAX_NANOS, &c), WINDOW_MAX_NANOS);
	ck_assert(!c);
	ck_assert_uint_eq(window_clamp(WINDOW_MAX_NANOS + 1, &c),
	                  WINDOW_MAX_NANOS);
	ck_assert(c);
	ck_assert_uint_eq(window_clamp(UINT64_MAX, NULL), WINDOW_MAX_NANOS);
}
END_TEST

/* Small whole-file and tail reads: cut to the buffer, NUL-terminated,
 * -1 for a missing file. */
START_TEST(fileio_head_and_tail)
{
	char dir[256], path[300], b[8];

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	ck_assert_int_eq(tu_write_file(path, "0123456789", 10), STATUS_OK);
	ck_assert_int_eq(file_read_head(path, b, sizeof(b)), 7);
	ck_assert_str_eq(b, "0123456");
	ck_assert_int_eq(file_read_tail(path, b, sizeof(b)), 7);
	ck_assert_str_eq(b, "3456789");
	ck_assert_int_eq(file_read_tail(path, b, 4), 3);
	ck_assert_str_eq(b, "789");
	ck_assert_int_eq(tu_write_file(path, "ab", 2), STATUS_OK);
	ck_assert_int_eq(file_read_tail(path, b, sizeof(b)), 2);
	ck_assert_str_eq(b, "ab");
	ck_assert_int_eq(tu_write_file(path, "", 0), STATUS_OK);
	ck_assert_int_eq(file_read_head(path, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "");
	ck_assert_int_eq(file_read_tail(path, b, sizeof(b)), 0);
	ck_assert_int_eq(file_read_head(path, b, 0), 0);
	snprintf(path, sizeof(path), "%s/missing", dir);
	ck_assert_int_eq(file_read_head(path, b, sizeof(b)), -1);
	ck_assert_int_eq(file_read_tail(path, b, sizeof(b)), -1);
	tu_rmtree(dir);
}
END_TEST

Suite *suite_base(void);
Suite *suite_base(void)
{
	Suite *s = suite_create("base");
	TCase *tc = tcase_create("base");

	tcase_add_test(tc, status_messages);
	tcase_add_test(tc, metric_names_and_parse);
	tcase_add_test(tc, metrics_saturate);
	tcase_add_test(tc, buf_sticky_error);
	tcase_add_test(tc, buf_nomem_is_sticky);
	tcase_add_test(tc, alloc_overflow_and_hook);
	tcase_add_test(tc, alloc_fresh);
	tcase_add_test(tc, reserved_table);
	tcase_add_test(tc, clamp_window);
	tcase_add_test(tc, fileio_head_and_tail);
	suite_add_tcase(s, tc);
	return s;
}
