/* Durations, counts and percentages as short ASCII text. */
#include "encode/humanize.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

/* n / d rounded half up, without overflow. */
static uint64_t div_round(uint64_t n, uint64_t d)
{
	uint64_t r = n % d;

	return n / d + (r >= d - r);
}

/* snprintf's result as the length actually written. */
static size_t put(char *dst, size_t size, int n)
{
	if (n < 0) {
		if (size)
			dst[0] = '\0';
		return 0;
	}
	if (size == 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

#define NS_US  UINT64_C(1000)
#define NS_MS  UINT64_C(1000000)
#define NS_S   UINT64_C(1000000000)
#define NS_MIN (60 * NS_S)
#define NS_H   (60 * NS_MIN)

size_t human_duration(char *dst, size_t size, uint64_t ns)
{
	uint64_t t;

	if (ns == 0)
		return put(dst, size, snprintf(dst, size, "0"));
	if (ns < NS_US)
		return put(dst, size, snprintf(dst, size, "%" PRIu64 "ns", ns));
	if ((t = div_round(ns, NS_US / 10)) < 10000)
		return put(dst, size,
		           snprintf(dst, size, "%" PRIu64 ".%" PRIu64 "us",
		                    t / 10, t % 10));
	if ((t = div_round(ns, NS_MS / 10)) < 10000)
		return put(dst, size,
		           snprintf(dst, size, "%" PRIu64 ".%" PRIu64 "ms",
		                    t / 10, t % 10));
	if ((t = div_round(ns, NS_S / 100)) < 6000)
		return put(dst, size,
		           snprintf(dst, size, "%" PRIu64 ".%02" PRIu64 "s",
		                    t / 100, t % 100));
	if ((t = div_round(ns, NS_S / 10)) < 36000)
		return put(dst, size,
		           snprintf(dst, size,
		                    "%" PRIu64 "m%02" PRIu64 ".%" PRIu64 "s",
		                    t / 600, t % 600 / 10, t % 10));
	if ((t = div_round(ns, NS_MIN)) < 1440)
		return put(dst, size,
		           snprintf(dst, size, "%" PRIu64 "h%02" PRIu64 "m",
		                    t / 60, t % 60));
	t = div_round(ns, NS_H);
	return put(
	    dst, size,
	    snprintf(dst, size, "%" PRIu64 "d%02" PRIu64 "h", t / 24, t % 24));
}

size_t human_count(char *dst, size_t size, uint64_t n)
{
	static const char suffix[] = "kMGTPE";
	uint64_t unit = 1000, t;
	unsigned i;

	if (n < 10000)
		return put(dst, size, snprintf(dst, size, "%" PRIu64, n));
	for (i = 0;; i++) {
		t = div_round(n, unit / 10);
		if (t < 10000 || i == sizeof(suffix) - 2)
			break;
		unit *= 1000;
	}
	return put(dst, size,
	           snprintf(dst, size, "%" PRIu64 ".%" PRIu64 "%c", t / 10,
	                    t % 10, suffix[i]));
}

/* round(a * b / c) for c > a, b <= 1000: exact, through a 128-bit
 * product kept in two halves and a bitwise long division. */
static uint64_t muldiv_round(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q = 0, r = 0;
	uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
	uint64_t p_lo = a_lo * b, p_hi = a_hi * b; /* b < 2^32: no overflow */
	int i;

	lo = p_lo + (p_hi << 32);
	hi = (p_hi >> 32) + (lo < p_lo);
	for (i = 127; i >= 0; i--) {
		uint64_t bit = i >= 64 ? (hi >> (i - 64)) & 1 : (lo >> i) & 1;
		bool carry = r >> 63;
		r = (r << 1) | bit;
		q <<= 1; /* the quotient fits: a * b / c < b */
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q + (r >= c - r);
}

size_t human_percent(char *dst, size_t size, uint64_t part, uint64_t whole)
{
	uint64_t t;

	if (part == 0 || whole == 0)
		return put(dst, size, snprintf(dst, size, "0%%"));
	if (part >= whole)
		return put(dst, size, snprintf(dst, size, "100%%"));
	t = muldiv_round(part, 1000, whole);
	if (t == 0)
		return put(dst, size, snprintf(dst, size, "<0.1%%"));
	if (t >= 1000)
		return put(dst, size, snprintf(dst, size, ">99.9%%"));
	return put(
	    dst, size,
	    snprintf(dst, size, "%" PRIu64 ".%" PRIu64 "%%", t / 10, t % 10));
}

size_t human_metric(char *dst, size_t size, enum metric m, uint64_t value)
{
	if (metric_is_duration(m))
		return human_duration(dst, size, value);
	return human_count(dst, size, value);
}
