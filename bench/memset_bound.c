/*
 * memset_bound.c - the lower bound of any routing engine: writing every
 * LFT byte once.  Prints two figures in milliseconds: the best of N
 * memsets of switches x LIDs bytes into an allocated-and-freed buffer
 * (warm: the lower bound proper), then one memset into fresh pages (cold:
 * with the page faults an engine pays the first time it allocates).
 *
 *   memset_bound SWITCHES LIDS [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Called through a volatile pointer so the compiler cannot drop it. */
static void *(*volatile fill)(void *, int, size_t) = memset;

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
		fill(p, 0xFF, bytes);
		/* keep the stores: read one byte back */
		if (p[bytes / 2] != 0xFF)
			return 1;
		free(p);
		double t = now_ms() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	{
		double t0 = now_ms();
		unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		fill(p, 0xFF, bytes);
		printf("%.3f %.3f\n", best, now_ms() - t0);
		munmap(p, bytes);
	}
	return 0;
}
