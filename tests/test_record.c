/* `asynctop record` end to end: the real binary ($ASYNCTOP_BIN) through
 * fork/exec, and asynctop_main with test producers in forked children.
 * Every exit status, numbering, replay byte for byte, a directory with a
 * bad file, text and collapsed output, --force, and SIGINT synchronised on
 * the test event channel (never on sleeps). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/asynctop.h"
#include "encode/gzip.h"
#include "encode/pprof.h"
#include "model/buf.h"
#include "model/window.h"
#include "tests/util.h"

/* How long any one child may take: generous, only against hangs. */
#define CHILD_LIMIT_S 60

/* ---- test producers ----------------------------------------------------- */

enum toy_mode {
	TOY_DATA,      /* two tasks every window */
	TOY_EMPTY,     /* nothing, ever */
	TOY_EMPTY_2ND, /* nothing in window 2 */
	TOY_UNREACHABLE,
	/* never reachable */ TOY_LOST_2ND, /* data, then unreachable from
	                                       window 2 */
	TOY_HANG_2ND, /* data, then window 2 never returns */
};

struct toy {
	enum toy_mode mode;
	int calls;
};

static struct asynctop_str str(const char *s)
{
	struct asynctop_str v = { s, strlen(s) };
	return v;
}

static enum asynctop_result toy_produce(void *user, struct asynctop_window *w)
{
	struct toy *t = user;
	struct asynctop_str f1[2] = { str("main"), str("serve") };
	struct asynctop_str f2[3] = { str("main"), str("serve"), str("conn") };
	struct asynctop_sample s;
	int call = ++t->calls;

	if (t->mode == TOY_UNREACHABLE ||
	    (t->mode == TOY_LOST_2ND && call >= 2)) {
		asynctop_window_explain(w, "connection refused",
		                        "is the toy runtime running?");
		return ASYNCTOP_UNREACHABLE;
	}
	if (t->mode == TOY_HANG_2ND && call >= 2)
		for (;;)
			pause(); /* the worker blocks every signal */
	asynctop_window_wait(w);
	if (t->mode == TOY_EMPTY || (t->mode == TOY_EMPTY_2ND && call == 2))
		return ASYNCTOP_OK;
	memset(&s, 0, sizeof(s));
	s.frames = f1;
	s.depth = 2;
	s.task = str("listener");
	s.idle_ns = 7000000;
	s.busy_ns = 1000000;
	s.scheduled_ns = 20000;
	s.polls = 3;
	s.wakes = 2;
	s.tasks = 1;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	s.frames = f2;
	s.depth = 3;
	s.task = str("");
	s.idle_ns = 2000000;
	s.busy_ns = 3000000;
	s.polls = 9;
	s.wakes = 9;
	s.tasks = 4;
	ck_assert_int_eq(asynctop_window_add(w, &s), 0);
	return ASYNCTOP_OK;
}

/* ---- running children ---------------------------------------------------- */

struct run {
	char dir[512];
	int code;       /* exit status, or 128 + signal */
	struct buf out; /* the child's stdout */
	struct buf err; /* the child's stderr */
};

static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	tu_mkdtemp(r->dir, sizeof(r->dir));
	buf_init(&r->out);
	buf_init(&r->err);
}

static void run_fini(struct run *r)
{
	char sub[640];

	buf_fini(&r->out);
	buf_fini(&r->err);
	/* one level of subdirectories (replay inputs) */
	snprintf(sub, sizeof(sub), "%s/in", r->dir);
	tu_rmtree(sub);
	tu_rmtree(r->dir);
}

static void path_in(char *dst, size_t size, const struct run *r,
                    const char *name)
{
	int n = snprintf(dst, size, "%s/%s", r->dir, name);
	ck_assert(n > 0 && (size_t)n < size);
}

static bool exists(const struct run *r, const char *name)
{
	char p[640];
	struct stat sb;

	path_in(p, sizeof(p), r, name);
	return lstat(p, &sb) == 0;
}

/* In the child: cwd, stdin, stdout and stderr. */
static void child_setup(const struct run *r)
{
	char p[640];
	int fd;

	if (chdir(r->dir) < 0)
		_exit(120);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		_exit(121);
	snprintf(p, sizeof(p), "%s/.stdout", r->dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 1) < 0)
		_exit(122);
	snprintf(p, sizeof(p), "%s/.stderr", r->dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(123);
	alarm(CHILD_LIMIT_S);
}

static void collect_child(struct run *r, pid_t pid)
{
	char p[640];
	int status;

	while (waitpid(pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	if (WIFEXITED(status))
		r->code = WEXITSTATUS(status);
	else
		r->code = 128 + WTERMSIG(status);
	buf_reset(&r->out);
	buf_reset(&r->err);
	snprintf(p, sizeof(p), "%s/.stdout", r->dir);
	ck_assert_int_eq(tu_read_file(p, &r->out), STATUS_OK);
	snprintf(p, sizeof(p), "%s/.stderr", r->dir);
	ck_assert_int_eq(tu_read_file(p, &r->err), STATUS_OK);
	buf_cstr(&r->out);
	buf_cstr(&r->err);
	unlink(p);
	snprintf(p, sizeof(p), "%s/.stdout", r->dir);
	unlink(p);
}

static const char *bin(void)
{
	const char *b = getenv("ASYNCTOP_BIN");
	return b && *b && access(b, X_OK) == 0 ? b : NULL;
}

/* Starts the real binary with argv (NULL-terminated; argv[0] is replaced)
 * and events (NULL: none) as ASYNCTOP_TEST_EVENTS. */
static pid_t start_bin(struct run *r, const char *const *argv,
                       const char *events)
{
	char *args[32];
	size_t n = 0;
	pid_t pid;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	memcpy(args, argv, (n + 1) * sizeof(*argv));
	args[0] = (char *)(uintptr_t)bin();
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_setup(r);
		if (events)
			setenv("ASYNCTOP_TEST_EVENTS", events, 1);
		else
			unsetenv("ASYNCTOP_TEST_EVENTS");
		execv(args[0], args);
		_exit(127);
	}
	return pid;
}

static void run_bin(struct run *r, const char *const *argv)
{
	collect_child(r, start_bin(r, argv, NULL));
}

/* asynctop_main in a forked child with the toy adapter (mode). */
static pid_t start_main(struct run *r, const char *const *argv,
                        enum toy_mode mode, const char *events)
{
	char *args[32];
	size_t n = 0;
	pid_t pid;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	memcpy(args, argv, (n + 1) * sizeof(*argv));
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct toy t = { mode, 0 };
		struct asynctop_adapter a = {
			.abi = ASYNCTOP_ABI_VERSION,
			.name = "toy",
			.summary = "test producer",
			.default_endpoint = "sim://t",
			.produce = toy_produce,
			.user = &t,
		};
		int code;

		child_setup(r);
		if (events)
			setenv("ASYNCTOP_TEST_EVENTS", events, 1);
		else
			unsetenv("ASYNCTOP_TEST_EVENTS");
		code = asynctop_main((int)n, args, &a, 1);
		fflush(NULL);
		_exit(code);
	}
	return pid;
}

static void run_main(struct run *r, const char *const *argv, enum toy_mode mode)
{
	collect_child(r, start_main(r, argv, mode, NULL));
}

#define ASSERT_ERR_HAS(r, s)                                                   \
	ck_assert_msg(strstr((r)->err.data ? (r)->err.data : "", (s)) != NULL, \
	              "stderr lacks \"%s\":\n%s", (s),                         \
	              (r)->err.data ? (r)->err.data : "")

#define SKIP_WITHOUT_BIN(name)                                           \
	do {                                                             \
		if (!bin()) {                                            \
			tu_skip(name, "ASYNCTOP_BIN is not set to the "  \
			              "asynctop binary (run via make)"); \
			return;                                          \
		}                                                        \
	} while (0)

static bool wait_event(int fd, struct buf *seen, const char *want);

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
static void load(const struct run *r, const char *name, struct seen *z)
{
	struct sample_sink sink;
	char p[640], err[256];

	memset(z, 0, sizeof(*z));
	sink.sample = seen_sample;
	sink.meta = seen_meta;
	sink.ctx = z;
	buf_init(&z->text);
	buf_init(&z->comments);
	path_in(p, sizeof(p), r, name);
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

/* The decompressed bytes of a saved profile. */
static void gunzip_file(const struct run *r, const char *name, struct buf *out)
{
	struct buf raw;
	char p[640], err[256];

	buf_init(&raw);
	path_in(p, sizeof(p), r, name);
	ck_assert_int_eq(tu_read_file(p, &raw), STATUS_OK);
	ck_assert(gzip_is(raw.data, raw.len));
	ck_assert_int_eq(
	    gzip_decompress(raw.data, raw.len, 0, out, err, sizeof(err)),
	    STATUS_OK);
	buf_fini(&raw);
}

/* ---- exit 0, numbering, comments ------------------------------------------
 */

START_TEST(record_numbered_windows)
{
	const char *argv[] = { "toytop", "record",    "-a", "toy",
		               "-w",     "0.1",       "-n", "3",
		               "-o",     "out.pb.gz", NULL };
	struct run r;
	struct seen z;

	run_init(&r);
	run_main(&r, argv, TOY_DATA);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	ck_assert_str_eq(buf_cstr(&r.err), "");
	ck_assert(exists(&r, "out-0001.pb.gz"));
	ck_assert(exists(&r, "out-0002.pb.gz"));
	ck_assert(exists(&r, "out-0003.pb.gz"));
	ck_assert(!exists(&r, "out-0004.pb.gz"));
	ck_assert(!exists(&r, "out.pb.gz"));
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
	run_fini(&r);
}
END_TEST

/* An empty window is reported, saves nothing and skips its number. */
START_TEST(record_empty_window_skips_number)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "3",      "-o",     "w.pb.gz", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, argv, TOY_EMPTY_2ND);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	ck_assert(exists(&r, "w-0001.pb.gz"));
	ck_assert(!exists(&r, "w-0002.pb.gz"));
	ck_assert(exists(&r, "w-0003.pb.gz"));
	/* the measured length, with %g: "over 0.100213s" */
	ASSERT_ERR_HAS(&r, "toytop: the toy source produced no task data "
	                   "over 0.");
	ASSERT_ERR_HAS(&r, "s. Either nothing ran, or the application is not "
	                   "instrumented");
	run_fini(&r);
}
END_TEST

/* ---- the seed's three errors: 2, 3, 4 ---------------------------------- */

START_TEST(record_exit_4_no_data)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "2",      "-o",     "e.pb.gz", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, argv, TOY_EMPTY);
	ck_assert_int_eq(r.code, 4);
	ck_assert(!exists(&r, "e-0001.pb.gz"));
	ck_assert(!exists(&r, "e-0002.pb.gz"));
	ASSERT_ERR_HAS(&r, "the toy source produced no task data over 0.");
	ASSERT_ERR_HAS(&r, "Either nothing ran, or the application is not "
	                   "instrumented \xE2\x80\x94 an empty profile and an "
	                   "idle program look identical, so this is reported "
	                   "rather than drawn.");
	run_fini(&r);
}
END_TEST

START_TEST(record_exit_3_unreachable)
{
	const char *argv[] = { "toytop", "record",  "-w", "0.1",
		               "-n",     "0",       "-e", "sim://far",
		               "-o",     "u.pb.gz", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, argv, TOY_UNREACHABLE);
	ck_assert_int_eq(r.code, 3);
	ASSERT_ERR_HAS(&r, "toytop: the toy source is not reachable at "
	                   "sim://far: connection refused\n"
	                   "is the toy runtime running?\n");
	ck_assert(!exists(&r, "u-0001.pb.gz"));
	run_fini(&r);
}
END_TEST

/* Lost after data: the saved window stays, the status is 1, not 3. */
START_TEST(record_exit_1_lost_after_data)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "0",      "-o",     "l.pb.gz", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, argv, TOY_LOST_2ND);
	ck_assert_int_eq(r.code, 1);
	ck_assert(exists(&r, "l-0001.pb.gz"));
	ck_assert(!exists(&r, "l-0002.pb.gz"));
	ASSERT_ERR_HAS(&r, "the toy source is not reachable at sim://t");
	run_fini(&r);
}
END_TEST

/* A live adapter takes one endpoint. */
START_TEST(record_exit_2_two_endpoints)
{
	const char *argv[] = { "toytop",  "record", "-e",      "sim://a", "-e",
		               "sim://b", "-o",     "t.pb.gz", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, argv, TOY_DATA);
	ck_assert_int_eq(r.code, 2);
	ck_assert_msg(strstr(r.err.data, "toytop record: ") == r.err.data, "%s",
	              r.err.data);
	ck_assert(!exists(&r, "t.pb.gz"));
	run_fini(&r);
}
END_TEST

START_TEST(record_exit_2_usage)
{
	const char *unknown[] = { "asynctop", "record",  "-a", "nope",
		                  "-o",       "x.pb.gz", NULL };
	const char *badw[] = { "asynctop", "record", "-a",      "replay", "-w",
		               "0.01",     "-o",     "x.pb.gz", NULL };
	const char *cmd[] = { "asynctop", "record",  "-a",     "replay",
		              "-e",       "x.pb.gz", "-o",     "y.pb.gz",
		              "--",       "python3", "app.py", NULL };
	const char *stdo[] = { "asynctop", "record",  "-a", "replay",
		               "-e",       "x.pb.gz", "-n", "2",
		               "-o",       "-",       NULL };
	const char *noo[] = { "asynctop", "record",  "-a", "replay",
		              "-e",       "x.pb.gz", NULL };
	const char *view[] = { "asynctop", NULL };
	const char *clamp[] = { "asynctop", "record", "-w", "90", "-a",
		                "nope",     "-o",     "x",  NULL };
	struct run r;

	SKIP_WITHOUT_BIN("record_exit_2_usage");
	run_init(&r);
	run_bin(&r, unknown);
	ck_assert_int_eq(r.code, 2);
	ck_assert_str_eq(r.err.data,
	                 "asynctop: no async profiling adapter "
	                 "named \"nope\"; available: asyncio, replay\n");
	run_bin(&r, badw);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "asynctop record: -w 0.01: the window is a number "
	                   "of seconds from 0.1 to 60");
	run_bin(&r, cmd);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "exclude each other");
	run_bin(&r, stdo);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "-o - writes one window only");
	run_bin(&r, noo);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "-o FILE is required");
	run_bin(&r, view);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "no adapter given");
	run_bin(&r, clamp);
	ck_assert_int_eq(r.code, 2);
	ASSERT_ERR_HAS(&r, "asynctop: -w 90: windows are capped at 60 s; "
	                   "using 60 s\n");
	ck_assert(!exists(&r, "x.pb.gz") && !exists(&r, "x"));

	/* the event channel tells every exit, usage errors included */
	{
		char fifo[640];
		struct buf seen;
		int fd;

		path_in(fifo, sizeof(fifo), &r, ".events");
		ck_assert_int_eq(mkfifo(fifo, 0600), 0);
		fd = open(fifo, O_RDONLY | O_NONBLOCK);
		ck_assert_int_ge(fd, 0);
		buf_init(&seen);
		collect_child(&r, start_bin(&r, badw, fifo));
		ck_assert_int_eq(r.code, 2);
		ck_assert(wait_event(fd, &seen, "exit 2"));
		ck_assert_str_eq(seen.data, "exit 2\n");
		close(fd);
		unlink(fifo);
		buf_fini(&seen);
	}
	run_fini(&r);
}
END_TEST

/* ---- replay -------------------------------------------------------------- */

/* Makes saved.pb.gz (and, when two, saved-2.pb.gz) with the toy. */
static void make_saved(struct run *r, const char *name)
{
	const char *argv[] = {
		"toytop", "record", "-w", "0.1", "-o", name, NULL
	};
	struct run t = *r;

	collect_child(&t, start_main(&t, argv, TOY_DATA, NULL));
	ck_assert_msg(t.code == 0, "exit %d: %s", t.code, t.err.data);
	r->out = t.out;
	r->err = t.err;
}

START_TEST(record_replay_byte_for_byte)
{
	const char *argv[] = { "asynctop", "record",     "-a",
		               "replay",   "-e",         "saved.pb.gz",
		               "-o",       "copy.pb.gz", NULL };
	const char *to_stdout[] = { "asynctop", "record", "-a",
		                    "replay",   "-e",     "saved.pb.gz",
		                    "-o",       "-",      NULL };
	struct buf a, b;
	struct run r;

	SKIP_WITHOUT_BIN("record_replay_byte_for_byte");
	run_init(&r);
	make_saved(&r, "saved.pb.gz");
	run_bin(&r, argv);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	buf_init(&a);
	buf_init(&b);
	gunzip_file(&r, "saved.pb.gz", &a);
	gunzip_file(&r, "copy.pb.gz", &b);
	ck_assert_uint_gt(a.len, 0);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.data, b.data, a.len) == 0);

	/* -o - writes the same gzip profile to standard output */
	run_bin(&r, to_stdout);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	ck_assert(gzip_is(r.out.data, r.out.len));
	buf_reset(&b);
	ck_assert_int_eq(gzip_decompress(r.out.data, r.out.len, 0, &b, NULL, 0),
	                 STATUS_OK);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.data, b.data, a.len) == 0);
	buf_fini(&a);
	buf_fini(&b);
	run_fini(&r);
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
	struct run r;

	SKIP_WITHOUT_BIN("record_replay_missing_file_and_force");
	run_init(&r);
	run_bin(&r, missing);
	ck_assert_int_eq(r.code, 1);
	ASSERT_ERR_HAS(&r, "asynctop: the replay source at nothere.pb.gz "
	                   "failed: No such file or directory\n");
	ck_assert(!exists(&r, "c.pb.gz"));
	make_saved(&r, "saved.pb.gz");
	run_bin(&r, nodir);
	ck_assert_int_eq(r.code, 1);
	ASSERT_ERR_HAS(&r, "asynctop: cannot save to nodir/c.pb.gz: the "
	                   "directory nodir does not exist\n");
	path_in(p, sizeof(p), &r, "c.pb.gz");
	ck_assert_int_eq(tu_write_file(p, "keep me", 7), STATUS_OK);
	run_bin(&r, again);
	ck_assert_int_eq(r.code, 1);
	ASSERT_ERR_HAS(&r, "c.pb.gz already exists; use --force to replace "
	                   "it");
	buf_init(&got);
	ck_assert_int_eq(tu_read_file(p, &got), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&got), "keep me");

	run_bin(&r, force);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	buf_init(&want);
	buf_reset(&got);
	gunzip_file(&r, "c.pb.gz", &got);
	gunzip_file(&r, "saved.pb.gz", &want);
	ck_assert_uint_eq(got.len, want.len);
	ck_assert(memcmp(got.data, want.data, got.len) == 0);
	buf_fini(&got);
	buf_fini(&want);
	run_fini(&r);
}
END_TEST

/* A directory with one bad file: the others are saved, exit 1. */
START_TEST(record_replay_directory_with_bad_file)
{
	const char *argv[] = { "asynctop", "record", "-a",      "replay", "-e",
		               "in",       "-o",     "r.pb.gz", NULL };
	struct buf a, b, x, y;
	char p[640];
	struct run r;

	SKIP_WITHOUT_BIN("record_replay_directory_with_bad_file");
	run_init(&r);
	path_in(p, sizeof(p), &r, "in");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	make_saved(&r, "in/a.pb.gz");
	make_saved(&r, "in/b.pb.gz");
	path_in(p, sizeof(p), &r, "in/bad.pb.gz");
	ck_assert_int_eq(tu_write_file(p, "\x1f\x8b\x08\x00garbage", 12),
	                 STATUS_OK);
	run_bin(&r, argv);
	ck_assert_int_eq(r.code, 1);
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
			if (!exists(&r, names[i]))
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
	run_fini(&r);
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
	struct run r;

	SKIP_WITHOUT_BIN("record_text_and_collapsed");
	run_init(&r);
	make_saved(&r, "saved.pb.gz");
	run_bin(&r, text);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	ck_assert_msg(strstr(r.out.data, "top 10 by busy\n") != NULL, "%s",
	              r.out.data);
	ck_assert(strstr(r.out.data, "top 10 by idle\n") != NULL);
	/* busy first: the section order follows -m */
	ck_assert(strstr(r.out.data, "top 10 by busy") <
	          strstr(r.out.data, "top 10 by idle"));
	ck_assert(strstr(r.out.data, "conn \xE2\x86\x90 serve \xE2\x86\x90 "
	                             "main") != NULL);

	run_bin(&r, tfile);
	ck_assert_int_eq(r.code, 0);
	ck_assert_str_eq(buf_cstr(&r.out), "");
	buf_init(&f);
	path_in(p, sizeof(p), &r, "report.txt");
	ck_assert_int_eq(tu_read_file(p, &f), STATUS_OK);
	ck_assert(strstr(buf_cstr(&f), "top 10 by idle\n") != NULL);

	run_bin(&r, coll);
	ck_assert_int_eq(r.code, 0);
	buf_reset(&f);
	path_in(p, sizeof(p), &r, "s.folded");
	ck_assert_int_eq(tu_read_file(p, &f), STATUS_OK);
	ck_assert_str_eq(buf_cstr(&f), "main;serve 7000000\n"
	                               "main;serve;conn 2000000\n");
	buf_fini(&f);
	run_fini(&r);
}
END_TEST

/* ---- SIGINT ---------------------------------------------------------------
 */

/* Reads the event channel until a line equal to want; false at EOF or
 * after the bound. */
static bool wait_event(int fd, struct buf *seen, const char *want)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%s\n", want);

	ck_assert(n > 0 && (size_t)n < sizeof(line));
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		char chunk[512];
		ssize_t k;

		buf_cstr(seen);
		if (seen->len && (strncmp(seen->data, line, (size_t)n) == 0 ||
		                  strstr(seen->data, line) != NULL))
			return true;
		if (poll(&p, 1, CHILD_LIMIT_S * 1000) <= 0)
			return false;
		k = read(fd, chunk, sizeof(chunk));
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return false;
		buf_add(seen, chunk, (size_t)k);
	}
}

START_TEST(record_sigint_saves_complete_windows)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.2", "-n",
		               "0",      "-o",     "s.pb.gz", NULL };
	struct buf seen;
	char fifo[640];
	struct run r;
	pid_t pid;
	int fd;

	run_init(&r);
	path_in(fifo, sizeof(fifo), &r, ".events");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	pid = start_main(&r, argv, TOY_DATA, fifo);
	buf_init(&seen);
	ck_assert_msg(wait_event(fd, &seen, "window 1 committed"), "events: %s",
	              buf_cstr(&seen));
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_msg(wait_event(fd, &seen, "exit 130"), "events: %s",
	              buf_cstr(&seen));
	collect_child(&r, pid);
	ck_assert_int_eq(r.code, 130);
	ck_assert_msg(strstr(seen.data, "saved s-0001.pb.gz\n") != NULL, "%s",
	              seen.data);
	ck_assert(strstr(seen.data, "signal 2\n") != NULL);
	ck_assert(exists(&r, "s-0001.pb.gz"));
	/* Every saved window is a complete one (no partial comment), and the
	 * window cut by the signal was not saved. */
	for (unsigned k = 1; k < 100; k++) {
		char name[64];
		struct seen z;

		snprintf(name, sizeof(name), "s-%04u.pb.gz", k);
		if (!exists(&r, name)) {
			snprintf(name, sizeof(name), "saved s-%04u.pb.gz\n", k);
			ck_assert(strstr(seen.data, name) == NULL);
			break;
		}
		load(&r, name, &z);
		ck_assert_uint_eq(z.n, 2);
		ck_assert(strstr(z.comments.data, "partial") == NULL);
		seen_fini(&z);
	}
	close(fd);
	unlink(fifo);
	buf_fini(&seen);
	run_fini(&r);
}
END_TEST

/* A source that will not stop: a second SIGINT stops waiting for it. */
START_TEST(record_second_sigint_abandons_hung_source)
{
	const char *argv[] = { "toytop", "record", "-w",      "0.1", "-n",
		               "0",      "-o",     "h.pb.gz", NULL };
	struct buf seen;
	char fifo[640];
	struct run r;
	pid_t pid;
	int fd;

	run_init(&r);
	path_in(fifo, sizeof(fifo), &r, ".events");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	pid = start_main(&r, argv, TOY_HANG_2ND, fifo);
	buf_init(&seen);
	ck_assert(wait_event(fd, &seen, "saved h-0001.pb.gz"));
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert(wait_event(fd, &seen, "signal 2"));
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_msg(wait_event(fd, &seen, "exit 130"), "%s", seen.data);
	collect_child(&r, pid);
	ck_assert_int_eq(r.code, 130);
	ASSERT_ERR_HAS(&r, "interrupted again: not waiting for the toy source "
	                   "to stop");
	ck_assert(exists(&r, "h-0001.pb.gz"));
	ck_assert(!exists(&r, "h-0002.pb.gz"));
	close(fd);
	unlink(fifo);
	buf_fini(&seen);
	run_fini(&r);
}
END_TEST

/* ---- adapters, help, version ----------------------------------------------
 */

START_TEST(record_adapters_help_version)
{
	const char *ad[] = { "toytop", "adapters", NULL };
	struct run r;

	run_init(&r);
	run_main(&r, ad, TOY_DATA);
	ck_assert_int_eq(r.code, 0);
	ck_assert_msg(strstr(r.out.data, "ADAPTER") == r.out.data, "%s",
	              r.out.data);
	ck_assert(strstr(r.out.data, "\nreplay ") != NULL);
	ck_assert(strstr(r.out.data, "(-e required)") != NULL);
	ck_assert(strstr(r.out.data, "\ntoy ") != NULL);
	ck_assert(strstr(r.out.data, "sim://t") != NULL);
	ck_assert(strstr(r.out.data, "test producer\n") != NULL);
	ck_assert(strstr(r.out.data, "custom") == NULL);
	if (bin()) {
		const char *ver[] = { "asynctop", "--version", NULL };
		const char *help[] = { "asynctop", "record", "--help", NULL };

		run_bin(&r, ver);
		ck_assert_int_eq(r.code, 0);
		ck_assert_str_eq(r.out.data, "asynctop " ASYNCTOP_VERSION "\n");
		run_bin(&r, help);
		ck_assert_int_eq(r.code, 0);
		ck_assert(strstr(r.out.data, "usage: asynctop record") ==
		          r.out.data);
		ck_assert(strstr(r.out.data, "--force") != NULL);
	}
	run_fini(&r);
}
END_TEST

Suite *suite_record(void);
Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("record");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, record_numbered_windows);
	tcase_add_test(tc, record_empty_window_skips_number);
	tcase_add_test(tc, record_exit_4_no_data);
	tcase_add_test(tc, record_exit_3_unreachable);
	tcase_add_test(tc, record_exit_1_lost_after_data);
	tcase_add_test(tc, record_exit_2_usage);
	tcase_add_test(tc, record_exit_2_two_endpoints);
	tcase_add_test(tc, record_replay_byte_for_byte);
	tcase_add_test(tc, record_replay_missing_file_and_force);
	tcase_add_test(tc, record_replay_directory_with_bad_file);
	tcase_add_test(tc, record_text_and_collapsed);
	tcase_add_test(tc, record_sigint_saves_complete_windows);
	tcase_add_test(tc, record_second_sigint_abandons_hung_source);
	tcase_add_test(tc, record_adapters_help_version);
	suite_add_tcase(s, tc);
	return s;
}
