/* The viewer's command line: -r, -d, --history, --exit-after,
 * --dump-screen, their defaults, and options refused by the wrong
 * command (record's in the viewer, the viewer's in record). */
#include <check.h>
#include <string.h>

#include "tests/util.h"
#include "tui/cli.h"

static enum status parse(const char *const *argv, struct opts *o, char *err,
                         size_t errsz)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cli_parse(argc, (char **)(uintptr_t)argv, o, err, errsz);
}

START_TEST(viewer_cli_defaults_and_options)
{
	const char *none[] = { "asynctop", "-a", "replay", NULL };
	const char *all[] = {
		"asynctop", "-a",          "replay", "-e",
		"x",        "-r",          "2.5",    "-d",
		"/tmp",     "--history",   "7",      "--exit-after",
		"3",        "-m",          "busy",   "--dump-screen",
		"100x30",   "--warn-poll", "20",     "--warn-idle",
		"5",        NULL
	};
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(none, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_VIEW);
	ck_assert_uint_eq(o.refresh_ns, 1000000000u);
	ck_assert_str_eq(o.save_dir, ".");
	ck_assert_uint_eq(o.history, 120);
	ck_assert_uint_eq(o.exit_after, 0);
	ck_assert_uint_eq(o.dump_cols, 0);
	ck_assert_int_eq(o.metric, METRIC_IDLE);
	ck_assert_uint_eq(o.warn_poll_ms, 50);
	ck_assert_uint_eq(o.warn_idle, 3);
	cli_free(&o);
	ck_assert_int_eq(parse(all, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(o.refresh_ns, 400000000u);
	ck_assert_str_eq(o.save_dir, "/tmp");
	ck_assert_uint_eq(o.history, 7);
	ck_assert_uint_eq(o.exit_after, 3);
	ck_assert_uint_eq(o.dump_cols, 100);
	ck_assert_uint_eq(o.dump_rows, 30);
	ck_assert_int_eq(o.metric, METRIC_BUSY);
	ck_assert_uint_eq(o.warn_poll_ms, 20);
	ck_assert_uint_eq(o.warn_idle, 5);
	cli_free(&o);
}
END_TEST

START_TEST(viewer_cli_bad_values)
{
	static const char *const bad[][4] = {
		{ "-r", "0", "frequency in Hz", NULL },
		{ "-r", "51", "frequency in Hz", NULL },
		{ "-r", "1e3", "frequency in Hz", NULL },
		{ "--history", "0", "from 1 to 100000", NULL },
		{ "--warn-poll", "0", "milliseconds from 1", NULL },
		{ "--warn-poll", "3600001", "milliseconds from 1", NULL },
		{ "--warn-poll", "-5", "milliseconds from 1", NULL },
		{ "--warn-idle", "0", "count windows from 1", NULL },
		{ "--exit-after", "0", "positive number", NULL },
		{ "--dump-screen", "80", "COLSxROWS", NULL },
		{ "--dump-screen", "0x24", "COLSxROWS", NULL },
		{ "--dump-screen", "80x24x1", "COLSxROWS", NULL },
		{ "-n", "2", "option of record", NULL },
		{ "-o", "x", "option of record", NULL },
	};
	struct opts o;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[] = { "asynctop", bad[i][0], bad[i][1], NULL };
		ck_assert_int_eq(parse(argv, &o, err, sizeof(err)),
		                 STATUS_INVAL);
		ck_assert_msg(strstr(err, bad[i][2]) != NULL, "%s %s: %s",
		              bad[i][0], bad[i][1], err);
		cli_free(&o);
	}
	{
		const char *argv[] = { "asynctop", "record", "-r", "2", NULL };
		ck_assert_int_eq(parse(argv, &o, err, sizeof(err)),
		                 STATUS_INVAL);
		ck_assert_str_eq(err, "-r is an option of the live viewer, "
		                      "not of record");
		cli_free(&o);
	}
}
END_TEST

START_TEST(viewer_cli_hz_and_size)
{
	uint64_t ns, c, r;

	ck_assert_int_eq(cli_parse_hz("1", &ns), STATUS_OK);
	ck_assert_uint_eq(ns, 1000000000u);
	ck_assert_int_eq(cli_parse_hz("0.1", &ns), STATUS_OK);
	ck_assert_uint_eq(ns, 10000000000u);
	ck_assert_int_eq(cli_parse_hz("50", &ns), STATUS_OK);
	ck_assert_uint_eq(ns, 20000000u);
	ck_assert_int_eq(cli_parse_hz("-1", &ns), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_hz("", &ns), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_size("80x24", &c, &r), STATUS_OK);
	ck_assert_uint_eq(c, 80);
	ck_assert_uint_eq(r, 24);
	ck_assert_int_eq(cli_parse_size("1001x24", &c, &r), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_size("x24", &c, &r), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_size("12345678901234567x2", &c, &r),
	                 STATUS_INVAL);
}
END_TEST

Suite *suite_viewer_cli(void);
Suite *suite_viewer_cli(void)
{
	Suite *s = suite_create("viewer_cli");
	TCase *tc = tcase_create("viewer_cli");

	tcase_add_test(tc, viewer_cli_defaults_and_options);
	tcase_add_test(tc, viewer_cli_bad_values);
	tcase_add_test(tc, viewer_cli_hz_and_size);
	suite_add_tcase(s, tc);
	return s;
}
