/*
 * test_failures.c - every allocation of a routing run, a verification, a
 * certificate and a metrics pass made to fail, one at a time: each must
 * end in an error with a message, never in a result that looks good (the
 * checks fail closed), and never in a leak (the suite runs under valgrind
 * in scripts/run-tests.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "ibrouting/certify.h"
#include "ibrouting/engine.h"
#include "ibrouting/generate.h"
#include "ibrouting/metrics.h"
#include "ibrouting/pathset.h"
#include "ibrouting/prior.h"
#include "ibrouting/verify.h"
#include "failing_alloc.h"

static const char *const specs[] = {
	"random:sw=12,ca=24,seed=2", "torus:dims=3x3,ca=1,broken=1,seed=3",
};

/* Each engine: allocation k of ibr_route_once fails -> -1, a message,
 * no tables left behind. */
static void test_route_fails_cleanly(void **state)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	unsigned injected = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct ibr_fabric *f = generated_fabric(specs[i], 1);
		for (unsigned e = 0; ibr_engines[e]; e++) {
			struct ibr_error err = { "" };
			struct ibr_result r;
			long total;
			failing_alloc_arm(-1);
			assert_int_equal(ibr_route_once(f, ibr_engines[e], &root,
							NULL, &r, &err), 0);
			total = failing_alloc_disarm();
			ibr_result_free(&r);
			assert_true(total > 0);
			for (long k = 0; k < total; k++, injected++) {
				memset(&err, 0, sizeof(err));
				failing_alloc_arm(k);
				int rc = ibr_route_once(f, ibr_engines[e], &root,
							NULL, &r, &err);
				failing_alloc_disarm();
				if (rc != -1)
					fail_msg("%s on %s: allocation %ld of %ld "
						 "failed, route returned %d",
						 ibr_engines[e]->name, specs[i],
						 k, total, rc);
				assert_true(err.msg[0] != '\0');
				assert_null(r.col);
			}
		}
		ibr_fabric_free(f);
	}
	print_message("%u allocation failures injected into routing runs\n",
		      injected);
}

/* colorl and dr from the prior tables (prior.h) after a link cut:
 * allocation k fails -> -1, a message, no tables left behind. */
static void test_prior_route_fails_cleanly(void **state)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_fabric *before = generated_fabric("random:sw=12,ca=24,seed=2", 1);
	struct ibr_fabric *after = generated_fabric("random:sw=12,ca=24,seed=2,cut=1", 1);
	const char *names[] = { "colorl", "dr" };
	unsigned injected = 0;

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		const struct ibr_engine *e = ibr_engine_find(names[i]);
		struct ibr_error err = { "" };
		struct ibr_result prior_tables, r;
		struct ibr_prior prior = { .f = before, .r = &prior_tables };
		struct ibr_route_ctx ctx;
		long total;

		assert_int_equal(ibr_route_once(before, e, &root, NULL, &prior_tables, &err), 0);
		assert_int_equal(ibr_ctx_init(&ctx, after, &root, NULL, &err), 0);
		ctx.prior = &prior;
		failing_alloc_arm(-1);
		assert_int_equal(ibr_route(&ctx, e, &r, &err), 0);
		total = failing_alloc_disarm();
		assert_int_not_equal(ibr_stat_get(&r, "pairs kept",
						  UINT64_MAX), UINT64_MAX);
		ibr_result_free(&r);
		for (long k = 0; k < total; k++, injected++) {
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			int rc = ibr_route(&ctx, e, &r, &err);
			failing_alloc_disarm();
			if (rc != -1)
				fail_msg("%s from the prior tables: allocation "
					 "%ld of %ld failed, route returned %d",
					 e->name, k, total, rc);
			assert_true(err.msg[0] != '\0');
			assert_null(r.col);
		}
		ibr_ctx_free(&ctx);
		ibr_result_free(&prior_tables);
	}
	ibr_fabric_free(before);
	ibr_fabric_free(after);
	print_message("%u allocation failures injected into routing runs from "
		      "the prior tables\n", injected);
}

/* colorl on 3 worker threads (its candidate search, the base tree beside
 * the path selection, the LID assignment, the load measurements):
 * allocation k fails -> -1, a message, no tables; which request k falls
 * on depends on the scheduling, so a run that made fewer than k + 1
 * requests may succeed (and is then freed). */
static void test_threaded_route_fails_cleanly(void **state)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	const struct ibr_engine *e = ibr_engine_find("colorl");
	unsigned injected = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct ibr_fabric *f = generated_fabric(specs[i], 1);
		struct ibr_route_ctx ctx;
		struct ibr_error err = { "" };
		struct ibr_result r;
		long total;
		assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
		ctx.threads = 3;
		failing_alloc_arm(-1);
		assert_int_equal(ibr_route(&ctx, e, &r, &err), 0);
		total = failing_alloc_disarm();
		ibr_result_free(&r);
		for (long k = 0; k < total + 8; k++) {
			int rc;
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			rc = ibr_route(&ctx, e, &r, &err);
			if (rc == 0) {
				assert_true(failing_alloc_disarm() <= k);
				ibr_result_free(&r);
				continue;
			}
			failing_alloc_disarm();
			injected++;
			assert_int_equal(rc, -1);
			assert_true(err.msg[0] != '\0');
			assert_null(r.col);
		}
		ibr_ctx_free(&ctx);
		ibr_fabric_free(f);
	}
	assert_true(injected > 20);
	print_message("%u allocation failures injected into threaded colorl "
		      "runs\n", injected);
}

/* The verifier, the certificate and the metrics: allocation k fails -> -1
 * and a message; never a clean report. */
static void test_verify_fails_closed(void **state)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	unsigned injected = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct ibr_fabric *f = generated_fabric(specs[i], 1);
		struct ibr_error err = { "" };
		struct ibr_verify_report rep;
		struct ibr_certify_report cert;
		struct ibr_metrics m;
		struct ibr_result r;
		long total;

		assert_int_equal(ibr_route_once(f, ibr_engine_find("fera"), &root,
						NULL, &r, &err), 0);
		assert_int_equal(ibr_designated_init(&r, f, true, &err), 0);
		failing_alloc_arm(-1);
		assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
		total = failing_alloc_disarm();
		assert_int_equal(ibr_verify_findings(&rep), 0);
		for (long k = 0; k < total; k++, injected++) {
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			int rc = ibr_verify(f, &r, NULL, &rep, &err);
			failing_alloc_disarm();
			if (rc != -1)
				fail_msg("%s: allocation %ld of %ld failed, verify "
					 "returned %d", specs[i], k, total, rc);
			assert_true(err.msg[0] != '\0');
		}
		failing_alloc_arm(-1);
		assert_int_equal(ibr_certify(f, &r, &cert, &err), 0);
		total = failing_alloc_disarm();
		assert_int_equal(ibr_certify_findings(&cert), 0);
		assert_true(total > 0);
		for (long k = 0; k < total; k++, injected++) {
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			int rc = ibr_certify(f, &r, &cert, &err);
			failing_alloc_disarm();
			if (rc != -1)
				fail_msg("%s: allocation %ld of %ld failed, certify "
					 "returned %d", specs[i], k, total, rc);
			assert_true(err.msg[0] != '\0');
		}
		failing_alloc_arm(-1);
		assert_int_equal(ibr_metrics_compute(f, &r, &m, &err), 0);
		total = failing_alloc_disarm();
		for (long k = 0; k < total; k++, injected++) {
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			assert_int_equal(ibr_metrics_compute(f, &r, &m, &err), -1);
			failing_alloc_disarm();
			assert_true(err.msg[0] != '\0');
		}
		ibr_result_free(&r);
		ibr_fabric_free(f);
	}
	print_message("%u allocation failures injected into verification, "
		      "certificates and metrics\n", injected);
}

/* Paths: growing a set and realising it fail cleanly too. */
static void test_pathset_fails_cleanly(void **state)
{
	struct ibr_fabric *f = generated_fabric(specs[0], 1);
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_result r;
	struct ibr_walker w;
	long total;

	(void)state;
	assert_int_equal(ibr_route_once(f, ibr_engine_find("fera"), &root, NULL,
					&r, &err), 0);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	for (long k = -1;; k++) {
		struct ibr_pathset ps;
		uint8_t *offset = NULL;
		int rc = 0;

		ibr_pathset_init(&ps);
		failing_alloc_arm(k);
		for (uint32_t src = 0; rc == 0 && src < f->num_end_ports; src++)
			for (uint32_t dst = 0; dst < f->num_end_ports; dst++)
				if (src != dst &&
				    ibr_pathset_add_walk(&ps, &w, &r, src, dst,
							 ibr_end_port_lid(f, dst),
							 &err) == IBR_NONE) {
					rc = -1;
					break;
				}
		offset = rc == 0 ? calloc(ps.num_paths, 1) : NULL;
		if (rc == 0 && offset)
			rc = ibr_pathset_realise(&ps, f, offset, &r, &err);
		total = failing_alloc_disarm();
		if (rc == 0 && !offset)
			rc = -1;
		free(offset);
		ibr_pathset_free(&ps);
		free(r.designated.offset);
		r.designated.offset = NULL;
		if (k < 0) {
			assert_int_equal(rc, 0);
			continue;
		}
		if (k >= total)
			break;
		assert_int_equal(rc, -1);
	}
	ibr_walker_free(&w);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_fails_cleanly),
		cmocka_unit_test(test_threaded_route_fails_cleanly),
		cmocka_unit_test(test_prior_route_fails_cleanly),
		cmocka_unit_test(test_verify_fails_closed),
		cmocka_unit_test(test_pathset_fails_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
