/* pprof against outside oracles: `go tool pprof -raw` reads our file back
 * exactly, and tests/pprofcheck (built by the Makefile) finds none of the
 * defects that pprof accepts silently.  Each skips with a reason when its
 * tool is missing. */
#define ZLIB_CONST
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "encode/pprof.h"
#include "encode/profile.pb-c.h"
#include "model/buf.h"
#include "model/model.h"
#include "tests/pprof_util.h"
#include "tests/util.h"

static const struct pt_sample input[] = {
	{ { "app.py:main:1", "app.py:serve:42", "app.py:handle:77" },
	  3,
	  "worker-1",
	  { 1500000, 200, 30, 4, 5 },
	  1 },
	{ { "app.py:main:1", "app.py:serve:42", "app.py:handle:77" },
	  3,
	  "worker-2",
	  { 500000, 100, 10, 2, 1 },
	  3 },
	{ { "app.py:main:1", "lib;semi", "worker 3" },
	  3,
	  "t 1",
	  { 7000, 0, 0, 1, 1 },
	  1 },
	{ { "app.py:main:1" }, 1, "bg", { 0, 900, 0, 9, 0 }, 2 },
};

/* What -raw must show for each sample, sorted: the five values in pprof
 * order, the stack leaf first, the labels. */
static const char *const raw_want[] = {
	"2 1 100 10 500000 | app.py:handle:77;app.py:serve:42;app.py:main:1 "
	"| task:[worker-2] | tasks:[3 tasks]",
	"4 5 200 30 1500000 | app.py:handle:77;app.py:serve:42;app.py:main:1 "
	"| task:[worker-1] | tasks:[1 tasks]",
	"1 1 0 0 7000 | worker 3;lib;semi;app.py:main:1 | task:[t 1] | "
	"tasks:[1 tasks]",
	"9 0 900 0 0 | app.py:main:1 | task:[bg] | tasks:[2 tasks]",
};

static const char fold_want[] =
    "app.py:main:1;app.py:serve:42;app.py:handle:77 2000000\n"
    "app.py:main:1;lib:semi;worker_3 7000\n";

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char full[4096];

	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (n > 0 && n < 4000) {
			snprintf(full, sizeof(full), "%.*s/%s", (int)n, path,
			         prog);
			if (access(full, X_OK) == 0)
				return true;
		}
		path = end ? end + 1 : NULL;
	}
	return false;
}

/* Runs argv (searched on PATH), appending its stdout and stderr to out and
 * err; returns the exit status (-1 if it did not exit normally). */
static int run(const char *const argv[], struct buf *out, struct buf *err)
{
	struct tu_run r;
	int rc;

	tu_run_init(&r);
	tu_run(&r, NULL, argv);
	rc = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	buf_add(out, r.out.data, r.out.len);
	buf_add(err, r.err.data, r.err.len);
	tu_run_fini(&r);
	ck_assert_int_eq(buf_status(out), STATUS_OK);
	ck_assert_int_eq(buf_status(err), STATUS_OK);
	return rc;
}

static void gzip_to_file(const struct buf *b, const char *path)
{
	z_stream zs;
	struct buf z;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(
	    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
	    Z_OK);
	buf_init(&z);
	ck_assert_int_eq(buf_reserve(&z, deflateBound(&zs, (uLong)b->len)),
	                 STATUS_OK);
	zs.next_in = (const Bytef *)b->data;
	zs.avail_in = (uInt)b->len;
	zs.next_out = (Bytef *)z.data;
	zs.avail_out = (uInt)(z.cap - 1);
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	z.len = zs.total_out;
	deflateEnd(&zs);
	ck_assert_int_eq(tu_write_file(path, z.data, z.len), STATUS_OK);
	buf_fini(&z);
}

/* Encodes the oracle input into dir/name (gzip). */
static void write_profile(const char *dir, const char *name,
                          const struct pprof_opts *o, char *path, size_t size)
{
	static const char *const comments[] = { "asynctop oracle test" };
	struct window_meta meta;
	const struct window *w;
	struct model *m;
	struct buf b;

	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < ARRAY_SIZE(input); i++)
		pt_add_in(m, &input[i]);
	memset(&meta, 0, sizeof(meta));
	meta.time_nanos = INT64_C(1700000000000000000);
	meta.duration_nanos = INT64_C(5000000000);
	meta.comments = comments;
	meta.ncomments = 1;
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	buf_init(&b);
	ck_assert_int_eq(pprof_encode(m, w, o, &b), STATUS_OK);
	snprintf(path, size, "%s/%s", dir, name);
	gzip_to_file(&b, path);
	buf_fini(&b);
	model_free(m);
}

static int cmp_str(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(*x, *y);
}

/* The name of location id in the -raw "Locations" section. */
static void raw_location(const char *text, unsigned long id, char *name,
                         size_t size)
{
	const char *p = strstr(text, "\nLocations\n");
	char key[32];

	ck_assert_ptr_nonnull(p);
	snprintf(key, sizeof(key), "\n%6lu: 0x0 M=1 ", id);
	p = strstr(p, key);
	ck_assert_msg(p != NULL, "location %lu not listed", id);
	p += strlen(key);
	const char *end = strstr(p, " :0 s=0\n");
	ck_assert_ptr_nonnull(end);
	snprintf(name, size, "%.*s", (int)(end - p), p);
}

/* Rewrites each sample of the -raw dump as "values | stack | labels". */
static size_t parse_raw(const char *text, char lines[][256], size_t max)
{
	static const char header[] =
	    "\npolls/count wakes/count busy/nanoseconds "
	    "scheduled/nanoseconds idle/nanoseconds[dflt]\n";
	const char *p = strstr(text, header);
	size_t n = 0;

	ck_assert_msg(p != NULL, "no [dflt] header on idle:\n%s", text);
	p += strlen(header);
	while (*p == ' ' && n < max) {
		char *end, *o = lines[n];
		size_t room = 256;
		int w;
		for (int k = 0; k < 5; k++) {
			long long v = strtoll(p, &end, 10);
			ck_assert_ptr_ne(end, p);
			w = snprintf(o, room, k ? " %lld" : "%lld", v);
			o += w;
			room -= (size_t)w;
			p = end;
		}
		ck_assert_int_eq(*p, ':');
		p++;
		w = snprintf(o, room, " |");
		o += w;
		room -= (size_t)w;
		for (int first = 1; *p == ' ' && p[1] != '\n'; first = 0) {
			char name[128];
			unsigned long id = strtoul(p, &end, 10);
			ck_assert_ptr_ne(end, p);
			p = end;
			raw_location(text, id, name, sizeof(name));
			w = snprintf(o, room, first ? " %s" : ";%s", name);
			o += w;
			room -= (size_t)w;
		}
		p = strchr(p, '\n') + 1;
		while (!strncmp(p, "                ", 16)) {
			const char *eol = strchr(p, '\n');
			w = snprintf(o, room, " | %.*s", (int)(eol - p - 16),
			             p + 16);
			o += w;
			room -= (size_t)w;
			p = eol + 1;
		}
		n++;
	}
	return n;
}

/* `go tool pprof -symbolize=none -raw path`: its output into out
 * (initialised here); fails the test, showing its stderr, unless it
 * exits 0. */
static void pprof_raw(const char *path, struct buf *out)
{
	const char *const argv[] = { "go",   "tool", "pprof", "-symbolize=none",
		                     "-raw", path,   NULL };
	struct buf err;
	int rc;

	buf_init(out);
	buf_init(&err);
	rc = run(argv, out, &err);
	ck_assert_msg(rc == 0, "go tool pprof: rc %d: %s", rc, buf_cstr(&err));
	buf_fini(&err);
}

START_TEST(go_tool_pprof_raw)
{
	char dir[4096], path[4200], lines[8][256];
	const char *got[8];
	struct buf out;
	size_t n;

	if (!on_path("go")) {
		tu_skip("go_tool_pprof_raw", "go is not on PATH");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "w.pb.gz", NULL, path, sizeof(path));
	pprof_raw(path, &out);
	ck_assert_ptr_nonnull(
	    strstr(buf_cstr(&out), "Comment: asynctop oracle test\n"));
	ck_assert_ptr_nonnull(
	    strstr(buf_cstr(&out), "PeriodType: polls count\nPeriod: 1\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "Duration: 5s\n"));
	ck_assert_ptr_nonnull(strstr(
	    buf_cstr(&out), "Mappings\n1: 0x0/0x0/0x0 asynctop  [FN]\n"));
	n = parse_raw(buf_cstr(&out), lines, 8);
	ck_assert_uint_eq(n, ARRAY_SIZE(raw_want));
	for (size_t i = 0; i < n; i++)
		got[i] = lines[i];
	qsort(got, n, sizeof(*got), cmp_str);
	{
		const char *want[ARRAY_SIZE(raw_want)];
		memcpy(want, raw_want, sizeof(want));
		qsort(want, n, sizeof(*want), cmp_str);
		for (size_t i = 0; i < n; i++)
			ck_assert_str_eq(got[i], want[i]);
	}
	buf_fini(&out);
	tu_rmtree(dir);
}
END_TEST

static const char *checker(const char *test)
{
	const char *p = getenv("ASYNCTOP_PPROFCHECK");

	if (!p || !*p || access(p, X_OK) != 0) {
		tu_skip(test, "ASYNCTOP_PPROFCHECK is not an executable (go or "
		              "golang-github-google-pprof-dev missing?)");
		return NULL;
	}
	return p;
}

static int check_file(const char *tool, const char *flag, const char *arg,
                      const char *path, struct buf *out)
{
	const char *argv[5];
	struct buf err;
	int rc, i = 0;

	argv[i++] = tool;
	if (flag)
		argv[i++] = flag;
	if (arg)
		argv[i++] = arg;
	argv[i++] = path;
	argv[i] = NULL;
	buf_init(out);
	buf_init(&err);
	rc = run(argv, out, &err);
	if (err.len)
		fprintf(stderr, "pprofcheck: %s", buf_cstr(&err));
	buf_fini(&err);
	return rc;
}

START_TEST(pprofcheck_accepts_and_folds)
{
	const char *tool = checker("pprofcheck_accepts_and_folds");
	struct pprof_opts omit = { .omit_task = true };
	char dir[4096], path[4200];
	struct buf out;

	if (!tool)
		return;
	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "w.pb.gz", NULL, path, sizeof(path));
	ck_assert_int_eq(check_file(tool, NULL, NULL, path, &out), 0);
	ck_assert_str_eq(buf_cstr(&out), "ok: 4 samples, 5 locations\n");
	buf_fini(&out);
	ck_assert_int_eq(check_file(tool, "-fold", "idle", path, &out), 0);
	ck_assert_str_eq(buf_cstr(&out), fold_want);
	buf_fini(&out);
	write_profile(dir, "notask.pb.gz", &omit, path, sizeof(path));
	ck_assert_int_eq(check_file(tool, "-notask", NULL, path, &out), 0);
	ck_assert_str_eq(buf_cstr(&out), "ok: 3 samples, 5 locations\n");
	buf_fini(&out);
	tu_rmtree(dir);
}
END_TEST

/* Grouped by spawn stack, then by parked-at stack: what -raw must show
 * for each sample, sorted (see raw_want).  By spawn stack, w1's two tasks
 * parked at the same leaf are one sample, their figures folded; by
 * parked-at stack they are two. */
static const char *const labels_want[2][4] = {
	{ "0 0 0 0 150 | app:serve;app:main | "
	  "parked_at:[asyncio:Lock.acquire] task:[w1] | "
	  "max_poll:[900 nanoseconds] self_wakes:[2 count] tasks:[2 tasks]",
	  "0 0 0 0 30 | app:main | parked_at:[asyncio:sleep] task:[bg] | "
	  "no_waker:[0 count] tasks:[1 tasks] wakers:[1 count]",
	  "0 0 7 0 0 | app:serve;app:main | task:[w2] | tasks:[1 tasks]" },
	{ "0 0 0 0 100 | asyncio:Lock.acquire;app:handle | "
	  "spawned_at:[app:serve] task:[w1] | max_poll:[500 nanoseconds] "
	  "self_wakes:[2 count] tasks:[1 tasks]",
	  "0 0 0 0 30 | asyncio:sleep | spawned_at:[app:main] task:[bg] | "
	  "no_waker:[0 count] tasks:[1 tasks] wakers:[1 count]",
	  "0 0 0 0 50 | asyncio:Lock.acquire;lib:other | "
	  "spawned_at:[app:serve] task:[w1] | max_poll:[900 nanoseconds] "
	  "tasks:[1 tasks]",
	  "0 0 7 0 0 | [not parked] | spawned_at:[app:serve] task:[w2] | "
	  "tasks:[1 tasks]" },
};

/* The leaf of the other stack and the figures, as go tool pprof reads them,
 * and pprofcheck's verdict, under both groupings. */
START_TEST(go_tool_pprof_labels)
{
	static const struct grouping gs[2] = { { .key = GROUP_SPAWN },
		                               { .key = GROUP_PARKED } };
	const char *tool = checker("go_tool_pprof_labels");
	char dir[4096], path[4200], lines[8][256];
	const struct window *w, *g;
	struct model *m;

	if (!on_path("go") || !tool) {
		tu_skip("go_tool_pprof_labels", "go or pprofcheck missing");
		return;
	}
	tu_mkdtemp(dir, sizeof(dir));
	m = pt_parked_model(&w);
	for (size_t k = 0; k < 2; k++) {
		const char *got[8] = { NULL };
		struct buf b, out;
		size_t n;

		ck_assert_int_eq(model_group(m, w, gs[k], &g), STATUS_OK);
		pt_encode_ok(m, g, NULL, &b);
		snprintf(path, sizeof(path), "%s/g%zu.pb.gz", dir, k);
		gzip_to_file(&b, path);
		buf_fini(&b);
		model_group_free(g);
		pprof_raw(path, &out);
		n = parse_raw(buf_cstr(&out), lines, 8);
		ck_assert_uint_eq(n, k ? 4 : 3);
		for (size_t i = 0; i < n; i++)
			got[i] = lines[i];
		qsort(got, n, sizeof(*got), cmp_str);
		for (size_t i = 0; i < n; i++)
			ck_assert_str_eq(got[i], labels_want[k][i]);
		buf_fini(&out);
		ck_assert_int_eq(check_file(tool, NULL, NULL, path, &out), 0);
		ck_assert_str_eq(buf_cstr(&out),
		                 k ? "ok: 4 samples, 5 locations\n"
		                   : "ok: 3 samples, 2 locations\n");
		buf_fini(&out);
	}
	model_free(m);
	tu_rmtree(dir);
}
END_TEST

/* The checker itself must catch what pprof lets through. */
START_TEST(pprofcheck_catches_defects)
{
	const char *tool = checker("pprofcheck_catches_defects");
	char dir[4096], path[4200];
	Perftools__Profiles__Profile *p;
	struct buf b, z, out;

	if (!tool)
		return;
	tu_mkdtemp(dir, sizeof(dir));
	write_profile(dir, "w.pb.gz", NULL, path, sizeof(path));
	buf_init(&z);
	ck_assert_int_eq(tu_read_file(path, &z), STATUS_OK);
	/* inflate it back with zlib, break it, write it again */
	{
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
		buf_init(&b);
		ck_assert_int_eq(buf_reserve(&b, 1 << 16), STATUS_OK);
		zs.next_in = (const Bytef *)z.data;
		zs.avail_in = (uInt)z.len;
		zs.next_out = (Bytef *)b.data;
		zs.avail_out = 1 << 16;
		ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
		b.len = zs.total_out;
		inflateEnd(&zs);
	}
	p = perftools__profiles__profile__unpack(NULL, b.len,
	                                         (const uint8_t *)b.data);
	ck_assert_ptr_nonnull(p);
	for (size_t k = 0; k < p->sample[0]->n_value; k++)
		p->sample[0]->value[k] = 0;
	p->sample[1]->value[0] = -5;
	p->function[1]->name = p->function[0]->name;
	p->function[1]->system_name = p->function[0]->system_name;
	p->default_sample_type = p->sample_type[0]->unit;
	p->sample[2]->n_location_id = 0;
	buf_reset(&b);
	ck_assert_int_eq(
	    buf_reserve(&b, perftools__profiles__profile__get_packed_size(p)),
	    STATUS_OK);
	b.len = perftools__profiles__profile__pack(p, (uint8_t *)b.data);
	perftools__profiles__profile__free_unpacked(p, NULL);
	snprintf(path, sizeof(path), "%s/bad.pb.gz", dir);
	gzip_to_file(&b, path);
	ck_assert_int_eq(check_file(tool, NULL, NULL, path, &out), 1);
	ck_assert_msg(
	    strstr(buf_cstr(&out), "sample 0 has only zero values") &&
	        strstr(buf_cstr(&out), "negative value -5") &&
	        strstr(buf_cstr(&out), "functions 1 and 2 are the same") &&
	        strstr(buf_cstr(&out), "default sample type \"count\"") &&
	        strstr(buf_cstr(&out), "sample 2 has an empty stack"),
	    "%s", buf_cstr(&out));
	buf_fini(&out);
	buf_fini(&b);
	buf_fini(&z);
	tu_rmtree(dir);
}
END_TEST

Suite *suite_pprof_oracle(void);
Suite *suite_pprof_oracle(void)
{
	Suite *s = suite_create("pprof_oracle");
	TCase *tc = tcase_create("oracle");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, go_tool_pprof_raw);
	tcase_add_test(tc, pprofcheck_accepts_and_folds);
	tcase_add_test(tc, pprofcheck_catches_defects);
	tcase_add_test(tc, go_tool_pprof_labels);
	suite_add_tcase(s, tc);
	return s;
}
