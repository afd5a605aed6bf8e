/* The one test runner: every tests/test_X.c registers `suite_X` through the
 * list the Makefile generates.  CK_FORK=no runs in one process (gdb,
 * valgrind); CK_RUN_SUITE=X and CK_RUN_CASE=Y pick a part. */
#include <check.h>
#include <stdlib.h>

#define SUITE(name) Suite *suite_##name(void);
#include "tests/suites.inc"
#undef SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define SUITE(name) srunner_add_suite(sr, suite_##name());
#include "tests/suites.inc"
#undef SUITE

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
