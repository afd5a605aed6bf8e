/* The session's worded errors and the command line's rough edges, with the
 * real binary: a default source that does not answer says what else works, a
 * misspelt adapter gets "did you mean", a terminal that cannot address the
 * cursor is refused (exit 2) with what to use instead, and `record -f text -o -
 * | head` ends quietly once its reader has gone. */
#include <check.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/util.h"

static const char *bin(void)
{
	const char *b = getenv("ASYNCTOP_BIN");

	return b && *b && access(b, X_OK) == 0 ? b : NULL;
}

/* Runs the binary with argv (argv[0] replaced) and the settings extra
 * ("NAME=VALUE", NULL-terminated, may be NULL) into r. */
static void run(struct tu_run *r, const char **argv, const char *const *extra)
{
	struct tu_proc p = { .env_set = extra, .timeout_ms = 60000 };

	argv[0] = bin();
	tu_run(r, &p, argv);
}

#define ERR_HAS(r, s)                                     \
	ck_assert_msg(strstr((r)->err.data, (s)) != NULL, \
	              "stderr lacks \"%s\":\n%s", (s), (r)->err.data)
#define ERR_LACKS(r, s)                                   \
	ck_assert_msg(strstr((r)->err.data, (s)) == NULL, \
	              "stderr has \"%s\":\n%s", (s), (r)->err.data)

/* A loopback TCP port that refuses connections while fd stays open: bound,
 * never listening. */
static int refusing_port(int *fd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(*fd, 0);
	ck_assert_int_eq(bind(*fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(*fd, (struct sockaddr *)&sa, &len), 0);
	return ntohs(sa.sin_port);
}

/* With no -a and no command the stock binary attaches to tokio, as
 * tokio-console does; when that does not answer, the error says what to
 * do for tokio and what else works.  Chosen with -a, only the first. */
START_TEST(session_default_source)
{
	char ep[64];
	const char *rec[] = { "asynctop", "record", "-f", "text", "-o", "-",
		              "-w",       "0.2",    "-e", ep,     NULL };
	const char *chosen[] = { "asynctop", "record", "-a", "tokio", "-f",
		                 "text",     "-o",     "-",  "-w",    "0.2",
		                 "-e",       ep,       NULL };
	struct tu_run r;
	int fd;

	if (!bin()) {
		tu_skip("session_default_source",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	snprintf(ep, sizeof(ep), "127.0.0.1:%d", refusing_port(&fd));
	tu_run_init(&r);
	run(&r, rec, NULL);
	ck_assert_int_eq(r.code, 3);
	ERR_HAS(&r, "the tokio source is not reachable at 127.0.0.1:");
	ERR_HAS(&r, "console_subscriber::init()");
	ERR_HAS(
	    &r,
	    "(tokio was tried because no source was given; what else works:)\n");
	ERR_HAS(&r, "\n  asynctop record -- python3 app.py ");
	ERR_HAS(&r, "\n  asynctop record -a asyncio [-e PID] ");
	ERR_HAS(&r, "\n  asynctop record -a replay -e FILE|DIR ");
	run(&r, chosen, NULL);
	ck_assert_int_eq(r.code, 3);
	ERR_HAS(&r, "the tokio source is not reachable at 127.0.0.1:");
	ERR_LACKS(&r, "was tried because");
	tu_run_fini(&r);
	close(fd);
}
END_TEST

START_TEST(session_did_you_mean)
{
	const char *near[] = { "asynctop", "-a", "asyncoi", NULL };
	const char *far[] = { "asynctop", "record", "-a", "zzzzzz", NULL };
	const char *cmd[] = { "asynctop", "-a", "replay", "--", "true", NULL };
	struct tu_run r;

	if (!bin()) {
		tu_skip("session_did_you_mean",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	tu_run_init(&r);
	run(&r, near, NULL);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(
	    &r,
	    "asynctop: no async profiling adapter named \"asyncoi\"; available: asyncio, replay, tokio (alias kernal-api-async); did you mean \"asyncio\"?\n");
	run(&r, far, NULL);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(
	    &r,
	    "named \"zzzzzz\"; available: asyncio, replay, tokio (alias kernal-api-async)\n");
	ERR_LACKS(&r, "did you mean");
	/* an adapter without a launch hook cannot start a program */
	run(&r, cmd, NULL);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(
	    &r,
	    "'-- COMMAND' is not for replay: that adapter cannot start programs (these can: asyncio, tokio)");
	tu_run_fini(&r);
}
END_TEST

START_TEST(session_term_dumb)
{
	char data[4096];
	const char *argv[] = { "asynctop", "-a", "replay", "-e", data, NULL };
	const char *dumb[] = { "TERM=dumb", NULL };
	struct tu_run r;

	if (!bin()) {
		tu_skip("session_term_dumb",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	tu_data_path(data, sizeof(data), "pprof_small.pb");
	tu_run_init(&r);
	run(&r, argv, dumb);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(&r, "the terminal (TERM=dumb) cannot move its cursor");
	ERR_HAS(
	    &r,
	    "use 'asynctop record' to save windows, or --dump-screen COLSxROWS");
	ck_assert_uint_eq(r.out.len, 0);
	tu_run_fini(&r);
}
END_TEST

struct piped {
	const char *const *argv;
};

/* In the child: standard output is a pipe nobody reads any more. */
static int exec_into_closed_pipe(void *ctx)
{
	const struct piped *pp = ctx;
	int p[2];

	if (pipe(p) < 0 || dup2(p[1], STDOUT_FILENO) < 0)
		return 126;
	close(p[0]);
	close(p[1]);
	execv(pp->argv[0], (char *const *)(uintptr_t)pp->argv);
	return 127;
}

START_TEST(session_text_into_closed_pipe)
{
	char data[4096];
	const char *argv[] = { NULL, "record", "-a", "replay", "-e", data,
		               "-f", "text",   "-o", "-",      NULL };
	struct piped pp = { argv };
	struct tu_proc p = { .timeout_ms = 60000 };
	struct tu_run r;

	if (!bin()) {
		tu_skip("session_text_into_closed_pipe",
		        "ASYNCTOP_BIN is not set (run via make)");
		return;
	}
	argv[0] = bin();
	tu_data_path(data, sizeof(data), "pprof_small.pb");
	tu_run_init(&r);
	tu_run_start_fn(&r, &p, "asynctop record into a closed pipe",
	                exec_into_closed_pipe, &pp);
	tu_run_wait(&r);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err.data);
	ck_assert_msg(r.err.len == 0, "stderr: %s", r.err.data);
	tu_run_fini(&r);
}
END_TEST

/* Messages that said the wrong thing: a missing -d directory is missing,
 * not "not a directory"; a device given to -o is not a file to --force,
 * nor, with -n, a prefix of file names. */
START_TEST(session_messages_say_what_is_wrong)
{
	char file[4200], nodir[4200], tmp[512];
	const char *view[] = { "asynctop", "-a", "replay", "-e",
		               file,       "-d", nodir,    "--dump-screen",
		               "80x24",    NULL };
	const char *full[] = { "asynctop", "record",    "-a", "replay",
		               "-e",       file,        "-f", "text",
		               "-o",       "/dev/full", NULL };
	/* numbered, /dev/null would have become /dev/null-0001 and on */
	const char *null[] = { "asynctop", "record",    "-a", "replay",
		               "-e",       file,        "-n", "2",
		               "-o",       "/dev/null", NULL };
	const char *data = getenv("ASYNCTOP_TESTDATA");
	struct tu_run r;

	if (!bin() || !data) {
		tu_skip(
		    "session_messages_say_what_is_wrong",
		    "ASYNCTOP_BIN or ASYNCTOP_TESTDATA is not set (run via make)");
		return;
	}
	snprintf(file, sizeof(file), "%s/pprof_small.pb", data);
	tu_mkdtemp(tmp, sizeof(tmp));
	tu_run_init(&r);
	snprintf(nodir, sizeof(nodir), "%s/nodir", tmp);
	run(&r, view, NULL);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(&r, "/nodir: no such directory (saves go there)");
	ERR_LACKS(&r, "not a directory");
	/* a file where a directory should be */
	snprintf(nodir, sizeof(nodir), "%s", file);
	run(&r, view, NULL);
	ck_assert_int_eq(r.code, 2);
	ERR_HAS(&r, "pprof_small.pb: not a directory (saves go there)");
	run(&r, full, NULL);
	ck_assert_int_eq(r.code, 1);
	ERR_HAS(&r, "/dev/full is not a regular file");
	ERR_HAS(&r, "use -o - and redirect standard output");
	ERR_LACKS(&r, "--force");
	run(&r, null, NULL);
	ck_assert_int_eq(r.code, 1);
	ERR_HAS(&r, "/dev/null is not a regular file");
	ERR_LACKS(&r, "/dev/null-0001");
	ck_assert_int_ne(access("/dev/null-0001", F_OK), 0);
	tu_run_fini(&r);
	tu_rmtree(tmp);
}
END_TEST

Suite *suite_session_cli(void);
Suite *suite_session_cli(void)
{
	Suite *s = suite_create("session_cli");
	TCase *tc = tcase_create("session_cli");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, session_default_source);
	tcase_add_test(tc, session_did_you_mean);
	tcase_add_test(tc, session_term_dumb);
	tcase_add_test(tc, session_text_into_closed_pipe);
	tcase_add_test(tc, session_messages_say_what_is_wrong);
	suite_add_tcase(s, tc);
	return s;
}
