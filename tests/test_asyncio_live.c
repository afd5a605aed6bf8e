/* The asyncio adapter end to end with the real agent: a python3 workload
 * (tests/data/asyncio_workload.py) runs phases on command, the test cuts a
 * window after each, and checks the figures against the workload's own. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/asyncio.h"
#include "adapters/worker.h"
#include "tests/adapter_util.h"
#include "tests/util.h"

extern char **environ;

#define SEC ((uint64_t)1000000000u)

struct child {
	pid_t pid;
	int in, out; /* its stdin (write end), its stdout (read end) */
	char buf[8192];
	size_t len;
};

/* name on PATH (into dst), or false; a name with a slash as it is. */
/* pyenv's shim for a version that is not selected fails when run, so a
 * python3.X is looked for among pyenv's installed versions first. */
static bool find_pyenv(const char *name, char *dst, size_t size)
{
	const char *root = getenv("PYENV_ROOT"), *home = getenv("HOME");
	char pat[4200];
	glob_t g;
	bool ok = false;

	if (strncmp(name, "python3.", 8) != 0)
		return false;
	if (root && *root)
		snprintf(pat, sizeof(pat), "%s/versions/%s*/bin/%s", root,
		         name + 6, name);
	else if (home && *home)
		snprintf(pat, sizeof(pat), "%s/.pyenv/versions/%s*/bin/%s",
		         home, name + 6, name);
	else
		return false;
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		snprintf(dst, size, "%s", g.gl_pathv[g.gl_pathc - 1]);
		ok = access(dst, X_OK) == 0;
	}
	globfree(&g);
	return ok;
}

static bool find_python(const char *name, char *dst, size_t size)
{
	const char *path = getenv("PATH");
	char dir[4096];

	if (find_pyenv(name, dst, size))
		return true;
	if (strchr(name, '/')) {
		snprintf(dst, size, "%s", name);
		return access(dst, X_OK) == 0;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(dst, size, "%s/%s", *dir ? dir : ".", name);
		if (access(dst, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* The next line of the child's stdout (without the newline), waiting at
 * most 60 s; false at EOF. */
static bool child_line(struct child *c, char *dst, size_t size)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		struct pollfd p = { c->out, POLLIN, 0 };
		ssize_t r;

		if (nl) {
			size_t n = (size_t)(nl - c->buf);

			snprintf(dst, size, "%.*s", (int)n, c->buf);
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			return true;
		}
		ck_assert_uint_lt(c->len, sizeof(c->buf));
		ck_assert_msg(poll(&p, 1, 60000) > 0,
		              "the workload printed nothing for 60 s");
		r = read(c->out, c->buf + c->len, sizeof(c->buf) - c->len);
		if (r <= 0)
			return false;
		c->len += (size_t)r;
	}
}

static void child_say(struct child *c, const char *cmd)
{
	size_t n = strlen(cmd);

	ck_assert_int_eq(write(c->in, cmd, n), (ssize_t)n);
}

static void child_start(struct child *c, const char *python, const char *xdg,
                        bool uvloop)
{
	const char *src = getenv("ASYNCTOP_SRC");
	char script[4096], pypath[4200], xdgv[4200], pathv[8192];
	char *argv[4], *envp[5];
	int in[2], out[2];
	posix_spawn_file_actions_t fa;

	tu_data_path(script, sizeof(script), "asyncio_workload.py");
	snprintf(pypath, sizeof(pypath), "PYTHONPATH=%s/adapters/asyncio",
	         src && *src ? src : ".");
	snprintf(xdgv, sizeof(xdgv), "XDG_RUNTIME_DIR=%s", xdg);
	snprintf(pathv, sizeof(pathv), "PATH=%s",
	         getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	argv[0] = (char *)(uintptr_t) "python3";
	argv[1] = script;
	argv[2] = uvloop ? (char *)(uintptr_t) "--uvloop" : NULL;
	argv[3] = NULL;
	envp[0] = pypath;
	envp[1] = xdgv;
	envp[2] = pathv;
	envp[3] = (char *)(uintptr_t) "PYTHONDONTWRITEBYTECODE=1";
	envp[4] = NULL;
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(posix_spawn(&c->pid, python, &fa, NULL, argv, envp),
	                 0);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	fcntl(c->in, F_SETFD, FD_CLOEXEC);
	fcntl(c->out, F_SETFD, FD_CLOEXEC);
}

static void child_end(struct child *c)
{
	int status;

	close(c->in);
	if (waitpid(c->pid, &status, WNOHANG) == 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
	}
	close(c->out);
}

/* One task's figures from a window, found by name. */
struct fig {
	char stack[4096];
	uint64_t v[METRIC_COUNT];
};

struct find {
	const char *name;
	struct fig f[4];
	size_t n;
};

static enum status find_sample(void *ctx, const struct sample *s)
{
	struct find *x = ctx;
	struct fig *f;
	size_t i, used = 0;

	if (s->task.len != strlen(x->name) ||
	    memcmp(s->task.ptr, x->name, s->task.len) || x->n >= 4)
		return STATUS_OK;
	f = &x->f[x->n++];
	memcpy(f->v, s->m.v, sizeof(f->v));
	f->stack[0] = '\0';
	for (i = 0; i < s->depth && used < sizeof(f->stack); i++)
		used += (size_t)snprintf(
		    f->stack + used, sizeof(f->stack) - used, "%s%.*s",
		    i ? ";" : "", (int)s->frames[i].len, s->frames[i].ptr);
	return STATUS_OK;
}

static void find(const struct worker_msg *m, const char *name, struct find *x)
{
	struct sample_sink sink = { find_sample, NULL, x };

	memset(x, 0, sizeof(*x));
	x->name = name;
	ck_assert_int_eq(worker_msg_feed(m, &sink), STATUS_OK);
}

/* The next message of kind (others but errors skipped), within 60 s. */
static struct worker_msg *await_msg(struct worker *w, enum worker_msg_kind k,
                                    uint64_t index)
{
	for (;;) {
		struct worker_msg *m = au_wait_msg(w, 60);

		ck_assert_msg(m->kind != WORKER_ERROR, "window %llu: %s: %s",
		              (unsigned long long)m->index,
		              status_name(m->err.st), m->err.detail);
		if (m->kind == k && (!index || m->index == index))
			return m;
		worker_msg_free(m);
	}
}

static uint64_t field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	ck_assert_msg(p != NULL, "no %s in \"%s\"", key, line);
	return strtoull(p + strlen(key), NULL, 10);
}

/* got lies in [want * (1 - below), want * (1 + above)].  The two sides
 * differ because a loaded machine moves a figure one way more than the
 * other: a thread preempted inside a step lengthens the step, never the
 * task's own measurement within it. */
static void within(const char *what, uint64_t got, uint64_t want, double below,
                   double above)
{
	double d = (double)got - (double)want;

	ck_assert_msg(d <= above * (double)want && -d <= below * (double)want,
	              "%s: %llu, expected %llu within -%g%% +%g%%", what,
	              (unsigned long long)got, (unsigned long long)want,
	              below * 100, above * 100);
	fprintf(stderr, "asyncio live: %s %llu vs %llu (%+.3f%%)\n", what,
	        (unsigned long long)got, (unsigned long long)want,
	        want ? 100.0 * d / (double)want : 0.0);
}

/* Runs phase (a command), cuts the window after it, returns the window. */
static struct worker_msg *phase(struct child *c, struct worker *w,
                                uint64_t *index, const char *cmd, char *line,
                                size_t size)
{
	struct worker_msg *m;

	/* a progress view of the window in progress proves that collect
	 * runs, so the cut below cannot fall between two windows */
	m = await_msg(w, WORKER_PROGRESS, *index);
	worker_msg_free(m);
	child_say(c, cmd);
	ck_assert(child_line(c, line, size));
	ck_assert_msg(!strncmp(line, "PHASE ", 6), "workload: %s", line);
	worker_end_window(w);
	m = await_msg(w, WORKER_WINDOW, *index);
	ck_assert_msg(!m->meta.partial, "partial: %s", m->meta.reason);
	(*index)++;
	return m;
}

/* The interpreters asynctop supports: python3 on PATH, /usr/bin/python3
 * when it is another, python3.12 and python3.13; uvloop where it imports. */
static const struct interp {
	const char *name;
	bool uvloop;
} interps[] = {
	{ "python3", false },    { "/usr/bin/python3", false },
	{ "python3.12", false }, { "python3.13", false },
	{ "python3", true },     { "/usr/bin/python3", true },
};

START_TEST(asyncio_live_accuracy)
{
	const struct interp *in = &interps[_i];
	char python[4200], first[4200], dir[64], line[512], ep[32], test[96];
	const char *eps[1] = { ep };
	struct adapter_config cfg;
	struct adapter_error err;
	struct worker_opts wo;
	struct adapter *a = NULL;
	struct worker *w = NULL;
	struct worker_msg *m;
	struct child c;
	struct find x;
	uint64_t index = 1, truth;
	const char *p, *q, *r;
	size_t i;

	snprintf(test, sizeof(test), "asyncio_live_accuracy %s%s", in->name,
	         in->uvloop ? " (uvloop)" : "");
	if (!find_python(in->name, python, sizeof(python))) {
		tu_skip(test, "not found");
		return;
	}
	if (!strcmp(in->name, "/usr/bin/python3") &&
	    find_python("python3", first, sizeof(first))) {
		char *rp1 = realpath(python, NULL),
		     *rp2 = realpath(first, NULL);

		if (rp1 && rp2 && !strcmp(rp1, rp2)) {
			tu_skip(test,
			        "the same interpreter as python3 on PATH");
			free(rp1);
			free(rp2);
			return;
		}
		free(rp1);
		free(rp2);
	}
	tu_mkdtemp(dir, sizeof(dir));
	line[0] = '\0';
	child_start(&c, python, dir, in->uvloop);
	if (!child_line(&c, line, sizeof(line)) ||
	    strncmp(line, "READY /", 7)) {
		/* older than 3.11, a broken shim, or no uvloop */
		tu_skip(test, !strcmp(line, "NO UVLOOP")
		                  ? "uvloop cannot be imported"
		                  : "the workload did not start (see above)");
		child_end(&c);
		tu_rmtree(dir);
		return;
	}
	fprintf(stderr, "asyncio live: running on %s%s\n", python,
	        in->uvloop ? " with uvloop" : "");
	snprintf(ep, sizeof(ep), "%ld", (long)c.pid);
	adapter_config_default(&cfg);
	ck_assert_int_eq(adapter_open(&asyncio_ops, eps, 1, &cfg, &err, &a),
	                 STATUS_OK);
	memset(&wo, 0, sizeof(wo));
	wo.window_ns = 60 * SEC;
	wo.refresh_ns = SEC / 20;
	ck_assert_int_eq(worker_start(a, &wo, &w), STATUS_OK);

	/* 10,000 x sleep(0): 10,001 polls and 10,000 wakes */
	m = phase(&c, w, &index, "1\n", line, sizeof(line));
	find(m, "spinner", &x);
	ck_assert_uint_eq(x.n, 1);
	ck_assert_msg(x.f[0].v[METRIC_POLLS] >= 10000 &&
	                  x.f[0].v[METRIC_POLLS] <= 10002,
	              "polls %llu", (unsigned long long)x.f[0].v[METRIC_POLLS]);
	ck_assert_msg(x.f[0].v[METRIC_WAKES] >= 9999 &&
	                  x.f[0].v[METRIC_WAKES] <= 10001,
	              "wakes %llu", (unsigned long long)x.f[0].v[METRIC_WAKES]);
	fprintf(stderr, "asyncio live: spinner polls %llu wakes %llu\n",
	        (unsigned long long)x.f[0].v[METRIC_POLLS],
	        (unsigned long long)x.f[0].v[METRIC_WAKES]);
	worker_msg_free(m);

	/* 5 x sleep(0.2): idle + scheduled = what the task measured.  Each
	 * gap between steps lies inside one measured sleep, but the sleeps
	 * also hold the steps' ends (preempted, they shorten idle) and the
	 * wait before the first step is scheduled time the task never sees:
	 * 10 % either way still tells a lost gap (20 %) from the truth. */
	m = phase(&c, w, &index, "2\n", line, sizeof(line));
	truth = field(line, "slept=");
	find(m, "sleeper", &x);
	ck_assert_uint_eq(x.n, 1);
	within("sleeper idle+sched ns",
	       x.f[0].v[METRIC_IDLE] + x.f[0].v[METRIC_SCHED], truth, 0.10,
	       0.10);
	worker_msg_free(m);

	/* 10 x 50 ms of CPU: busy = what the task measured.  Each step holds
	 * its burn, so busy is never less (1 % for the clocks' rounding); it
	 * is more by what the machine's load takes from the rest of a step,
	 * which on 2 loaded cores was seen to pass 3 %: a lost step (10 %)
	 * still fails below. */
	m = phase(&c, w, &index, "3\n", line, sizeof(line));
	truth = field(line, "burned=");
	find(m, "burner", &x);
	ck_assert_uint_eq(x.n, 1);
	within("burner busy ns", x.f[0].v[METRIC_BUSY], truth, 0.01, 0.25);
	worker_msg_free(m);

	/* nested spawns, root first: main -> outer -> inner -> leaf */
	m = phase(&c, w, &index, "4\n", line, sizeof(line));
	find(m, "leaf", &x);
	ck_assert_uint_eq(x.n, 1);
	fprintf(stderr, "asyncio live: leaf stack %s\n", x.f[0].stack);
	p = strstr(x.f[0].stack, ":main:");
	q = strstr(x.f[0].stack, ":outer:");
	r = strstr(x.f[0].stack, ":inner:");
	ck_assert_msg(p && q && r && p < q && q < r, "stack %s", x.f[0].stack);
	ck_assert_ptr_null(strchr(r, ';')); /* inner's frame is the leaf */
	find(m, "inner", &x);
	ck_assert_uint_eq(x.n, 1);
	ck_assert_ptr_null(strstr(x.f[0].stack, ":inner:"));
	ck_assert_ptr_nonnull(strstr(x.f[0].stack, ":outer:"));
	worker_msg_free(m);

	/* tasks queued behind a 200 ms hog wait for it, scheduled */
	m = phase(&c, w, &index, "5\n", line, sizeof(line));
	truth = field(line, "burned=");
	find(m, "queued", &x);
	ck_assert_uint_ge(x.n, 1);
	for (i = 0; i < x.n; i++) {
		ck_assert_msg(x.f[i].v[METRIC_SCHED] >= truth * 97 / 100,
		              "queued sched %llu < hog %llu",
		              (unsigned long long)x.f[i].v[METRIC_SCHED],
		              (unsigned long long)truth);
		fprintf(stderr, "asyncio live: queued sched %llu vs hog %llu\n",
		        (unsigned long long)x.f[i].v[METRIC_SCHED],
		        (unsigned long long)truth);
	}
	worker_msg_free(m);

	/* the application exits: its final snapshot ends the window */
	m = await_msg(w, WORKER_PROGRESS, index);
	worker_msg_free(m);
	child_say(&c, "q\n");
	m = await_msg(w, WORKER_WINDOW, index);
	ck_assert(m->meta.partial);
	ck_assert_str_eq(m->meta.reason, "application exited");
	worker_msg_free(m);

	worker_free(w);
	adapter_close(a);
	child_end(&c);
	snprintf(line, sizeof(line), "%s/asynctop", dir);
	rmdir(line); /* the agent removed its socket: it is empty */
	tu_rmtree(dir);
}
END_TEST

Suite *suite_asyncio_live(void);
Suite *suite_asyncio_live(void)
{
	Suite *s = suite_create("asyncio_live");
	TCase *t = tcase_create("agent");

	tcase_set_timeout(t, 300);
	tcase_add_loop_test(t, asyncio_live_accuracy, 0,
	                    (int)(sizeof(interps) / sizeof(interps[0])));
	suite_add_tcase(s, t);
	return s;
}
