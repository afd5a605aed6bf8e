/* The asynctop command line, parsed into one struct opts: subcommand,
 * adapter, endpoints, window, count, format, metric and output.  Pure: no
 * I/O, no globals, numbers read in the C locale whatever LC_NUMERIC says. */
#ifndef ASYNCTOP_TUI_CLI_H
#define ASYNCTOP_TUI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/base.h"
#include "model/metric.h"
#include "model/sample.h"
#include "model/status.h"

/* What the command line asks for. */
enum cli_cmd {
	CLI_VIEW,     /* no subcommand: the live viewer */
	CLI_RECORD,   /* asynctop record ... */
	CLI_ADAPTERS, /* asynctop adapters */
	CLI_HELP,     /* --help, -h, help [TOPIC], record --help */
	CLI_VERSION,  /* --version, -V */
};

/* The output formats of record (docs/design.md §5). */
enum cli_format {
	CLI_FORMAT_PPROF,
	CLI_FORMAT_COLLAPSED,
	CLI_FORMAT_TEXT,
};

/* Window bounds, in ns (docs/design.md §2). */
#define CLI_WINDOW_MIN_NS     ((uint64_t)100000000u)
#define CLI_WINDOW_DEFAULT_NS ((uint64_t)5000000000u)

/* The parsed command line.  Strings are borrowed from argv; endpoints is
 * an owned array of borrowed pointers (cli_free). */
struct opts {
	enum cli_cmd cmd;
	const char *prog;       /* argv[0]'s base name, or "asynctop" */
	const char *topic;      /* help topic ("record"), or NULL */
	const char *adapter;    /* -a; NULL when not given */
	const char **endpoints; /* -e, in order */
	size_t nendpoints;
	uint64_t window_ns;  /* -w, clamped to 60 s; default 5 s */
	bool window_clamped; /* -w was above 60 s (notice says so) */
	uint64_t count;      /* -n; 0 means until stopped or the end */
	bool count_set;
	enum cli_format format; /* -f; default pprof */
	enum metric metric;     /* -m; default idle */
	bool force;             /* --force */
	const char *output;     /* -o; "-" is stdout; NULL when not given */
	char **command;         /* after "--": argv + i, NULL-terminated */
	size_t ncommand;
	bool keep; /* --keep: leave COMMAND running at the end */
	struct load_limits limits; /* --max-bytes, --max-samples (replay) */
	char notice[160]; /* non-empty: a notice for stderr (e.g. clamping) */
	/* the viewer's own options (refused by record) */
	uint64_t refresh_ns;           /* -r HZ as a period; default 1 s */
	const char *save_dir;          /* -d; default "." */
	uint64_t history;              /* --history; default 120 */
	uint64_t warn_poll_ms;         /* --warn-poll; default 50 */
	uint64_t warn_idle;            /* --warn-idle; default 3 windows */
	uint64_t exit_after;           /* --exit-after N windows; 0: never */
	uint64_t dump_cols, dump_rows; /* --dump-screen COLSxROWS; 0: none */
};

/* Where an option applies. */
enum cli_for {
	CLI_FOR_BOTH,   /* the viewer and record */
	CLI_FOR_VIEW,   /* the live viewer only */
	CLI_FOR_RECORD, /* record only */
};

/* One option of the command line.  The parser, --help and the test that
 * the man page documents every option all read one table of them. */
struct cli_option {
	char shortname;       /* 0: long only */
	const char *longname; /* without the dashes */
	const char *arg;      /* the argument's name; NULL: takes none */
	enum cli_for where;
	const char *help; /* one line; PROG stands for the program's name */
	int id;           /* private to the parser */
};

/* The option table, in help order; *n is its length. */
const struct cli_option *cli_options(size_t *n);

/* Viewer defaults and bounds. */
#define CLI_HISTORY_DEFAULT 120
#define CLI_HZ_MIN          0.1
#define CLI_HZ_MAX          50.0
#define CLI_DUMP_MAX        1000

/* Parses argv (borrowed; it must outlive o) into o.  STATUS_OK; STATUS_INVAL
 * for a usage error with a one-line reason in err (always NUL-terminated);
 * STATUS_NOMEM.  On failure o is still safe to cli_free.  Numbers are
 * parsed in the C locale (uselocale), so "-w 0.5" works under any
 * LC_NUMERIC.  Does not block. */
enum status cli_parse(int argc, char **argv, struct opts *o, char *err,
                      size_t errsz) MUST_CHECK;

/* Frees what cli_parse allocated and zeroes o; safe on a zeroed o. */
void cli_free(struct opts *o);

/* Parses a window length in seconds ("0.5", "5", "60.0") into *ns: digits
 * with at most one '.', no sign, no exponent, no spaces.  Values above 60 s
 * are clamped (*clamped set); below 0.1 s is STATUS_INVAL.  C locale. */
enum status cli_parse_window(const char *s, uint64_t *ns,
                             bool *clamped) MUST_CHECK;

/* Parses a refresh frequency in Hz ("1", "0.5", "10"; CLI_HZ_MIN to
 * CLI_HZ_MAX, C locale) into the period *ns.  STATUS_INVAL otherwise. */
enum status cli_parse_hz(const char *s, uint64_t *ns) MUST_CHECK;

/* Parses "COLSxROWS" (each 1 to CLI_DUMP_MAX).  STATUS_INVAL otherwise. */
enum status cli_parse_size(const char *s, uint64_t *cols,
                           uint64_t *rows) MUST_CHECK;

/* Parses a non-negative decimal integer (digits only, fits uint64). */
enum status cli_parse_u64(const char *s, uint64_t *out) MUST_CHECK;

/* "pprof", "collapsed" or "text" (exact, lower case). */
enum status cli_parse_format(const char *s, enum cli_format *out) MUST_CHECK;

/* The format's name, as typed. */
const char *cli_format_name(enum cli_format f);

#endif
