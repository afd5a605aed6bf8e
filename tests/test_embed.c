/* The embedding example end to end: docs/examples/embed.c built with
 * pkg-config against libasynctop.a and asynctop.h alone (tests/embed.sh),
 * run with its own adapter, and its saved windows decoded. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "encode/pprof.h"
#include "model/buf.h"
#include "model/window.h"
#include "tests/util.h"

struct got {
	struct buf text; /* "task|root;...;leaf|tasks\n" per sample */
	struct buf comments;
	uint64_t polls;
};

static enum status got_sample(void *ctx, const struct sample *s)
{
	struct got *g = ctx;

	buf_addv(&g->text, s->task);
	buf_addc(&g->text, '|');
	for (size_t i = 0; i < s->depth; i++) {
		if (i)
			buf_addc(&g->text, ';');
		buf_addv(&g->text, s->frames[i]);
	}
	buf_printf(&g->text, "|%llu\n", (unsigned long long)s->tasks);
	g->polls += s->m.v[METRIC_POLLS];
	return buf_status(&g->text);
}

static enum status got_meta(void *ctx, const struct window_meta *m)
{
	struct got *g = ctx;

	for (size_t i = 0; i < m->ncomments; i++)
		buf_printf(&g->comments, "%s\n", m->comments[i]);
	return buf_status(&g->comments);
}

static void rm_work(const char *dir)
{
	tu_rmtree(dir);
}

START_TEST(embed_example_end_to_end)
{
	const char *bin = getenv("ASYNCTOP_BIN");
	const char *src = getenv("ASYNCTOP_SRC");
	char build[512], work[512], script[640], p[700], err[256];
	const char *slash;
	struct buf ad;
	struct stat sb;

	if (!bin || !src || !*bin || !*src) {
		tu_skip("embed_example_end_to_end",
		        "ASYNCTOP_BIN and ASYNCTOP_SRC are not set (run via "
		        "make)");
		return;
	}
	slash = strrchr(bin, '/');
	ck_assert_ptr_nonnull(slash);
	snprintf(build, sizeof(build), "%.*s", (int)(slash - bin), bin);
	snprintf(p, sizeof(p), "%s/asynctop.pc", build);
	if (stat(p, &sb) != 0) {
		tu_skip("embed_example_end_to_end",
		        "no asynctop.pc in the build directory");
		return;
	}
	snprintf(script, sizeof(script), "%s/tests/embed.sh", src);
	tu_mkdtemp(work, sizeof(work));
	{
		const char *argv[] = {
			"/bin/sh", script, build, src, work, NULL
		};
		struct tu_proc proc = { .timeout_ms = 120000 };
		struct tu_run r;

		tu_run_init(&r);
		tu_run(&r, &proc, argv);
		ck_assert_msg(r.code == 0, "embed.sh failed (%d):\n%s\n%s",
		              r.code, r.out.data, r.err.data);
		tu_run_fini(&r);
	}

	buf_init(&ad);
	snprintf(p, sizeof(p), "%s/adapters.txt", work);
	ck_assert_int_eq(tu_read_file(p, &ad), STATUS_OK);
	ck_assert_msg(strstr(buf_cstr(&ad), "\ntoyexec ") != NULL &&
	                  strstr(buf_cstr(&ad), "sim://local") != NULL &&
	                  strstr(buf_cstr(&ad), "\nreplay ") != NULL,
	              "%s", buf_cstr(&ad));
	buf_fini(&ad);

	/* "v1": the same example built against the frozen ABI 1 header */
	for (int k = 1; k <= 4; k++) {
		const char *pre = k <= 2 ? "out" : "v1";
		struct got g;
		struct sample_sink sink = { got_sample, got_meta, &g };

		memset(&g, 0, sizeof(g));
		buf_init(&g.text);
		buf_init(&g.comments);
		snprintf(p, sizeof(p), "%s/%s-%04d.pb.gz", work, pre,
		         (k - 1) % 2 + 1);
		ck_assert_msg(pprof_load(p, NULL, &sink, err, sizeof(err)) ==
		                  STATUS_OK,
		              "%s: %s", p, err);
		buf_cstr(&g.text);
		buf_cstr(&g.comments);
		/* samples come sorted by stack text */
		ck_assert_str_eq(
		    g.text.data,
		    "db pool|toy::main;db::Pool::new;db::reaper|1\n"
		    "metrics flush|toy::main;metrics::flusher|1\n"
		    "accept loop|toy::main;server::run;"
		    "server::accept|1\n"
		    "<unnamed>|toy::main;server::run;server::accept;"
		    "conn::handle|1\n");
		ck_assert_uint_gt(g.polls, 0);
		ck_assert_msg(strstr(g.comments.data,
		                     "source: toyexec sim://local\n") != NULL,
		              "%s", g.comments.data);
		buf_fini(&g.text);
		buf_fini(&g.comments);
	}
	snprintf(p, sizeof(p), "%s/out-0003.pb.gz", work);
	ck_assert_int_ne(stat(p, &sb), 0);
	snprintf(p, sizeof(p), "%s/out.pb.gz", work);
	ck_assert_int_ne(stat(p, &sb), 0);
	rm_work(work);
}
END_TEST

Suite *suite_embed(void);
Suite *suite_embed(void)
{
	Suite *s = suite_create("embed");
	TCase *tc = tcase_create("embed");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, embed_example_end_to_end);
	suite_add_tcase(s, tc);
	return s;
}
