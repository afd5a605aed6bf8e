/* The console-api simulator's scenario files (format in tokio_sim.h):
 * durations, families and events read line by line, each refusal worded
 * with its line. */
#include "tests/tokio_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS ((uint64_t)1000000)

static bool duration(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	double mul;

	if (end == s || v < 0)
		return false;
	if (strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "us") == 0)
		mul = 1e3;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "s") == 0)
		mul = 1e9;
	else
		return false;
	*out = (uint64_t)(v * mul + 0.5);
	return true;
}

static bool family(char **tok, size_t n, struct sim_family *f, char *err,
                   size_t errsz)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	if (n < 3) {
		snprintf(err, errsz, "family NAME COUNT key=value...");
		return false;
	}
	snprintf(f->name, sizeof(f->name), "%s", tok[1]);
	snprintf(f->kind, sizeof(f->kind), "task");
	f->count = strtoul(tok[2], NULL, 10);
	for (i = 3; i < n; i++) {
		char *v = strchr(tok[i], '=');
		bool ok = true;

		if (strcmp(tok[i], "named") == 0) {
			f->named = true;
			continue;
		}
		if (!v) {
			snprintf(err, errsz, "\"%s\": key=value", tok[i]);
			return false;
		}
		*v++ = '\0';
		if (strcmp(tok[i], "busy") == 0)
			ok = duration(v, &f->busy);
		else if (strcmp(tok[i], "idle") == 0)
			ok = duration(v, &f->idle);
		else if (strcmp(tok[i], "sched") == 0)
			ok = duration(v, &f->sched);
		else if (strcmp(tok[i], "spawn") == 0)
			ok = duration(v, &f->spawn);
		else if (strcmp(tok[i], "stagger") == 0)
			ok = duration(v, &f->stagger);
		else if (strcmp(tok[i], "polls") == 0)
			f->polls = strtoull(v, NULL, 10);
		else if (strcmp(tok[i], "wakes") == 0)
			f->wakes = strtoull(v, NULL, 10);
		else if (strcmp(tok[i], "kind") == 0)
			snprintf(f->kind, sizeof(f->kind), "%s", v);
		else if (strcmp(tok[i], "loc") == 0)
			snprintf(f->loc, sizeof(f->loc), "%s", v);
		else
			ok = false;
		if (!ok) {
			snprintf(err, errsz, "bad %s=%s", tok[i], v);
			return false;
		}
	}
	if (f->busy == 0 || f->count == 0) {
		snprintf(err, errsz, "family %s: COUNT and busy must be > 0",
		         f->name);
		return false;
	}
	return true;
}

bool sim_parse(const char *text, struct sim_scenario *sc, char *err,
               size_t errsz)
{
	char line[512];
	unsigned lineno = 0;

	memset(sc, 0, sizeof(*sc));
	sc->interval = 100 * MS;
	while (*text) {
		size_t len = strcspn(text, "\n");
		char *tok[16], *save = NULL, *t;
		size_t n = 0;
		char why[200] = "";
		bool ok = true;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		text += len + (text[len] == '\n');
		if ((t = strchr(line, '#')))
			*t = '\0';
		for (t = strtok_r(line, " \t", &save); t && n < 16;
		     t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (n == 0)
			continue;
		if (strcmp(tok[0], "interval") == 0 && n == 2) {
			ok = duration(tok[1], &sc->interval) && sc->interval;
		} else if (strcmp(tok[0], "family") == 0) {
			ok = sc->nfam < SIM_MAX_FAMILIES &&
			     family(tok, n, &sc->fam[sc->nfam], why,
			            sizeof(why));
			sc->nfam += ok;
		} else if (strcmp(tok[0], "reuse") == 0) {
			sc->reuse = true;
		} else if (strcmp(tok[0], "old") == 0) {
			sc->old = true;
		} else if (strcmp(tok[0], "unimplemented") == 0) {
			sc->unimplemented = true;
		} else if ((strcmp(tok[0], "stall") == 0 && n == 3) ||
		           ((strcmp(tok[0], "end") == 0 ||
		             strcmp(tok[0], "junk") == 0) &&
		            n == 2)) {
			struct sim_event *e = &sc->ev[sc->nev];

			ok = sc->nev < SIM_MAX_EVENTS &&
			     duration(tok[1], &e->at);
			e->kind = tok[0][0] == 's'   ? SIM_STALL
			          : tok[0][0] == 'e' ? SIM_END
			                             : SIM_JUNK;
			if (ok && n == 3)
				ok = duration(tok[2], &e->len);
			sc->nev += ok;
		} else {
			ok = false;
		}
		if (!ok) {
			snprintf(err, errsz, "line %u: %s", lineno,
			         *why ? why : "not understood");
			return false;
		}
	}
	return true;
}

bool sim_load(const char *path, struct sim_scenario *sc, char *err,
              size_t errsz)
{
	FILE *f = fopen(path, "r");
	char buf[16384];
	size_t n;

	if (!f) {
		snprintf(err, errsz, "%s: cannot open", path);
		return false;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return sim_parse(buf, sc, err, errsz);
}
