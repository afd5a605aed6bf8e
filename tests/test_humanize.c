/* encode/humanize: every unit boundary, rounding promotion and bound. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "encode/humanize.h"
#include "tests/util.h"

static void check_dur(uint64_t ns, const char *expect)
{
	char b[HUMAN_BUFSZ];
	size_t n = human_duration(b, sizeof(b), ns);

	ck_assert_msg(strcmp(b, expect) == 0,
	              "%llu ns: got \"%s\", want \"%s\"",
	              (unsigned long long)ns, b, expect);
	ck_assert_uint_eq(n, strlen(expect));
	ck_assert_uint_le(n, HUMAN_DURATION_MAX);
}

static void check_count(uint64_t v, const char *expect)
{
	char b[HUMAN_BUFSZ];
	size_t n = human_count(b, sizeof(b), v);

	ck_assert_msg(strcmp(b, expect) == 0, "%llu: got \"%s\", want \"%s\"",
	              (unsigned long long)v, b, expect);
	ck_assert_uint_eq(n, strlen(expect));
	ck_assert_uint_le(n, HUMAN_COUNT_MAX);
}

static void check_pct(uint64_t part, uint64_t whole, const char *expect)
{
	char b[HUMAN_BUFSZ];
	size_t n = human_percent(b, sizeof(b), part, whole);

	ck_assert_msg(
	    strcmp(b, expect) == 0, "%llu/%llu: got \"%s\", want \"%s\"",
	    (unsigned long long)part, (unsigned long long)whole, b, expect);
	ck_assert_uint_eq(n, strlen(expect));
	ck_assert_uint_le(n, HUMAN_PERCENT_MAX);
}

#define US  UINT64_C(1000)
#define MS  UINT64_C(1000000)
#define SEC UINT64_C(1000000000)
#define MIN (60 * SEC)
#define HR  (60 * MIN)
#define DAY (24 * HR)

START_TEST(duration_units)
{
	check_dur(0, "0");
	check_dur(1, "1ns");
	check_dur(850, "850ns");
	check_dur(999, "999ns");
	check_dur(1000, "1.0us");
	check_dur(1049, "1.0us");
	check_dur(1050, "1.1us");
	check_dur(12345, "12.3us");
	check_dur(12350, "12.4us");
	check_dur(999949, "999.9us");
	check_dur(999950, "1.0ms"); /* promoted, never "1000.0us" */
	check_dur(MS, "1.0ms");
	check_dur(3400 * US, "3.4ms");
	check_dur(12100 * US, "12.1ms");
	check_dur(999949999, "999.9ms");
	check_dur(999950000, "1.00s"); /* never "1000.0ms" */
	check_dur(SEC, "1.00s");
	check_dur(2005 * MS, "2.01s");
	check_dur(2004999999, "2.00s");
	check_dur(5 * SEC, "5.00s");
	check_dur(59994999999, "59.99s");
	check_dur(59995000000, "1m00.0s"); /* never "60.00s" */
	check_dur(MIN, "1m00.0s");
	check_dur(4 * MIN + 10200 * MS, "4m10.2s");
	check_dur(4 * MIN + 10249 * MS, "4m10.2s");
	check_dur(4 * MIN + 10250 * MS, "4m10.3s");
	check_dur(10 * MIN, "10m00.0s");
	check_dur(3599949999999, "59m59.9s");
	check_dur(3599950000000, "1h00m"); /* never "60m00.0s" */
	check_dur(HR, "1h00m");
	check_dur(HR + 2 * MIN, "1h02m");
	check_dur(HR + 2 * MIN + 29999 * MS, "1h02m");
	check_dur(HR + 2 * MIN + 30 * SEC, "1h03m");
	check_dur(23 * HR + 59 * MIN + 29999 * MS, "23h59m");
	check_dur(23 * HR + 59 * MIN + 30 * SEC, "1d00h"); /* not "24h00m" */
	check_dur(DAY, "1d00h");
	check_dur(3 * DAY + 4 * HR, "3d04h");
	check_dur(3 * DAY + 4 * HR + 30 * MIN, "3d05h");
	check_dur(3 * DAY + 4 * HR + 30 * MIN - 1, "3d04h");
	check_dur(UINT64_MAX, "213504d00h");
	check_dur(UINT64_MAX - HR, "213503d23h");
}
END_TEST

START_TEST(count_units)
{
	check_count(0, "0");
	check_count(50, "50");
	check_count(9999, "9999");
	check_count(10000, "10.0k");
	check_count(10049, "10.0k");
	check_count(10050, "10.1k");
	check_count(50100, "50.1k");
	check_count(999949, "999.9k");
	check_count(999950, "1.0M"); /* never "1000.0k" */
	check_count(1200000, "1.2M");
	check_count(999949999, "999.9M");
	check_count(999950000, "1.0G");
	check_count(3400000000u, "3.4G");
	check_count(UINT64_C(1000000000000), "1.0T");
	check_count(UINT64_C(999950000000000), "1.0P");
	check_count(UINT64_C(1000000000000000000), "1.0E");
	check_count(UINT64_MAX, "18.4E");
}
END_TEST

START_TEST(percent)
{
	uint64_t k = UINT64_C(1) << 52;

	check_pct(0, 0, "0%");
	check_pct(0, 10, "0%");
	check_pct(7, 0, "0%");
	check_pct(1, 1, "100%");
	check_pct(5, 4, "100%");
	check_pct(991, 1000, "99.1%");
	check_pct(2, 1000, "0.2%");
	check_pct(1, 1000, "0.1%");
	check_pct(1, 2000, "0.1%"); /* exactly half a tenth rounds up */
	check_pct(1, 2001, "<0.1%");
	check_pct(1, UINT64_MAX, "<0.1%");
	check_pct(9994, 10000, "99.9%");
	check_pct(9995, 10000, ">99.9%");
	check_pct(UINT64_MAX - 1, UINT64_MAX, ">99.9%");
	check_pct(UINT64_MAX / 2, UINT64_MAX, "50.0%");
	check_pct(UINT64_MAX / 3, UINT64_MAX, "33.3%");
	check_pct(2, 3, "66.7%");
	/* exact at the top of the range: k / 2000k is half a tenth */
	check_pct(k, 2000 * k, "0.1%");
	check_pct(k - 1, 2000 * k, "<0.1%");
	check_pct(3 * k, 2000 * k, "0.2%"); /* 1.5 tenths */
	check_pct(1999 * k - 1, 2000 * k, "99.9%");
	check_pct(1999 * k + k / 2, 2000 * k, ">99.9%");
}
END_TEST

START_TEST(metric_dispatch)
{
	char b[HUMAN_BUFSZ];

	ck_assert_uint_eq(human_metric(b, sizeof(b), METRIC_IDLE, 12100 * US),
	                  6);
	ck_assert_str_eq(b, "12.1ms");
	human_metric(b, sizeof(b), METRIC_SCHED, 5 * SEC);
	ck_assert_str_eq(b, "5.00s");
	human_metric(b, sizeof(b), METRIC_POLLS, 50100);
	ck_assert_str_eq(b, "50.1k");
	human_metric(b, sizeof(b), METRIC_WAKES, 17);
	ck_assert_str_eq(b, "17");
	human_metric(b, sizeof(b), METRIC_BUSY, 17);
	ck_assert_str_eq(b, "17ns");
}
END_TEST

START_TEST(truncation)
{
	char b[8], exact[HUMAN_DURATION_MAX + 1];

	memset(b, 'X', sizeof(b));
	ck_assert_uint_eq(human_duration(b, 4, 4 * MIN + 10200 * MS), 3);
	ck_assert_str_eq(b, "4m1");
	ck_assert_int_eq(b[4], 'X');
	ck_assert_uint_eq(human_count(b, 1, 50100), 0);
	ck_assert_str_eq(b, "");
	ck_assert_uint_eq(human_percent(b, 3, 991, 1000), 2);
	ck_assert_str_eq(b, "99");
	ck_assert_uint_eq(human_duration(NULL, 0, 5), 0);
	ck_assert_uint_eq(human_count(NULL, 0, 5), 0);
	ck_assert_uint_eq(human_percent(NULL, 0, 1, 2), 0);
	ck_assert_uint_eq(human_duration(exact, sizeof(exact), UINT64_MAX),
	                  HUMAN_DURATION_MAX);
	ck_assert_str_eq(exact, "213504d00h");
}
END_TEST

/* The documented maxima hold over a sweep of every power of ten and the
 * values around it, times 1..9. */
START_TEST(bounded_widths)
{
	char b[64];
	uint64_t p = 1;

	for (int e = 0; e < 20; e++) {
		for (uint64_t d = 1; d <= 9; d++) {
			uint64_t v = p * d;
			if (v / d != p)
				break;
			for (uint64_t x = v - 1; x <= v + 1 && x >= v - 1;
			     x++) {
				ck_assert_uint_le(
				    human_duration(b, sizeof(b), x),
				    HUMAN_DURATION_MAX);
				ck_assert_uint_le(human_count(b, sizeof(b), x),
				                  HUMAN_COUNT_MAX);
				ck_assert_uint_le(
				    human_percent(b, sizeof(b), x, UINT64_MAX),
				    HUMAN_PERCENT_MAX);
			}
		}
		if (p > UINT64_MAX / 10)
			break;
		p *= 10;
	}
	ck_assert_uint_le(human_count(b, sizeof(b), UINT64_MAX),
	                  HUMAN_COUNT_MAX);
	ck_assert_uint_lt(HUMAN_DURATION_MAX, HUMAN_BUFSZ);
}
END_TEST

Suite *suite_humanize(void);
Suite *suite_humanize(void)
{
	Suite *s = suite_create("humanize");
	TCase *tc = tcase_create("humanize");

	tcase_add_test(tc, duration_units);
	tcase_add_test(tc, count_units);
	tcase_add_test(tc, percent);
	tcase_add_test(tc, metric_dispatch);
	tcase_add_test(tc, truncation);
	tcase_add_test(tc, bounded_widths);
	suite_add_tcase(s, tc);
	return s;
}
