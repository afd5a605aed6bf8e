/* Helpers of the launcher's end-to-end suites (test_launch.c,
 * test_launch_life.c, test_endpoint_stale.c): the real binary started on
 * the small programs of tests/data/launch/ in a private directory, its
 * events, and checks that the program and its launch directory are gone. */
#include "tests/launch_util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *lu_bin(void)
{
	const char *b = getenv("ASYNCTOP_BIN");
	return b && *b && access(b, X_OK) == 0 ? b : NULL;
}

static bool lu_have_python(void)
{
	const char *path = getenv("PATH");
	char p[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(p, sizeof(p), "%.*s/python3", (int)n, path);
		if (n && access(p, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* False (with a printed reason) when the test cannot run here. */
bool lu_can_run(const char *test)
{
	if (!lu_bin()) {
		tu_skip(test, "ASYNCTOP_BIN is not set to the built binary");
		return false;
	}
	if (!lu_have_python()) {
		tu_skip(test, "no python3 on PATH");
		return false;
	}
	return true;
}

void lu_init(struct lu_run *r)
{
	memset(r, 0, sizeof(*r));
	tu_mkdtemp(r->dir, sizeof(r->dir));
	tu_run_init(&r->p);
	buf_init(&r->events);
	/* orphans (a --kept program, a fork) become ours to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void lu_fini(struct lu_run *r)
{
	char sub[640];

	tu_run_fini(&r->p);
	buf_fini(&r->events);
	snprintf(sub, sizeof(sub), "%s/asynctop", r->dir);
	tu_rmtree(sub);
	tu_rmtree(r->dir);
}

void lu_in_dir(char *dst, size_t size, const struct lu_run *r, const char *name)
{
	int n = snprintf(dst, size, "%s/%s", r->dir, name);
	ck_assert(n > 0 && (size_t)n < size);
}

void lu_data(char *dst, size_t size, const char *name)
{
	char p[4096];

	tu_data_path(p, sizeof(p), "launch");
	snprintf(dst, size, "%s/%s", p, name);
}

/* Makes b->data a string even when b is empty. */
void lu_text(struct buf *b)
{
	buf_add(b, "", 1);
	ck_assert_int_eq(b->err, STATUS_OK);
	b->len--;
}

/* Starts asynctop with argv (argv[0] replaced) in r->dir, with TMPDIR and
 * XDG_RUNTIME_DIR there, extra "NAME=VALUE" settings (NULL-terminated, may
 * be NULL), events to events (a file or FIFO name in r->dir); r->p.pid is
 * the child. */
void lu_start(struct lu_run *r, const char *const *argv,
              const char *const *extra, const char *events)
{
	const char *const unset[] = { "ASYNCTOP_AGENT_PATH",
		                      "ASYNCTOP_ANNOUNCE_TIMEOUT", NULL };
	char tmpdir[600], xdg[620], ev[700];
	const char *args[32], *set[16] = { tmpdir, xdg, ev };
	struct tu_proc p = { .dir = r->dir,
		             .env_unset = unset,
		             .env_set = set,
		             .timeout_ms = LIMIT_S * 1000 };
	size_t n = 0, k = 3;

	while (argv[n])
		n++;
	ck_assert_uint_lt(n, 32);
	memcpy(args, argv, (n + 1) * sizeof(*argv));
	args[0] = lu_bin();
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", r->dir);
	snprintf(xdg, sizeof(xdg), "XDG_RUNTIME_DIR=%s", r->dir);
	snprintf(ev, sizeof(ev), "ASYNCTOP_TEST_EVENTS=%s", events);
	for (size_t i = 0; extra && extra[i]; i++) {
		ck_assert_uint_lt(k, 15);
		set[k++] = extra[i];
	}
	set[k] = NULL;
	tu_run_start(&r->p, &p, args);
}

/* Waits for asynctop and collects its exit status, output and events. */
void lu_collect(struct lu_run *r)
{
	char p[640];

	tu_run_wait(&r->p);
	buf_reset(&r->events);
	lu_in_dir(p, sizeof(p), r, ".events");
	(void)tu_read_file(p, &r->events);
	unlink(p);
	lu_text(&r->events);
}

/* Runs asynctop to its end (start_bin, events to a file, collect). */
void lu_run_bin(struct lu_run *r, const char *const *argv,
                const char *const *extra)
{
	lu_start(r, argv, extra, ".events");
	lu_collect(r);
}

/* The number after "WORD " in the events, or 0. */
long lu_event_pid(const struct lu_run *r, const char *word)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s ", word);
	for (p = r->events.data; p && (p = strstr(p, key)) != NULL; p++)
		if (p == r->events.data || p[-1] == '\n')
			return strtol(p + strlen(key), NULL, 10);
	return 0;
}

size_t lu_count_events(const struct lu_run *r, const char *word)
{
	size_t n = 0, l = strlen(word);
	const char *p;

	for (p = r->events.data; p && (p = strstr(p, word)) != NULL; p += l)
		if (p == r->events.data || p[-1] == '\n')
			n++;
	return n;
}

/* The program's launch directory is gone (no asynctop-launch-* left). */
void lu_assert_no_launch_dir(const struct lu_run *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strncmp(e->d_name, "asynctop-launch-", 16) != 0,
		              "launch directory left: %s", e->d_name);
	closedir(d);
}

/* kill(pid, 0) fails: the process is gone and reaped. */
void lu_assert_gone(long pid)
{
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(kill((pid_t)pid, 0) < 0 && errno == ESRCH,
	              "pid %ld is still there", pid);
}

/* Reaps an orphan of ours (we are a subreaper) and returns its status. */
int lu_reap(long pid)
{
	int status;

	while (waitpid((pid_t)pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	return status;
}

/* Windows of 1 s: the first window's budget (connect, first snapshot,
 * window, 1 s grace) must hold on a loaded 2-core machine. */
static const char *const rec_text[] = { "asynctop", "record", "-w", "1",
	                                "-n",       "1",      "-f", "text",
	                                "-o",       "-",      "--", NULL };

/* rec_text followed by cmd (NULL-terminated) into argv. */
void lu_with_command(const char **argv, size_t size, const char *const *cmd)
{
	size_t n = 0;

	for (size_t i = 0; rec_text[i]; i++)
		argv[n++] = rec_text[i];
	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	ck_assert_uint_lt(n, size);
	argv[n] = NULL;
}

bool lu_record(struct lu_run *r, const char *test, const char *const *cmd,
               const char *const *extra)
{
	const char *argv[32];

	if (!lu_can_run(test))
		return false;
	lu_with_command(argv, 32, cmd);
	lu_init(r);
	lu_run_bin(r, argv, extra);
	return true;
}

void lu_assert_exit_ok(const struct lu_run *r)
{
	ck_assert_msg(r->p.code == 0, "exit %d: %s", r->p.code, r->p.err.data);
}

long lu_announced_pid(const struct lu_run *r)
{
	long pid = lu_event_pid(r, "announced");

	ck_assert_int_eq(pid, lu_event_pid(r, "launched"));
	return pid;
}

/* What lu_wait_event waits for: a line starting with word. */
struct event_word {
	const char *word;
	long *value; /* the number after word, when not NULL */
};

/* A tu_seen_fn: a whole line starting with ctx's word arrived. */
static bool has_event(const char *text, const void *ctx)
{
	const struct event_word *e = ctx;
	const char *at;

	for (at = text; (at = strstr(at, e->word)) != NULL; at++) {
		if ((at == text || at[-1] == '\n') && strchr(at, '\n')) {
			if (e->value)
				*e->value =
				    strtol(at + strlen(e->word), NULL, 10);
			return true;
		}
	}
	return false;
}

bool lu_wait_event(int fd, struct buf *seen, const char *word, long *value)
{
	const struct event_word e = { .word = word, .value = value };

	return tu_read_until(fd, seen, has_event, &e, LIMIT_S);
}

int lu_events_fifo(struct lu_run *r, char *path, size_t size)
{
	lu_in_dir(path, size, r, ".fifo");
	return tu_fifo_open(path);
}
