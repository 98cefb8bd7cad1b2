/*
 * keep_time.c - the cost of a hybrid's provisional keep (transition.h,
 * ibr_transition_provisional): FINAL's tables on BEFORE, PIRa's on AFTER (one
 * change later, the same GUIDs), then the keep of the first onto the
 * second, timed alone, best of ROUNDS, for each thread count up to
 * THREADS.  Prints one line per count; the kept columns must agree.
 * Built and run by bench/bench_keep.sh against the build's core library.
 *
 *   keep_time BEFORE AFTER LMC FINAL [ROUNDS [THREADS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibrouting/engine.h"
#include "ibrouting/load.h"
#include "ibrouting/transition.h"
#include "ibrouting/updown.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, const char *msg)
{
	fprintf(stderr, "keep_time: %s: %s\n", what, msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_load_options o = { .lmc_given = true };
	struct ibr_error err = { "" };
	struct ibr_fabric *a = NULL, *b = NULL;
	struct ibr_result prior, prov;
	struct ibr_updown ud;
	const struct ibr_engine *fin;
	unsigned rounds, threads;
	uint32_t first_kept = 0;
	struct ibr_table_ids ids;

	if (argc < 5) {
		fprintf(stderr, "usage: keep_time BEFORE AFTER LMC FINAL "
			"[ROUNDS [THREADS]]\n");
		return 2;
	}
	o.lmc = (unsigned)atoi(argv[3]);
	rounds = argc > 5 ? (unsigned)atoi(argv[5]) : 5;
	threads = argc > 6 ? (unsigned)atoi(argv[6]) : 2;
	fin = ibr_engine_find(argv[4]);
	if (!fin)
		return fail(argv[4], "no such engine");
	if (ibr_load(argv[1], &o, &a, NULL, &err) ||
	    ibr_load(argv[2], &o, &b, NULL, &err))
		return fail("load", err.msg);
	if (ibr_route_once(a, fin, &root, NULL, &prior, &err) ||
	    ibr_route_once(b, ibr_engine_find("pira"), &root, NULL, &prov,
			   &err) ||
	    ibr_updown_of_result(b, &prov, &ud, &err))
		return fail("route", err.msg);
	if (ibr_table_ids_of(a, &ids, &err))
		return fail("identities", err.msg);
	for (unsigned th = 1; th <= threads; th++) {
		double best = 0;
		uint32_t kept = 0;

		for (unsigned i = 0; i < rounds; i++) {
			struct ibr_result r;
			double t0;
			if (ibr_result_copy(&r, &prov, &err))
				return fail("copy", err.msg);
			t0 = now_ms();
			if (ibr_transition_provisional(b, &ud, &prior, &ids,
						!fin->designates_dlids, th, &r,
						&kept, &err))
				return fail("keep", err.msg);
			t0 = now_ms() - t0;
			best = i == 0 || t0 < best ? t0 : best;
			ibr_result_free(&r);
		}
		if (th == 1)
			first_kept = kept;
		else if (kept != first_kept)
			return fail("threads", "another count of kept columns");
		printf("%s -> %s, %s, lmc %u, threads %u: keep %.1f ms (best of "
		       "%u), %u columns kept\n", argv[1], argv[2], fin->name,
		       o.lmc, th, best, rounds, kept);
	}
	ibr_table_ids_free(&ids);
	ibr_result_free(&prior);
	ibr_result_free(&prov);
	ibr_updown_free(&ud);
	ibr_fabric_free(a);
	ibr_fabric_free(b);
	return 0;
}
