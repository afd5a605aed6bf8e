/* Command-line parsing for asynctop: subcommands, record's and the viewer's
 * options, table-driven, C-locale numbers, one-line usage errors. */
#include "tui/cli.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/window.h"

enum opt_id {
	OPT_ADAPTER,
	OPT_ENDPOINT,
	OPT_WINDOW,
	OPT_METRIC,
	OPT_MAX_BYTES,
	OPT_MAX_SAMPLES,
	OPT_KEEP,
	OPT_HELP,
	OPT_REFRESH,
	OPT_SAVE_DIR,
	OPT_HISTORY,
	OPT_WARN_POLL,
	OPT_WARN_IDLE,
	OPT_EXIT_AFTER,
	OPT_DUMP_SCREEN,
	OPT_COUNT,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_FORCE,
};

/* In help order. */
static const struct cli_option opt_defs[] = {
	{ .shortname = 'a',
	  .longname = "adapter",
	  .arg = "NAME",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_ADAPTER,
	  .help = "the source's adapter ('PROG adapters' lists them)" },
	{ .shortname = 'e',
	  .longname = "endpoint",
	  .arg = "WHERE",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_ENDPOINT,
	  .help =
	      "where the source is; repeatable for replay (files, directories)" },
	{ .shortname = 'w',
	  .longname = "window",
	  .arg = "SECONDS",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_WINDOW,
	  .help = "window length, 0.1 to 60 (default 5; more is capped)" },
	{ .shortname = 'm',
	  .longname = "metric",
	  .arg = "METRIC",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_METRIC,
	  .help =
	      "idle (default), busy, scheduled, polls or wakes: the first weighting" },
	{ .shortname = 0,
	  .longname = "max-bytes",
	  .arg = "N",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_MAX_BYTES,
	  .help = "replay: largest decompressed profile (default 256 MiB)" },
	{ .shortname = 0,
	  .longname = "max-samples",
	  .arg = "N",
	  .where = CLI_FOR_BOTH,
	  .id = OPT_MAX_SAMPLES,
	  .help = "replay: most samples per profile (default 1048576)" },
	{ .shortname = 0,
	  .longname = "keep",
	  .arg = NULL,
	  .where = CLI_FOR_BOTH,
	  .id = OPT_KEEP,
	  .help =
	      "leave COMMAND running at the end (default: SIGTERM, then SIGKILL after 2 s)" },
	{ .shortname = 'h',
	  .longname = "help",
	  .arg = NULL,
	  .where = CLI_FOR_BOTH,
	  .id = OPT_HELP,
	  .help = "this text" },
	{ .shortname = 'r',
	  .longname = "refresh",
	  .arg = "HZ",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_REFRESH,
	  .help = "refresh frequency, 0.1 to 50 Hz (default 1)" },
	{ .shortname = 'd',
	  .longname = "save-dir",
	  .arg = "SAVE_DIR",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_SAVE_DIR,
	  .help = "where S and C save (default .)" },
	{ .shortname = 0,
	  .longname = "history",
	  .arg = "N",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_HISTORY,
	  .help = "windows kept (default 120)" },
	{ .shortname = 0,
	  .longname = "warn-poll",
	  .arg = "MS",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_WARN_POLL,
	  .help =
	      "warn of a poll or step longer than MS milliseconds (default 50)" },
	{ .shortname = 0,
	  .longname = "warn-idle",
	  .arg = "N",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_WARN_IDLE,
	  .help =
	      "warn of a row idle with no wakes for N windows (default 3)" },
	{ .shortname = 0,
	  .longname = "exit-after",
	  .arg = "N",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_EXIT_AFTER,
	  .help = "quit after N windows" },
	{ .shortname = 0,
	  .longname = "dump-screen",
	  .arg = "COLSxROWS",
	  .where = CLI_FOR_VIEW,
	  .id = OPT_DUMP_SCREEN,
	  .help =
	      "no terminal: print the screen as text once --exit-after windows came or the source ended, and exit" },
	{ .shortname = 'n',
	  .longname = "count",
	  .arg = "COUNT",
	  .where = CLI_FOR_RECORD,
	  .id = OPT_COUNT,
	  .help =
	      "windows to collect (default 1; with a COMMAND, until it ends; 0: until interrupted or the source ends; replay: every file)" },
	{ .shortname = 'f',
	  .longname = "format",
	  .arg = "FORMAT",
	  .where = CLI_FOR_RECORD,
	  .id = OPT_FORMAT,
	  .help = "pprof (gzip, default), collapsed or text" },
	{ .shortname = 'o',
	  .longname = "output",
	  .arg = "FILE",
	  .where = CLI_FOR_RECORD,
	  .id = OPT_OUTPUT,
	  .help =
	      "where to save; with COUNT other than 1 the window's number goes before the extension (out-0001.pb.gz); - is standard output (text's default); without it, with a COMMAND, files are named as the viewer's saves" },
	{ .shortname = 0,
	  .longname = "force",
	  .arg = NULL,
	  .where = CLI_FOR_RECORD,
	  .id = OPT_FORCE,
	  .help = "replace existing files" },
};

const struct cli_option *cli_options(size_t *n)
{
	*n = ARRAY_SIZE(opt_defs);
	return opt_defs;
}

static const char *const format_names[] = {
	[CLI_FORMAT_PPROF] = "pprof",
	[CLI_FORMAT_COLLAPSED] = "collapsed",
	[CLI_FORMAT_TEXT] = "text",
};

const char *cli_format_name(enum cli_format f)
{
	return (size_t)f < ARRAY_SIZE(format_names) ? format_names[f] : "?";
}

enum status cli_parse_format(const char *s, enum cli_format *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++) {
		if (!strcmp(s, format_names[i])) {
			*out = (enum cli_format)i;
			return STATUS_OK;
		}
	}
	return STATUS_INVAL;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

enum status cli_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!all_digits(s))
		return STATUS_INVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT64_MAX)
		return STATUS_INVAL;
	*out = (uint64_t)v;
	return STATUS_OK;
}

/* strtod in the C locale for this thread only, so that an embedder's
 * LC_NUMERIC (a decimal comma) never changes what "0.5" means. */
static enum status strtod_c(const char *s, double *out)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old;
	char *end;
	double v;
	int saved;

	if (c == (locale_t)0)
		return STATUS_NOMEM;
	old = uselocale(c);
	errno = 0;
	v = strtod(s, &end);
	saved = errno;
	uselocale(old);
	freelocale(c);
	if (*end || (saved && saved != ERANGE))
		return STATUS_INVAL;
	*out = v;
	return STATUS_OK;
}

enum status cli_parse_window(const char *s, uint64_t *ns, bool *clamped)
{
	size_t digits = 0, dots = 0;
	double sec;
	enum status st;

	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p == '.')
			dots++;
		else
			return STATUS_INVAL;
	}
	if (!digits || dots > 1)
		return STATUS_INVAL;
	st = strtod_c(s, &sec);
	if (st != STATUS_OK)
		return st;
	if (sec * 1e9 + 0.5 < (double)CLI_WINDOW_MIN_NS)
		return STATUS_INVAL;
	if (sec > 60.0) {
		*clamped = true;
		*ns = WINDOW_MAX_NANOS;
		return STATUS_OK;
	}
	*clamped = false;
	*ns = (uint64_t)(sec * 1e9 + 0.5);
	if (*ns > WINDOW_MAX_NANOS)
		*ns = WINDOW_MAX_NANOS;
	return STATUS_OK;
}

enum status cli_parse_hz(const char *s, uint64_t *ns)
{
	size_t digits = 0, dots = 0;
	double hz;

	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p == '.')
			dots++;
		else
			return STATUS_INVAL;
	}
	if (!digits || dots > 1 || strtod_c(s, &hz) != STATUS_OK)
		return STATUS_INVAL;
	if (hz < CLI_HZ_MIN - 1e-9 || hz > CLI_HZ_MAX + 1e-9)
		return STATUS_INVAL;
	*ns = (uint64_t)(1e9 / hz + 0.5);
	return STATUS_OK;
}

enum status cli_parse_size(const char *s, uint64_t *cols, uint64_t *rows)
{
	const char *x = strchr(s, 'x');
	char c[16];

	if (!x || (size_t)(x - s) >= sizeof(c))
		return STATUS_INVAL;
	memcpy(c, s, (size_t)(x - s));
	c[x - s] = '\0';
	if (cli_parse_u64(c, cols) != STATUS_OK ||
	    cli_parse_u64(x + 1, rows) != STATUS_OK)
		return STATUS_INVAL;
	if (!*cols || !*rows || *cols > CLI_DUMP_MAX || *rows > CLI_DUMP_MAX)
		return STATUS_INVAL;
	return STATUS_OK;
}

static enum status usage(char *err, size_t errsz, const char *fmt, ...)
    PRINTF(3, 4);

static enum status usage(char *err, size_t errsz, const char *fmt, ...)
{
	if (errsz) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return STATUS_INVAL;
}

static const struct cli_option *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_defs); i++) {
		const char *l = opt_defs[i].longname;
		if (strlen(l) == len && !memcmp(l, name, len))
			return &opt_defs[i];
	}
	return NULL;
}

static const struct cli_option *find_short(char c)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_defs); i++)
		if (opt_defs[i].shortname && opt_defs[i].shortname == c)
			return &opt_defs[i];
	return NULL;
}

static enum status apply(struct opts *o, const struct cli_option *d,
                         const char *spelled, const char *val, char *err,
                         size_t errsz)
{
	uint64_t u;
	enum status st;

	if (o->cmd == CLI_RECORD && d->where == CLI_FOR_VIEW)
		return usage(
		    err, errsz,
		    "%s is an option of the live viewer, not of record",
		    spelled);
	if (o->cmd == CLI_VIEW && d->where == CLI_FOR_RECORD)
		return usage(
		    err, errsz,
		    "%s is an option of record, not of the live viewer (saves go to -d DIR)",
		    spelled);
	switch (d->id) {
	case OPT_ADAPTER:
		if (!*val)
			return usage(err, errsz, "%s needs an adapter name",
			             spelled);
		o->adapter = val;
		return STATUS_OK;
	case OPT_ENDPOINT:
		if (!*val)
			return usage(err, errsz, "%s needs an endpoint",
			             spelled);
		o->endpoints[o->nendpoints++] = val;
		return STATUS_OK;
	case OPT_WINDOW:
		st = cli_parse_window(val, &o->window_ns, &o->window_clamped);
		if (st == STATUS_NOMEM)
			return st;
		if (st != STATUS_OK)
			return usage(
			    err, errsz,
			    "%s %s: the window is a number of seconds from 0.1 to 60 (e.g. 0.5)",
			    spelled, val);
		if (o->window_clamped)
			snprintf(
			    o->notice, sizeof(o->notice),
			    "%s %s: windows are capped at 60 s; using 60 s",
			    spelled, val);
		else
			o->notice[0] = '\0';
		return STATUS_OK;
	case OPT_COUNT:
		if (cli_parse_u64(val, &o->count) != STATUS_OK)
			return usage(
			    err, errsz,
			    "%s %s: the count is a whole number of windows (0: until stopped)",
			    spelled, val);
		o->count_set = true;
		return STATUS_OK;
	case OPT_FORMAT:
		if (cli_parse_format(val, &o->format) != STATUS_OK)
			return usage(
			    err, errsz,
			    "%s %s: the format is pprof, collapsed or text",
			    spelled, val);
		return STATUS_OK;
	case OPT_METRIC:
		if (!metric_parse(sv_c(val), &o->metric))
			return usage(
			    err, errsz,
			    "%s %s: the metric is idle, busy, scheduled, polls or wakes",
			    spelled, val);
		return STATUS_OK;
	case OPT_FORCE:
		o->force = true;
		return STATUS_OK;
	case OPT_OUTPUT:
		if (!*val)
			return usage(err, errsz, "%s needs a file name",
			             spelled);
		o->output = val;
		return STATUS_OK;
	case OPT_HELP:
		o->topic = o->cmd == CLI_RECORD ? "record" : NULL;
		o->cmd = CLI_HELP;
		return STATUS_OK;
	case OPT_MAX_BYTES:
	case OPT_MAX_SAMPLES:
		if (cli_parse_u64(val, &u) != STATUS_OK || u == 0 ||
		    u > SIZE_MAX)
			return usage(err, errsz,
			             "%s %s: expected a positive whole number",
			             spelled, val);
		if (d->id == OPT_MAX_BYTES)
			o->limits.max_bytes = (size_t)u;
		else
			o->limits.max_samples = (size_t)u;
		return STATUS_OK;
	case OPT_REFRESH:
		if (cli_parse_hz(val, &o->refresh_ns) != STATUS_OK)
			return usage(
			    err, errsz,
			    "%s %s: the refresh is a frequency in Hz from 0.1 to 50 (e.g. 2)",
			    spelled, val);
		return STATUS_OK;
	case OPT_SAVE_DIR:
		if (!*val)
			return usage(err, errsz, "%s needs a directory",
			             spelled);
		o->save_dir = val;
		return STATUS_OK;
	case OPT_HISTORY:
		if (cli_parse_u64(val, &o->history) != STATUS_OK ||
		    !o->history || o->history > 100000)
			return usage(
			    err, errsz,
			    "%s %s: history is a number of windows from 1 to 100000",
			    spelled, val);
		return STATUS_OK;
	case OPT_WARN_POLL:
		if (cli_parse_u64(val, &o->warn_poll_ms) != STATUS_OK ||
		    !o->warn_poll_ms || o->warn_poll_ms > 3600000)
			return usage(
			    err, errsz,
			    "%s %s: the poll threshold is milliseconds from 1 to 3600000",
			    spelled, val);
		return STATUS_OK;
	case OPT_WARN_IDLE:
		if (cli_parse_u64(val, &o->warn_idle) != STATUS_OK ||
		    !o->warn_idle || o->warn_idle > 100000)
			return usage(
			    err, errsz,
			    "%s %s: idle warnings count windows from 1 to 100000",
			    spelled, val);
		return STATUS_OK;
	case OPT_EXIT_AFTER:
		if (cli_parse_u64(val, &o->exit_after) != STATUS_OK ||
		    !o->exit_after)
			return usage(
			    err, errsz,
			    "%s %s: expected a positive number of windows",
			    spelled, val);
		return STATUS_OK;
	case OPT_DUMP_SCREEN:
		if (cli_parse_size(val, &o->dump_cols, &o->dump_rows) !=
		    STATUS_OK)
			return usage(err, errsz,
			             "%s %s: expected COLSxROWS, e.g. 80x24",
			             spelled, val);
		return STATUS_OK;
	case OPT_KEEP:
		o->keep = true;
		return STATUS_OK;
	}
	return STATUS_INVAL;
}

/* One option at argv[*i]; advances *i past its value. */
static enum status parse_one(struct opts *o, int argc, char **argv, int *i,
                             char *err, size_t errsz)
{
	const char *arg = argv[*i];
	const struct cli_option *d;
	const char *val = NULL;
	char spelled[64];

	if (arg[1] == '-') {
		const char *name = arg + 2;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		d = find_long(name, len);
		if (!d)
			return usage(err, errsz, "unknown option '%s'", arg);
		snprintf(spelled, sizeof(spelled), "--%s", d->longname);
		if (eq && !d->arg)
			return usage(err, errsz, "%s takes no value", spelled);
		if (eq)
			val = eq + 1;
	} else {
		d = find_short(arg[1]);
		if (!d)
			return usage(err, errsz, "unknown option '%s'", arg);
		snprintf(spelled, sizeof(spelled), "-%c", d->shortname);
		if (arg[2] && !d->arg)
			return usage(err, errsz, "unknown option '%s'", arg);
		if (arg[2])
			val = arg + 2;
	}
	if (d->arg && !val) {
		if (*i + 1 >= argc)
			return usage(err, errsz, "%s needs a value", spelled);
		val = argv[++*i];
	}
	return apply(o, d, spelled, val, err, errsz);
}

static enum status parse_options(struct opts *o, int argc, char **argv, int i,
                                 char *err, size_t errsz)
{
	for (; i < argc; i++) {
		const char *arg = argv[i];
		enum status st;

		if (!strcmp(arg, "--")) {
			o->command = argv + i + 1;
			o->ncommand = (size_t)(argc - i - 1);
			if (!o->ncommand)
				return usage(
				    err, errsz,
				    "'--' must be followed by a COMMAND to run");
			return STATUS_OK;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			return usage(err, errsz, "unexpected argument '%s'",
			             arg);
		st = parse_one(o, argc, argv, &i, err, errsz);
		if (st != STATUS_OK)
			return st;
		if (o->cmd == CLI_HELP)
			return STATUS_OK;
	}
	if (o->keep)
		return usage(
		    err, errsz,
		    "--keep applies to a program started with '-- COMMAND'");
	return STATUS_OK;
}

enum status cli_parse(int argc, char **argv, struct opts *o, char *err,
                      size_t errsz)
{
	const char *first;
	const char *slash;

	memset(o, 0, sizeof(*o));
	if (errsz)
		err[0] = '\0';
	o->prog = "asynctop";
	if (argc > 0 && argv[0] && argv[0][0]) {
		slash = strrchr(argv[0], '/');
		o->prog = slash && slash[1] ? slash + 1 : argv[0];
	}
	o->window_ns = CLI_WINDOW_DEFAULT_NS;
	o->count = 1;
	o->format = CLI_FORMAT_PPROF;
	o->metric = METRIC_IDLE;
	o->limits.max_bytes = LOAD_MAX_BYTES_DEFAULT;
	o->limits.max_samples = LOAD_MAX_SAMPLES_DEFAULT;
	o->refresh_ns = 1000000000u;
	o->save_dir = ".";
	o->history = CLI_HISTORY_DEFAULT;
	o->warn_poll_ms = 50;
	o->warn_idle = 3;
	/* At most one endpoint per argument. */
	o->endpoints =
	    mem_calloc(argc > 0 ? (size_t)argc : 1, sizeof(*o->endpoints));
	if (!o->endpoints)
		return STATUS_NOMEM;
	if (argc < 2) {
		o->cmd = CLI_VIEW;
		return STATUS_OK;
	}
	first = argv[1];
	if (!strcmp(first, "record")) {
		o->cmd = CLI_RECORD;
		return parse_options(o, argc, argv, 2, err, errsz);
	}
	if (!strcmp(first, "adapters")) {
		o->cmd = CLI_ADAPTERS;
		if (argc > 2 &&
		    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			o->cmd = CLI_HELP;
			o->topic = "adapters";
			return STATUS_OK;
		}
		if (argc > 2)
			return usage(err, errsz,
			             "'adapters' takes no argument (got '%s')",
			             argv[2]);
		return STATUS_OK;
	}
	if (!strcmp(first, "help") || !strcmp(first, "--help") ||
	    !strcmp(first, "-h")) {
		o->cmd = CLI_HELP;
		if (argc > 2) {
			if (strcmp(argv[2], "record") &&
			    strcmp(argv[2], "adapters"))
				return usage(
				    err, errsz,
				    "no help on '%s': try 'help record' or 'help adapters'",
				    argv[2]);
			o->topic = argv[2];
		}
		if (argc > 3)
			return usage(err, errsz, "unexpected argument '%s'",
			             argv[3]);
		return STATUS_OK;
	}
	if (!strcmp(first, "--version") || !strcmp(first, "-V")) {
		o->cmd = CLI_VERSION;
		if (argc > 2)
			return usage(err, errsz, "unexpected argument '%s'",
			             argv[2]);
		return STATUS_OK;
	}
	if (first[0] == '-') {
		o->cmd = CLI_VIEW;
		return parse_options(o, argc, argv, 1, err, errsz);
	}
	return usage(
	    err, errsz,
	    "unknown command '%s': the commands are record, adapters and help",
	    first);
}

void cli_free(struct opts *o)
{
	mem_free((void *)o->endpoints);
	memset(o, 0, sizeof(*o));
}
