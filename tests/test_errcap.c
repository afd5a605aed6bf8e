/* stderr captured while the screen is up (tui/errcap.c): lines reach the
 * status line, the tail reaches the real stderr afterwards, a flood is cut
 * with a note, and fd 2 is always given back. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/util.h"
#include "tui/errcap.h"

/* fd 2 goes to a file for the test; the real one is kept in *saved. */
struct redirect {
	char dir[512], path[600];
	int saved;
};

static void redirect_begin(struct redirect *r)
{
	int fd;

	tu_mkdtemp(r->dir, sizeof(r->dir));
	snprintf(r->path, sizeof(r->path), "%s/stderr", r->dir);
	fflush(stderr);
	r->saved = dup(2);
	ck_assert_int_ge(r->saved, 0);
	fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	close(fd);
}

/* Puts fd 2 back and returns what the file got (caller frees). */
static void redirect_end(struct redirect *r, struct buf *got)
{
	fflush(stderr);
	ck_assert_int_eq(dup2(r->saved, 2), 2);
	close(r->saved);
	buf_init(got);
	ck_assert_int_eq(tu_read_file(r->path, got), STATUS_OK);
	buf_cstr(got);
	tu_rmtree(r->dir);
}

static void say(const char *s)
{
	ck_assert_int_eq(write(2, s, strlen(s)), (ssize_t)strlen(s));
}

START_TEST(errcap_lines_to_status_and_tail_after)
{
	struct redirect r;
	struct errcap c;
	struct buf got;

	redirect_begin(&r);
	ck_assert_int_eq(errcap_start(&c, false), STATUS_OK);
	ck_assert_int_ge(errcap_fd(&c), 0);
	ck_assert_ptr_null(errcap_last(&c));
	say("E0000 grpc: first\n");
	say("second, in two ");
	errcap_drain(&c);
	ck_assert_str_eq(errcap_last(&c), "E0000 grpc: first");
	/* reported once */
	ck_assert_ptr_null(errcap_last(&c));
	say("writes\r\n\n");
	errcap_drain(&c);
	/* the empty line does not replace the last one */
	ck_assert_str_eq(errcap_last(&c), "second, in two writes");
	/* stdio's stderr is fd 2 too */
	fprintf(stderr, "from stdio, no newline");
	fflush(stderr);
	errcap_stop(&c);
	ck_assert_int_eq(errcap_fd(&c), -1);
	/* fd 2 is the file again: this goes straight there */
	say("after\n");
	redirect_end(&r, &got);
	ck_assert_str_eq(got.data, "E0000 grpc: first\nsecond, in two "
	                           "writes\r\n\nfrom stdio, no newline\n"
	                           "after\n");
	buf_fini(&got);
}
END_TEST

START_TEST(errcap_flood_keeps_the_tail)
{
	struct redirect r;
	struct errcap c;
	struct buf got;
	char line[101];
	const char *cut;

	redirect_begin(&r);
	ck_assert_int_eq(errcap_start(&c, false), STATUS_OK);
	memset(line, 'x', 99);
	line[99] = '\n';
	line[100] = '\0';
	/* 1000 lines of 100 bytes, drained as a loop would (the pipe holds
	 * 64 KiB), and a last line longer than the line buffer */
	for (int i = 0; i < 1000; i++) {
		say(line);
		if (i % 100 == 99)
			errcap_drain(&c);
	}
	for (int i = 0; i < 5; i++)
		say("0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdef");
	say("\n");
	errcap_drain(&c);
	/* the long line is cut to the buffer, not lost */
	ck_assert_uint_eq(strlen(errcap_last(&c)), sizeof(c.last) - 1);
	errcap_stop(&c);
	redirect_end(&r, &got);
	/* the note says how much was cut, and the kept tail follows whole */
	ck_assert_int_eq(strncmp(got.data, "[", 1), 0);
	cut = strstr(got.data, " earlier bytes of stderr cut]\n");
	ck_assert_ptr_nonnull(cut);
	ck_assert_uint_eq(strtoull(got.data + 1, NULL, 10),
	                  100000 + 5 * 52 + 1 - ERRCAP_TAIL);
	cut += strlen(" earlier bytes of stderr cut]\n");
	ck_assert_uint_eq(strlen(cut), ERRCAP_TAIL);
	ck_assert_int_eq(cut[ERRCAP_TAIL - 1], '\n');
	buf_fini(&got);
}
END_TEST

START_TEST(errcap_only_tty_leaves_a_file_alone)
{
	struct redirect r;
	struct errcap c;
	struct buf got;

	redirect_begin(&r);
	/* fd 2 is a file, not a terminal: nothing to protect */
	ck_assert_int_eq(errcap_start(&c, true), STATUS_OK);
	ck_assert_int_eq(errcap_fd(&c), -1);
	say("direct\n");
	errcap_drain(&c);
	ck_assert_ptr_null(errcap_last(&c));
	errcap_stop(&c);
	/* stopping twice, or without a start, is harmless */
	errcap_stop(&c);
	errcap_init(&c);
	errcap_stop(&c);
	redirect_end(&r, &got);
	ck_assert_str_eq(got.data, "direct\n");
	buf_fini(&got);
}
END_TEST

Suite *suite_errcap(void);
Suite *suite_errcap(void)
{
	Suite *s = suite_create("errcap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, errcap_lines_to_status_and_tail_after);
	tcase_add_test(tc, errcap_flood_keeps_the_tail);
	tcase_add_test(tc, errcap_only_tty_leaves_a_file_alone);
	suite_add_tcase(s, tc);
	return s;
}
