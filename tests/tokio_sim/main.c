/* tokio-sim: the console-api simulator as a program, for `make demo-tokio`
 * and for trying asynctop without a Rust toolchain.
 *   tokio-sim SCENARIO [HOST:PORT]
 * listens on HOST:PORT, else $TOKIO_CONSOLE_BIND, else 127.0.0.1:6669,
 * prints "listening on HOST:PORT" once it does, and serves until SIGINT or
 * SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tokio_sim.h"

int main(int argc, char **argv)
{
	const char *bind = getenv("TOKIO_CONSOLE_BIND");
	struct sim_scenario sc;
	char err[256], host[256];
	struct sim *s;
	sigset_t set;
	int port, sig;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SCENARIO [HOST:PORT]\n", argv[0]);
		return 2;
	}
	if (argc == 3)
		bind = argv[2];
	if (!bind || !*bind)
		bind = "127.0.0.1:6669";
	if (!sim_load(argv[1], &sc, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], err);
		return 2;
	}
	/* the server thread inherits the mask; sigwait takes them here */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	s = sim_start(&sc, bind, &port, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	snprintf(host, sizeof(host), "%s", bind);
	if (strrchr(host, ':'))
		*strrchr(host, ':') = '\0';
	printf("listening on %s:%d\n", host, port);
	fflush(stdout);
	sigwait(&set, &sig);
	sim_stop(s);
	return 0;
}
