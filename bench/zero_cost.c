/*
 * zero_cost.c - benchmarks only: libibrouting-zero-cost.so, an OpenSM
 * event plugin that registers one routing engine, `zero-cost`, which
 * computes nothing and fills every new_lft with port 1, so OpenSM's own
 * share of the routing window (framing, LFT distribution) is measured
 * apart from any engine's (bench/bench.sh, bench/window.sh).
 *
 * Never installed, never in the package: `make check` builds it beside
 * the tests, and the benchmarks load it next to the real plugin with
 * `event_plugin_name ibrouting ibrouting-zero-cost`.  Its tables are not
 * routes.  It shares no code and no state with libibrouting.so.
 */
#include "config.h"

#include <string.h>

#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_version.h>

static int zero_cost_matrices(void *context)
{
	(void)context;
	return 0;
}

static int zero_cost_tables(void *context)
{
	osm_opensm_t *osm = context;
	cl_qmap_t *tbl = &osm->subn.sw_guid_tbl;

	for (cl_map_item_t *i = cl_qmap_head(tbl); i != cl_qmap_end(tbl);
	     i = cl_qmap_next(i)) {
		osm_switch_t *sw = (osm_switch_t *)i;
		memset(sw->new_lft + 1, 1, sw->max_lid_ho);
	}
	return 0;
}

static int zero_cost_setup(osm_routing_engine_t *re, osm_opensm_t *osm)
{
	(void)osm;
	re->build_lid_matrices = zero_cost_matrices;
	re->ucast_build_fwd_tables = zero_cost_tables;
	return 0;
}

static void *create(osm_opensm_t *osm)
{
	external_routing_engine_module_t m = {
		.name = "zero-cost", .setup = zero_cost_setup,
	};

	if (osm_register_external_routing_engine(osm, &m, osm) != CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "zero-cost: cannot register "
			"the routing engine\n");
		return NULL;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "zero-cost: benchmark engine "
		"registered (bench/zero_cost.c; its tables are not routes)\n");
	return osm;
}

static void delete(void *data)
{
	(void)data;
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = create,
	.delete = delete,
};
