/* The model's fold: interning, reserved names, bounds, merging, canonical
 * order, finding rows, meta and the sink.  The ring: test_model_ring.c;
 * allocation failures: test_model_nomem.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/model.h"
#include "model/reserved.h"
#include "tests/model_util.h"

START_TEST(new_bounds_and_states)
{
	struct model_limits lim;
	struct model *m;
	const struct window *w;

	model_limits_default(&lim);
	ck_assert_uint_eq(lim.max_windows, 120);
	ck_assert_uint_eq(lim.mem_budget, (size_t)256 << 20);
	ck_assert_uint_eq(lim.max_stacks, (size_t)1 << 20);
	ck_assert_uint_eq(lim.max_frames, (size_t)4 << 20);
	ck_assert_uint_eq(lim.max_depth, 128);
	ck_assert_uint_eq(lim.max_name, 4096);
	ck_assert_int_eq(model_new(&lim, NULL), STATUS_INVAL);
	lim.max_depth = 0;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_INVAL);
	ck_assert_ptr_null(m);
	model_limits_default(&lim);
	lim.mem_budget = 0;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_INVAL);
	model_limits_default(&lim);
	lim.max_name = (size_t)1 << 31;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_INVAL);
	ck_assert_int_eq(model_new(NULL, &m), STATUS_OK);
	{
		/* docs/model.md: "[other]" as frame, name (7 + 5 each) and
		 * stack (9 + 8 + 7), "[not parked]" as frame (12 + 5) and
		 * stack (9 + 8 + 12), a page of slots and a page table of 8
		 * entries each, hash indexes of 16 slots */
		struct model_stats st;
		model_stats(m, &st);
		ck_assert_uint_eq(st.bytes, 12 + 12 + 24 + 17 + 29 + 3 * 8200 +
		                                3 * 64 + 3 * 16 * 16);
		ck_assert_uint_eq(
		    st.frames_live + st.stacks_live + st.names_live, 0);
	}

	ck_assert_int_eq(tm_add(m, "a", "t", 1), STATUS_INVAL);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_INVAL);
	ck_assert_ptr_null(w);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_begin(m), STATUS_INVAL);
	ck_assert_int_eq(model_add(m, NULL), STATUS_INVAL);
	{
		struct sample bad = { .depth = 2,
			              .task = sv_c("t"),
			              .m = tm_vals(1),
			              .tasks = 1 };
		struct strview f = { NULL, 3 };
		ck_assert_int_eq(model_add(m, &bad), STATUS_INVAL);
		bad.frames = &f;
		bad.depth = 1;
		ck_assert_int_eq(model_add(m, &bad), STATUS_INVAL);
	}
	ck_assert_uint_eq(model_window_count(m), 0);
	ck_assert_ptr_null(model_latest(m));
	ck_assert_ptr_null(model_window(m, 0));
	ck_assert_ptr_null(model_window_seq(m, 1));
	model_abort(m);
	model_abort(m); /* nothing open: no-op */
	model_free(m);
	model_free(NULL);
}
END_TEST

START_TEST(merge_same_stack_and_name)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	struct metrics big = tm_vals(1);

	big.v[0] = UINT64_MAX - 1;
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "main;serve", "conn", 10), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "main;serve", "conn", tm_vals(5), 3),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "main;serve", "conn", tm_vals(1), 0),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add(m, "main;serve", "accept", 7), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "main;tick", "t", big, 1), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "main;tick", "t", tm_vals(5), 1),
	                 STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, 2);
	ck_assert_uint_eq(w->nentries, 3);
	ck_assert_uint_eq(w->stats.samples, 6);
	tm_check_dump(m, w,
	              "R main;serve t=6 v=23,115\n"
	              "  accept t=1 v=7\n"
	              "  conn t=5 v=16\n"
	              "R main;tick t=2 v=18446744073709551615,30\n"
	              "  t t=2 v=18446744073709551615\n");
	ck_assert_uint_eq(w->entries[1].m.v[1], 32);
	ck_assert_uint_eq(w->entries[1].m.v[2], 48);
	ck_assert_uint_eq(w->tasks, 8);
	ck_assert_uint_eq(w->total.v[0], UINT64_MAX);
	ck_assert_uint_eq(w->total.v[4], 145);
	ck_assert_uint_eq(w->rows[0].first, 0);
	ck_assert_uint_eq(w->rows[0].count, 2);
	ck_assert_uint_eq(w->rows[1].first, 2);
	ck_assert_uint_eq(w->rows[1].count, 1);
	ck_assert(!w->empty);
	/* docs/model.md: the window struct and an index pointer, 120 per
	 * row, 64 per entry (no figures known: none stored), 4 per row
	 * rounded up to 8 */
	ck_assert_uint_eq(w->bytes, sizeof(struct window) + sizeof(void *) +
	                                2 * 120 + 3 * 64 + 8);
	model_free(m);
}
END_TEST

START_TEST(canonical_order)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	/* arrival order is scrambled on purpose */
	ck_assert_int_eq(tm_add(m, "b", "x", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "\xc3\xa9t\xc3\xa9", "x", 2), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;z", "x", 3), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "ab", "x", 4), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "t2", 5), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a", "x", 6), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "z", "x", 7), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "T1", 8), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "t10", 9), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "\xe2\x82\xac", 10), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b;c", "x", 11), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "B", "x", 12), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	/* root first, byte-wise (upper case before lower, UTF-8 after ASCII),
	 * a prefix before its extensions, "a;..." before "ab" */
	tm_check_dump(m, w,
	              "R B t=1 v=12,60\n"
	              "  x t=1 v=12\n"
	              "R a t=1 v=6,30\n"
	              "  x t=1 v=6\n"
	              "R a;b t=4 v=32,160\n"
	              "  T1 t=1 v=8\n"
	              "  t10 t=1 v=9\n"
	              "  t2 t=1 v=5\n"
	              "  \xe2\x82\xac t=1 v=10\n"
	              "R a;b;c t=1 v=11,55\n"
	              "  x t=1 v=11\n"
	              "R a;z t=1 v=3,15\n"
	              "  x t=1 v=3\n"
	              "R ab t=1 v=4,20\n"
	              "  x t=1 v=4\n"
	              "R b t=1 v=1,5\n"
	              "  x t=1 v=1\n"
	              "R z t=1 v=7,35\n"
	              "  x t=1 v=7\n"
	              "R \xc3\xa9t\xc3\xa9 t=1 v=2,10\n"
	              "  x t=1 v=2\n");
	for (size_t r = 0; r + 1 < w->nrows; r++) {
		ck_assert_int_eq(model_stack_cmp(m, tm_row_stack(w, r),
		                                 tm_row_stack(w, r + 1)),
		                 -1);
		ck_assert_int_eq(model_stack_cmp(m, tm_row_stack(w, r + 1),
		                                 tm_row_stack(w, r)),
		                 1);
	}
	ck_assert_int_eq(
	    model_stack_cmp(m, tm_row_stack(w, 2), tm_row_stack(w, 2)), 0);
	model_free(m);
}
END_TEST

START_TEST(reserved_names)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	struct strview fr[3] = { sv_c("root"), sv_n("", 0), sv_n(NULL, 0) };
	struct sample s = { .frames = fr,
		            .depth = 3,
		            .task = sv_n(NULL, 0),
		            .m = tm_vals(1),
		            .tasks = 1 };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "", "", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "", "t", 2), STATUS_OK);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [no spawn stack] t=2 v=3,15\n"
	              "  <unnamed> t=1 v=1\n"
	              "  t t=1 v=2\n"
	              "R root;[unknown];[unknown] t=1 v=1,5\n"
	              "  <unnamed> t=1 v=1\n");
	ck_assert_uint_eq(
	    w->stats.truncated + w->stats.clipped + w->stats.other, 0);
	model_free(m);
}
END_TEST

/* Frames a producer already left out count in the marker, whether or
 * not the model cuts more. */
START_TEST(depth_cap_counts_producer_cut)
{
	static const struct strview two[2] = { { "a", 1 }, { "b", 1 } };
	static const struct strview five[5] = {
		{ "c", 1 }, { "d", 1 }, { "e", 1 }, { "f", 1 }, { "g", 1 },
	};
	struct model *m = tm_mk(0, 0, 0, 4, 0);
	const struct window *w;
	struct sample s = {
		.frames = two, .depth = 2, .task = sv_c("t"), .dropped = 3
	};

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	s.m = tm_vals(1);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	s = (struct sample){
		.frames = five, .depth = 5, .task = sv_c("t"), .dropped = 2
	};
	s.m = tm_vals(2);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [truncated 3 frames];a;b t=1 v=1,5\n"
	              "  t t=1 v=1\n"
	              "R [truncated 4 frames];e;f;g t=1 v=2,10\n"
	              "  t t=1 v=2\n");
	ck_assert_uint_eq(w->stats.truncated, 2);
	model_free(m);
}
END_TEST

/* The same for a parked-at stack: parked_dropped counts in its marker. */
START_TEST(depth_cap_counts_producer_cut_parked)
{
	static const struct strview two[2] = { { "a", 1 }, { "b", 1 } };
	static const struct strview five[5] = {
		{ "c", 1 }, { "d", 1 }, { "e", 1 }, { "f", 1 }, { "g", 1 },
	};
	struct model *m = tm_mk(0, 0, 0, 4, 0);
	const struct window *w, *g;
	struct sample s = { .frames = two,
		            .depth = 2,
		            .task = sv_c("t"),
		            .parked = five,
		            .parked_depth = 5,
		            .parked_dropped = 2 };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	s.m = tm_vals(1);
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->stats.truncated, 1);
	ck_assert_int_eq(
	    model_group(m, w, (struct grouping){ .key = GROUP_PARKED }, &g),
	    STATUS_OK);
	{
		static const char *const want[] = { "[truncated 4 frames]", "e",
			                            "f", "g" };
		size_t depth;
		const uint32_t *fr;

		ck_assert_uint_eq(g->nrows, 1);
		fr = model_stack(m, g->rows[0].stack, &depth);
		ck_assert_uint_eq(depth, 4);
		for (size_t i = 0; i < depth; i++) {
			struct strview v = model_frame(m, fr[i]);

			ck_assert_int_eq(sv_cmp(v, sv_c(want[i])), 0);
		}
	}
	model_group_free(g);
	model_free(m);
}
END_TEST

START_TEST(depth_cap)
{
	struct model *m = tm_mk(0, 0, 0, 4, 0);
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "f0;f1;f2;f3;f4;f5;f6;f7;f8;f9", "t", 1),
	                 STATUS_OK);
	ck_assert_int_eq(tm_add(m, "g0;g1;g2;g3", "t", 2), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "h0;h1;h2;h3;h4", "t", 3), STATUS_OK);
	/* a different root but the same kept frames: same stack */
	ck_assert_int_eq(tm_add(m, "X;X;X;X;X;X;f7;f8;f9", "t", 4), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [truncated 2 frames];h2;h3;h4 t=1 v=3,15\n"
	              "  t t=1 v=3\n"
	              "R [truncated 6 frames];f7;f8;f9 t=1 v=4,20\n"
	              "  t t=1 v=4\n"
	              "R [truncated 7 frames];f7;f8;f9 t=1 v=1,5\n"
	              "  t t=1 v=1\n"
	              "R g0;g1;g2;g3 t=1 v=2,10\n"
	              "  t t=1 v=2\n");
	ck_assert_uint_eq(w->stats.truncated, 3);
	model_free(m);

	m = tm_mk(0, 0, 0, 1, 0);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b;c", "t", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a", "t", 2), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [truncated 3 frames] t=1 v=1,5\n"
	              "  t t=1 v=1\n"
	              "R a t=1 v=2,10\n"
	              "  t t=1 v=2\n");
	ck_assert_uint_eq(w->stats.truncated, 1);
	model_free(m);
}
END_TEST

START_TEST(clip_at_utf8_boundary)
{
	struct model *m = tm_mk(0, 0, 0, 0, 5);
	const struct window *w;
	struct strview v;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	/* é is C3 A9 at bytes 4-5: cut before it */
	ck_assert_int_eq(
	    tm_add(m, "abcd\xc3\xa9;abcdefgh", "ab\xe2\x82\xacxyz", 1),
	    STATUS_OK);
	/* an emoji at bytes 3-6; five bytes exactly; invalid bytes */
	ck_assert_int_eq(
	    tm_add(m, "abc\xf0\x9f\x98\x80;12345;\x80\x80\x80\x80\x80\x80",
	           "\xc3\xa9", 2),
	    STATUS_OK);
	/* a lead byte whose sequence fits exactly */
	ck_assert_int_eq(tm_add(m, "abc\xc3\xa9z", "t", 3), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R abc;12345;\x80\x80\x80\x80\x80 t=1 v=2,10\n"
	              "  \xc3\xa9 t=1 v=2\n"
	              "R abcd;abcde t=1 v=1,5\n"
	              "  ab\xe2\x82\xac t=1 v=1\n"
	              "R abc\xc3\xa9 t=1 v=3,15\n"
	              "  t t=1 v=3\n");
	/* 3 + 2 + 1 strings were longer than 5 bytes */
	ck_assert_uint_eq(w->stats.clipped, 6);
	v = model_frame(m, model_stack(m, tm_row_stack(w, 1), NULL)[0]);
	ck_assert_uint_eq(v.len, 4);
	ck_assert_int_eq(memcmp(v.ptr, "abcd", 5), 0); /* NUL-terminated */
	model_free(m);
}
END_TEST

START_TEST(stack_cap_goes_to_other)
{
	struct model *m = tm_mk(0, 2, 0, 0, 0);
	const struct window *w;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "x", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "c", "y", 2), STATUS_OK);
	tm_live(m, 3, 2, 2);
	/* a third stack: [other], the name kept; its new frames undone */
	ck_assert_int_eq(tm_add(m, "d;e", "z", 4), STATUS_LIMIT);
	tm_live(m, 3, 2, 3);
	ck_assert_int_eq(tm_add(m, "a;f", "x", 8), STATUS_LIMIT);
	ck_assert_int_eq(tm_add(m, "c", "y", 16), STATUS_OK); /* known: fine */
	/* a sample naming [other] itself lands in the same stack */
	ck_assert_int_eq(tm_add(m, "[other]", "x", 32), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [other] t=3 v=44,220\n"
	              "  x t=2 v=40\n"
	              "  z t=1 v=4\n"
	              "R a;b t=1 v=1,5\n"
	              "  x t=1 v=1\n"
	              "R c t=2 v=18,90\n"
	              "  y t=2 v=18\n");
	ck_assert_uint_eq(w->stats.other, 2);
	ck_assert_uint_eq(w->stats.samples, 6);
	model_free(m);
}
END_TEST

START_TEST(frame_and_name_caps)
{
	struct model *m = tm_mk(0, 0, 3, 0, 0);
	const struct window *w;
	struct model_stats st;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a;b", "n1", 1), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "c", "n2", 2), STATUS_OK);
	/* frame d would be the fourth: [other], name n3 kept */
	ck_assert_int_eq(tm_add(m, "a;d", "n3", 4), STATUS_LIMIT);
	tm_live(m, 3, 2, 3);
	/* name n4 would be the fourth: [other] and [other] */
	ck_assert_int_eq(tm_add(m, "a;b", "n4", 8), STATUS_LIMIT);
	tm_live(m, 3, 2, 3);
	ck_assert_int_eq(tm_add(m, "c;a", "n1", 16),
	                 STATUS_OK); /* no new frame */
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	tm_check_dump(m, w,
	              "R [other] t=2 v=12,60\n"
	              "  [other] t=1 v=8\n"
	              "  n3 t=1 v=4\n"
	              "R a;b t=1 v=1,5\n"
	              "  n1 t=1 v=1\n"
	              "R c t=1 v=2,10\n"
	              "  n2 t=1 v=2\n"
	              "R c;a t=1 v=16,80\n"
	              "  n1 t=1 v=16\n");
	ck_assert_uint_eq(w->stats.other, 2);
	model_stats(m, &st);
	ck_assert_uint_eq(st.frames_reclaimed, 0);
	model_free(m);
}
END_TEST

START_TEST(zero_samples_and_empty_windows)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w, *w1;
	struct metrics zero = { { 0 } };

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "a", "t", zero, 5), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "", "", zero, 0), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w1), STATUS_EMPTY_WINDOW);
	ck_assert_ptr_nonnull(w1);
	ck_assert(w1->empty);
	ck_assert_uint_eq(w1->seq, 1);
	ck_assert_uint_eq(w1->nrows, 0);
	ck_assert_uint_eq(w1->stats.zero, 2);
	ck_assert_uint_eq(w1->stats.samples, 0);
	ck_assert_uint_eq(window_find_row(w1, 1), SIZE_MAX);
	tm_live(m, 0, 0, 0);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_EMPTY_WINDOW);
	ck_assert_uint_eq(w->seq, 2);
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a", "t", 1), STATUS_OK);
	ck_assert_int_eq(tm_add_m(m, "a", "t", zero, 1), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert(!w->empty);
	ck_assert_uint_eq(w->seq, 3);
	ck_assert_uint_eq(w->stats.zero, 1);
	ck_assert_uint_eq(w->tasks, 1);
	ck_assert_uint_eq(model_window_count(m), 3);
	ck_assert_ptr_eq(model_window(m, 0), w1);
	ck_assert_ptr_eq(model_window_seq(m, 1), w1);
	ck_assert_ptr_eq(model_window_seq(m, 3), w);
	ck_assert_ptr_eq(model_latest(m), w);
	ck_assert_ptr_null(model_window_seq(m, 4));
	ck_assert_ptr_null(model_window_seq(m, 0));
	ck_assert_ptr_null(model_window(m, 3));
	model_free(m);
}
END_TEST

START_TEST(find_row)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	char stack[32];

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (int i = 0; i < 300; i++) {
		snprintf(stack, sizeof(stack), "r;%d", (i * 37) % 300);
		ck_assert_int_eq(tm_add(m, stack, "t", 1), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->nrows, 300);
	for (size_t r = 0; r < w->nrows; r++)
		ck_assert_uint_eq(window_find_row(w, w->rows[r].stack), r);
	ck_assert_uint_eq(window_find_row(w, 0), SIZE_MAX);
	ck_assert_uint_eq(window_find_row(w, 1), SIZE_MAX); /* [other] */
	ck_assert_uint_eq(window_find_row(w, 100000), SIZE_MAX);
	model_free(m);
}
END_TEST

static char *dup(const char *s)
{
	return mem_strndup(s, strlen(s));
}

START_TEST(meta_is_copied)
{
	struct model *m = tm_mk(0, 0, 0, 0, 6);
	const struct window *w;
	char *reason = dup("app exited"), *source = dup("pid 42");
	char *c0 = dup("k=v"), *c1 = dup("\xe2\x82\xac\xe2\x82\xac!");
	const char *comments[3];
	struct window_meta meta = { .time_nanos = -5,
		                    .duration_nanos = 5000000000,
		                    .requested_nanos = 61,
		                    .clamped = true,
		                    .partial = true,
		                    .dropped = 9,
		                    .ncomments = 3 };

	comments[0] = c0;
	comments[1] = NULL;
	comments[2] = c1;
	meta.reason = reason;
	meta.source = source;
	meta.comments = comments;
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_EMPTY_WINDOW);
	memset(reason, 'x', strlen(reason));
	mem_free(reason);
	mem_free(source);
	mem_free(c0);
	mem_free(c1);
	ck_assert_int_eq(w->meta.time_nanos, -5);
	ck_assert_int_eq(w->meta.duration_nanos, 5000000000);
	ck_assert_uint_eq(w->meta.requested_nanos, 61);
	ck_assert(w->meta.clamped && w->meta.partial);
	ck_assert_uint_eq(w->meta.dropped, 9);
	ck_assert_str_eq(w->meta.reason, "app ex"); /* max_name = 6 */
	ck_assert_str_eq(w->meta.source, "pid 42");
	ck_assert_uint_eq(w->meta.ncomments, 3);
	ck_assert_str_eq(w->meta.comments[0], "k=v");
	ck_assert_ptr_null(w->meta.comments[1]);
	ck_assert_str_eq(w->meta.comments[2], "\xe2\x82\xac\xe2\x82\xac");
	ck_assert_uint_eq(w->bytes, sizeof(struct window) + sizeof(void *) +
	                                3 * sizeof(char *) + 7 + 7 + 4 + 7);

	/* NULL strings stay NULL; comments NULL means none */
	meta.reason = NULL;
	meta.source = NULL;
	meta.comments = NULL;
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(tm_add(m, "a", "t", 1), STATUS_OK);
	ck_assert_int_eq(model_commit(m, &meta, &w), STATUS_OK);
	ck_assert_ptr_null(w->meta.reason);
	ck_assert_ptr_null(w->meta.source);
	ck_assert_ptr_null(w->meta.comments);
	ck_assert_uint_eq(w->meta.ncomments, 0);
	ck_assert_uint_eq(w->meta.dropped, 9);
	/* no meta at all */
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_EMPTY_WINDOW);
	ck_assert_uint_eq(w->meta.duration_nanos, 0);
	ck_assert_ptr_null(w->meta.source);
	model_free(m);
}
END_TEST

START_TEST(sink_and_abort)
{
	struct model *m = tm_mk(0, 1, 0, 0, 0);
	struct sample_sink k = model_sink(m);
	struct strview fr[2] = { sv_c("a"), sv_c("b") };
	struct sample s = { .frames = fr,
		            .depth = 2,
		            .task = sv_c("t"),
		            .m = tm_vals(1),
		            .tasks = 1 };
	struct model_stats st;
	const struct window *w;

	ck_assert_ptr_null(k.meta);
	ck_assert_ptr_eq(k.ctx, m);
	ck_assert_int_eq(k.sample(k.ctx, &s), STATUS_INVAL); /* not open */
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(k.sample(k.ctx, &s), STATUS_OK);
	s.depth = 1;
	ck_assert_int_eq(k.sample(k.ctx, &s), STATUS_LIMIT);
	tm_live(m, 2, 1, 1);
	model_abort(m);
	model_stats(m, &st);
	ck_assert_uint_eq(st.frames_reclaimed, 2);
	ck_assert_uint_eq(st.stacks_reclaimed, 1);
	ck_assert_uint_eq(st.names_reclaimed, 1);
	ck_assert_uint_eq(st.windows_kept, 0);
	tm_live(m, 0, 0, 0);
	/* open again: the cap has room again, a fresh window */
	ck_assert_int_eq(model_begin(m), STATUS_OK);
	ck_assert_int_eq(k.sample(k.ctx, &s), STATUS_OK);
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_eq(w->seq, 1);
	tm_check_dump(m, w, "R a t=1 v=1,5\n  t t=1 v=1\n");
	model_free(m);
}
END_TEST

/* Many stacks of random frames: rows sorted by a reference comparison of
 * their texts, entries by name, every row found by id. */
static int ref_cmp(const struct model *m, uint32_t a, uint32_t b)
{
	size_t na, nb;
	const uint32_t *fa = model_stack(m, a, &na),
	               *fb = model_stack(m, b, &nb);

	for (size_t i = 0; i < na && i < nb; i++) {
		struct strview x = model_frame(m, fa[i]),
		               y = model_frame(m, fb[i]);
		size_t n = x.len < y.len ? x.len : y.len;
		int c = memcmp(x.ptr, y.ptr, n);
		if (c)
			return c;
		if (x.len != y.len)
			return x.len < y.len ? -1 : 1;
	}
	return na == nb ? 0 : na < nb ? -1 : 1;
}

START_TEST(order_of_many)
{
	static const char *const parts[] = { "a", "b", "ab",    "\xc3\xa9",
		                             "A", "",  "z\xff", "z" };
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	char stack[64], name[16];

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (int i = 0; i < 3000; i++) {
		size_t at = 0;
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		for (unsigned d = 0; d < 1 + seed % 5; d++) {
			const char *p = parts[(seed >> (8 + 3 * d)) % 8];
			at += (size_t)snprintf(stack + at, sizeof(stack) - at,
			                       "%s%s", d ? ";" : "", p);
		}
		snprintf(name, sizeof(name), "n%u",
		         (unsigned)(seed >> 40) % 13);
		ck_assert_int_eq(tm_add(m, stack, name, 1), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	ck_assert_uint_gt(w->nrows, 300);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		ck_assert_uint_eq(window_find_row(w, row->stack), r);
		if (r + 1 < w->nrows)
			ck_assert_int_lt(
			    ref_cmp(m, row->stack, w->rows[r + 1].stack), 0);
		for (uint32_t i = row->first + 1; i < row->first + row->count;
		     i++)
			ck_assert_int_lt(
			    sv_cmp(model_name(m, w->entries[i - 1].name),
			           model_name(m, w->entries[i].name)),
			    0);
	}
	ck_assert_uint_eq(w->tasks, 3000);
	model_free(m);
}
END_TEST

/* A burst window, a small one (its table is given back), a burst again. */
START_TEST(fold_table_after_burst)
{
	struct model *m = tm_mk(0, 0, 0, 0, 0);
	const struct window *w;
	char stack[32];

	for (int k = 0; k < 3; k++) {
		int n = k == 1 ? 3 : 2000;
		ck_assert_int_eq(model_begin(m), STATUS_OK);
		for (int i = 0; i < 2 * n; i++) {
			snprintf(stack, sizeof(stack), "s;%d", i % n);
			ck_assert_int_eq(tm_add(m, stack, i % 3 ? "a" : "b", 1),
			                 STATUS_OK);
		}
		ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
		ck_assert_uint_eq(w->nrows, (size_t)n);
		ck_assert_uint_eq(w->tasks, 2 * (uint64_t)n);
		ck_assert_uint_eq(w->total.v[4], 10 * (uint64_t)n);
	}
	model_free(m);
}
END_TEST

Suite *suite_model(void);
Suite *suite_model(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, new_bounds_and_states);
	tcase_add_test(tc, merge_same_stack_and_name);
	tcase_add_test(tc, canonical_order);
	tcase_add_test(tc, reserved_names);
	tcase_add_test(tc, depth_cap);
	tcase_add_test(tc, depth_cap_counts_producer_cut);
	tcase_add_test(tc, depth_cap_counts_producer_cut_parked);
	tcase_add_test(tc, clip_at_utf8_boundary);
	tcase_add_test(tc, stack_cap_goes_to_other);
	tcase_add_test(tc, frame_and_name_caps);
	tcase_add_test(tc, zero_samples_and_empty_windows);
	tcase_add_test(tc, find_row);
	tcase_add_test(tc, meta_is_copied);
	tcase_add_test(tc, sink_and_abort);
	tcase_add_test(tc, order_of_many);
	tcase_add_test(tc, fold_table_after_burst);
	suite_add_tcase(s, tc);
	return s;
}
