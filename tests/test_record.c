/* `asynctop record` with test producers: asynctop_main in forked children
 * (tests/record_util.h) with the toy producer.  Numbering, the exit
 * statuses of the toy's failures, and SIGINT synchronised on the test
 * event channel (never on sleeps).  The real binary: test_record_bin.c. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/asynctop.h"
#include "encode/out.h"
#include "encode/pprof.h"
#include "model/base.h"
#include "model/buf.h"
#include "model/window.h"
#include "tests/record_util.h"
#include "tests/util.h"

/* ---- reading saved profiles ---------------------------------------------- */

struct seen {
	struct buf text; /* "task|frame;frame|idle|tasks\n" per sample */
	struct buf comments;
	size_t n;
	int64_t duration;
};

static enum status seen_sample(void *ctx, const struct sample *s)
{
	struct seen *z = ctx;

	buf_addv(&z->text, s->task);
	buf_addc(&z->text, '|');
	for (size_t i = 0; i < s->depth; i++) {
		if (i)
			buf_addc(&z->text, ';');
		buf_addv(&z->text, s->frames[i]);
	}
	buf_printf(&z->text, "|%llu|%llu\n",
	           (unsigned long long)s->m.v[METRIC_IDLE],
	           (unsigned long long)s->tasks);
	z->n++;
	return buf_status(&z->text);
}

static enum status seen_meta(void *ctx, const struct window_meta *m)
{
	struct seen *z = ctx;

	for (size_t i = 0; i < m->ncomments; i++)
		buf_printf(&z->comments, "%s\n", m->comments[i]);
	z->duration = m->duration_nanos;
	return buf_status(&z->comments);
}

/* Loads a saved profile of r; fails the test on a bad file. */
static void load(const struct rt_run *r, const char *name, struct seen *z)
{
	struct sample_sink sink;
	char p[640], err[256];

	memset(z, 0, sizeof(*z));
	sink.sample = seen_sample;
	sink.meta = seen_meta;
	sink.ctx = z;
	buf_init(&z->text);
	buf_init(&z->comments);
	rt_path(p, sizeof(p), r, name);
	ck_assert_msg(pprof_load(p, NULL, &sink, err, sizeof(err)) == STATUS_OK,
	              "%s: %s", name, err);
	buf_cstr(&z->text);
	buf_cstr(&z->comments);
}

static void seen_fini(struct seen *z)
{
	buf_fini(&z->text);
	buf_fini(&z->comments);
}

/* ---- exit 0, numbering, comments ------------------------------------------
 */

START_TEST(record_numbered_windows)
{
	const char *argv[] = { "toytop", "record",    "-a", "toy",
		               "-w",     "0.1",       "-n", "3",
		               "-o",     "out.pb.gz", NULL };
	struct rt_run r;
	struct seen z;

	rt_init(&r);
	rt_run_main(&r, argv, TOY_DATA);
	ASSERT_EXIT(&r, 0);
	ck_assert_str_eq(buf_cstr(&r.p.err), "");
	ck_assert(rt_exists(&r, "out-0001.pb.gz"));
	ck_assert(rt_exists(&r, "out-0002.pb.gz"));
	ck_assert(rt_exists(&r, "out-0003.pb.gz"));
	ck_assert(!rt_exists(&r, "out-0004.pb.gz"));
	ck_assert(!rt_exists(&r, "out.pb.gz"));
	load(&r, "out-0002.pb.gz", &z);
	ck_assert_uint_eq(z.n, 2);
	/* the unnamed task reads <unnamed> or empty, the model decides: the
	 * stack and values are what the producer gave */
	ck_assert_msg(
	    strstr(z.text.data, "|main;serve;conn|2000000|4\n") &&
	        strstr(z.text.data, "listener|main;serve|7000000|1\n"),
	    "%s", z.text.data);
	ck_assert_str_eq(z.comments.data, "asynctop " ASYNCTOP_VERSION "\n"
	                                  "source: toy sim://t\n");
	ck_assert_int_ge(z.duration, 90000000);
	seen_fini(&z);
	rt_fini(&r);
}
END_TEST

/* ---- exit statuses, files saved, what stderr says ----------------------- */

/* Runs whose outcome is all in their exit status, the files saved and not,
 * and what stderr says. */
static const struct outcome_case {
	const char *name;
	const char *argv[12];
	enum toy_mode toy;
	int code;
	const char *saved[4], *unsaved[4], *err[4];
} outcome_cases[] = {
	/* An empty window is reported, saves nothing and skips its number. */
	{
	    .name = "empty window skips its number",
	    .argv = { "toytop", "record", "-w", "0.1", "-n", "3", "-o",
	              "w.pb.gz" },
	    .toy = TOY_EMPTY_2ND,
	    .code = 0,
	    .saved = { "w-0001.pb.gz", "w-0003.pb.gz" },
	    .unsaved = { "w-0002.pb.gz" },
	    /* the measured length, with %g: "over 0.100213s" */
	    .err = { "toytop: the toy source produced no task data over 0.",
	             "s. Either nothing ran, or the application is not "
	             "instrumented" },
	},
	/* the three errors of docs/design.md §12: 2, 3, 4 */
	{
	    .name = "exit 4: no data",
	    .argv = { "toytop", "record", "-w", "0.1", "-n", "2", "-o",
	              "e.pb.gz" },
	    .toy = TOY_EMPTY,
	    .code = 4,
	    .unsaved = { "e-0001.pb.gz", "e-0002.pb.gz" },
	    .err = { "the toy source produced no task data over 0.",
	             "Either nothing ran, or the application is not "
	             "instrumented \xE2\x80\x94 an empty profile and an idle "
	             "program look identical, so this is reported rather than "
	             "drawn." },
	},
	{
	    .name = "exit 3: unreachable",
	    .argv = { "toytop", "record", "-w", "0.1", "-n", "0", "-e",
	              "sim://far", "-o", "u.pb.gz" },
	    .toy = TOY_UNREACHABLE,
	    .code = 3,
	    .unsaved = { "u-0001.pb.gz" },
	    .err = { "toytop: the toy source is not reachable at sim://far: "
	             "connection refused\nis the toy runtime running?\n" },
	},
	/* A producer hung before any data is as unreachable as one that says
	 * so: exit 3, not 1, once it is abandoned after the grace. */
	{
	    .name = "exit 3: hung before data",
	    .argv = { "toytop", "record", "-w", "0.1", "-n", "1", "-o",
	              "h.pb.gz" },
	    .toy = TOY_HANG_1ST,
	    .code = 3,
	    .unsaved = { "h.pb.gz" },
	    .err = { "the toy source at sim://t timed out" },
	},
	/* Lost after data: the saved window stays, the status is 1, not 3. */
	{
	    .name = "exit 1: lost after data",
	    .argv = { "toytop", "record", "-w", "0.1", "-n", "0", "-o",
	              "l.pb.gz" },
	    .toy = TOY_LOST_2ND,
	    .code = 1,
	    .saved = { "l-0001.pb.gz" },
	    .unsaved = { "l-0002.pb.gz" },
	    .err = { "the toy source is not reachable at sim://t" },
	},
};

START_TEST(record_outcome)
{
	const struct outcome_case *c = &outcome_cases[_i];
	struct rt_run r;

	rt_init(&r);
	rt_run_main(&r, c->argv, c->toy);
	ASSERT_EXIT(&r, c->code);
	for (size_t k = 0; k < 4 && c->saved[k]; k++)
		ck_assert_msg(rt_exists(&r, c->saved[k]), "%s: %s not saved",
		              c->name, c->saved[k]);
	for (size_t k = 0; k < 4 && c->unsaved[k]; k++)
		ck_assert_msg(!rt_exists(&r, c->unsaved[k]), "%s: %s saved",
		              c->name, c->unsaved[k]);
	for (size_t k = 0; k < 4 && c->err[k]; k++)
		ASSERT_ERR_HAS(&r, c->err[k]);
	rt_fini(&r);
}
END_TEST

/* A producer's explanation is outside text: no escape reaches stderr. */
START_TEST(record_explanation_sanitised)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "0",      "-o",     "h.pb.gz", NULL };
	struct rt_run r;

	/* U+FFFD in a UTF-8 locale */
	setenv("LC_ALL", "C.UTF-8", 1);
	rt_init(&r);
	rt_run_main(&r, argv, TOY_HOSTILE);
	ASSERT_EXIT(&r, 3);
	ck_assert_msg(!memchr(r.p.err.data, 0x1b, r.p.err.len) &&
	                  !memchr(r.p.err.data, 0x07, r.p.err.len) &&
	                  !memchr(r.p.err.data, '\r', r.p.err.len) &&
	                  !memchr(r.p.err.data, '\b', r.p.err.len),
	              "a control byte reached stderr:\n%s", r.p.err.data);
	ASSERT_ERR_HAS(&r, "refused\xEF\xBF\xBD]0;owned\xEF\xBF\xBD"
	                   "\xEF\xBF\xBD[2J");
	ASSERT_ERR_HAS(&r, "run \xEF\xBF\xBD[31mthis\xEF\xBF\xBDK\n"
	                   "\xEF\xBF\xBD\xEF\xBF\xBD ok\n");
	rt_fini(&r);
	/* '?' in the C locale, whose terminal cannot show U+FFFD: no byte
	 * past ASCII */
	setenv("LC_ALL", "C", 1);
	rt_init(&r);
	rt_run_main(&r, argv, TOY_HOSTILE);
	ck_assert_int_eq(r.p.code, 3);
	for (size_t i = 0; i < r.p.err.len; i++)
		ck_assert_msg((unsigned char)r.p.err.data[i] < 0x80 &&
		                  (r.p.err.data[i] == '\n' ||
		                   (unsigned char)r.p.err.data[i] >= 0x20),
		              "not printable ASCII on stderr:\n%s",
		              r.p.err.data);
	ASSERT_ERR_HAS(&r, "refused?]0;owned??[2J");
	ASSERT_ERR_HAS(&r, "run ?[31mthis?K\n?? ok\n");
	rt_fini(&r);
	unsetenv("LC_ALL");
}
END_TEST

/* An unwritable output directory fails before the source is opened: the
 * toy would say it is unreachable (exit 3) were it ever asked.  Faults are
 * injected (CI runs as root), inherited by the forked child. */
START_TEST(record_unwritable_output_found_first)
{
	const char *named[] = { "toytop", "record", "-w",      "0.1", "-n",
		                "0",      "-o",     "u.pb.gz", NULL };
	const int errs[] = { EROFS, EACCES };
	struct rt_run r;

	for (size_t i = 0; i < 2; i++) {
		struct out_faults f = { .create_errno = errs[i] };

		rt_init(&r);
		out_file_set_faults(&f);
		rt_start_main(&r, named, TOY_UNREACHABLE, NULL);
		out_file_set_faults(NULL);
		tu_run_wait(&r.p);
		ASSERT_EXIT(&r, 1);
		ASSERT_ERR_HAS(&r, "u-0001.pb.gz: cannot create a file in");
		ASSERT_ERR_HAS(&r, strerror(errs[i]));
		ck_assert_ptr_null(strstr(r.p.err.data, "not reachable"));
		ck_assert_int_eq(tu_count_entries(r.dir, NULL), 0);
		rt_fini(&r);
	}
}
END_TEST

/* A live adapter takes one endpoint. */
START_TEST(record_exit_2_two_endpoints)
{
	const char *argv[] = { "toytop",  "record", "-e",      "sim://a", "-e",
		               "sim://b", "-o",     "t.pb.gz", NULL };
	struct rt_run r;

	rt_init(&r);
	rt_run_main(&r, argv, TOY_DATA);
	ASSERT_EXIT(&r, 2);
	ck_assert_msg(strstr(r.p.err.data, "toytop record: ") == r.p.err.data,
	              "%s", r.p.err.data);
	ck_assert(!rt_exists(&r, "t.pb.gz"));
	rt_fini(&r);
}
END_TEST

/* ---- SIGINT ---------------------------------------------------------------
 */

START_TEST(record_sigint_saves_complete_windows)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.2", "-n",
		               "0",      "-o",     "s.pb.gz", NULL };
	struct rt_events ev;
	struct rt_run r;

	rt_init(&r);
	rt_events_open(&ev, &r);
	rt_start_main(&r, argv, TOY_DATA, ev.fifo);
	ck_assert_msg(rt_wait_event(ev.fd, &ev.seen, "window 1 committed"),
	              "events: %s", buf_cstr(&ev.seen));
	ck_assert_int_eq(kill(r.p.pid, SIGINT), 0);
	ck_assert_msg(rt_wait_event(ev.fd, &ev.seen, "exit 130"), "events: %s",
	              buf_cstr(&ev.seen));
	tu_run_wait(&r.p);
	ASSERT_EXIT(&r, 130);
	ck_assert_msg(strstr(ev.seen.data, "saved s-0001.pb.gz\n") != NULL,
	              "%s", ev.seen.data);
	ck_assert(strstr(ev.seen.data, "signal 2\n") != NULL);
	ck_assert(rt_exists(&r, "s-0001.pb.gz"));
	/* Every saved window is a complete one (no partial comment), and the
	 * window cut by the signal was not saved. */
	for (unsigned k = 1; k < 100; k++) {
		char name[64];
		struct seen z;

		snprintf(name, sizeof(name), "s-%04u.pb.gz", k);
		if (!rt_exists(&r, name)) {
			snprintf(name, sizeof(name), "saved s-%04u.pb.gz\n", k);
			ck_assert(strstr(ev.seen.data, name) == NULL);
			break;
		}
		load(&r, name, &z);
		ck_assert_uint_eq(z.n, 2);
		ck_assert(strstr(z.comments.data, "partial") == NULL);
		seen_fini(&z);
	}
	rt_events_close(&ev);
	rt_fini(&r);
}
END_TEST

/* A source that will not stop: a second SIGINT stops waiting for it. */
START_TEST(record_second_sigint_abandons_hung_source)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "0",      "-o",     "h.pb.gz", NULL };
	struct rt_events ev;
	struct rt_run r;

	rt_init(&r);
	rt_events_open(&ev, &r);
	rt_start_main(&r, argv, TOY_HANG_2ND, ev.fifo);
	ck_assert(rt_wait_event(ev.fd, &ev.seen, "saved h-0001.pb.gz"));
	ck_assert_int_eq(kill(r.p.pid, SIGINT), 0);
	ck_assert(rt_wait_event(ev.fd, &ev.seen, "signal 2"));
	ck_assert_int_eq(kill(r.p.pid, SIGINT), 0);
	ck_assert_msg(rt_wait_event(ev.fd, &ev.seen, "exit 130"), "%s",
	              ev.seen.data);
	tu_run_wait(&r.p);
	ASSERT_EXIT(&r, 130);
	ASSERT_ERR_HAS(&r, "interrupted again: not waiting for the toy source "
	                   "to stop");
	ck_assert(rt_exists(&r, "h-0001.pb.gz"));
	ck_assert(!rt_exists(&r, "h-0002.pb.gz"));
	rt_events_close(&ev);
	rt_fini(&r);
}
END_TEST

/* ---- adapters, help, version ----------------------------------------------
 */

START_TEST(record_adapters_help_version)
{
	const char *ad[] = { "toytop", "adapters", NULL };
	struct rt_run r;

	rt_init(&r);
	rt_run_main(&r, ad, TOY_DATA);
	ASSERT_EXIT(&r, 0);
	ck_assert_msg(strstr(r.p.out.data, "ADAPTER") == r.p.out.data, "%s",
	              r.p.out.data);
	ck_assert(strstr(r.p.out.data, "\nreplay ") != NULL);
	ck_assert(strstr(r.p.out.data, "(-e required)") != NULL);
	ck_assert(strstr(r.p.out.data, "\ntoy ") != NULL);
	ck_assert(strstr(r.p.out.data, "sim://t") != NULL);
	ck_assert(strstr(r.p.out.data, "test producer\n") != NULL);
	ck_assert(strstr(r.p.out.data, "custom") == NULL);
	if (rt_bin()) {
		const char *ver[] = { "asynctop", "--version", NULL };
		const char *help[] = { "asynctop", "record", "--help", NULL };

		rt_run_bin(&r, ver);
		ASSERT_EXIT(&r, 0);
		ck_assert_str_eq(r.p.out.data,
		                 "asynctop " ASYNCTOP_VERSION "\n");
		rt_run_bin(&r, help);
		ASSERT_EXIT(&r, 0);
		ck_assert(strstr(r.p.out.data, "usage: asynctop record") ==
		          r.p.out.data);
		ck_assert(strstr(r.p.out.data, "--force") != NULL);
	}
	rt_fini(&r);
}
END_TEST

Suite *suite_record(void);
Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("record");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, record_numbered_windows);
	tcase_add_loop_test(tc, record_outcome, 0,
	                    (int)ARRAY_SIZE(outcome_cases));
	tcase_add_test(tc, record_explanation_sanitised);
	tcase_add_test(tc, record_unwritable_output_found_first);
	tcase_add_test(tc, record_exit_2_two_endpoints);
	tcase_add_test(tc, record_sigint_saves_complete_windows);
	tcase_add_test(tc, record_second_sigint_abandons_hung_source);
	tcase_add_test(tc, record_adapters_help_version);
	suite_add_tcase(s, tc);
	return s;
}
