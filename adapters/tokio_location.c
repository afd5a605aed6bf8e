/* The tokio adapter's spawn locations, shortened as tokio-console prints
 * them. */
#include "adapters/tokio_int.h"

#include <stdio.h>
#include <string.h>

static const char *after_last(const char *p, size_t n, const char *needle,
                              bool to_slash)
{
	const char *best = NULL, *hit;
	size_t k = strlen(needle);

	for (hit = p; (size_t)(hit - p) + k <= n; hit++) {
		const char *q;

		if (memcmp(hit, needle, k) != 0)
			continue;
		q = hit + k;
		if (to_slash) { /* skip the one registry directory */
			q = memchr(q, '/', n - (size_t)(q - p));
			if (!q)
				continue;
			q++;
		}
		best = q;
	}
	return best;
}

size_t tokio_location(char *dst, size_t size, struct strview file,
                      bool has_line, uint32_t line, bool has_col, uint32_t col)
{
	const char *reg, *git, *from = file.ptr;
	size_t len = file.len, n;
	int k;

	if (size == 0)
		return 0;
	reg = after_last(file.ptr, file.len, "/.cargo/registry/src/", true);
	git = after_last(file.ptr, file.len, "/.cargo/git/checkouts/", false);
	if (git > reg)
		reg = git;
	if (reg) {
		len -= (size_t)(reg - file.ptr);
		from = reg;
	}
	k = snprintf(dst, size, "%s%.*s", reg ? "<cargo>/" : "",
	             (int)size_min(len, TOKIO_MAX_TEXT), from ? from : "");
	n = k < 0 ? 0 : size_min((size_t)k, size - 1);
	if (has_line) {
		k = snprintf(dst + n, size - n, ":%u", line);
		n = k < 0 ? n : size_min(n + (size_t)k, size - 1);
		if (has_col) {
			k = snprintf(dst + n, size - n, ":%u", col);
			n = k < 0 ? n : size_min(n + (size_t)k, size - 1);
		}
	}
	return n;
}
