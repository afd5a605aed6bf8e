/* Helpers of the table-state tests (see view_util.h). */
#include "tests/view_util.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

const struct window *vu_commit(struct model *m, const char *const *leaf,
                               const uint64_t *idle, const uint64_t *busy,
                               size_t n)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[2] = { sv_c("main"), sv_c(leaf[i]) };
		char task[32];
		struct sample s;

		snprintf(task, sizeof(task), "Task-%zu", i);
		memset(&s, 0, sizeof(s));
		s.frames = f;
		s.depth = 2;
		s.task = sv_c(task);
		s.m.v[METRIC_IDLE] = idle[i];
		s.m.v[METRIC_BUSY] = busy[i];
		s.tasks = 1;
		ck_assert_int_eq(model_add(m, &s), STATUS_OK);
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

const struct window *vu_commit_rows(struct model *m, const struct vu_row *t,
                                    size_t n)
{
	const struct window *w = NULL;

	ck_assert_int_eq(model_begin(m), STATUS_OK);
	for (size_t i = 0; i < n; i++) {
		struct strview f[4];
		size_t d = 0;

		while (d < 4 && t[i].f[d]) {
			f[d] = sv_c(t[i].f[d]);
			d++;
		}
		for (size_t k = 0; k < 3 && (k == 0 || t[i].task[k]); k++) {
			struct sample s;

			memset(&s, 0, sizeof(s));
			s.frames = f;
			s.depth = d;
			s.task = sv_c(t[i].task[k] ? t[i].task[k] : "t");
			s.m.v[METRIC_IDLE] = t[i].idle + k;
			s.m.v[METRIC_BUSY] = t[i].busy + 1;
			s.tasks = 1;
			ck_assert_int_eq(model_add(m, &s), STATUS_OK);
		}
	}
	ck_assert_int_eq(model_commit(m, NULL, &w), STATUS_OK);
	return w;
}

const struct window *vu_open_rows(struct model **m, struct view *v,
                                  const struct vu_row *t, size_t n)
{
	const struct window *w;

	ck_assert_int_eq(model_new(NULL, m), STATUS_OK);
	w = vu_commit_rows(*m, t, n);
	view_init(v, METRIC_IDLE);
	return w;
}

void vu_close(struct model *m, struct view *v)
{
	view_fini(v);
	model_free(m);
}

const char *vu_leaf(const struct view *v, size_t pos, char *dst, size_t size)
{
	size_t depth;
	const uint32_t *st =
	    model_stack(v->m, v->w->rows[view_row_at(v, pos)].stack, &depth);
	struct strview f = model_frame(v->m, st[depth - 1]);

	snprintf(dst, size, "%.*s", (int)f.len, f.ptr);
	return dst;
}

void vu_set_filter(struct view *v, const char *f)
{
	size_t n = strlen(f);

	ck_assert_uint_lt(n, sizeof(v->filter));
	memcpy(v->filter, f, n + 1);
	v->filter_len = n;
}

size_t vu_check_rows(const struct view *v)
{
	const struct window *w = v->w;
	uint32_t want[2048];
	size_t n = 0;

	ck_assert_uint_le(w->nrows, 2048);
	for (size_t r = 0; r < w->nrows; r++)
		if (view_row_matches(v->m, w, r, v->filter, v->filter_len))
			want[n++] = (uint32_t)r;
	/* insertion sort by the weighting, stable on row order */
	for (size_t i = 1; i < n; i++) {
		uint32_t x = want[i];
		uint64_t kx = w->rows[x].m.v[v->metric];
		size_t j = i;

		for (; j > 0; j--) {
			uint64_t kj = w->rows[want[j - 1]].m.v[v->metric];
			if (v->ascending ? kj <= kx : kj >= kx)
				break;
			want[j] = want[j - 1];
		}
		want[j] = x;
	}
	ck_assert_uint_eq(v->order.n, n);
	/* a build (with a filter or not) may put only the positions about
	 * the page in place: those are the full sort's, the page among them */
	ck_assert_uint_le(v->in_lo, v->top);
	ck_assert_uint_ge(v->in_hi,
	                  n < v->top + v->page ? n : v->top + v->page);
	ck_assert(!n || (v->sel >= v->in_lo && v->sel < v->in_hi));
	ck_assert((v->in_lo == 0 && v->in_hi == n) ||
	          w->nrows >= 4 * VIEW_SELECT);
	for (size_t i = v->in_lo; i < n && i < v->in_hi; i++)
		ck_assert_uint_eq(v->order.idx[i], want[i]);
	return n;
}

size_t vu_kept(struct view *v, const struct model *m, const struct window *w,
               const char *f)
{
	vu_set_filter(v, f);
	ck_assert_int_eq(view_build(v, m, w), STATUS_OK);
	return vu_check_rows(v);
}
