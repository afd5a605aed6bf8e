/* Helpers of the headless screen tests. */
#include "tests/screen_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode/utf8.h"
#include "model/model.h"
#include "tests/util.h"
#include "tui/screen_dump.h"
#include "tui/view.h"

void su_commit(struct app *a, const struct su_row *rows, size_t n,
               int64_t start)
{
	su_commit_more(a, rows, NULL, n, start);
}

/* rows[0 .. n) (with more[i] beside, when more) as samples in static
 * storage, valid until the next call. */
static const struct sample *samples_of(const struct su_row *rows,
                                       const struct su_more *more, size_t n)
{
	static struct sample s[SU_ROWS];
	static struct strview f[SU_ROWS][SU_DEPTH];
	static struct strview pk[SU_ROWS][SU_DEPTH];

	ck_assert_uint_le(n, SU_ROWS);
	for (size_t i = 0; i < n; i++) {
		size_t d = 0, pd = 0;
		while (d < SU_DEPTH && rows[i].frames[d]) {
			f[i][d] = sv_c(rows[i].frames[d]);
			d++;
		}
		while (more && pd < SU_DEPTH && more[i].parked[pd]) {
			pk[i][pd] = sv_c(more[i].parked[pd]);
			pd++;
		}
		s[i] = (struct sample){
			.frames = f[i],
			.depth = d,
			.task = sv_c(rows[i].task),
			.tasks = rows[i].tasks,
			.parked = pk[i],
			.parked_depth = pd,
			.x = more ? more[i].x : (struct extras){ .known = 0 }
		};
		memcpy(s[i].m.v, rows[i].v, sizeof(s[i].m.v));
	}
	return s;
}

static struct window_meta meta_at(int64_t start)
{
	return (struct window_meta){ .time_nanos = start,
		                     .duration_nanos = 5 * SEC,
		                     .requested_nanos = 5 * SEC };
}

void su_commit_more(struct app *a, const struct su_row *rows,
                    const struct su_more *more, size_t n, int64_t start)
{
	const struct sample *s = samples_of(rows, more, n);
	struct window_meta meta = meta_at(start);
	enum status st = app_commit(a, s, n, &meta);

	ck_assert(st == STATUS_OK || st == STATUS_EMPTY_WINDOW);
}

void su_progress(struct app *a, const struct su_row *rows, size_t n,
                 int64_t start)
{
	const struct sample *s = samples_of(rows, NULL, n);
	struct window_meta meta = meta_at(start);

	ck_assert_int_eq(model_begin(a->pm), STATUS_OK);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(model_add(a->pm, &s[i]), STATUS_OK);
	ck_assert_int_eq(model_commit(a->pm, &meta, NULL), STATUS_OK);
	a->have_progress = true;
}

void su_app(struct app *a)
{
	struct app_opts o;

	setenv("TZ", "UTC", 1);
	tzset();
	memset(&o, 0, sizeof(o));
	o.prog = "asynctop";
	o.adapter = "toyexec";
	o.endpoint = "sim://golden";
	o.window_ns = 5 * SEC;
	o.refresh_ns = SEC;
	o.metric = METRIC_IDLE;
	o.save_dir = ".";
	o.history = 120;
	o.events = -1;
	ck_assert_int_eq(app_init(a, &o), STATUS_OK);
	app_set_now(a, 1000 * SEC);
}

size_t su_idle_all(struct app *a, size_t most)
{
	size_t n = 0;

	while (app_idle_pending(a)) {
		app_idle(a);
		ck_assert_uint_le(++n, most);
	}
	return n;
}

/* Renders a at cols x rows and compares with tests/data/screens/name. */
void su_golden(struct app *a, size_t cols, size_t rows, const char *name)
{
	const char *data = getenv("ASYNCTOP_TESTDATA");
	const char *update = getenv("ASYNCTOP_UPDATE_GOLDEN");
	char path[1024];
	struct buf have, want;

	app_set_now(a, a->since_ns + (uint64_t)2600 * 1000000);
	buf_init(&have);
	buf_init(&want);
	ck_assert_int_eq(screen_dump(a, cols, rows, &have), STATUS_OK);
	buf_cstr(&have);
	/* nothing raw: valid UTF-8, no control character but newlines */
	ck_assert(utf8_valid(buf_view(&have)));
	for (size_t i = 0; i < have.len; i++)
		ck_assert_msg((unsigned char)have.data[i] >= 0x20 ||
		                  have.data[i] == '\n',
		              "%s: control byte 0x%02x", name,
		              (unsigned char)have.data[i]);
	ck_assert_ptr_null(strstr(have.data, "\xC2\x9B"));
	if (!data || !*data) {
		tu_skip(name, "ASYNCTOP_TESTDATA is not set (run via make)");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/screens/%s.screen", data, name);
	if (update && *update)
		ck_assert_int_eq(tu_write_file(path, have.data, have.len),
		                 STATUS_OK);
	ck_assert_msg(tu_read_file(path, &want) == STATUS_OK, "%s missing",
	              path);
	buf_cstr(&want);
	ck_assert_msg(want.len == have.len &&
	                  !memcmp(want.data, have.data, have.len),
	              "%s differs; got:\n%s\nwanted:\n%s", name, have.data,
	              want.data ? want.data : "");
out:
	buf_fini(&have);
	buf_fini(&want);
}

/* Counts c in s. */
static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* a's screen in the C locale (UTF8_ASCII) at cols x rows: pure ASCII, and
 * no more '?' than the UTF-8 screen has (names here are ASCII, so any
 * extra '?' would be a glyph without its ASCII form). */
void su_ascii_check(struct app *a, size_t cols, size_t rows, const char *what)
{
	struct buf u, c;

	buf_init(&u);
	buf_init(&c);
	a->flags = 0;
	ck_assert_int_eq(screen_dump(a, cols, rows, &u), STATUS_OK);
	a->flags = UTF8_ASCII;
	ck_assert_int_eq(screen_dump(a, cols, rows, &c), STATUS_OK);
	buf_cstr(&u);
	buf_cstr(&c);
	for (size_t i = 0; i < c.len; i++)
		ck_assert_msg((unsigned char)c.data[i] < 0x80,
		              "%s: non-ASCII byte in the C locale:\n%s", what,
		              c.data);
	ck_assert_msg(count_char(c.data, '?') == count_char(u.data, '?'),
	              "%s: a glyph came out as '?':\n%s\nUTF-8:\n%s", what,
	              c.data, u.data);
	buf_fini(&u);
	buf_fini(&c);
}

void su_screen(struct app *a, size_t cols, size_t rows, struct buf *out)
{
	buf_reset(out);
	ck_assert_int_eq(screen_dump(a, cols, rows, out), STATUS_OK);
	buf_cstr(out);
}

void su_select_leaf(struct app *a, const char *leaf)
{
	const struct window *w = app_shown(a);
	struct buf out;

	for (size_t pos = 0; pos < a->v.order.n; pos++) {
		size_t depth = 0;
		const uint32_t *f = model_stack(
		    a->m, w->rows[view_row_at(&a->v, pos)].stack, &depth);
		struct strview name = model_frame(a->m, f[depth - 1]);

		if (name.len >= strlen(leaf) &&
		    !memcmp(name.ptr, leaf, strlen(leaf))) {
			view_select(&a->v, pos);
			return;
		}
	}
	buf_init(&out);
	su_screen(a, 200, 30, &out);
	ck_abort_msg("no row with the leaf %s:\n%s", leaf, out.data);
}
