/* The viewer's save directory (-d) is probed at start, as record probes its
 * output, before the source opens: a directory given with -d where no file
 * can be made fails with exit 1 and record's words; the working directory,
 * the default, only says so on the status line.  Faults are injected in the
 * file sink (CI runs as root, so chmod would not deny it), inherited by the
 * forked child running asynctop_main with the toy producer. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "encode/out.h"
#include "tests/record_util.h"
#include "tests/util.h"

/* An unwritable -d: exit 1 naming the directory and the reason, before the
 * source is opened (the toy would be unreachable, exit 3, were it asked),
 * and nothing left in it. */
START_TEST(savedir_unwritable_fails_first)
{
	const int errs[] = { EROFS, EACCES };
	char saves[640], want[700];
	const char *argv[] = { "toytop",        "-w",    "0.1", "-d", saves,
		               "--dump-screen", "80x24", NULL };
	struct rt_run r;

	for (size_t i = 0; i < ARRAY_SIZE(errs); i++) {
		struct out_faults f = { .create_errno = errs[i] };

		rt_init(&r);
		rt_path(saves, sizeof(saves), &r, "in");
		ck_assert_int_eq(mkdir(saves, 0700), 0);
		out_file_set_faults(&f);
		rt_start_main(&r, argv, TOY_UNREACHABLE, NULL);
		out_file_set_faults(NULL);
		tu_run_wait(&r.p);
		ck_assert_msg(r.p.code == 1, "exit %d: %s", r.p.code,
		              r.p.err.data);
		snprintf(want, sizeof(want),
		         "cannot save windows in %s: ", saves);
		ASSERT_ERR_HAS(&r, want);
		ASSERT_ERR_HAS(&r, "cannot create a file in");
		ASSERT_ERR_HAS(&r, strerror(errs[i]));
		ck_assert_ptr_null(strstr(r.p.err.data, "not reachable"));
		ck_assert_int_eq(tu_count_entries(saves, NULL), 0);
		rt_fini(&r);
	}
}
END_TEST

/* The default, the working directory, unwritable: the viewer runs, and its
 * status line says where saves cannot go. */
START_TEST(savedir_working_directory_warns)
{
	const char *argv[] = { "toytop",       "-w", "0.1",
		               "--exit-after", "1",  "--dump-screen",
		               "160x12",       NULL };
	struct out_faults f = { .create_errno = EACCES };
	struct rt_run r;

	rt_init(&r);
	out_file_set_faults(&f);
	rt_start_main(&r, argv, TOY_DATA, NULL);
	out_file_set_faults(NULL);
	tu_run_wait(&r.p);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert_msg(
	    strstr(r.p.out.data,
	           "cannot save windows in the working directory: ") != NULL,
	    "no notice on the screen:\n%s", r.p.out.data);
	rt_fini(&r);
}
END_TEST

/* A writable -d: the probe leaves nothing behind and says nothing. */
START_TEST(savedir_writable_is_left_clean)
{
	char saves[640];
	const char *argv[] = {
		"toytop",       "-w", "0.1",           "-d",     saves,
		"--exit-after", "1",  "--dump-screen", "160x12", NULL
	};
	struct rt_run r;

	rt_init(&r);
	rt_path(saves, sizeof(saves), &r, "in");
	ck_assert_int_eq(mkdir(saves, 0700), 0);
	rt_run_main(&r, argv, TOY_DATA);
	ck_assert_msg(r.p.code == 0, "exit %d: %s", r.p.code, r.p.err.data);
	ck_assert_ptr_null(strstr(r.p.out.data, "cannot save windows"));
	ck_assert_int_eq(tu_count_entries(saves, NULL), 0);
	rt_fini(&r);
}
END_TEST

Suite *suite_viewer_savedir(void);
Suite *suite_viewer_savedir(void)
{
	Suite *s = suite_create("viewer_savedir");
	TCase *tc = tcase_create("probe");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, savedir_unwritable_fails_first);
	tcase_add_test(tc, savedir_working_directory_warns);
	tcase_add_test(tc, savedir_writable_is_left_clean);
	suite_add_tcase(s, tc);
	return s;
}
