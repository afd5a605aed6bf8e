/* The agent's announcement under `-- COMMAND`: a kept program outlives
 * asynctop and its launch directory, so another user may plant a link or a
 * directory where it was.  The agent writes only to a regular file of ours,
 * never through a link, in a directory of ours with mode 0700; it runs here
 * without asynctop, on what each case planted. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/buf.h"
#include "tests/launch_util.h"
#include "tests/util.h"

/* Creates one task and ends, its agent announcing to DIR/sub/announce. */
static const char program[] = "import asyncio, asynctop_agent\n"
                              "asynctop_agent.start()\n"
                              "async def main():\n"
                              "    pass\n"
                              "asyncio.run(main())\n";

struct rv {
	char dir[512];      /* private to the test */
	char sub[600];      /* the launch directory, as planted */
	char announce[720]; /* sub/announce */
	char target[640];   /* a file of ours a link may point at */
};

static bool rv_init(struct rv *v, const char *test, mode_t mode)
{
	if (!lu_can_run(test))
		return false;
	if (!getenv("ASYNCTOP_SRC")) {
		tu_skip(test, "ASYNCTOP_SRC is not set (run via make)");
		return false;
	}
	tu_mkdtemp(v->dir, sizeof(v->dir));
	snprintf(v->sub, sizeof(v->sub), "%s/launch", v->dir);
	snprintf(v->announce, sizeof(v->announce), "%s/announce", v->sub);
	snprintf(v->target, sizeof(v->target), "%s/target", v->dir);
	ck_assert_int_eq(mkdir(v->sub, 0700), 0);
	ck_assert_int_eq(chmod(v->sub, mode), 0);
	ck_assert_int_eq(tu_write_file(v->target, "", 0), STATUS_OK);
	return true;
}

/* Runs the program; its announcement's text into text (empty when none:
 * no file, or an empty one). */
static void rv_run(const struct rv *v, struct buf *text)
{
	char pp[4200], rendezvous[760], xdg[600];
	const char *set[] = { pp, rendezvous, xdg, NULL };
	const char *unset[] = { "ASYNCTOP_SOCKET", "ASYNCTOP_SOCKET_DIR",
		                NULL };
	const char *argv[] = { "python3", "-c", program, NULL };
	struct tu_proc p = { .dir = v->dir,
		             .env_set = set,
		             .env_unset = unset };
	struct tu_run r;

	snprintf(pp, sizeof(pp), "PYTHONPATH=%s/adapters/asyncio",
	         getenv("ASYNCTOP_SRC"));
	snprintf(rendezvous, sizeof(rendezvous), "ASYNCTOP_RENDEZVOUS=%s",
	         v->announce);
	snprintf(xdg, sizeof(xdg), "XDG_RUNTIME_DIR=%s", v->dir);
	tu_run_init(&r);
	tu_run(&r, &p, argv);
	ck_assert_msg(r.code == 0, "python3 exited %d: %s", r.code, r.err.data);
	tu_run_fini(&r);
	buf_reset(text);
	(void)tu_read_file(v->announce, text);
	lu_text(text);
}

static void rv_fini(struct rv *v)
{
	char p[640];

	chmod(v->sub, 0700);
	tu_rmtree(v->sub);
	snprintf(p, sizeof(p), "%s/asynctop", v->dir);
	tu_rmtree(p);
	tu_rmtree(v->dir);
}

/* The target stays empty: nothing was written through a link. */
static void assert_target_untouched(const struct rv *v)
{
	struct stat sb;

	ck_assert_int_eq(stat(v->target, &sb), 0);
	ck_assert_msg(sb.st_size == 0, "%s was written to", v->target);
}

START_TEST(rendezvous_announced_in_private_dir)
{
	struct buf text;
	struct rv v;
	struct stat sb;

	if (!rv_init(&v, "rendezvous_announced_in_private_dir", 0700))
		return;
	buf_init(&text);
	rv_run(&v, &text);
	/* "PID SOCKETPATH\n", a file of ours with mode 0600 */
	ck_assert_msg(strstr(text.data, ".sock\n") != NULL, "announced: %s",
	              text.data);
	ck_assert_int_eq(lstat(v.announce, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	buf_fini(&text);
	rv_fini(&v);
}
END_TEST

START_TEST(rendezvous_never_through_a_link)
{
	struct buf text;
	struct rv v;
	struct stat sb;

	if (!rv_init(&v, "rendezvous_never_through_a_link", 0700))
		return;
	buf_init(&text);
	ck_assert_int_eq(symlink(v.target, v.announce), 0);
	rv_run(&v, &text);
	assert_target_untouched(&v);
	ck_assert_int_eq(lstat(v.announce, &sb), 0);
	ck_assert(S_ISLNK(sb.st_mode));
	/* nor through a hard link to a file of ours */
	ck_assert_int_eq(unlink(v.announce), 0);
	ck_assert_int_eq(link(v.target, v.announce), 0);
	rv_run(&v, &text);
	assert_target_untouched(&v);
	buf_fini(&text);
	rv_fini(&v);
}
END_TEST

START_TEST(rendezvous_only_in_a_private_dir)
{
	struct buf text;
	struct rv v;
	char linked[700];

	if (!rv_init(&v, "rendezvous_only_in_a_private_dir", 0755))
		return;
	buf_init(&text);
	/* a directory others may read (as one planted would be) */
	rv_run(&v, &text);
	ck_assert_str_eq(text.data, "");
	ck_assert_int_eq(access(v.announce, F_OK), -1);
	/* a link to a private directory, planted where the directory was */
	ck_assert_int_eq(chmod(v.sub, 0700), 0);
	snprintf(linked, sizeof(linked), "%s/planted", v.dir);
	ck_assert_int_eq(symlink(v.sub, linked), 0);
	snprintf(v.announce, sizeof(v.announce), "%s/announce", linked);
	rv_run(&v, &text);
	ck_assert_str_eq(text.data, "");
	snprintf(v.announce, sizeof(v.announce), "%s/announce", v.sub);
	ck_assert_int_eq(access(v.announce, F_OK), -1);
	buf_fini(&text);
	rv_fini(&v);
}
END_TEST

/* A launched program's agent serves from the launch directory: a file
 * planted where the user's agents put their sockets cannot deny it. */
START_TEST(rendezvous_socket_in_launch_dir)
{
	char app[4200], planted[700], want[128];
	const char *cmd[] = { "python3", app, NULL }, *argv[32];
	struct lu_run r;
	long pid;

	if (!lu_can_run("rendezvous_socket_in_launch_dir"))
		return;
	lu_data(app, sizeof(app), "app.py");
	lu_with_command(argv, 32, cmd);
	lu_init(&r);
	/* $XDG_RUNTIME_DIR/asynctop is r.dir/asynctop: not a directory */
	lu_in_dir(planted, sizeof(planted), &r, "asynctop");
	ck_assert_int_eq(tu_write_file(planted, "", 0), STATUS_OK);
	lu_run_bin(&r, argv, NULL);
	lu_assert_exit_ok(&r);
	pid = lu_event_pid(&r, "announced");
	snprintf(want, sizeof(want), "source: asyncio pid %ld", pid);
	ck_assert_msg(strstr(r.p.out.data, want) != NULL, "%s", r.p.out.data);
	ck_assert_int_eq(unlink(planted), 0);
	lu_assert_no_launch_dir(&r);
	lu_fini(&r);
}
END_TEST

Suite *suite_launch_rendezvous(void);
Suite *suite_launch_rendezvous(void)
{
	Suite *s = suite_create("launch_rendezvous");
	TCase *tc = tcase_create("launch_rendezvous");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rendezvous_announced_in_private_dir);
	tcase_add_test(tc, rendezvous_never_through_a_link);
	tcase_add_test(tc, rendezvous_only_in_a_private_dir);
	tcase_add_test(tc, rendezvous_socket_in_launch_dir);
	suite_add_tcase(s, tc);
	return s;
}
