/* Helpers of the tree's tests. */
#include "tests/tree_util.h"

#include <check.h>
#include <stdio.h>

#include "tests/screen_util.h"

bool tru_by_name;
static const struct window *split, *split_of;

uint64_t tru_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

const struct window *tru_shown(const struct app *a)
{
	const struct window *w = model_latest(a->m), *old = split;

	if (!tru_by_name)
		return w;
	if (split_of != w) {
		ck_assert_int_eq(
		    model_group(a->m, w,
		                (struct grouping){ .key = GROUP_SPAWN,
		                                   .by_name = true },
		                &split),
		    STATUS_OK);
		split_of = w;
		model_group_free(old);
	}
	return split;
}

void tru_shown_fini(void)
{
	model_group_free(split);
	split = split_of = NULL;
	tru_by_name = false;
}

void tru_wide_window(struct app *a, uint64_t *s, int64_t start)
{
	static const char *const tasks[] = { "t", "u", "v" };
	static struct sample smp[3 * TRU_WIDE_ROWS];
	static struct strview f[TRU_WIDE_ROWS][3];
	static char leaf[TRU_WIDE_ROWS][16];
	struct window_meta meta = { .time_nanos = start,
		                    .duration_nanos = 5 * SEC,
		                    .requested_nanos = 5 * SEC };
	size_t n = 100 + tru_rnd(s) % (TRU_WIDE_ROWS - 100), ns = 0;

	for (size_t i = 0; i < n; i++) {
		size_t nn = tru_by_name ? 1 + tru_rnd(s) % 3 : 1, depth;

		snprintf(leaf[i], sizeof(leaf[i]), "leaf_%zu", i);
		f[i][0] = sv_c("root");
		f[i][1] = sv_c(tru_rnd(s) % 8 ? "mid" : "side");
		f[i][2] = sv_c(leaf[i]);
		depth = 1 + (tru_rnd(s) % 16 != 0) + (tru_rnd(s) % 16 != 0);
		for (size_t k = 0; k < nn; k++, ns++) {
			smp[ns] = (struct sample){ .frames = f[i],
				                   .depth = depth,
				                   .task = sv_c(tasks[k]),
				                   .tasks = 1 + k };
			for (int m = 0; m < METRIC_COUNT; m++)
				smp[ns].m.v[m] = tru_rnd(s) % 8;
		}
	}
	ck_assert_int_eq(app_commit(a, smp, ns, &meta), STATUS_OK);
}
