/* The tokio adapter's ingest benchmark (make bench): decoding and applying
 * a first Update of 100,000 tasks, and a tick in which all 100,000 changed,
 * against protobuf-c unpacking (and freeing) the same bytes alone; then the
 * resident memory the state adds at 100,000 tasks.
 *   bench_tokio [RUNS]    prints "key value" lines for tests/bench/run.sh */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/tokio/instrument.pb-c.h"
#include "adapters/tokio_int.h"
#include "tests/bench_workload.h"
#include "tests/tokio_sim_build.h"

enum { NTASKS = 100000, MAXRUNS = 32 };

#define S ((int64_t)1000000000)

static const char prog[] = "bench_tokio";

/* VmRSS of this process, in bytes. */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	size_t n = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 &&
		    sscanf(line + n, "%ld", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static long rss(void)
{
	return status_kb("VmRSS:");
}

/* The first Update (every task and its stats) or a tick (every task's
 * stats changed), as a subscriber of 100,000 busy tasks sends them. */
static uint8_t *build(bool first, int64_t now, size_t *len)
{
	struct tb_task *t = first ? calloc(NTASKS, sizeof(*t)) : NULL;
	struct tb_stats *s = calloc(NTASKS, sizeof(*s));
	static char names[8][32];
	uint8_t *b;
	size_t i;

	if ((first && !t) || !s) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	for (i = 0; i < 8; i++)
		snprintf(names[i], sizeof(names[i]), "handler-%zu", i);
	for (i = 0; i < NTASKS; i++) {
		uint64_t span = (i + 1) * 4096 + 1;

		if (first)
			t[i] = (struct tb_task){
				.span = span,
				.kind = "task",
				.name = "",
				.task_id = i + 1,
				.file =
				    "/home/dev/.cargo/registry/src/index.crates.io-6f17d22bba15001f/hyper-1.4.1/src/proto/h1/dispatch.rs",
				.line = (uint32_t)(100 + i % 50),
				.col = 9,
			};
		s[i] = tb_stats_none(span, now - 10 * S);
		s[i].polls = 100 + i;
		s[i].wakes = 99 + i;
		s[i].self_wakes = i % 3;
		s[i].clones = 5;
		s[i].drops = 4;
		s[i].busy = 2 * S;
		s[i].sched = S;
		s[i].started = now - S / 2;
		s[i].ended = now - S / 4;
		s[i].last_wake = now - S / 3;
	}
	b = tb_update(now, t, first ? NTASKS : 0, s, NTASKS, 0, len);
	free(t);
	free(s);
	if (!b) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return b;
}

static double unpack(const uint8_t *b, size_t len)
{
	double t0 = bench_now_ms();
	Rs__Tokio__Console__Instrument__Update *u =
	    rs__tokio__console__instrument__update__unpack(NULL, len, b);

	if (!u) {
		fprintf(stderr, "%s: the Update does not unpack\n", prog);
		exit(1);
	}
	rs__tokio__console__instrument__update__free_unpacked(u, NULL);
	return bench_now_ms() - t0;
}

static double apply(struct tokio_state *st, const uint8_t *b, size_t len)
{
	char err[256];
	double t0 = bench_now_ms();

	bench_check(prog, tokio_state_apply(st, b, len, err, sizeof(err)), err);
	return bench_now_ms() - t0;
}

static enum status count(void *ctx, const struct sample *s)
{
	(void)s;
	(*(size_t *)ctx)++;
	return STATUS_OK;
}

int main(int argc, char **argv)
{
	int runs = bench_runs(argc, argv, 5, MAXRUNS), r;
	double tu1[MAXRUNS], ta1[MAXRUNS], tu2[MAXRUNS], ta2[MAXRUNS],
	    te[MAXRUNS];
	size_t len1, len2, n = 0;
	uint8_t *first = build(true, 100 * S, &len1);
	uint8_t *tick = build(false, 101 * S, &len2);
	struct sample_sink sink = { .sample = count, .ctx = &n };
	struct tokio_state st;
	long before, after;

	/* memory first, before any bare unpack has grown the heap */
	before = rss();
	tokio_state_init(&st);
	(void)apply(&st, first, len1);
	tokio_state_roll(&st);
	(void)apply(&st, tick, len2);
	after = rss();
	for (r = 0; r < runs; r++) {
		tu1[r] = unpack(first, len1);
		tokio_state_reset(&st);
		ta1[r] = apply(&st, first, len1);
		tokio_state_roll(&st);
		tu2[r] = unpack(tick, len2);
		ta2[r] = apply(&st, tick, len2);
		n = 0;
		te[r] = bench_now_ms();
		bench_check(prog, tokio_state_emit(&st, &sink), "emit");
		te[r] = bench_now_ms() - te[r];
	}
	printf("tk_runs %d\ntk_tasks %d\ntk_samples %zu\n", runs, NTASKS, n);
	printf("tk_first_bytes %zu\ntk_tick_bytes %zu\n", len1, len2);
	printf("tk_unpack_first_ms %.3f\ntk_apply_first_ms %.3f\n",
	       bench_median(tu1, (size_t)runs),
	       bench_median(ta1, (size_t)runs));
	printf("tk_unpack_tick_ms %.3f\ntk_apply_tick_ms %.3f\n",
	       bench_median(tu2, (size_t)runs),
	       bench_median(ta2, (size_t)runs));
	printf("tk_emit_ms %.3f\n", bench_median(te, (size_t)runs));
	printf("tk_rss_state_bytes %ld\ntk_rss_total_bytes %ld\n",
	       after - before, after);
	printf("tk_state_table_bytes %zu\n", st.captasks * sizeof(*st.tasks) +
	                                         hash_table_bytes(&st.spans) +
	                                         intern_bytes(&st.strs));
	tokio_state_fini(&st);
	free(first);
	free(tick);
	return 0;
}
