/* Helpers shared by the model tests (see model_util.h). */
#include "tests/model_util.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/buf.h"

enum { MAXF = 64 };

struct metrics tm_vals(uint64_t v)
{
	struct metrics m;

	for (unsigned i = 0; i < METRIC_COUNT; i++)
		m.v[i] = v * (i + 1);
	return m;
}

/* Splits "a;b;c" into views ("" is depth 0). */
static size_t split(const char *stack, struct strview *fr)
{
	size_t n = 0;

	if (!*stack)
		return 0;
	for (;;) {
		const char *e = strchr(stack, ';');
		ck_assert_uint_lt(n, MAXF);
		fr[n++] = sv_n(stack, e ? (size_t)(e - stack) : strlen(stack));
		if (!e)
			return n;
		stack = e + 1;
	}
}

enum status tm_add_m(struct model *m, const char *stack, const char *task,
                     struct metrics v, uint64_t tasks)
{
	struct strview fr[MAXF];
	struct sample s = { .frames = fr,
		            .depth = split(stack, fr),
		            .task = sv_c(task),
		            .m = v,
		            .tasks = tasks };

	return model_add(m, &s);
}

void tm_add_frames(struct model *m, const char *const *frames, size_t max,
                   const char *task, const uint64_t *v, uint64_t tasks)
{
	struct strview fr[MAXF];
	struct sample s;

	ck_assert_uint_le(max, MAXF);
	memset(&s, 0, sizeof(s));
	while (s.depth < max && frames[s.depth]) {
		fr[s.depth] = sv_c(frames[s.depth]);
		s.depth++;
	}
	s.frames = fr;
	s.task = sv_c(task);
	s.tasks = tasks;
	memcpy(s.m.v, v, sizeof(s.m.v));
	ck_assert_int_eq(model_add(m, &s), STATUS_OK);
}

enum status tm_add_p(struct model *m, const char *stack, const char *parked,
                     const char *task, uint64_t v, const struct extras *x)
{
	struct strview fr[MAXF], pk[MAXF];
	struct sample s = { .frames = fr,
		            .depth = split(stack, fr),
		            .task = sv_c(task),
		            .m = tm_vals(v),
		            .tasks = 1,
		            .parked = pk,
		            .parked_depth = parked ? split(parked, pk) : 0,
		            .x = x ? *x : (struct extras){ .known = 0 } };

	return model_add(m, &s);
}

enum status tm_add(struct model *m, const char *stack, const char *task,
                   uint64_t v)
{
	return tm_add_m(m, stack, task, tm_vals(v), 1);
}

struct model *tm_mk(size_t windows, size_t stacks, size_t frames, size_t depth,
                    size_t name)
{
	struct model_limits lim;
	struct model *m;

	model_limits_default(&lim);
	if (windows)
		lim.max_windows = windows;
	if (stacks)
		lim.max_stacks = stacks;
	if (frames)
		lim.max_frames = frames;
	if (depth)
		lim.max_depth = depth;
	if (name)
		lim.max_name = name;
	ck_assert_int_eq(model_new(&lim, &m), STATUS_OK);
	return m;
}

/* A stack as "a;b;c". */
static void stack_str(const struct model *m, uint32_t id, struct buf *b)
{
	size_t depth;
	const uint32_t *f = model_stack(m, id, &depth);

	for (size_t i = 0; i < depth; i++) {
		if (i)
			buf_addc(b, ';');
		buf_addv(b, model_frame(m, f[i]));
	}
}

/* The window as text: a line per row, then a line per entry. */
static char *dump(const struct model *m, const struct window *w)
{
	struct buf b;

	buf_init(&b);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct fold_row *row = &w->rows[r];
		buf_adds(&b, "R ");
		stack_str(m, row->stack, &b);
		buf_printf(&b, " t=%" PRIu64 " v=%" PRIu64 ",%" PRIu64 "\n",
		           row->tasks, row->m.v[0], row->m.v[4]);
		for (uint32_t i = row->first; i < row->first + row->count;
		     i++) {
			const struct fold_entry *e = &w->entries[i];
			struct strview n = model_name(m, e->name);
			ck_assert_uint_eq(e->stack, row->stack);
			buf_printf(&b, "  %.*s t=%" PRIu64 " v=%" PRIu64 "\n",
			           (int)n.len, n.ptr, e->tasks, e->m.v[0]);
		}
	}
	ck_assert_int_eq(buf_status(&b), STATUS_OK);
	return buf_detach(&b, NULL);
}

void tm_check_dump(const struct model *m, const struct window *w,
                   const char *want)
{
	char *got = dump(m, w);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	mem_free(got);
}

uint32_t tm_row_stack(const struct window *w, size_t r)
{
	ck_assert_uint_lt(r, w->nrows);
	return w->rows[r].stack;
}

void tm_live(const struct model *m, size_t frames, size_t stacks, size_t names)
{
	struct model_stats st;

	model_stats(m, &st);
	ck_assert_uint_eq(st.frames_live, frames);
	ck_assert_uint_eq(st.stacks_live, stacks);
	ck_assert_uint_eq(st.names_live, names);
}
