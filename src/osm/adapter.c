/*
 * adapter.c - OpenSM's discovered subnet -> the core's fabric model.
 *
 * Called from the routing callback, with OpenSM's lock held by OpenSM.
 * Every node of node_guid_tbl becomes a node (routers count as CAs: they
 * are end-points to unicast routing); every physical port with a remote
 * port becomes a link; LIDs and LMCs are OpenSM's, taken as they are and
 * never invented: the fabric is indexed with ibr_fabric_index(), not
 * finalized.  A switch OpenSM gave no LID is left out with its links, a
 * CA port OpenSM gave no LID is left unlinked (nothing can route to
 * either), and a CA with no linked port left is left out; the switches
 * and CA ports left out for want of a LID are counted (num_lidless) for
 * the plugin's log.
 * Invariant: switches[s] is the osm_switch_t of our switch index s.
 */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* Our id of an OpenSM node, IBR_NONE when it was left out: OpenSM's node
 * GUIDs are unique (node_guid_tbl is keyed by them), so the fabric's own
 * GUID index finds it. */
static uint32_t node_id(const struct ibr_fabric *f, const osm_node_t *node)
{
	return ibr_fabric_find_guid(f, cl_ntoh64(osm_node_get_node_guid(node)));
}

/* OpenSM gave it a LID: a switch on its port 0, a CA port itself. */
static bool has_lid(const osm_node_t *node, const osm_physp_t *p)
{
	if (osm_node_get_type(node) == IB_NODE_TYPE_SWITCH)
		return osm_node_get_base_lid(node, 0) != 0;
	return osm_physp_get_base_lid(p) != 0;
}

/* A link routing can use: both ends have LIDs. */
static bool link_is_routable(const osm_node_t *node, const osm_physp_t *p)
{
	const osm_physp_t *remote = osm_physp_get_remote(p);

	return remote && has_lid(node, p) && has_lid(remote->p_node, remote);
}

/* A CA with no LID'd, linked port is nothing routing can reach: leave it
 * out rather than fail the run on it. */
static bool ca_has_routable_link(osm_node_t *node)
{
	for (uint32_t p = 1; p < osm_node_get_num_physp(node); p++) {
		osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
		if (physp && link_is_routable(node, physp))
			return true;
	}
	return false;
}

static void note_lidless(struct ibr_osm_fabric *out, uint64_t guid)
{
	if (out->num_lidless < IBR_OSM_LIDLESS_NAMED)
		out->lidless_guid[out->num_lidless] = guid;
	out->num_lidless++;
}

/* Counts the switch, or the linked CA ports, OpenSM left without a LID. */
static void count_lidless(osm_node_t *node, struct ibr_osm_fabric *out)
{
	if (osm_node_get_type(node) == IB_NODE_TYPE_SWITCH) {
		if (!has_lid(node, NULL))
			note_lidless(out, cl_ntoh64(osm_node_get_node_guid(node)));
		return;
	}
	for (uint32_t p = 1; p < osm_node_get_num_physp(node); p++) {
		osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
		if (physp && osm_physp_get_remote(physp) && !has_lid(node, physp))
			note_lidless(out, cl_ntoh64(osm_physp_get_port_guid(physp)));
	}
}

static int add_nodes(osm_subn_t *subn, struct ibr_fabric *f,
		     osm_node_t **by_id, struct ibr_osm_fabric *out,
		     struct ibr_error *err)
{

	for (cl_map_item_t *item = cl_qmap_head(&subn->node_guid_tbl);
	     item != cl_qmap_end(&subn->node_guid_tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;
		bool is_switch = osm_node_get_type(node) == IB_NODE_TYPE_SWITCH;
		uint32_t id;
		count_lidless(node, out);
		if (is_switch ? !has_lid(node, NULL) : !ca_has_routable_link(node))
			continue;
		id = ibr_fabric_add_node(f, is_switch ? IBR_NODE_SWITCH :
						  IBR_NODE_CA,
						  cl_ntoh64(osm_node_get_node_guid(node)),
						  node->node_info.num_ports,
						  node->print_desc, NULL, err);
		if (id == IBR_NONE)
			return -1;
		if (is_switch)
			ibr_fabric_set_lid(f, id, 0,
					   cl_ntoh16(osm_node_get_base_lid(node, 0)),
					   subn->opt.lmc_esp0 ?
					   osm_node_get_lmc(node, 0) : 0);
		by_id[id] = node;
	}
	return 0;
}

/* Room for every node OpenSM knows, so that building moves nothing. */
static int reserve(osm_subn_t *subn, struct ibr_fabric *f, struct ibr_error *err)
{
	uint32_t ports = 0;

	for (cl_map_item_t *item = cl_qmap_head(&subn->node_guid_tbl);
	     item != cl_qmap_end(&subn->node_guid_tbl);
	     item = cl_qmap_next(item))
		ports += ((osm_node_t *)item)->node_info.num_ports + 1u;
	return ibr_fabric_reserve(f, cl_qmap_count(&subn->node_guid_tbl), ports,
				  err);
}

/* A port's active link width and speed as OpenSM writes them into its
 * own opensm-subnet.lst (osm_dump.c, dump_topology_node), each end its
 * own, from the port info OpenSM holds when it routes: the width from
 * LinkWidthActive, the speed from LinkSpeedActive, FDR10 from Mellanox's
 * extended port info, an extended speed where the far end's port 0 (a
 * CA's own port) has the capability, as OpenSM reads it there; NDR,
 * which 3.3.23 prints as "??", by its name. */
static void set_link_rate(struct ibr_fabric *f, uint32_t id, unsigned p,
			  osm_physp_t *physp, osm_physp_t *remote)
{
	const ib_port_info_t *pi = &physp->port_info;
	osm_node_t *far = remote->p_node;
	osm_physp_t *first = osm_node_get_type(far) == IB_NODE_TYPE_SWITCH ?
			     osm_node_get_physp_ptr(far, 0) : remote;
	unsigned width;
	enum ibr_link_speed speed;

	switch (pi->link_width_active) {
	case 1: width = 1; break;
	case 2: width = 4; break;
	case 4: width = 8; break;
	case 8: width = 12; break;
	case 16: width = 2; break;
	default: width = 0; break;
	}
	switch (ib_port_info_get_link_speed_active(pi)) {
	case IB_LINK_SPEED_ACTIVE_2_5: speed = IBR_SPEED_SDR; break;
	case IB_LINK_SPEED_ACTIVE_5: speed = IBR_SPEED_DDR; break;
	case IB_LINK_SPEED_ACTIVE_10: speed = IBR_SPEED_QDR; break;
	default: speed = IBR_SPEED_UNKNOWN; break;
	}
	if (physp->ext_port_info.link_speed_active & FDR10)
		speed = IBR_SPEED_FDR10;
	if (first && first->port_info.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS)
		switch (ib_port_info_get_link_speed_ext_active(pi)) {
		case IB_LINK_SPEED_EXT_ACTIVE_NONE: break;
		case IB_LINK_SPEED_EXT_ACTIVE_14: speed = IBR_SPEED_FDR; break;
		case IB_LINK_SPEED_EXT_ACTIVE_25: speed = IBR_SPEED_EDR; break;
		case IB_LINK_SPEED_EXT_ACTIVE_50: speed = IBR_SPEED_HDR; break;
		case 8: speed = IBR_SPEED_NDR; break;
		default: speed = IBR_SPEED_UNKNOWN; break;
		}
	ibr_fabric_set_rate(f, id, p, width, speed);
}

static int add_links(osm_subn_t *subn, struct ibr_fabric *f,
		     struct ibr_error *err)
{
	for (cl_map_item_t *item = cl_qmap_head(&subn->node_guid_tbl);
	     item != cl_qmap_end(&subn->node_guid_tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;
		uint32_t id = node_id(f, node);
		if (id == IBR_NONE)
			continue;
		for (uint32_t p = 1; p < osm_node_get_num_physp(node); p++) {
			osm_physp_t *physp = osm_node_get_physp_ptr(node, p);
			osm_physp_t *remote;
			if (!physp || !link_is_routable(node, physp))
				continue;
			remote = osm_physp_get_remote(physp);
			if (osm_node_get_type(node) != IB_NODE_TYPE_SWITCH)
				ibr_fabric_set_lid(f, id, p,
						   cl_ntoh16(osm_physp_get_base_lid(physp)),
						   osm_physp_get_lmc(physp));
			uint32_t peer = node_id(f, remote->p_node);
			if (peer == IBR_NONE)
				continue;
			if (ibr_fabric_connect(f, id, p, peer,
					       osm_physp_get_port_num(remote), err))
				return -1;
			set_link_rate(f, id, p, physp, remote);
		}
	}
	return 0;
}

static void find_sm(osm_subn_t *subn, struct ibr_fabric *f)
{
	osm_port_t *sm = osm_get_port_by_guid(subn, subn->sm_port_guid);

	if (!sm || !sm->p_physp)
		return;
	f->sm_node = node_id(f, sm->p_node);
	f->sm_port = osm_physp_get_port_num(sm->p_physp);
}

int ibr_osm_fabric_build(osm_opensm_t *osm, struct ibr_osm_fabric *out,
			 struct ibr_error *err)
{
	osm_subn_t *subn = &osm->subn;
	uint32_t count = cl_qmap_count(&subn->node_guid_tbl);
	osm_node_t **by_id = malloc((count ? count : 1) * sizeof(*by_id));
	struct ibr_fabric *f = ibr_fabric_new();
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!by_id || !f) {
		ibr_error_set(err, "out of memory");
		goto out;
	}
	f->lmc_esp0 = subn->opt.lmc_esp0;
	f->lmc = subn->opt.lmc;
	if (reserve(subn, f, err))
		goto out;
	if (add_nodes(subn, f, by_id, out, err) ||
	    add_links(subn, f, err))
		goto out;
	find_sm(subn, f);
	if (ibr_fabric_index(f, err))
		goto out;
	out->switches = malloc(f->num_switches * sizeof(*out->switches));
	if (!out->switches) {
		ibr_error_set(err, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		out->switches[s] = by_id[f->sw_node[s]]->sw;
	out->fabric = f;
	f = NULL;
	rc = 0;
out:
	free(by_id);
	ibr_fabric_free(f);
	return rc;
}

void ibr_osm_fabric_free(struct ibr_osm_fabric *of)
{
	ibr_fabric_free(of->fabric);
	free(of->switches);
	memset(of, 0, sizeof(*of));
}
