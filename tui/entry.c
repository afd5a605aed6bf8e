/* asynctop_main: the whole command line (record, adapters, help, version)
 * for the stock binary and for embedders with their own adapters. */
#include "adapters/asynctop.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "adapters/builtin.h"
#include "adapters/custom.h"
#include "model/base.h"
#include "tui/app.h"
#include "tui/cli.h"
#include "tui/events.h"
#include "tui/exit.h"
#include "tui/record.h"
#include "tui/safe.h"

#ifndef ASYNCTOP_VERSION
#define ASYNCTOP_VERSION "unknown"
#endif

/* Help lines wrap here. */
#define HELP_COLUMNS 79
/* The command after the options, in help. */
#define COMMAND_HEAD "-- COMMAND ARGS..."

/* The embedder's adapters of a run whose source would not stop (see
 * run_parsed); volatile, as a store never read is otherwise dropped. */
static struct custom_registry *volatile abandoned_registry;

/* text, with PROG replaced by prog, wrapped at HELP_COLUMNS after a
 * first line already indent columns in; later lines start at indent. */
static void wrap(FILE *f, const char *text, const char *prog, size_t indent)
{
	char buf[1024];
	size_t col = indent, used = 0;
	const char *p = text;

	/* PROG first, so that widths count the real name */
	while (*p && used + 1 < sizeof(buf)) {
		if (!strncmp(p, "PROG", 4)) {
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
			                         "%s", prog);
			used = size_min(used, sizeof(buf) - 1);
			p += 4;
		} else {
			buf[used++] = *p++;
		}
	}
	buf[used] = '\0';
	for (p = buf; *p;) {
		size_t w = strcspn(p, " ");

		if (col > indent && col + 1 + w > HELP_COLUMNS) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

/* The head of d's help line: "-a, --adapter NAME"; its length. */
static size_t option_head(const struct cli_option *d, char *dst, size_t size)
{
	int k = snprintf(dst, size, "%c%c%s--%s%s%s", d->shortname ? '-' : ' ',
	                 d->shortname ? d->shortname : ' ',
	                 d->shortname ? ", " : "  ", d->longname,
	                 d->arg ? " " : "", d->arg ? d->arg : "");

	return k > 0 ? size_min((size_t)k, size - 1) : 0;
}

/* The width of the widest head, the command's included. */
static size_t heads_width(void)
{
	size_t n, width = strlen(COMMAND_HEAD);
	const struct cli_option *opt = cli_options(&n);
	char head[64];

	for (size_t i = 0; i < n; i++)
		width =
		    size_max(width, option_head(&opt[i], head, sizeof(head)));
	return width;
}

static void help_row(FILE *f, const char *prog, const char *head,
                     const char *text)
{
	size_t width = heads_width();

	fprintf(f, "  %-*s  ", (int)width, head);
	wrap(f, text, prog, width + 4);
}

/* The options of the table that apply where only says, one a line. */
static void help_options(FILE *f, const char *prog, enum cli_for only)
{
	size_t n;
	const struct cli_option *opt = cli_options(&n);
	char head[64];

	for (size_t i = 0; i < n; i++) {
		if (opt[i].where != only)
			continue;
		option_head(&opt[i], head, sizeof(head));
		help_row(f, prog, head, opt[i].help);
	}
}

static void help_main(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [OPTIONS] [-- COMMAND ARGS...]\n", prog);
	fprintf(f, "       %s record [OPTIONS] [-- COMMAND ARGS...]\n", prog);
	fprintf(f, "       %s adapters\n", prog);
	fprintf(f, "       %s help [record|adapters]\n", prog);
	fprintf(f, "       %s --version\n\n", prog);
	wrap(
	    f,
	    "Where do async tasks wait? PROG samples an async runtime through an adapter, in back-to-back windows: the live viewer (no command) shows them as they come, record saves each one as a profile.",
	    prog, 0);
	fprintf(f, "\ncommands:\n");
	fprintf(
	    f,
	    "  record    collect windows and save them (pprof, collapsed stacks, text)\n");
	fprintf(
	    f,
	    "  adapters  list the adapters, their aliases and default endpoints\n");
	fprintf(f, "  help      this text, or 'help record'\n");
	fprintf(f, "\noptions of the viewer and record:\n");
	help_options(f, prog, CLI_FOR_BOTH);
	help_row(
	    f, prog, COMMAND_HEAD,
	    "start a program prepared for the adapter and watch it (without -a: the adapter for commands, see 'PROG adapters'); its output goes to a log the header names");
	fprintf(f, "\noptions of the viewer:\n");
	help_options(f, prog, CLI_FOR_VIEW);
	fprintf(
	    f, "\nKeys: ? in the viewer, or docs/keys.md.  See asynctop(1).\n");
}

static void help_record(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s record [OPTIONS] [-- COMMAND ARGS...]\n\n", prog);
	fprintf(f, "Collects windows from an adapter and saves each one.\n");
	fprintf(f, "\noptions of record:\n");
	help_options(f, prog, CLI_FOR_RECORD);
	fprintf(f, "\noptions of the viewer and record:\n");
	help_options(f, prog, CLI_FOR_BOTH);
	help_row(
	    f, prog, COMMAND_HEAD,
	    "start a program prepared for the adapter and record it until it ends; its output goes to standard error");
	fprintf(f, "\nexit status:\n");
#define HELP_EXIT(id, code, text)     \
	fprintf(f, "  %-4s ", #code); \
	wrap(f, text, prog, 7);
	ASYNCTOP_EXIT_LIST(HELP_EXIT)
#undef HELP_EXIT
}

static void help_adapters(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s adapters\n\n", prog);
	wrap(
	    f,
	    "Lists the adapters this program offers, one a line: name, aliases, default endpoint (what -e means when it is not given) and summary; then the adapter used with no -a.",
	    prog, 0);
}

static size_t aliases_text(const struct adapter_ops *ops, char *dst,
                           size_t size)
{
	size_t used = 0;

	dst[0] = '\0';
	for (size_t i = 0; ops->aliases && ops->aliases[i]; i++) {
		int n = snprintf(dst + used, size - used, "%s%s", i ? "," : "",
		                 ops->aliases[i]);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	if (!used)
		snprintf(dst, size, "-");
	return strlen(dst);
}

static int list_adapters(const struct adapter_registry *reg)
{
	size_t wn = strlen("ADAPTER"), wa = strlen("ALIASES"),
	       we = strlen("DEFAULT ENDPOINT");
	char al[256];

	for (size_t i = 0; i < reg->n; i++) {
		const struct adapter_ops *ops = reg->ops[i];
		const char *ep = ops->default_endpoint ? ops->default_endpoint
		                                       : "(-e required)";
		wn = size_max(wn, strlen(ops->name));
		wa = size_max(wa, aliases_text(ops, al, sizeof(al)));
		we = size_max(we, strlen(ep));
	}
	printf("%-*s  %-*s  %-*s  %s\n", (int)wn, "ADAPTER", (int)wa, "ALIASES",
	       (int)we, "DEFAULT ENDPOINT", "SUMMARY");
	for (size_t i = 0; i < reg->n; i++) {
		const struct adapter_ops *ops = reg->ops[i];
		const char *ep = ops->default_endpoint ? ops->default_endpoint
		                                       : "(-e required)";
		aliases_text(ops, al, sizeof(al));
		printf("%-*s  %-*s  %-*s  %s\n", (int)wn, ops->name, (int)wa,
		       al, (int)we, ep, ops->summary ? ops->summary : "");
	}
	if (reg->attach_default)
		printf("\nWith no -a and no COMMAND: %s.\n",
		       reg->attach_default->name);
	if (reg->launch_default)
		printf("%s-- COMMAND without -a: %s.\n",
		       reg->attach_default ? "" : "\n",
		       reg->launch_default->name);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int dispatch(struct opts *o, const struct adapter_registry *reg,
                    int events, bool *abandoned)
{
	switch (o->cmd) {
	case CLI_HELP:
		if (o->topic && !strcmp(o->topic, "record"))
			help_record(stdout, o->prog);
		else if (o->topic && !strcmp(o->topic, "adapters"))
			help_adapters(stdout, o->prog);
		else
			help_main(stdout, o->prog);
		return fflush(stdout) == 0 ? 0 : 1;
	case CLI_VERSION:
		printf("asynctop %s\n", ASYNCTOP_VERSION);
		return fflush(stdout) == 0 ? 0 : 1;
	case CLI_ADAPTERS:
		return list_adapters(reg);
	case CLI_VIEW:
		return app_run(o, reg, events, abandoned);
	case CLI_RECORD:
		return record_run(o, reg, events, abandoned);
	}
	return EXIT_USAGE;
}

/* Everything after parsing; the exit status. */
static int run_parsed(struct opts *o, enum status st, const char *err,
                      const struct asynctop_adapter *adapters, size_t n,
                      int events)
{
	struct custom_registry *cr = NULL;
	char why[512];
	bool abandoned = false;
	int code;
	if (st != STATUS_OK) {
		const char *sub = o->cmd == CLI_RECORD ? " record" : "";

		if (st == STATUS_NOMEM) {
			safe_say(o->prog, status_str(st));
			return EXIT_ERROR;
		}
		safe_sayf(NULL, "%s%s: %s\n(see '%s%s --help')", o->prog, sub,
		          err, o->prog, sub);
		return EXIT_USAGE;
	}
	st = custom_registry_new(builtin_registry(), adapters, n, &cr, why,
	                         sizeof(why));
	if (st != STATUS_OK) {
		safe_sayf(o->prog, "cannot offer the embedder's adapters: %s",
		          st == STATUS_NOMEM ? status_str(st) : why);
		return EXIT_ERROR;
	}
	code = dispatch(o, custom_registry_get(cr), events, &abandoned);
	/* A source that would not stop still runs on its ops: keep them,
	 * referenced, so that a leak checker sees them kept, not lost (the
	 * last one only: a second abandoned source in one process is rare). */
	if (abandoned)
		abandoned_registry = cr;
	else
		custom_registry_free(cr);
	return code;
}

int asynctop_main(int argc, char **argv,
                  const struct asynctop_adapter *adapters, size_t n)
{
	struct opts o;
	char err[512];
	int code, events;
	enum status st;

	st = cli_parse(argc, argv, &o, err, sizeof(err));
	events = events_open_channel(o.prog);
	code = run_parsed(&o, st, err, adapters, adapters ? n : 0, events);
	events_emit(events, "exit %d", code);
	if (events >= 0)
		close(events);
	cli_free(&o);
	return code;
}
