/* The viewer bench's filter: its very first key, a pasted word, backspace
 * after the pause, and the idle steps' CPU per window (tests/bench_viewer.h).
 */
#include "tests/bench_viewer.h"

#include <stdio.h>

int bv_back_after_pause(struct app *a, struct screen *scr, struct bv_gen *g,
                        const char *typed, double *fig, double *step)
{
	static const int slash = '/', bs = KC_BACKSPACE, esc = KC_ESC,
	                 enter = KC_ENTER;
	double arrive = 1e30;

	if (bv_keys(a, scr, &slash, 1))
		return -1;
	for (; *typed; typed++) {
		int c = (unsigned char)*typed;

		if (bv_keys(a, scr, &c, 1))
			return -1;
	}
	if (bv_keys(a, scr, &enter, 1) || bv_arrival(a, scr, g, &arrive) ||
	    bv_keys(a, scr, &slash, 1))
		return -1;
	bv_pause_idle(a, step);
	return bv_timed(a, scr, &bs, 1, fig) || bv_keys(a, scr, &esc, 1);
}

int bv_very_first(size_t stacks, size_t depth, int runs, const char *tag,
                  double *longest)
{
	static const int k[2] = { '/', 'h' };
	static const int word[10] = { '/', 'h', 'a', 'n', 'd',
		                      'l', 'e', 'r', '_', '9' };
	double ms = 1e30, cold = 1e30, slash = 1e30, step = 1e30, pasted = 1e30,
	       bare = 1e30;

	for (int r = 0; r < 4 * runs; r++) {
		struct bv_gen g = { stacks, depth, 88172645463325252u, 0, 0 };
		struct app a;
		struct app_opts o;
		struct screen scr;
		int rc;

		bv_opts(&o);
		if (app_init(&a, &o) != STATUS_OK)
			return -1;
		if (bv_fill(&a, &g) ||
		    screen_init(&scr, 200, 50) != STATUS_OK) {
			app_fini(&a);
			return -1;
		}
		/* runs with and without the idle steps in turn, and pasted */
		rc = app_render(&a, &scr) != STATUS_OK;
		switch (rc ? -1 : r % 4) {
		case 0:
			rc = bv_timed(&a, &scr, k, 1, &slash) ||
			     bv_idle(&a, &step) ||
			     bv_timed(&a, &scr, k + 1, 1, &ms);
			break;
		case 1:
			bv_pause_idle(&a, longest);
			rc = bv_timed(&a, &scr, k, 2, &cold);
			break;
		case 2:
			bv_pause_idle(&a, longest);
			rc = bv_timed(&a, &scr, word, 10, &pasted);
			break;
		case 3:
			rc = bv_timed(&a, &scr, word, 10, &bare);
			break;
		}
		screen_fini(&scr);
		app_fini(&a);
		if (rc)
			return -1;
	}
	printf("viewer_filter_very_first_key_best_%s_ms %.3f\n", tag, ms);
	printf("viewer_filter_very_first_key_no_idle_best_%s_ms %.3f\n", tag,
	       cold);
	printf("viewer_filter_pasted_word_best_%s_ms %.3f\n", tag, pasted);
	printf("viewer_filter_pasted_word_no_pause_best_%s_ms %.3f\n", tag,
	       bare);
	printf("viewer_filter_slash_%s_ms %.3f\n", tag, slash);
	printf("viewer_filter_index_idle_step_%s_ms %.3f\n", tag, step);
	return 0;
}

int bv_idle_per_window(struct app *a, struct screen *scr, struct bv_gen *g,
                       int runs, const char *tag)
{
	double arrive = 1e30, per = 1e30;

	for (int r = 0; r < runs; r++) {
		double t0;

		if (bv_arrival(a, scr, g, &arrive))
			return -1;
		t0 = bv_cpu_ms();
		for (int i = 0; app_idle_pending(a); i++) {
			if (i == 1000)
				return -1;
			app_idle(a);
		}
		per = bv_best(per, bv_cpu_ms() - t0);
	}
	printf("viewer_idle_cpu_per_window_%s_ms %.3f\n", tag, per);
	return 0;
}
