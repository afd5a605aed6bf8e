/* The replay adapter: saved profiles, one window per file, in the order of
 * their start times, read through the injected loader (docs/design.md §6). */
#include "adapters/replay.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/alloc.h"

struct replay_entry {
	char *path;
	enum status st; /* known failure (missing, empty directory, bad) */
	char reason[256];
	int64_t time;
	bool named; /* the only endpoint, a file: errors need not repeat it */
};

struct replay {
	struct replay_entry *e;
	size_t n, cap, next;
	bool listed, announced;
};

static enum status add_entry(struct replay *r, const char *dir,
                             const char *name, enum status st,
                             const char *reason)
{
	struct replay_entry *e;
	size_t dl = dir ? strlen(dir) : 0, nl = strlen(name);
	bool slash = dl && dir[dl - 1] != '/';

	if (mem_grow(&r->e, &r->cap, r->n + 1, sizeof(*r->e)))
		return STATUS_NOMEM;
	e = &r->e[r->n];
	memset(e, 0, sizeof(*e));
	e->path = mem_alloc(dl + slash + nl + 1);
	if (!e->path)
		return STATUS_NOMEM;
	if (dl)
		memcpy(e->path, dir, dl);
	if (slash)
		e->path[dl] = '/';
	memcpy(e->path + dl + slash, name, nl + 1);
	e->st = st;
	snprintf(e->reason, sizeof(e->reason), "%s", reason ? reason : "");
	r->n++;
	return STATUS_OK;
}

static bool profile_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 6 && !strcmp(n + l - 6, ".pb.gz")) ||
	       (l > 3 && !strcmp(n + l - 3, ".pb"));
}

static int cmp_name(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(*x, *y);
}

/* Adds dir's regular *.pb.gz and *.pb files, sorted by name. */
static enum status add_dir(struct replay *r, const char *dir)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	enum status st = STATUS_OK;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return add_entry(r, NULL, dir, STATUS_IO, strerror(errno));
	while (st == STATUS_OK && (d = readdir(dp)) != NULL) {
		struct stat sb;

		if (!profile_name(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue;
		if (mem_grow(&names, &cap, n + 1, sizeof(*names)))
			st = STATUS_NOMEM;
		else if (!(names[n] =
		               mem_strndup(d->d_name, strlen(d->d_name))))
			st = STATUS_NOMEM;
		else
			n++;
	}
	closedir(dp);
	if (st == STATUS_OK && n == 0)
		st = add_entry(r, NULL, dir, STATUS_IO,
		               "no *.pb.gz or *.pb files in this directory");
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (st == STATUS_OK)
			st = add_entry(r, dir, names[i], STATUS_OK, NULL);
		mem_free(names[i]);
	}
	mem_free(names);
	return st;
}

static enum status list(struct adapter *a, struct replay *r)
{
	size_t i;

	for (i = 0; i < a->nendpoints; i++) {
		const char *ep = a->endpoints[i];
		struct stat sb;
		enum status st;

		if (stat(ep, &sb) < 0)
			st = add_entry(r, NULL, ep, STATUS_IO, strerror(errno));
		else if (S_ISDIR(sb.st_mode))
			st = add_dir(r, ep);
		else if (!S_ISREG(sb.st_mode)) /* a FIFO would block the read */
			st = add_entry(r, NULL, ep, STATUS_IO,
			               "not a regular file or directory");
		else
			st = add_entry(r, NULL, ep, STATUS_OK, NULL);
		if (st != STATUS_OK)
			return st;
	}
	return STATUS_OK;
}

static enum status skip_sample(void *ctx, const struct sample *s)
{
	(void)ctx;
	(void)s;
	return STATUS_OK;
}

static enum status take_time(void *ctx, const struct window_meta *m)
{
	struct replay_entry *e = ctx;

	e->time = m->time_nanos;
	return STATUS_OK;
}

/* Failures last (by path); the rest by start time, then path. */
static int cmp_entry(const void *a, const void *b)
{
	const struct replay_entry *x = a, *y = b;

	if ((x->st != STATUS_OK) != (y->st != STATUS_OK))
		return x->st != STATUS_OK ? 1 : -1;
	if (x->st == STATUS_OK && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Learns every file's start time (loading each once) and sorts. */
static enum status order(struct adapter *a, struct collect *c, struct replay *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct replay_entry *e = &r->e[i];
		struct sample_sink sink = { skip_sample, take_time, e };

		if (collect_stopping(c))
			return STATUS_STOPPED;
		if (e->st != STATUS_OK)
			continue;
		e->st = a->cfg.loader(e->path, &a->cfg.load_limits, &sink,
		                      e->reason, sizeof(e->reason));
		if (e->st == STATUS_NOMEM)
			return STATUS_NOMEM;
	}
	qsort(r->e, r->n, sizeof(*r->e), cmp_entry);
	return STATUS_OK;
}

struct feed {
	struct collect *c;
	const char *path;
	bool got_meta;
};

static enum status feed_sample(void *ctx, const struct sample *s)
{
	struct feed *f = ctx;

	return collect_add(f->c, s);
}

static enum status feed_meta(void *ctx, const struct window_meta *m)
{
	struct feed *f = ctx;
	struct window_meta copy = *m;
	char src[4200];

	snprintf(src, sizeof(src), "replay %s", f->path);
	copy.source = src;
	collect_set_meta(f->c, &copy);
	f->got_meta = true;
	return STATUS_OK;
}

static const char *remedy(enum status st)
{
	switch (st) {
	case STATUS_FOREIGN:
		return "replay reads pprof profiles saved by asynctop (sample types idle, busy, scheduled, polls and wakes)";
	case STATUS_TOO_LARGE:
		return "raise the limits with --max-bytes or --max-samples if the file is trusted";
	default:
		return NULL;
	}
}

static enum status fail(struct collect *c, const struct replay_entry *e,
                        enum status st, const char *reason)
{
	const char *why = reason && *reason ? reason : status_str(st);
	char d[512];

	/* The error names the endpoint already: repeat the path unless the
	 * endpoint is this very file. */
	if (!e->named)
		snprintf(d, sizeof(d), "%s: %s", e->path, why);
	else
		snprintf(d, sizeof(d), "%s", why);
	return collect_fail(c, st, d, remedy(st));
}

static void forget(struct replay *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		mem_free(r->e[i].path);
	r->n = 0;
}

static enum status replay_collect(struct adapter *a, struct collect *c)
{
	struct replay *r = a->priv;
	struct replay_entry *e;
	struct feed f = { c, NULL, false };
	struct sample_sink sink = { feed_sample, feed_meta, &f };
	char reason[256];
	enum status st;

	if (!r->listed) {
		if (!r->announced)
			collect_state(c, SOURCE_REPLAY, 0);
		r->announced = true;
		st = list(a, r);
		if (st == STATUS_OK && r->n > 1)
			st = order(a, c, r);
		if (st != STATUS_OK)
			forget(r); /* the next collect starts over */
		if (st == STATUS_STOPPED)
			return STATUS_EOF;
		if (st != STATUS_OK)
			return collect_fail(c, st, "listing the replay files",
			                    NULL);
		r->listed = true;
	}
	if (r->next >= r->n)
		return STATUS_EOF;
	e = &r->e[r->next++];
	e->named = a->nendpoints == 1 && !strcmp(e->path, a->endpoints[0]);
	if (e->st != STATUS_OK)
		return fail(c, e, e->st, e->reason);
	f.path = e->path;
	reason[0] = '\0';
	st = a->cfg.loader(e->path, &a->cfg.load_limits, &sink, reason,
	                   sizeof(reason));
	if (st != STATUS_OK) {
		collect_clear(c);
		return fail(c, e, st, reason);
	}
	if (!f.got_meta) {
		struct window_meta m = { 0 };

		(void)feed_meta(&f, &m);
	}
	return STATUS_OK;
}

static enum status replay_open(struct adapter *a, struct adapter_error *err)
{
	if (!a->cfg.loader) {
		err->st = STATUS_INVAL;
		snprintf(err->detail, sizeof(err->detail),
		         "the replay adapter was opened without a loader");
		return STATUS_INVAL;
	}
	return STATUS_OK;
}

static void replay_close(struct adapter *a)
{
	struct replay *r = a->priv;

	forget(r);
	mem_free(r->e);
}

const struct adapter_ops replay_ops = {
	.name = "replay",
	.aliases = NULL,
	.summary =
	    "saved profiles (-e FILE or DIR, repeatable), a window per file",
	.default_endpoint = NULL,
	.flags = ADAPTER_MULTI_ENDPOINT | ADAPTER_FINITE,
	.private_size = sizeof(struct replay),
	.open = replay_open,
	.collect = replay_collect,
	.close = replay_close,
	.user = NULL,
};
