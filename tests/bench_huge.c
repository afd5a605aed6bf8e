/* make bench: the worst key latency of the real viewer while huge windows
 * arrive and while they are saved, against its key latency with nothing
 * arriving, in the same run (issue 14: keys answer within 50 ms).
 *
 * The viewer runs on a pseudo-terminal (200x50) with a producer "huge" of
 * BENCH_STACKS distinct three-frame stacks per window; keys (j and k) are
 * written to it every KEY_MS, and a key's latency is the time from its
 * write to the first "drawn" event after its "action" event on the test
 * event channel (docs/design.md §10).  Three cases:
 *   baseline  10 stacks a window, nothing else happening;
 *   arrivals  1,000,000 stacks a window, until 3 windows are committed;
 *   saves     one window of 1,000,000 stacks (30 s windows, so that it
 *             shows a while), paused on (Space), then S and C
 *             among the keys, until both files are saved.
 * And (bench_huge minute) the viewer's CPU share and resident size over a
 * minute once it keeps 120 windows of 100k tasks over 10k stacks, against
 * 10 stacks in the same run (MINUTE_SECONDS, default 60).
 *   bench_huge [STACKS]              (the viewer: bench_huge viewer ARGS) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "adapters/asynctop.h"
#include "tests/bench_workload.h"

#define KEY_MS   20
#define MAX_KEYS 4096
#define WAIT_MS  120000
#define SMALL    10

/* ---- the viewer: a producer of N distinct stacks ------------------------ */

struct huge {
	unsigned long stacks; /* per window */
	unsigned long tasks;  /* samples (one task each) over the stacks */
	unsigned long big;    /* windows of that size; then SMALL (0: all) */
	unsigned long made;
};

static enum asynctop_result produce(void *user, struct asynctop_window *w)
{
	struct huge *h = user;
	unsigned long n = h->big && h->made >= h->big ? SMALL : h->stacks;
	unsigned long tasks = n == h->stacks && h->tasks ? h->tasks : n;
	struct bench_bulk b;

	/* added before the wait: a million samples take longer than the
	 * grace a producer has after its window's end */
	bench_bulk_init(&b);
	for (unsigned long t = 0; t < tasks; t++)
		if (asynctop_window_add(w, bench_bulk_sample(&b, t % n)) != 0)
			return ASYNCTOP_FAILED;
	h->made++;
	asynctop_window_wait(w);
	return ASYNCTOP_OK;
}

static int viewer(int argc, char **argv)
{
	const char *env = getenv("BENCH_STACKS"), *big = getenv("BENCH_BIG");
	const char *tasks = getenv("BENCH_TASKS");
	struct huge h = {
		.stacks = env ? strtoul(env, NULL, 10) : 1000000,
		.tasks = tasks ? strtoul(tasks, NULL, 10) : 0,
		.big = big ? strtoul(big, NULL, 10) : 0,
	};
	struct asynctop_adapter a = {
		.abi = ASYNCTOP_ABI_VERSION,
		.name = "huge",
		.summary = "N distinct stacks per window (BENCH_STACKS)",
		.default_endpoint = "bench://",
		.produce = produce,
		.user = &h,
	};

	return asynctop_main(argc, argv, &a, 1);
}

/* ---- the driver --------------------------------------------------------- */

/* One run of the viewer and what it answered. */
struct run {
	int master, events;
	pid_t pid;
	char dir[64], fifo[96];
	char line[4096];
	size_t used;
	double sent[MAX_KEYS];
	double lat[MAX_KEYS];
	size_t nsent, nacted, ndrawn; /* keys sent, acted on, drawn */
	size_t committed, saved, draws;
	double save_key_ms; /* S's own latency */
	size_t save_at;     /* the index of the S key, or SIZE_MAX */
	size_t target;      /* keys drawn that end a case */
};

static int start(struct run *r, const char *self, const char *stacks,
                 const char *big, const char *window, const char *tasks)
{
	struct winsize ws = { 50, 200, 0, 0 };
	const char *name;

	memset(r, 0, sizeof(*r));
	r->save_at = (size_t)-1;
	snprintf(r->dir, sizeof(r->dir), "/tmp/asynctop-huge.XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	snprintf(r->fifo, sizeof(r->fifo), "%s/events", r->dir);
	if (mkfifo(r->fifo, 0600) < 0)
		return -1;
	r->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (r->master < 0 || grantpt(r->master) || unlockpt(r->master) ||
	    !(name = ptsname(r->master)) ||
	    ioctl(r->master, TIOCSWINSZ, &ws) < 0)
		return -1;
	fcntl(r->master, F_SETFL, fcntl(r->master, F_GETFL) | O_NONBLOCK);
	r->events = open(r->fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->events < 0)
		return -1;
	r->pid = fork();
	if (r->pid < 0)
		return -1;
	if (r->pid == 0) {
		int fd;

		setsid();
		fd = open(name, O_RDWR); /* the controlling terminal */
		if (fd < 0)
			_exit(127);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("TERM", "xterm-256color", 1);
		setenv("ASYNCTOP_TEST_EVENTS", r->fifo, 1);
		setenv("BENCH_STACKS", stacks, 1);
		setenv("BENCH_BIG", big, 1);
		setenv("BENCH_TASKS", tasks, 1);
		execl(self, self, "viewer", "-w", window, "-d", r->dir,
		      "--history", "120", (char *)NULL);
		_exit(127);
	}
	return 0;
}

/* One event line. */
static void on_event(struct run *r, const char *ev, double t)
{
	if (getenv("BENCH_VERBOSE") && strcmp(ev, "drawn") &&
	    strncmp(ev, "action ", 7))
		fprintf(stderr,
		        "%.1f %s (keys sent %zu, acted %zu, drawn %zu)\n", t,
		        ev, r->nsent, r->nacted, r->ndrawn);
	if (!strncmp(ev, "action ", 7)) {
		if (r->nacted < r->nsent)
			r->nacted++;
	} else if (!strcmp(ev, "drawn")) {
		r->draws++;
		for (; r->ndrawn < r->nacted; r->ndrawn++) {
			r->lat[r->ndrawn] = t - r->sent[r->ndrawn];
			if (getenv("BENCH_VERBOSE") && r->lat[r->ndrawn] > 40)
				fprintf(stderr, "%.1f key %zu: %.1f ms\n", t,
				        r->ndrawn, r->lat[r->ndrawn]);
			if (r->ndrawn == r->save_at)
				r->save_key_ms = r->lat[r->ndrawn];
		}
	} else if (!strncmp(ev, "window ", 7) && strstr(ev, "committed")) {
		r->committed++;
	} else if (!strncmp(ev, "saved ", 6)) {
		r->saved++;
	}
}

/* Reads what is there (events, the screen's bytes) for up to ms. */
static void pump(struct run *r, int ms)
{
	struct pollfd p[2] = { { r->events, POLLIN, 0 },
		               { r->master, POLLIN, 0 } };
	char b[65536];
	ssize_t n;

	if (poll(p, 2, ms < 0 ? 0 : ms) <= 0)
		return;
	while (read(r->master, b, sizeof(b)) > 0)
		;
	while ((n = read(r->events, r->line + r->used,
	                 sizeof(r->line) - 1 - r->used)) > 0) {
		double t = bench_now_ms();
		char *nl;

		r->used += (size_t)n;
		r->line[r->used] = '\0';
		while ((nl = strchr(r->line, '\n'))) {
			*nl = '\0';
			on_event(r, r->line, t);
			r->used -= (size_t)(nl + 1 - r->line);
			memmove(r->line, nl + 1, r->used + 1);
		}
		if (r->used == sizeof(r->line) - 1)
			r->used = 0; /* an overlong line: dropped */
	}
}

static void key(struct run *r, char c)
{
	if (r->nsent >= MAX_KEYS)
		return;
	r->sent[r->nsent++] = bench_now_ms();
	if (write(r->master, &c, 1) != 1)
		r->nsent--;
}

/* Pumps until done(r) or WAIT_MS, sending j and k every KEY_MS; at is the
 * key (after how many) that becomes S, then C (0: none). */
static int drive(struct run *r, int (*done)(const struct run *), size_t at)
{
	double until = bench_now_ms() + WAIT_MS, next = bench_now_ms();

	while (!done(r)) {
		double t = bench_now_ms();

		if (t > until)
			return -1;
		if (t >= next) {
			size_t k = r->nsent;
			if (at && k == at)
				r->save_at = k;
			key(r, at && k == at       ? 'S'
			       : at && k == at + 1 ? 'C'
			       : k % 2             ? 'k'
			                           : 'j');
			next += KEY_MS;
		}
		pump(r, (int)(next - bench_now_ms()));
	}
	return 0;
}

/* Pumps until done(r) or WAIT_MS, sending nothing. */
static int wait_for(struct run *r, int (*done)(const struct run *))
{
	double until = bench_now_ms() + WAIT_MS;

	while (!done(r)) {
		if (bench_now_ms() > until)
			return -1;
		pump(r, 50);
	}
	return 0;
}

static int drawn(const struct run *r)
{
	return r->draws > 0;
}

static int first_commit(const struct run *r)
{
	return r->committed >= 1;
}

static int three_commits(const struct run *r)
{
	return r->committed >= 3;
}

static int hundred_keys(const struct run *r)
{
	return r->ndrawn >= r->target;
}

static int both_saved(const struct run *r)
{
	return r->saved >= 2 && r->ndrawn == r->nsent;
}

static void stop(struct run *r)
{
	int st;
	char path[160];

	key(r, 'q');
	for (int i = 0; i < 200 && waitpid(r->pid, &st, WNOHANG) == 0; i++)
		pump(r, 50);
	if (waitpid(r->pid, &st, WNOHANG) == 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &st, 0);
	}
	close(r->master);
	close(r->events);
	unlink(r->fifo);
	/* the saved files */
	snprintf(path, sizeof(path), "rm -rf -- '%s'", r->dir);
	if (fork() == 0) {
		execl("/bin/sh", "sh", "-c", path, (char *)NULL);
		_exit(127);
	}
	wait(&st);
}

/* Worst and median of keys [from, r->nsent): a key not drawn yet counts
 * as waiting until now (a viewer that never answers is not fast). */
static void figures(const struct run *r, size_t from, double *worst,
                    double *median, double *p99, size_t *over)
{
	static double v[MAX_KEYS];
	double t = bench_now_ms();
	size_t n = 0;

	for (size_t i = from; i < r->nsent; i++)
		v[n++] = i < r->ndrawn ? r->lat[i] : t - r->sent[i];
	bench_sort(v, n);
	*worst = n ? v[n - 1] : 0;
	*median = n ? v[n / 2] : 0;
	*p99 = n ? v[n * 99 / 100] : 0;
	for (*over = 0; *over < n && v[n - 1 - *over] > 50; (*over)++)
		;
}

/* CPU ns of every thread of pid so far (schedstat). */
static double cpu_ns(pid_t pid)
{
	char path[96], line[128];
	struct dirent *d;
	double sum = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/schedstat",
		         (long)pid, d->d_name);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f))
			sum += strtod(line, NULL);
		if (f)
			fclose(f);
	}
	closedir(dir);
	return sum;
}

/* A field of /proc/PID/status in KiB (VmRSS, VmHWM). */
static double status_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	double v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtod(line + n + 1, NULL);
	fclose(f);
	return v;
}

static int history_full(const struct run *r)
{
	return r->committed >= 120;
}

/* The viewer's CPU share (percent of a core) and resident size (MiB) over
 * secs seconds once it keeps 120 windows of tasks tasks over stacks
 * stacks (0.25 s windows). */
static int minute(const char *self, const char *stacks, const char *tasks,
                  double secs, double *cpu, double *rss, double *hwm)
{
	static struct run r;
	double c0, t0, until;

	if (start(&r, self, stacks, "0", "0.25", tasks) ||
	    wait_for(&r, drawn) || wait_for(&r, history_full))
		return -1;
	c0 = cpu_ns(r.pid);
	t0 = bench_now_ms();
	for (until = t0 + secs * 1e3; bench_now_ms() < until;)
		pump(&r, 100);
	*cpu = 100 * (cpu_ns(r.pid) - c0) / ((bench_now_ms() - t0) * 1e6);
	*rss = status_kib(r.pid, "VmRSS") / 1024;
	*hwm = status_kib(r.pid, "VmHWM") / 1024;
	stop(&r);
	return 0;
}

/* bench_huge minute: the CPU and RSS case of issue 14. */
static int minute_case(const char *self)
{
	const char *env = getenv("MINUTE_SECONDS");
	double secs = env ? strtod(env, NULL) : 60, bc, br, bh, sc, sr, sh;

	if (minute(self, "10000", "100000", secs, &bc, &br, &bh) ||
	    minute(self, "10", "10", secs, &sc, &sr, &sh)) {
		fprintf(stderr,
		        "bench_huge: the viewer did not keep 120 windows\n");
		return 1;
	}
	printf(
	    "viewer minute benchmark: 0.25 s windows, 120 kept, 1 Hz refresh, %.0f s measured once full, 200x50\n",
	    secs);
	printf("  %-44s %6.1f%% of a core  RSS %7.1f MiB (peak %.1f)\n",
	       "100k tasks over 10k stacks a window", bc, br, bh);
	printf("  %-44s %6.1f%% of a core  RSS %7.1f MiB (peak %.1f)\n",
	       "10 stacks (baseline)", sc, sr, sh);
	printf("  RATIOS to 10 stacks: CPU %.1f  RSS %.1f\n",
	       sc > 0 ? bc / sc : 0, sr > 0 ? br / sr : 0);
	return 0;
}

int main(int argc, char **argv)
{
	static struct run r;
	const char *stacks = argc > 1 ? argv[1] : "1000000";
	double base_w, base_m, arr_w, arr_m, save_w, save_m, save_key;
	double base_p, arr_p, save_p;
	size_t base_o, arr_o, save_o, base_n, arr_n, save_n;
	size_t from;
	char small[16];

	if (argc > 1 && !strcmp(argv[1], "viewer"))
		return viewer(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "minute"))
		return minute_case(argv[0]);
	snprintf(small, sizeof(small), "%d", SMALL);

	/* the baseline: keys with nothing arriving */
	if (start(&r, argv[0], small, "0", "5", "0") || wait_for(&r, drawn) ||
	    drive(&r, first_commit, 0))
		goto fail;
	from = r.nsent;
	r.target = from + 100;
	if (drive(&r, hundred_keys, 0))
		goto fail;
	figures(&r, from, &base_w, &base_m, &base_p, &base_o);
	base_n = r.nsent - from;
	stop(&r);

	/* arrivals: keys while windows of STACKS stacks are folded in */
	if (start(&r, argv[0], stacks, "0", "3", "0") || wait_for(&r, drawn) ||
	    drive(&r, three_commits, 0))
		goto fail;
	figures(&r, 0, &arr_w, &arr_m, &arr_p, &arr_o);
	arr_n = r.nsent;
	stop(&r);

	/* saves: one such window, paused on; S and C among the keys */
	if (start(&r, argv[0], stacks, "1", "30", "0") || wait_for(&r, drawn) ||
	    drive(&r, first_commit, 0))
		goto fail;
	key(&r, ' ');
	from = r.nsent;
	if (drive(&r, both_saved, from + 10))
		goto fail;
	figures(&r, from, &save_w, &save_m, &save_p, &save_o);
	save_n = r.nsent - from;
	save_key = r.save_key_ms;
	stop(&r);

	printf(
	    "huge viewer benchmark: key latency (write to screen drawn), keys every %d ms, 200x50\n",
	    KEY_MS);
	printf(
	    "  %-40s worst %8.1f ms  p99 %6.1f  median %5.1f  over 50 ms: %zu of %zu\n",
	    "baseline: 10 stacks, nothing arriving", base_w, base_p, base_m,
	    base_o, base_n);
	printf(
	    "  %-40s worst %8.1f ms  p99 %6.1f  median %5.1f  over 50 ms: %zu of %zu\n",
	    "arrivals: windows of STACKS stacks", arr_w, arr_p, arr_m, arr_o,
	    arr_n);
	printf(
	    "  %-40s worst %8.1f ms  p99 %6.1f  median %5.1f  over 50 ms: %zu of %zu  (S itself %.1f ms)\n",
	    "saves: S and C, STACKS samples", save_w, save_p, save_m, save_o,
	    save_n, save_key);
	printf("  (STACKS = %s; aim: worst under 50 ms in every case)\n",
	       stacks);
	printf(
	    "  RATIOS to keys with nothing arriving (worst): arrivals %.1f  saves %.1f\n",
	    base_w > 0 ? arr_w / base_w : 0, base_w > 0 ? save_w / base_w : 0);
	return 0;
fail:
	fprintf(
	    stderr,
	    "bench_huge: the viewer did not answer as expected (%zu keys sent, %zu drawn, %zu windows, %zu saved)\n",
	    r.nsent, r.ndrawn, r.committed, r.saved);
	if (r.pid > 0)
		stop(&r);
	return 1;
}
