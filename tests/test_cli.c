/* The command-line parser: every option in its short, long and attached
 * forms, bad values, the 60 s clamp and its notice, subcommands, and
 * C-locale numbers under a decimal-comma LC_NUMERIC. */
#include <check.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/buf.h"
#include "tests/util.h"
#include "tui/cli.h"

/* The argv cli_parse sees: a mutable copy (opts borrow from it until the
 * next parse). */
static char *argbuf[64];

/* Parses a NULL-terminated argv; returns the status, err filled. */
static enum status parse(const char *const *argv, struct opts *o, char *err,
                         size_t errsz)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	ck_assert_int_lt(argc, 64);
	memcpy(argbuf, argv, (size_t)(argc + 1) * sizeof(*argv));
	return cli_parse(argc, argbuf, o, err, errsz);
}

/* Expects a usage error whose text contains want. */
static void expect_usage(const char *const *argv, const char *want)
{
	struct opts o;
	char err[512];
	enum status st = parse(argv, &o, err, sizeof(err));

	ck_assert_int_eq(st, STATUS_INVAL);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
	cli_free(&o);
}

START_TEST(cli_defaults)
{
	const char *argv[] = { "/usr/bin/asynctop", "record", "-o", "x.pb.gz",
		               NULL };
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_RECORD);
	ck_assert_str_eq(o.prog, "asynctop");
	ck_assert_ptr_null(o.adapter);
	ck_assert_uint_eq(o.nendpoints, 0);
	ck_assert_uint_eq(o.window_ns, 5000000000u);
	ck_assert(!o.window_clamped);
	ck_assert_uint_eq(o.count, 1);
	ck_assert(!o.count_set);
	ck_assert_int_eq(o.format, CLI_FORMAT_PPROF);
	ck_assert_int_eq(o.metric, METRIC_IDLE);
	ck_assert(!o.force);
	ck_assert_str_eq(o.output, "x.pb.gz");
	ck_assert_uint_eq(o.ncommand, 0);
	ck_assert_uint_eq(o.limits.max_bytes, LOAD_MAX_BYTES_DEFAULT);
	ck_assert_uint_eq(o.limits.max_samples, LOAD_MAX_SAMPLES_DEFAULT);
	ck_assert_str_eq(o.notice, "");
	cli_free(&o);
}
END_TEST

START_TEST(cli_every_option_short)
{
	const char *argv[] = {
		"asynctop", "record",  "-a",  "replay",    "-e",
		"a.pb.gz",  "-e",      "dir", "-w",        "0.5",
		"-n",       "3",       "-f",  "collapsed", "-m",
		"busy",     "--force", "-o",  "out.txt",   NULL
	};
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_str_eq(o.adapter, "replay");
	ck_assert_uint_eq(o.nendpoints, 2);
	ck_assert_str_eq(o.endpoints[0], "a.pb.gz");
	ck_assert_str_eq(o.endpoints[1], "dir");
	ck_assert_uint_eq(o.window_ns, 500000000u);
	ck_assert_uint_eq(o.count, 3);
	ck_assert(o.count_set);
	ck_assert_int_eq(o.format, CLI_FORMAT_COLLAPSED);
	ck_assert_int_eq(o.metric, METRIC_BUSY);
	ck_assert(o.force);
	ck_assert_str_eq(o.output, "out.txt");
	cli_free(&o);
}
END_TEST

START_TEST(cli_every_option_long_and_attached)
{
	const char *argv[] = { "asynctop",
		               "record",
		               "--adapter=tokio",
		               "--endpoint",
		               "http://h:6669",
		               "--window=1.25",
		               "--count",
		               "0",
		               "--format=text",
		               "--metric=SCHED",
		               "--output=-",
		               "--max-bytes",
		               "1000",
		               "--max-samples=7",
		               "-wx",
		               NULL };
	struct opts o;
	char err[256];

	/* the last -wx is wrong: everything before it was applied */
	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_INVAL);
	ck_assert_str_eq(err, "-w x: the window is a number of seconds from "
	                      "0.1 to 60 (e.g. 0.5)");
	cli_free(&o);
	argv[14] = "-w0.25";
	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_str_eq(o.adapter, "tokio");
	ck_assert_uint_eq(o.nendpoints, 1);
	ck_assert_str_eq(o.endpoints[0], "http://h:6669");
	ck_assert_uint_eq(o.window_ns, 250000000u);
	ck_assert_uint_eq(o.count, 0);
	ck_assert(o.count_set);
	ck_assert_int_eq(o.format, CLI_FORMAT_TEXT);
	ck_assert_int_eq(o.metric, METRIC_SCHED);
	ck_assert_str_eq(o.output, "-");
	ck_assert_uint_eq(o.limits.max_bytes, 1000);
	ck_assert_uint_eq(o.limits.max_samples, 7);
	cli_free(&o);
}
END_TEST

START_TEST(cli_short_attached_values)
{
	const char *argv[] = { "asynctop", "record",    "-areplay",
		               "-ex.pb",   "-n2",       "-fpprof",
		               "-mpolls",  "-oy.pb.gz", NULL };
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_str_eq(o.adapter, "replay");
	ck_assert_str_eq(o.endpoints[0], "x.pb");
	ck_assert_uint_eq(o.count, 2);
	ck_assert_int_eq(o.format, CLI_FORMAT_PPROF);
	ck_assert_int_eq(o.metric, METRIC_POLLS);
	ck_assert_str_eq(o.output, "y.pb.gz");
	cli_free(&o);
}
END_TEST

START_TEST(cli_window_values)
{
	static const struct {
		const char *in;
		enum status st;
		uint64_t ns;
		bool clamped;
	} cases[] = {
		{ "0.1", STATUS_OK, 100000000u, false },
		{ ".1", STATUS_OK, 100000000u, false },
		{ "0.3", STATUS_OK, 300000000u, false },
		{ "1", STATUS_OK, 1000000000u, false },
		{ "1.", STATUS_OK, 1000000000u, false },
		{ "5", STATUS_OK, 5000000000u, false },
		{ "60", STATUS_OK, 60000000000u, false },
		{ "60.0000", STATUS_OK, 60000000000u, false },
		{ "60.01", STATUS_OK, 60000000000u, true },
		{ "3600", STATUS_OK, 60000000000u, true },
		{ "99999999999999999999999999", STATUS_OK, 60000000000u, true },
		{ "0.0999", STATUS_INVAL, 0, false },
		{ "0", STATUS_INVAL, 0, false },
		{ "0.05", STATUS_INVAL, 0, false },
		{ "", STATUS_INVAL, 0, false },
		{ ".", STATUS_INVAL, 0, false },
		{ "-1", STATUS_INVAL, 0, false },
		{ "+1", STATUS_INVAL, 0, false },
		{ " 1", STATUS_INVAL, 0, false },
		{ "1 ", STATUS_INVAL, 0, false },
		{ "1e1", STATUS_INVAL, 0, false },
		{ "0x10", STATUS_INVAL, 0, false },
		{ "inf", STATUS_INVAL, 0, false },
		{ "nan", STATUS_INVAL, 0, false },
		{ "1..2", STATUS_INVAL, 0, false },
		{ "1.2.3", STATUS_INVAL, 0, false },
		{ "0,5", STATUS_INVAL, 0, false },
		{ "5s", STATUS_INVAL, 0, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = 0;
		bool clamped = false;
		enum status st = cli_parse_window(cases[i].in, &ns, &clamped);

		ck_assert_msg(st == cases[i].st, "'%s': %s", cases[i].in,
		              status_name(st));
		if (st != STATUS_OK)
			continue;
		ck_assert_msg(ns == cases[i].ns, "'%s': %llu", cases[i].in,
		              (unsigned long long)ns);
		ck_assert_msg(clamped == cases[i].clamped, "'%s'", cases[i].in);
	}
}
END_TEST

START_TEST(cli_clamp_notice)
{
	const char *argv[] = {
		"asynctop", "record", "-w", "90", "-o", "x", NULL
	};
	const char *argv2[] = { "asynctop", "record", "-w", "90", "-w",
		                "2",        "-o",     "x",  NULL };
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(o.window_ns, 60000000000u);
	ck_assert(o.window_clamped);
	ck_assert_str_eq(o.notice,
	                 "-w 90: windows are capped at 60 s; using 60 s");
	cli_free(&o);
	/* a later -w wins, and takes the notice away */
	ck_assert_int_eq(parse(argv2, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(o.window_ns, 2000000000u);
	ck_assert(!o.window_clamped);
	ck_assert_str_eq(o.notice, "");
	cli_free(&o);
}
END_TEST

START_TEST(cli_u64_and_format)
{
	uint64_t v = 7;
	enum cli_format f;

	ck_assert_int_eq(cli_parse_u64("0", &v), STATUS_OK);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cli_parse_u64("18446744073709551615", &v), STATUS_OK);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(cli_parse_u64("18446744073709551616", &v),
	                 STATUS_INVAL);
	ck_assert_int_eq(cli_parse_u64("-1", &v), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_u64("+1", &v), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_u64("1.0", &v), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_u64("", &v), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_u64(" 1", &v), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_format("pprof", &f), STATUS_OK);
	ck_assert_int_eq(f, CLI_FORMAT_PPROF);
	ck_assert_int_eq(cli_parse_format("collapsed", &f), STATUS_OK);
	ck_assert_int_eq(f, CLI_FORMAT_COLLAPSED);
	ck_assert_int_eq(cli_parse_format("text", &f), STATUS_OK);
	ck_assert_int_eq(f, CLI_FORMAT_TEXT);
	ck_assert_int_eq(cli_parse_format("PPROF", &f), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_format("json", &f), STATUS_INVAL);
	ck_assert_str_eq(cli_format_name(CLI_FORMAT_COLLAPSED), "collapsed");
}
END_TEST

START_TEST(cli_bad_values)
{
	const char *w[] = { "asynctop", "record", "-w", "0.05", NULL };
	const char *n[] = { "asynctop", "record", "-n", "-1", NULL };
	const char *n2[] = { "asynctop", "record",
		             "--count=99999999999999999999", NULL };
	const char *f[] = { "asynctop", "record", "-f", "xml", NULL };
	const char *m[] = { "asynctop", "record", "-m", "bogus", NULL };
	const char *m2[] = { "asynctop", "record", "-m", "", NULL };
	const char *mb[] = { "asynctop", "record", "--max-bytes", "0", NULL };
	const char *a[] = { "asynctop", "record", "-a", "", NULL };
	const char *o[] = { "asynctop", "record", "-o", NULL };
	const char *e[] = { "asynctop", "record", "--endpoint=", NULL };

	expect_usage(w, "-w 0.05: the window is a number of seconds from 0.1 "
	                "to 60");
	expect_usage(n, "-n -1: the count is a whole number of windows");
	expect_usage(n2, "--count 99999999999999999999: the count");
	expect_usage(f, "-f xml: the format is pprof, collapsed or text");
	expect_usage(m, "-m bogus: the metric is idle, busy, scheduled, "
	                "polls or wakes");
	expect_usage(m2, "-m : the metric");
	expect_usage(mb, "--max-bytes 0: expected a positive whole number");
	expect_usage(a, "-a needs an adapter name");
	expect_usage(o, "-o needs a value");
	expect_usage(e, "--endpoint needs an endpoint");
}
END_TEST

START_TEST(cli_bad_options)
{
	const char *u[] = { "asynctop", "record", "--bogus", NULL };
	const char *u2[] = { "asynctop", "record", "-x", NULL };
	const char *fv[] = { "asynctop", "record", "--force=yes", NULL };
	const char *pos[] = { "asynctop", "record", "out.pb.gz", NULL };
	const char *dash[] = { "asynctop", "record", "-", NULL };
	const char *cmd[] = { "asynctop", "bogus", NULL };
	const char *ad[] = { "asynctop", "adapters", "x", NULL };
	const char *hp[] = { "asynctop", "help", "nothing", NULL };
	const char *dd[] = { "asynctop", "record", "-o", "x", "--", NULL };

	expect_usage(u, "unknown option '--bogus'");
	expect_usage(u2, "unknown option '-x'");
	expect_usage(fv, "--force takes no value");
	expect_usage(pos, "unexpected argument 'out.pb.gz'");
	expect_usage(dash, "unexpected argument '-'");
	expect_usage(cmd, "unknown command 'bogus': the commands are record, "
	                  "adapters and help");
	expect_usage(ad, "'adapters' takes no argument (got 'x')");
	expect_usage(hp, "no help on 'nothing'");
	expect_usage(dd, "'--' must be followed by a COMMAND to run");
}
END_TEST

START_TEST(cli_command_after_dashes)
{
	const char *argv[] = { "asynctop", "record", "-o",  "x", "--",
		               "python3",  "-m",     "app", NULL };
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(o.ncommand, 3);
	ck_assert_str_eq(o.command[0], "python3");
	ck_assert_str_eq(o.command[1], "-m");
	ck_assert_str_eq(o.command[2], "app");
	ck_assert_ptr_null(o.command[3]);
	/* "-m" after "--" belongs to the command, not to record */
	ck_assert_int_eq(o.metric, METRIC_IDLE);
	cli_free(&o);
}
END_TEST

START_TEST(cli_subcommands)
{
	const char *none[] = { "./build/asynctop", NULL };
	const char *help[] = { "asynctop", "help", NULL };
	const char *helpr[] = { "asynctop", "help", "record", NULL };
	const char *dh[] = { "asynctop", "--help", NULL };
	const char *rh[] = { "asynctop", "record", "-w", "1",
		             "--help",   "-x",     NULL };
	const char *ver[] = { "asynctop", "--version", NULL };
	const char *v2[] = { "asynctop", "-V", NULL };
	const char *ad[] = { "toyexec-top", "adapters", NULL };
	const char *view[] = { "asynctop", "-a", "replay", NULL };
	struct opts o;
	char err[256];

	ck_assert_int_eq(parse(none, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_VIEW);
	ck_assert_str_eq(o.prog, "asynctop");
	cli_free(&o);
	ck_assert_int_eq(parse(help, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_HELP);
	ck_assert_ptr_null(o.topic);
	cli_free(&o);
	ck_assert_int_eq(parse(helpr, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_HELP);
	ck_assert_str_eq(o.topic, "record");
	cli_free(&o);
	ck_assert_int_eq(parse(dh, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_HELP);
	cli_free(&o);
	/* --help stops parsing: the -x after it is not an error */
	ck_assert_int_eq(parse(rh, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_HELP);
	ck_assert_str_eq(o.topic, "record");
	cli_free(&o);
	ck_assert_int_eq(parse(ver, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_VERSION);
	cli_free(&o);
	ck_assert_int_eq(parse(v2, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_VERSION);
	cli_free(&o);
	ck_assert_int_eq(parse(ad, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_ADAPTERS);
	ck_assert_str_eq(o.prog, "toyexec-top");
	cli_free(&o);
	ck_assert_int_eq(parse(view, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_int_eq(o.cmd, CLI_VIEW);
	ck_assert_str_eq(o.adapter, "replay");
	cli_free(&o);
}
END_TEST

START_TEST(cli_allocation_failure)
{
	const char *argv[] = { "asynctop", "record", "-o", "x", NULL };
	struct opts o;
	char err[256];

	mem_fail_at(1);
	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_NOMEM);
	mem_fail_at(0);
	cli_free(&o);
	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	cli_free(&o);
}
END_TEST

/* Compiles de_DE (ISO-8859-1: quick) into dir with localedef and points
 * LOCPATH at it; the locale name, or NULL when that cannot be done. */
static const char *private_comma_locale(const char *dir)
{
	char out[640];
	const char *argv[] = { "localedef",  "-i", "de_DE", "-f",
		               "ISO-8859-1", out,  NULL };
	struct tu_run r;
	int code;

	snprintf(out, sizeof(out), "%s/de_DE.ISO-8859-1", dir);
	tu_run_init(&r);
	tu_run(&r, NULL, argv);
	code = r.code;
	tu_run_fini(&r);
	if (code != 0)
		return NULL;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.ISO-8859-1");
}

/* -w 0.5 means half a second whatever LC_NUMERIC says. */
START_TEST(cli_locale_decimal_comma)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8",
		"fr_FR.utf8",  "nl_NL.UTF-8", "ru_RU.UTF-8",
		"es_ES.UTF-8", "de_DE",       "fr_FR",
	};
	const char *argv[] = { "asynctop", "record", "-w", "0.5",
		               "-o",       "x",      NULL };
	const char *got = NULL;
	struct lconv *lc;
	struct opts o;
	char err[256];
	uint64_t ns;
	bool clamped;
	char dir[512] = "";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !got; i++)
		got = setlocale(LC_NUMERIC, names[i]);

	if (!got) {
		tu_mkdtemp(dir, sizeof(dir));
		got = private_comma_locale(dir);
	}
	if (!got) {
		tu_skip("cli_locale_decimal_comma",
		        "no locale with a decimal comma is installed "
		        "(tried de_DE, fr_FR, nl_NL, ru_RU, es_ES) and "
		        "localedef could not build de_DE");
		if (dir[0])
			tu_rmtree(dir);
		return;
	}
	lc = localeconv();
	ck_assert_str_eq(lc->decimal_point, ",");
	ck_assert_int_eq(parse(argv, &o, err, sizeof(err)), STATUS_OK);
	ck_assert_uint_eq(o.window_ns, 500000000u);
	cli_free(&o);
	ck_assert_int_eq(cli_parse_window("0,5", &ns, &clamped), STATUS_INVAL);
	ck_assert_int_eq(cli_parse_window("12.75", &ns, &clamped), STATUS_OK);
	ck_assert_uint_eq(ns, 12750000000u);
	setlocale(LC_NUMERIC, "C");
	if (dir[0]) {
		char sub[640];

		unsetenv("LOCPATH");
		snprintf(sub, sizeof(sub), "%s/de_DE.ISO-8859-1/LC_MESSAGES",
		         dir);
		tu_rmtree(sub);
		snprintf(sub, sizeof(sub), "%s/de_DE.ISO-8859-1", dir);
		tu_rmtree(sub);
		tu_rmtree(dir);
	}
}
END_TEST

/* "--max-bytes" as roff spells it in the man page: "\-\-max\-bytes". */
static void roff_dashes(char *dst, size_t size, const char *prefix,
                        const char *name)
{
	size_t used = 0;

	for (const char *p = prefix; *p && used + 3 < size; p++)
		used += (size_t)snprintf(dst + used, size - used, "\\-");
	for (const char *p = name; *p && used + 3 < size; p++)
		used += (size_t)snprintf(dst + used, size - used,
		                         *p == '-' ? "\\-" : "%c", *p);
	dst[used] = '\0';
}

/* The man page documents every option of the table: the parser, --help
 * and docs/asynctop.1 cannot drift apart. */
START_TEST(cli_man_page_has_every_option)
{
	const char *src = getenv("ASYNCTOP_SRC");
	const struct cli_option *opt;
	char path[1024], want[128], name[2] = { 0, 0 };
	struct buf man;
	size_t n;

	if (!src || !*src) {
		tu_skip("cli_man_page_has_every_option",
		        "ASYNCTOP_SRC is not set (run via make)");
		return;
	}
	snprintf(path, sizeof(path), "%s/docs/asynctop.1", src);
	buf_init(&man);
	ck_assert_msg(tu_read_file(path, &man) == STATUS_OK, "%s is missing",
	              path);
	opt = cli_options(&n);
	ck_assert_uint_gt(n, 10);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(opt[i].help);
		roff_dashes(want, sizeof(want), "--", opt[i].longname);
		ck_assert_msg(strstr(buf_cstr(&man), want),
		              "docs/asynctop.1 does not document --%s",
		              opt[i].longname);
		if (!opt[i].shortname)
			continue;
		name[0] = opt[i].shortname;
		roff_dashes(want, sizeof(want), "-", name);
		ck_assert_msg(strstr(buf_cstr(&man), want),
		              "docs/asynctop.1 does not document -%c",
		              opt[i].shortname);
	}
	buf_fini(&man);
}
END_TEST

Suite *suite_cli(void);
Suite *suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, cli_defaults);
	tcase_add_test(tc, cli_every_option_short);
	tcase_add_test(tc, cli_every_option_long_and_attached);
	tcase_add_test(tc, cli_short_attached_values);
	tcase_add_test(tc, cli_window_values);
	tcase_add_test(tc, cli_clamp_notice);
	tcase_add_test(tc, cli_u64_and_format);
	tcase_add_test(tc, cli_bad_values);
	tcase_add_test(tc, cli_bad_options);
	tcase_add_test(tc, cli_command_after_dashes);
	tcase_add_test(tc, cli_subcommands);
	tcase_add_test(tc, cli_allocation_failure);
	tcase_add_test(tc, cli_man_page_has_every_option);
	suite_add_tcase(s, tc);
	/* localedef may build a locale: CPU-bound, and seconds on a loaded
	 * machine, past Check's default 4 s */
	tc = tcase_create("locale");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, cli_locale_decimal_comma);
	suite_add_tcase(s, tc);
	return s;
}
