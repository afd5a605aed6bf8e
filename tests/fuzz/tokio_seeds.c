/* Writes the tokio target's seeds into the directory named by argv[1]:
 * Updates packed by tests/tokio_sim_build.c, framed as fuzz_tokio.c reads
 * them, so that the fuzzer starts from streams the decoder accepts.
 * `make fuzz-seeds-tokio` runs it; the output is deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tokio_sim_build.h"

#define NS  1000000000LL
#define T0  (1700000000LL * NS)
#define MAX 65535

struct seed {
	unsigned char buf[4 * (MAX + 3)];
	size_t len;
};

static int chunk(struct seed *s, unsigned kind, const unsigned char *p,
                 size_t n)
{
	if (n > MAX || s->len + 3 + n > sizeof(s->buf))
		return -1;
	s->buf[s->len++] = (unsigned char)kind;
	s->buf[s->len++] = (unsigned char)(n & 0xff);
	s->buf[s->len++] = (unsigned char)(n >> 8);
	if (n)
		memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

static int update(struct seed *s, int64_t now, const struct tb_task *t,
                  size_t nt, const struct tb_stats *st, size_t ns,
                  uint64_t dropped)
{
	size_t n;
	uint8_t *p = tb_update(now, t, nt, st, ns, dropped, &n);
	int rc;

	if (!p)
		return -1;
	rc = chunk(s, 0, p, n);
	free(p);
	return rc;
}

static int save(const char *dir, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (fwrite(s->buf, 1, s->len, f) != s->len)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static struct tb_stats busy(uint64_t span, int64_t created, uint64_t polls)
{
	struct tb_stats st = tb_stats_none(span, created);

	st.busy = polls * 1000000u;
	st.sched = polls * 2000u;
	st.polls = polls;
	st.wakes = polls;
	st.self_wakes = polls / 3;
	st.clones = polls + 1;
	st.drops = polls;
	st.last_wake = created + (int64_t)polls * 1000;
	return st;
}

/* One task, its stats in the next Update, a window rolled between. */
static int two_windows(const char *dir)
{
	static struct seed s;
	struct tb_task t = { .span = 1,
		             .kind = "task",
		             .name = "serve",
		             .file = "src/main.rs",
		             .line = 4,
		             .col = 9,
		             .task_id = 7 };
	struct tb_stats st = busy(1, T0, 3);
	int rc = update(&s, T0 + NS, &t, 1, NULL, 0, 0);

	rc |= chunk(&s, 1, NULL, 0);
	rc |= update(&s, T0 + 2 * NS, NULL, 0, &st, 1, 0);
	st = busy(1, T0, 9);
	st.dropped = T0 + 3 * NS;
	rc |= update(&s, T0 + 3 * NS, NULL, 0, &st, 1, 2);
	rc |= chunk(&s, 2, NULL, 0);
	return rc | save(dir, "two-windows", &s);
}

/* Span ids reused by new tasks, stats before their task, a reconnect. */
static int churn(const char *dir)
{
	static struct seed s;
	struct tb_task t[3] = {
		{ .span = 5, .kind = "blocking", .spawn_location = "x.rs:1:2" },
		{ .span = 6,
		  .name = "\x1b[31mred\xff",
		  .file = "/home/u/.cargo/registry/src/a/b.rs",
		  .line = 1 },
		{ .span = 5, .kind = "local", .name = "again" },
	};
	struct tb_stats st[2] = { busy(5, T0, 1), busy(9, T0, 2) };
	int rc = update(&s, T0 + NS, t, 2, st, 2, 0);

	rc |= update(&s, T0 + 2 * NS, &t[2], 1, &st[1], 1, 1);
	rc |= chunk(&s, 1, NULL, 0);
	rc |= chunk(&s, 3, NULL, 0);
	rc |= update(&s, T0 + 4 * NS, &t[2], 1, st, 1, 0);
	return rc | save(dir, "churn", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tokio-seeds DIR\n");
		return 2;
	}
	if (two_windows(argv[1]) != 0 || churn(argv[1]) != 0) {
		fprintf(stderr, "tokio-seeds: cannot write the seeds in %s\n",
		        argv[1]);
		return 1;
	}
	return 0;
}
