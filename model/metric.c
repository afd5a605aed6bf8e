/* Names, units and arithmetic of the five metrics, from METRIC_LIST. */
#include "model/metric.h"

#include "model/base.h"

struct metric_info {
	const char *name, *unit, *header;
	bool duration;
};

static const struct metric_info info[METRIC_COUNT] = {
#define METRIC_INFO(id, n, u, h, d) [METRIC_##id] = { n, u, h, d },
	METRIC_LIST(METRIC_INFO)
#undef METRIC_INFO
};

const char *metric_name(enum metric m)
{
	return (unsigned)m < METRIC_COUNT ? info[m].name : "?";
}

const char *metric_unit(enum metric m)
{
	return (unsigned)m < METRIC_COUNT ? info[m].unit : "?";
}

const char *metric_header(enum metric m)
{
	return (unsigned)m < METRIC_COUNT ? info[m].header : "?";
}

bool metric_is_duration(enum metric m)
{
	return (unsigned)m < METRIC_COUNT && info[m].duration;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive: does s equal word, or (prefix) start it? */
static bool matches(struct strview s, const char *word, bool prefix)
{
	size_t i;

	for (i = 0; i < s.len; i++) {
		if (word[i] == '\0' || lower(s.ptr[i]) != lower(word[i]))
			return false;
	}
	return prefix || word[i] == '\0';
}

bool metric_parse(struct strview s, enum metric *out)
{
	int found = -1;
	unsigned m;

	if (s.len == 0)
		return false;
	for (m = 0; m < METRIC_COUNT; m++) {
		if (matches(s, info[m].name, false) ||
		    matches(s, info[m].header, false)) {
			*out = (enum metric)m;
			return true;
		}
	}
	for (m = 0; m < METRIC_COUNT; m++) {
		if (matches(s, info[m].name, true)) {
			if (found >= 0)
				return false;
			found = (int)m;
		}
	}
	if (found < 0)
		return false;
	*out = (enum metric)found;
	return true;
}

void metrics_add(struct metrics *a, const struct metrics *b)
{
	for (unsigned i = 0; i < METRIC_COUNT; i++)
		a->v[i] = u64_add_sat(a->v[i], b->v[i]);
}

bool metrics_zero(const struct metrics *a)
{
	for (unsigned i = 0; i < METRIC_COUNT; i++) {
		if (a->v[i])
			return false;
	}
	return true;
}
