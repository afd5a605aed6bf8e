/* --dump-screen: render the app into a screen and write it as text. */
#include "tui/screen_dump.h"

#include "tui/app.h"
#include "tui/render.h"

enum status screen_dump(struct app *a, size_t cols, size_t rows,
                        struct buf *out)
{
	struct screen s;
	enum status st = screen_init(&s, cols, rows);

	if (st != STATUS_OK)
		return st;
	st = app_render(a, &s);
	if (st == STATUS_OK)
		st = screen_text(&s, out);
	screen_fini(&s);
	return st;
}
