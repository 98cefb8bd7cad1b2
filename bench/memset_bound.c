/*
 * memset_bound.c - the lower bound of any routing engine: writing every
 * LFT byte once.  Prints the best of N memsets of switches x LIDs bytes,
 * in milliseconds, into a fresh buffer each round (so page faults count,
 * as they do for an engine that allocates its tables).
 *
 *   memset_bound SWITCHES LIDS [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	size_t bytes;
	int rounds;
	double best = -1;

	if (argc < 3) {
		fprintf(stderr, "usage: memset_bound SWITCHES LIDS [ROUNDS]\n");
		return 2;
	}
	bytes = strtoull(argv[1], NULL, 0) * strtoull(argv[2], NULL, 0);
	rounds = argc > 3 ? atoi(argv[3]) : 5;
	for (int i = 0; i < rounds; i++) {
		double t0 = now_ms();
		unsigned char *p = malloc(bytes);
		if (!p)
			return 1;
		memset(p, 0xFF, bytes);
		/* keep the stores: read one byte back */
		if (p[bytes / 2] != 0xFF)
			return 1;
		free(p);
		double t = now_ms() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	printf("%.3f\n", best);
	return 0;
}
