/* `asynctop record` as the real binary ($ASYNCTOP_BIN) run as a child
 * (tests/record_util.h): usage errors, replay byte for byte, a missing
 * file and --force, a directory with a bad file, outside text on stderr
 * (file names, an agent's error), text and collapsed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/wire.h"
#include "encode/gzip.h"
#include "model/base.h"
#include "model/buf.h"
#include "tests/fake_agent.h"
#include "tests/record_util.h"
#include "tests/util.h"

/* The decompressed bytes of a saved profile. */
static void gunzip_file(const struct rt_run *r, const char *name,
                        struct buf *out)
{
	struct buf raw;
	char p[640], err[256];

	buf_init(&raw);
	rt_path(p, sizeof(p), r, name);
	ck_assert_int_eq(tu_read_file(p, &raw), STATUS_OK);
	ck_assert(gzip_is(raw.data, raw.len));
	ck_assert_int_eq(
	    gzip_decompress(raw.data, raw.len, 0, out, err, sizeof(err)),
	    STATUS_OK);
	buf_fini(&raw);
}

/* ---- usage ----------------------------------------------------------------
 */

/* Command lines refused with exit 2, and what stderr says (for -w 90, the
 * clamp's warning, said before the unknown adapter is refused). */
static const struct usage_case {
	const char *argv[12];
	const char *err;
} usage_cases[] = {
	{ { "asynctop", "record", "-a", "replay", "-w", "0.01", "-o",
	    "x.pb.gz" },
	  "asynctop record: -w 0.01: the window is a number of seconds from 0.1 to 60" },
	{ { "asynctop", "record", "-a", "replay", "-e", "x.pb.gz", "-o",
	    "y.pb.gz", "--", "python3", "app.py" },
	  "exclude each other" },
	{ { "asynctop", "record", "-a", "replay", "-e", "x.pb.gz", "-n", "2",
	    "-o", "-" },
	  "-o - writes one window only" },
	{ { "asynctop", "record", "-a", "replay", "-e", "x.pb.gz" },
	  "-o FILE is required" },
	{ { "asynctop", "record", "-w", "90", "-a", "nope", "-o", "x" },
	  "asynctop: -w 90: windows are capped at 60 s; using 60 s\n" },
};

START_TEST(record_exit_2_usage)
{
	const char *unknown[] = { "asynctop", "record",  "-a", "nope",
		                  "-o",       "x.pb.gz", NULL };
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_exit_2_usage");
	rt_init(&r);
	rt_run_bin(&r, unknown);
	ck_assert_int_eq(r.p.code, 2);
	ck_assert_str_eq(
	    r.p.err.data,
	    "asynctop: no async profiling adapter named \"nope\"; available: asyncio, replay, tokio (alias kernal-api-async)\n");
	for (size_t i = 0; i < ARRAY_SIZE(usage_cases); i++) {
		rt_run_bin(&r, usage_cases[i].argv);
		ASSERT_EXIT(&r, 2);
		ASSERT_ERR_HAS(&r, usage_cases[i].err);
	}
	ck_assert(!rt_exists(&r, "x.pb.gz") && !rt_exists(&r, "x"));

	/* the event channel tells every exit, usage errors included */
	{
		char fifo[640];
		struct buf seen;
		int fd;

		fd = rt_events_fifo(&r, fifo, sizeof(fifo));
		buf_init(&seen);
		rt_start_bin(&r, usage_cases[0].argv, fifo); /* -w 0.01 */
		tu_run_wait(&r.p);
		ck_assert_int_eq(r.p.code, 2);
		ck_assert(rt_wait_event(fd, &seen, "exit 2"));
		ck_assert_str_eq(seen.data, "exit 2\n");
		close(fd);
		unlink(fifo);
		buf_fini(&seen);
	}
	rt_fini(&r);
}
END_TEST

/* ---- replay -------------------------------------------------------------- */

START_TEST(record_replay_byte_for_byte)
{
	const char *argv[] = { "asynctop", "record",     "-a",
		               "replay",   "-e",         "saved.pb.gz",
		               "-o",       "copy.pb.gz", NULL };
	const char *to_stdout[] = { "asynctop", "record", "-a",
		                    "replay",   "-e",     "saved.pb.gz",
		                    "-o",       "-",      NULL };
	struct buf a, b;
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_replay_byte_for_byte");
	rt_init(&r);
	rt_make_saved(&r, "saved.pb.gz");
	rt_run_bin(&r, argv);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	buf_init(&a);
	buf_init(&b);
	gunzip_file(&r, "saved.pb.gz", &a);
	gunzip_file(&r, "copy.pb.gz", &b);
	ck_assert_uint_gt(a.len, 0);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.data, b.data, a.len) == 0);

	/* -o - writes the same gzip profile to standard output */
	rt_run_bin(&r, to_stdout);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert(gzip_is(r.p.out.data, r.p.out.len));
	buf_reset(&b);
	ck_assert_int_eq(
	    gzip_decompress(r.p.out.data, r.p.out.len, 0, &b, NULL, 0),
	    STATUS_OK);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.data, b.data, a.len) == 0);
	buf_fini(&a);
	buf_fini(&b);
	rt_fini(&r);
}
END_TEST

START_TEST(record_replay_missing_file_and_force)
{
	const char *missing[] = { "asynctop", "record",  "-a",
		                  "replay",   "-e",      "nothere.pb.gz",
		                  "-o",       "c.pb.gz", NULL };
	const char *again[] = { "asynctop", "record",  "-a",
		                "replay",   "-e",      "saved.pb.gz",
		                "-o",       "c.pb.gz", NULL };
	const char *fifo[] = { "asynctop", "record",  "-a",
		               "replay",   "-e",      "fifo.pb.gz",
		               "-o",       "c.pb.gz", NULL };
	const char *nodir[] = { "asynctop", "record",
		                "-a",       "replay",
		                "-e",       "saved.pb.gz",
		                "-o",       "nodir/c.pb.gz",
		                NULL };
	const char *force[] = {
		"asynctop",    "record",  "-a", "replay",  "-e",
		"saved.pb.gz", "--force", "-o", "c.pb.gz", NULL
	};
	char p[640];
	struct buf got, want;
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_replay_missing_file_and_force");
	rt_init(&r);
	rt_run_bin(&r, missing);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(&r, "asynctop: the replay source at nothere.pb.gz "
	                   "failed: No such file or directory\n");
	ck_assert(!rt_exists(&r, "c.pb.gz"));
	/* a FIFO is refused at once, not waited on until the stop grace */
	rt_path(p, sizeof(p), &r, "fifo.pb.gz");
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	rt_run_bin(&r, fifo);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(
	    &r,
	    "asynctop: the replay source at fifo.pb.gz failed: not a regular file or directory\n");
	ck_assert(!rt_exists(&r, "c.pb.gz"));
	rt_make_saved(&r, "saved.pb.gz");
	rt_run_bin(&r, nodir);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(&r, "asynctop: cannot save to nodir/c.pb.gz: the "
	                   "directory nodir does not exist\n");
	rt_path(p, sizeof(p), &r, "c.pb.gz");
	ck_assert_int_eq(tu_write_file(p, "keep me", 7), STATUS_OK);
	rt_run_bin(&r, again);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(&r, "c.pb.gz already exists; use --force to replace "
	                   "it");
	buf_init(&got);
	ck_assert_int_eq(tu_read_file(p, &got), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&got), "keep me");

	rt_run_bin(&r, force);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	buf_init(&want);
	buf_reset(&got);
	gunzip_file(&r, "c.pb.gz", &got);
	gunzip_file(&r, "saved.pb.gz", &want);
	ck_assert_uint_eq(got.len, want.len);
	ck_assert(memcmp(got.data, want.data, got.len) == 0);
	buf_fini(&got);
	buf_fini(&want);
	rt_fini(&r);
}
END_TEST

/* A directory with one bad file: the others are saved, exit 1. */
START_TEST(record_replay_directory_with_bad_file)
{
	const char *argv[] = { "asynctop", "record", "-a",      "replay", "-e",
		               "in",       "-o",     "r.pb.gz", NULL };
	struct buf a, b, x, y;
	char p[640];
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_replay_directory_with_bad_file");
	rt_init(&r);
	rt_path(p, sizeof(p), &r, "in");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	rt_make_saved(&r, "in/a.pb.gz");
	rt_make_saved(&r, "in/b.pb.gz");
	rt_path(p, sizeof(p), &r, "in/bad.pb.gz");
	ck_assert_int_eq(tu_write_file(p, "\x1f\x8b\x08\x00garbage", 12),
	                 STATUS_OK);
	rt_run_bin(&r, argv);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(&r, "bad.pb.gz");
	buf_init(&a);
	buf_init(&b);
	buf_init(&x);
	buf_init(&y);
	gunzip_file(&r, "in/a.pb.gz", &a);
	gunzip_file(&r, "in/b.pb.gz", &b);
	/* Two windows saved, one per good file, whatever their numbers. */
	{
		const char *names[] = { "r-0001.pb.gz", "r-0002.pb.gz",
			                "r-0003.pb.gz" };
		int found = 0;

		for (size_t i = 0; i < 3; i++) {
			if (!rt_exists(&r, names[i]))
				continue;
			gunzip_file(&r, names[i], found ? &y : &x);
			found++;
		}
		ck_assert_int_eq(found, 2);
	}
	ck_assert((x.len == a.len && !memcmp(x.data, a.data, a.len) &&
	           y.len == b.len && !memcmp(y.data, b.data, b.len)) ||
	          (x.len == b.len && !memcmp(x.data, b.data, b.len) &&
	           y.len == a.len && !memcmp(y.data, a.data, a.len)));
	buf_fini(&a);
	buf_fini(&b);
	buf_fini(&x);
	buf_fini(&y);
	rt_fini(&r);
}
END_TEST

/* A file's name is outside text: its escapes never reach stderr. */
START_TEST(record_replay_bad_name_sanitised)
{
	const char *argv[] = { "asynctop", "record", "-a",      "replay", "-e",
		               "in",       "-o",     "r.pb.gz", NULL };
	char p[640];
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_replay_bad_name_sanitised");
	setenv("LC_ALL", "C.UTF-8", 1); /* U+FFFD: a UTF-8 locale */
	rt_init(&r);
	rt_path(p, sizeof(p), &r, "in");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	rt_make_saved(&r, "in/a.pb.gz");
	rt_path(p, sizeof(p), &r, "in/\033]0;x\007\033[2Jbad.pb.gz");
	ck_assert_int_eq(tu_write_file(p, "\x1f\x8b\x08\x00garbage", 12),
	                 STATUS_OK);
	rt_run_bin(&r, argv);
	ck_assert_int_eq(r.p.code, 1);
	ASSERT_ERR_HAS(&r,
	               "\xEF\xBF\xBD]0;x\xEF\xBF\xBD\xEF\xBF\xBD[2Jbad.pb.gz");
	ck_assert_msg(!memchr(r.p.err.data, 0x1b, r.p.err.len) &&
	                  !memchr(r.p.err.data, 0x07, r.p.err.len),
	              "a control byte reached stderr:\n%s", r.p.err.data);
	rt_fini(&r);
}
END_TEST

/* An agent's ERROR text is outside text too (it may run as another user,
 * root recording it). */
START_TEST(record_agent_error_sanitised)
{
	const char *argv[] = { "asynctop", "record", "-a", "asyncio", "-e",
		               NULL,       "-w",     "1",  "-n",      "1",
		               "-f",       "text",   NULL };
	struct agent g;
	struct buf *b;
	struct rt_run r;
	size_t at;

	SKIP_WITHOUT_BIN("record_agent_error_sanitised");
	agent_init(&g);
	b = agent_step(&g, AGENT_REPLY);
	fr_begin(b, ASYNCIO_ERROR, 1, &at);
	(void)wire_put_u32(b, 1);
	(void)buf_adds(b, "uid\033]0;x\007 \033[2Jbad");
	fr_end(b, at);
	agent_start(&g);
	argv[5] = g.path;
	setenv("LC_ALL", "C.UTF-8", 1); /* U+FFFD: a UTF-8 locale */
	rt_init(&r);
	rt_run_bin(&r, argv);
	agent_fini(&g);
	ck_assert_msg(r.p.code == 3, "exit %d: %s", r.p.code, r.p.err.data);
	ASSERT_ERR_HAS(&r, "the agent refused this user: uid\xEF\xBF\xBD]0;x"
	                   "\xEF\xBF\xBD \xEF\xBF\xBD[2Jbad");
	ck_assert_msg(!memchr(r.p.err.data, 0x1b, r.p.err.len) &&
	                  !memchr(r.p.err.data, 0x07, r.p.err.len),
	              "a control byte reached stderr:\n%s", r.p.err.data);
	rt_fini(&r);
}
END_TEST

/* ---- text and collapsed -------------------------------------------------- */

START_TEST(record_text_and_collapsed)
{
	const char *text[] = { "asynctop", "record",      "-a", "replay",
		               "-e",       "saved.pb.gz", "-f", "text",
		               "-m",       "busy",        NULL };
	const char *tfile[] = { "asynctop", "record",      "-a", "replay",
		                "-e",       "saved.pb.gz", "-f", "text",
		                "-o",       "report.txt",  NULL };
	const char *coll[] = { "asynctop", "record",      "-a", "replay",
		               "-e",       "saved.pb.gz", "-f", "collapsed",
		               "-o",       "s.folded",    NULL };
	struct buf f;
	char p[640];
	struct rt_run r;

	SKIP_WITHOUT_BIN("record_text_and_collapsed");
	rt_init(&r);
	rt_make_saved(&r, "saved.pb.gz");
	rt_run_bin(&r, text);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert_msg(strstr(r.p.out.data, "top 10 by busy\n") != NULL, "%s",
	              r.p.out.data);
	ck_assert(strstr(r.p.out.data, "top 10 by idle\n") != NULL);
	/* busy first: the section order follows -m */
	ck_assert(strstr(r.p.out.data, "top 10 by busy") <
	          strstr(r.p.out.data, "top 10 by idle"));
	ck_assert(strstr(r.p.out.data, "conn \xE2\x86\x90 serve \xE2\x86\x90 "
	                               "main") != NULL);

	rt_run_bin(&r, tfile);
	ck_assert_int_eq(r.p.code, 0);
	ck_assert_str_eq(buf_cstr(&r.p.out), "");
	buf_init(&f);
	rt_path(p, sizeof(p), &r, "report.txt");
	ck_assert_int_eq(tu_read_file(p, &f), STATUS_OK);
	ck_assert(strstr(buf_cstr(&f), "top 10 by idle\n") != NULL);

	rt_run_bin(&r, coll);
	ck_assert_int_eq(r.p.code, 0);
	buf_reset(&f);
	rt_path(p, sizeof(p), &r, "s.folded");
	ck_assert_int_eq(tu_read_file(p, &f), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&f), "main;serve 7000000\n"
	                               "main;serve;conn 2000000\n");
	buf_fini(&f);
	rt_fini(&r);
}
END_TEST

Suite *suite_record_bin(void);
Suite *suite_record_bin(void)
{
	Suite *s = suite_create("record_bin");
	TCase *tc = tcase_create("record");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, record_exit_2_usage);
	tcase_add_test(tc, record_replay_byte_for_byte);
	tcase_add_test(tc, record_replay_missing_file_and_force);
	tcase_add_test(tc, record_replay_directory_with_bad_file);
	tcase_add_test(tc, record_replay_bad_name_sanitised);
	tcase_add_test(tc, record_agent_error_sanitised);
	tcase_add_test(tc, record_text_and_collapsed);
	suite_add_tcase(s, tc);
	return s;
}
