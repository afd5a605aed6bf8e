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

#ifndef ASYNCTOP_VERSION
#define ASYNCTOP_VERSION "unknown"
#endif

static void help_main(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [-a ADAPTER] [-e ENDPOINT]... [-w SECONDS] [-r HZ] "
	    "[-m METRIC]\n"
	    "          [-d SAVE_DIR] [--history N] [--exit-after N] "
	    "[--dump-screen COLSxROWS]\n"
	    "          [--keep] [-- COMMAND ARGS...]\n"
	    "       %s record [-a ADAPTER] [-e ENDPOINT]... [-w SECONDS] "
	    "[-n COUNT]\n"
	    "                 [-f pprof|collapsed|text] [-m METRIC] "
	    "[--force] -o FILE\n"
	    "                 [--keep] [-- COMMAND ARGS...]\n"
	    "       %s adapters\n"
	    "       %s help [record|adapters]\n"
	    "       %s --version\n"
	    "\n"
	    "Where do async tasks wait?  asynctop samples an async runtime "
	    "through an\n"
	    "adapter, in back-to-back windows, and saves each window as a "
	    "profile.\n"
	    "\n"
	    "commands:\n"
	    "  record    collect windows and save them (pprof, collapsed "
	    "stacks, text)\n"
	    "  adapters  list the adapters, their aliases and default "
	    "endpoints\n"
	    "  help      this text, or 'help record'\n"
	    "\n"
	    "The live viewer (no command) shows the windows as they come:\n"
	    "  -a, -e, -w, -m    as for record (-m: the first weighting)\n"
	    "  -r HZ             refresh frequency (default 1)\n"
	    "  -d SAVE_DIR       where S and C save (default .)\n"
	    "  --history N       windows kept (default 120)\n"
	    "  --exit-after N    quit after N windows\n"
	    "  --dump-screen COLSxROWS  no terminal: print the screen as "
	    "text and exit\n"
	    "                    (after --exit-after windows, or the "
	    "source's end)\n"
	    "  -- COMMAND ARGS   start a program prepared for the adapter and watch it\n"
	    "                    (without -a: the adapter for commands, see '%s adapters');\n"
	    "                    its output goes to a log the header names (docs/launch.md)\n"
	    "  --keep            leave COMMAND running when asynctop "
	    "ends\n"
	    "Keys: ? in the viewer, or docs/keys.md.  See asynctop(1).\n",
	    prog, prog, prog, prog, prog, prog);
}

static void help_record(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s record [-a ADAPTER] [-e ENDPOINT]... [-w SECONDS] "
	    "[-n COUNT]\n"
	    "                 [-f pprof|collapsed|text] [-m METRIC] "
	    "[--force] -o FILE\n"
	    "                 [--keep] [-- COMMAND ARGS...]\n"
	    "\n"
	    "Collects COUNT windows from ADAPTER and saves each one.\n"
	    "\n"
	    "  -a, --adapter NAME    the source's adapter ('%s adapters' "
	    "lists them)\n"
	    "  -e, --endpoint WHERE  where the source is; repeatable for "
	    "replay (files,\n"
	    "                        directories)\n"
	    "  -w, --window SECONDS  window length, 0.1 to 60 (default 5; "
	    "more is capped)\n"
	    "  -n, --count COUNT     windows to collect (default 1; 0: until "
	    "interrupted or\n"
	    "                        the source ends; replay: every file)\n"
	    "  -f, --format FORMAT   pprof (gzip, default), collapsed or "
	    "text\n"
	    "  -m, --metric METRIC   idle (default), busy, scheduled, polls "
	    "or wakes:\n"
	    "                        collapsed's weight, text's order\n"
	    "  -o, --output FILE     where to save; with COUNT other than 1 "
	    "the window's\n"
	    "                        number goes before the extension "
	    "(out-0001.pb.gz);\n"
	    "                        - is standard output (text's "
	    "default)\n"
	    "      --force           replace existing files\n"
	    "      --max-bytes N     replay: largest decompressed profile "
	    "(default 256 MiB)\n"
	    "      --max-samples N   replay: most samples per profile "
	    "(default 1048576)\n"
	    "      --keep            leave COMMAND running at the end "
	    "(default: SIGTERM,\n"
	    "                        then SIGKILL after 2 s)\n"
	    "  -- COMMAND ARGS...    start a program prepared for the adapter and record it\n"
	    "                        (without -a: the adapter for commands); its output\n"
	    "                        goes to stderr; see docs/launch.md\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "exit status: 0 ok; 1 I/O error or bad replay file; 2 usage, "
	    "unknown adapter\n"
	    "or a COMMAND that cannot start; 3 source unreachable before any "
	    "data (or\n"
	    "COMMAND never became ready); 4 no window had data; 130 "
	    "interrupted\n"
	    "(the windows already complete are saved).\n",
	    prog, prog);
}

static void help_adapters(FILE *f, const char *prog)
{
	fprintf(f,
	        "usage: %s adapters\n"
	        "\n"
	        "Lists the adapters this program offers, one a line: name, "
	        "aliases, default\n"
	        "endpoint (what -e means when it is not given) and summary.\n",
	        prog);
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
			fprintf(stderr, "%s: %s\n", o->prog, status_str(st));
			return EXIT_ERROR;
		}
		fprintf(stderr, "%s%s: %s\n(see '%s%s --help')\n", o->prog, sub,
		        err, o->prog, sub);
		return EXIT_USAGE;
	}
	st = custom_registry_new(builtin_registry(), adapters, n, &cr, why,
	                         sizeof(why));
	if (st != STATUS_OK) {
		fprintf(stderr,
		        "%s: cannot offer the embedder's adapters: %s\n",
		        o->prog, st == STATUS_NOMEM ? status_str(st) : why);
		return EXIT_ERROR;
	}
	code = dispatch(o, custom_registry_get(cr), events, &abandoned);
	/* A source that would not stop still runs on its ops: keep them. */
	if (!abandoned)
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
