/* The signal self-pipe: handlers that write one byte, and stopping the
 * process for job control while the handlers are in place. */
#include "tui/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "model/base.h"

static const int piped[] = { SIGINT,   SIGTERM, SIGHUP,  SIGQUIT,
	                     SIGWINCH, SIGTSTP, SIGCONT, SIGCHLD };

/* The write end, for the handler only; set before the handlers are. */
static volatile sig_atomic_t pipe_w = -1;
static int pipe_r = -1;
static struct sigaction old[ARRAY_SIZE(piped)];
static struct sigaction old_sigpipe;

static void on_signal(int signo)
{
	int saved = errno;
	unsigned char b = (unsigned char)signo;

	if (pipe_w >= 0 && write(pipe_w, &b, 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = saved;
}

int signals_install(void)
{
	struct sigaction sa;
	int p[2];

	if (pipe_r >= 0 || pipe(p) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(p[i], F_SETFD, FD_CLOEXEC);
		fcntl(p[i], F_SETFL, fcntl(p[i], F_GETFL) | O_NONBLOCK);
	}
	pipe_r = p[0];
	pipe_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(piped); i++) {
		sa.sa_flags = piped[i] == SIGCHLD ? SA_NOCLDSTOP | SA_RESTART
		                                  : SA_RESTART;
		sigaction(piped[i], &sa, &old[i]);
	}
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_sigpipe);
	return p[0];
}

void signals_restore(void)
{
	int w = pipe_w;

	if (pipe_r < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(piped); i++)
		sigaction(piped[i], &old[i], NULL);
	sigaction(SIGPIPE, &old_sigpipe, NULL);
	pipe_w = -1;
	close(pipe_r);
	close(w);
	pipe_r = -1;
}

bool signals_is_stop(int signo)
{
	return signo == SIGINT || signo == SIGTERM || signo == SIGHUP ||
	       signo == SIGQUIT;
}

void signals_stop_self(void)
{
	struct sigaction sa, prev;
	sigset_t tstp, was;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, &prev);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &tstp, &was);
	raise(SIGTSTP);
	/* stopped here until SIGCONT */
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	sigaction(SIGTSTP, &prev, NULL);
}
