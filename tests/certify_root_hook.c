/*
 * certify_root_hook.c - test only: the plugin's check policy run on
 * sound tables that the certificate refuses, so the end-to-end test sees
 * the full check overrule it (tests/e2e_options.sh, "cert-fails").
 *
 * Linked into tests/libibrouting-failalloc.so (never installed) with
 * -Wl,--wrap=ibr_check_tables: the plugin's call to the core's check
 * comes here first.  With IBROUTING_TEST_CERTIFY_ROOT=GUID naming a
 * switch of the fabric, the tables are judged as if routed from that
 * switch alone (the certificate's orientation and the full check's), so
 * tables routed from another root fail the certificate though they are
 * sound; unset, or naming no switch, the check is the plugin's own.  The
 * plugin and the core are untouched: libibrouting.so has no such hook.
 */
#include <stdlib.h>

#include "ibrouting/check.h"

int __real_ibr_check_tables(const struct ibr_fabric *f,
			    const struct ibr_result *r,
			    const struct ibr_engine *e,
			    enum ibr_check_method method, unsigned threads,
			    struct ibr_check *out, struct ibr_error *err);
int __wrap_ibr_check_tables(const struct ibr_fabric *f,
			    const struct ibr_result *r,
			    const struct ibr_engine *e,
			    enum ibr_check_method method, unsigned threads,
			    struct ibr_check *out, struct ibr_error *err);

int __wrap_ibr_check_tables(const struct ibr_fabric *f,
			    const struct ibr_result *r,
			    const struct ibr_engine *e,
			    enum ibr_check_method method, unsigned threads,
			    struct ibr_check *out, struct ibr_error *err)
{
	const char *guid = getenv("IBROUTING_TEST_CERTIFY_ROOT");
	uint32_t n = guid ? ibr_fabric_find_guid(f, strtoull(guid, NULL, 0)) :
		     IBR_NONE;
	struct ibr_result other;

	if (n == IBR_NONE || f->nodes[n].type != IBR_NODE_SWITCH)
		return __real_ibr_check_tables(f, r, e, method, threads, out,
					       err);
	/* the same tables, their root set replaced by that one switch */
	other = *r;
	other.root = f->nodes[n].sw_index;
	other.roots = NULL;
	other.num_roots = 0;
	return __real_ibr_check_tables(f, &other, e, method, threads, out, err);
}
