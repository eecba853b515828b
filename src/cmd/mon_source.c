/*
 * mon_source.c: top's and watch's collector, through serve's agent or on NVML (mon_source.h).
 * The agent's socket is found as status finds it (serve/agent.h, agent_client_path).
 */
#define _GNU_SOURCE
#include "mon_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../serve/agent.h"
#include "cmd.h"

int mon_source_open(struct collector **c, const struct mon_opts *mo, int64_t interval_ns,
		    bool no_agent, bool verbose, struct err *e)
{
	const char *env = getenv("GPUVET_NO_AGENT"), *sock = getenv("GPUVET_AGENT_SOCKET");
	char buf[256];
	const char *path = NULL;
	struct collector_source src;

	if (!no_agent && !(env && *env && strcmp(env, "0") != 0) &&
	    (!(gopts.replay || gopts.root) || (sock && *sock)))
		path = agent_client_path(buf, sizeof(buf));
	if (path && agent_source_init(&src, path, mo, interval_ns) == 0) {
		struct err ae;

		err_clear(&ae);
		if (collector_open_source(c, mo, &src, &ae) == 0)
			return 0;
		/* no socket at all is the usual case without serve: nothing to tell */
		if (verbose && !strstr(ae.msg, "No such file") && !strstr(ae.msg, "refused"))
			fprintf(stderr, "gpuvet: note: serve's agent at %s did not answer (%s): "
					"reading NVML\n",
				path, ae.msg);
	}
	return collector_open(c, mo, e);
}

void mon_source_note(struct collector *c)
{
	char note[512];

	if (collector_source_note(c, note, sizeof(note)))
		fprintf(stderr, "gpuvet: note: %s\n", note);
}
