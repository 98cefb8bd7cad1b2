/*
 * sa_dlids.c - the SA hands out designated DLIDs.
 *
 * A multi-LID engine (dr) routes each (source, destination) pair on one
 * LID of the destination's range, its designated DLID (doc/design.md,
 * "Designated DLIDs").  Hosts learn DLIDs from PathRecords, so the plugin
 * wraps OpenSM's PathRecord handler: a SubnAdmGet(PathRecord) whose
 * component mask names a unicast DGID and no DLID, between two end ports
 * whose designated offset is not 0, gets DLID (and its component bit)
 * added to the request before OpenSM's own handler runs; OpenSM then
 * builds, checks and sends the record for exactly that DLID, walking its
 * new LFTs as for any other.  Everything else (GetTable, other methods, a
 * DLID given by the client, multicast or off-subnet DGIDs, unknown ports,
 * offset 0, no table) reaches OpenSM's handler untouched.
 *
 * Invariants:
 *   - OpenSM's registration for OSM_MSG_MAD_PATH_RECORD is replaced by
 *     ours in create(), before OpenSM binds its ports (no MAD can arrive
 *     in between), and osm->sa.pr_disp_h names ours, so OpenSM's
 *     osm_sa_shutdown() unregisters it (and waits for running calls) as
 *     it would its own; ibr_sa_dlids_uninstall() puts OpenSM's handler
 *     back only while ours is still registered.
 *   - The handler called is the one OpenSM registered (callback and
 *     context read from its registration), whatever it is.
 *   - The table is a compact copy owned here, never a pointer into a
 *     routing run's fabric or result (those are freed right after the
 *     run); it is replaced as a whole under `lock`, and SA threads hold
 *     the lock (shared) for the lookup only, never across OpenSM's handler.
 *   - A table applies only while OpenSM reports the engine that published
 *     it as the engine in use (osm->routing_engine_used, read under
 *     OpenSM's lock): after a fallback to another engine, or a run of
 *     ours without a map, no DLID is designated.  The table is also
 *     cleared when our engine fails or routes without a map.
 *   - Nothing here fails a request: with no memory or any doubt, the
 *     request passes through and OpenSM answers with the base LID.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_dispatcher.h>
#include <complib/cl_passivelock.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_msgdef.h>
#include <opensm/osm_sa.h>

#include "plugin.h"

/* An end port's GUID, for the SGID/DGID lookup (sorted by guid). */
struct guid_entry {
	uint64_t guid;                 /* host order */
	uint32_t ep;
};

/* What the SA needs of one routing run, copied out of it. */
struct sa_table {
	const void *engine_ctx;        /* re->context of the engine that routed */
	const char *engine;            /* its name (static, the registry's) */
	uint32_t num_ports;            /* end ports */
	struct guid_entry *by_guid;    /* num_ports, sorted by guid */
	uint16_t *base_lid;            /* per end port */
	uint32_t *row;                 /* per end port: its row of offsets */
	uint32_t max_lid;
	uint32_t *lid_ep;              /* [0 .. max_lid]: end port or IBR_NONE */
	uint32_t rows, cols;           /* cols = num_ports */
	uint8_t *offset;               /* rows x cols */
	uint64_t pairs;                /* end-port pairs off the base LID */
};

struct ibr_sa_dlids {
	osm_opensm_t *osm;
	cl_disp_reg_handle_t ours;
	cl_pfn_msgrcv_cb_t orig_cb;    /* OpenSM's registration, to chain */
	const void *orig_ctx;
	pthread_rwlock_t lock;         /* guards `table` */
	struct sa_table *table;        /* NULL: nothing designated */
	atomic_uint_fast64_t designated, passed;   /* PathRecord Gets */
};

static void table_free(struct sa_table *t)
{
	if (!t)
		return;
	free(t->by_guid);
	free(t->base_lid);
	free(t->row);
	free(t->lid_ep);
	free(t->offset);
	free(t);
}

static int by_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct guid_entry *)a)->guid;
	uint64_t y = ((const struct guid_entry *)b)->guid;

	return x < y ? -1 : x > y;
}

/* The end port with port GUID `guid` (host order), or IBR_NONE. */
static uint32_t find_guid(const struct sa_table *t, uint64_t guid)
{
	struct guid_entry key = { guid, 0 };
	const struct guid_entry *hit = bsearch(&key, t->by_guid, t->num_ports,
					       sizeof(key), by_guid);

	return hit ? hit->ep : IBR_NONE;
}

static uint32_t find_lid(const struct sa_table *t, uint16_t lid)
{
	return lid <= t->max_lid ? t->lid_ep[lid] : IBR_NONE;
}

/* Replaces the table; the old one is freed outside the lock. */
static void swap_table(struct ibr_sa_dlids *sa, struct sa_table *t)
{
	struct sa_table *old;

	pthread_rwlock_wrlock(&sa->lock);
	old = sa->table;
	sa->table = t;
	pthread_rwlock_unlock(&sa->lock);
	table_free(old);
}

/* ---- the copy after a routing run -------------------------------------- */

static struct sa_table *table_build(osm_opensm_t *osm,
				    const struct ibr_fabric *f,
				    const struct ibr_result *r)
{
	const struct ibr_designated *d = &r->designated;
	uint32_t N = f->num_end_ports;
	size_t cells = (size_t)d->rows * d->cols;
	struct sa_table *t = calloc(1, sizeof(*t));
	uint64_t *row_pairs = NULL;

	if (!t)
		return NULL;
	t->num_ports = N;
	t->rows = d->rows;
	t->cols = d->cols;
	t->max_lid = f->max_lid;
	t->by_guid = malloc((N ? N : 1) * sizeof(*t->by_guid));
	t->base_lid = malloc((N ? N : 1) * sizeof(*t->base_lid));
	t->row = malloc((N ? N : 1) * sizeof(*t->row));
	t->lid_ep = malloc(((size_t)f->max_lid + 1) * sizeof(*t->lid_ep));
	t->offset = malloc(cells ? cells : 1);
	row_pairs = calloc(d->rows ? d->rows : 1, sizeof(*row_pairs));
	if (!t->by_guid || !t->base_lid || !t->row || !t->lid_ep ||
	    !t->offset || !row_pairs)
		goto fail;
	memcpy(t->offset, d->offset, cells);
	for (uint32_t l = 0; l <= f->max_lid; l++)
		t->lid_ep[l] = IBR_NONE;
	for (uint32_t e = 0; e < N; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		/* The port GUID OpenSM knows (the fabric model may derive CA
		 * port GUIDs from node GUIDs): found by our base LID, which is
		 * OpenSM's own. */
		osm_port_t *op = osm_get_port_by_lid_ho(&osm->subn, p->base_lid);

		t->by_guid[e].guid = op ? cl_ntoh64(osm_port_get_guid(op)) : p->guid;
		t->by_guid[e].ep = e;
		t->base_lid[e] = p->base_lid;
		t->row[e] = ibr_designated_row(r, f, e);
		if (t->row[e] >= d->rows)
			goto fail;
		for (unsigned k = 0; k < ibr_port_lid_count(p); k++)
			if (p->base_lid + k <= f->max_lid)
				t->lid_ep[p->base_lid + k] = e;
	}
	qsort(t->by_guid, N, sizeof(*t->by_guid), by_guid);
	/* pairs off the base LID, for the log: per row once, O(rows x cols) */
	for (uint32_t i = 0; i < d->rows; i++)
		for (uint32_t j = 0; j < d->cols; j++)
			row_pairs[i] += t->offset[(size_t)i * d->cols + j] != 0;
	for (uint32_t e = 0; e < N; e++)
		t->pairs += row_pairs[t->row[e]];
	free(row_pairs);
	return t;
fail:
	free(row_pairs);
	table_free(t);
	return NULL;
}

void ibr_sa_dlids_publish(struct ibr_sa_dlids *sa, const void *engine_ctx,
			  const char *engine, const struct ibr_fabric *f,
			  const struct ibr_result *r)
{
	osm_log_t *log;
	struct sa_table *t;

	if (!sa)
		return;
	log = &sa->osm->log;
	if (!r->designated.offset) {
		ibr_sa_dlids_clear(sa);
		return;
	}
	t = table_build(sa->osm, f, r);
	if (!t) {
		/* never keep the previous run's table past a new routing */
		ibr_sa_dlids_clear(sa);
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB23: %s: out of memory for "
			"the SA's designated DLIDs; the SA answers base LIDs\n",
			engine);
		return;
	}
	t->engine_ctx = engine_ctx;
	t->engine = engine;
	OSM_LOG(log, OSM_LOG_INFO, "%s: SA PathRecord Gets name designated "
		"DLIDs: %" PRIu64 " end-port pairs off the base LID\n", engine,
		t->pairs);
	if (t->pairs == 0) {
		/* every pair on its base LID (e.g. lmc 0): nothing to look up */
		table_free(t);
		t = NULL;
	}
	swap_table(sa, t);
}

void ibr_sa_dlids_clear(struct ibr_sa_dlids *sa)
{
	if (sa)
		swap_table(sa, NULL);
}

/* ---- the wrapper ------------------------------------------------------- */

/* A GID the SA resolves by its interface ID inside this subnet (OpenSM
 * sends a DGID of another prefix to a router). */
static bool local_gid(const osm_opensm_t *osm, const ib_gid_t *gid)
{
	return ib_gid_is_link_local(gid) ||
	       ib_gid_get_subnet_prefix(gid) == osm->subn.opt.subnet_prefix;
}

/* The designated DLID for this Get, or 0 when it keeps OpenSM's answer.
 *
 * Locks: OpenSM's (shared, as its SA takes it to read the subnet), then
 * ours (shared).  A routing run publishes holding OpenSM's exclusively,
 * then ours: one order, no deadlock; and a table is never looked up half
 * way through a run.  Both are released before OpenSM's handler runs. */
static uint16_t designated_dlid(struct ibr_sa_dlids *sa, const osm_madw_t *madw,
				const ib_sa_mad_t *mad, const ib_path_rec_t *pr)
{
	osm_opensm_t *osm = sa->osm;
	ib_net64_t mask = mad->comp_mask;
	const struct sa_table *t;
	uint32_t src = IBR_NONE, dst, by_lid;
	uint16_t dlid = 0;

	if ((mask & IB_PR_COMPMASK_DLID) || !(mask & IB_PR_COMPMASK_DGID) ||
	    ib_gid_is_multicast(&pr->dgid) || !local_gid(osm, &pr->dgid))
		return 0;
	cl_plock_acquire(&osm->lock);
	pthread_rwlock_rdlock(&sa->lock);
	t = sa->table;
	/* only while OpenSM routes with the engine that made the table */
	if (!t || !osm->routing_engine_used ||
	    osm->routing_engine_used->context != t->engine_ctx)
		goto out;
	dst = find_guid(t, cl_ntoh64(pr->dgid.unicast.interface_id));
	/* The source as OpenSM resolves it: SGID, else SLID (both given
	 * must name one port, else OpenSM refuses and so do we), else the
	 * requester, the port the Get came from. */
	if (mask & IB_PR_COMPMASK_SGID)
		src = find_guid(t, cl_ntoh64(pr->sgid.unicast.interface_id));
	if (mask & IB_PR_COMPMASK_SLID) {
		by_lid = find_lid(t, cl_ntoh16(pr->slid));
		if ((mask & IB_PR_COMPMASK_SGID) && by_lid != src)
			goto out;
		src = by_lid;
	}
	if (!(mask & (IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_SLID)))
		src = find_lid(t, cl_ntoh16(madw->mad_addr.dest_lid));
	if (src != IBR_NONE && dst != IBR_NONE) {
		uint8_t k = t->offset[(size_t)t->row[src] * t->cols + dst];
		if (k)
			dlid = t->base_lid[dst] + k;
	}
out:
	pthread_rwlock_unlock(&sa->lock);
	cl_plock_release(&osm->lock);
	return dlid;
}

/* Runs in OpenSM's dispatcher threads, for every PathRecord MAD. */
static void pr_wrapper(void *context, void *data)
{
	struct ibr_sa_dlids *sa = context;
	osm_madw_t *madw = data;
	ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);

	if (mad->method == IB_MAD_METHOD_GET &&
	    mad->attr_id == IB_MAD_ATTR_PATH_RECORD) {
		ib_path_rec_t *pr = ib_sa_mad_get_payload_ptr(mad);
		uint16_t dlid = designated_dlid(sa, madw, mad, pr);

		if (dlid) {
			/* OpenSM takes a DLID next to a DGID when both name
			 * one port (osm_pr_get_end_points) and then builds the
			 * record for that DLID alone.  The request is ours to
			 * change: the dispatcher hands it to this handler
			 * only, and frees it after.  OpenSM copies the
			 * request's header into the answer, so the answer's
			 * component mask shows the DLID bit too. */
			pr->dlid = cl_hton16(dlid);
			mad->comp_mask |= IB_PR_COMPMASK_DLID;
			atomic_fetch_add(&sa->designated, 1);
			OSM_LOG(&sa->osm->log, OSM_LOG_DEBUG, "ibrouting: "
				"PathRecord Get from LID %u, DGID 0x%016" PRIx64
				": designated DLID %u\n",
				cl_ntoh16(madw->mad_addr.dest_lid),
				cl_ntoh64(pr->dgid.unicast.interface_id), dlid);
		} else {
			atomic_fetch_add(&sa->passed, 1);
		}
	}
	sa->orig_cb((void *)sa->orig_ctx, data);
}

/* ---- install and uninstall --------------------------------------------- */

struct ibr_sa_dlids *ibr_sa_dlids_install(osm_opensm_t *osm)
{
	osm_sa_t *osa = &osm->sa;
	const cl_disp_reg_info_t *reg = osa->pr_disp_h;
	struct ibr_sa_dlids *sa;

	if (!osa->p_disp || reg == CL_DISP_INVALID_HANDLE ||
	    !reg->pfn_rcv_callback) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB24: ibrouting: OpenSM's "
			"SA has no PathRecord handler to wrap; the SA answers "
			"base LIDs\n");
		return NULL;
	}
	sa = calloc(1, sizeof(*sa));
	if (!sa || pthread_rwlock_init(&sa->lock, NULL)) {
		free(sa);
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB24: ibrouting: out of "
			"memory for the SA wrapper; the SA answers base LIDs\n");
		return NULL;
	}
	sa->osm = osm;
	sa->orig_cb = reg->pfn_rcv_callback;
	sa->orig_ctx = reg->context;
	/* One message id, one registrant: OpenSM's goes, ours comes.  The
	 * SA is initialised but not bound yet (event plugins load before
	 * osm_opensm_bind), so no PathRecord can be lost in between. */
	cl_disp_unregister(osa->pr_disp_h);
	sa->ours = cl_disp_register(osa->p_disp, OSM_MSG_MAD_PATH_RECORD,
				    pr_wrapper, sa);
	if (sa->ours == CL_DISP_INVALID_HANDLE) {
		osa->pr_disp_h = cl_disp_register(osa->p_disp,
						  OSM_MSG_MAD_PATH_RECORD,
						  sa->orig_cb, sa->orig_ctx);
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB24: ibrouting: cannot "
			"register the SA PathRecord wrapper%s\n",
			osa->pr_disp_h == CL_DISP_INVALID_HANDLE ?
			", nor restore OpenSM's handler: the SA answers no "
			"PathRecord" : "; the SA answers base LIDs");
		pthread_rwlock_destroy(&sa->lock);
		free(sa);
		return NULL;
	}
	osa->pr_disp_h = sa->ours;
	OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "ibrouting: SA PathRecord handler "
		"wrapped (sa_designated_dlids yes)\n");
	return sa;
}

/* Ours is still the registrant (the dispatcher's table names it). */
static bool still_registered(struct ibr_sa_dlids *sa)
{
	cl_dispatcher_t *disp = sa->osm->sa.p_disp;
	bool yes;

	cl_spinlock_acquire(&disp->lock);
	yes = OSM_MSG_MAD_PATH_RECORD < cl_ptr_vector_get_size(&disp->reg_vec) &&
	      cl_ptr_vector_get(&disp->reg_vec, OSM_MSG_MAD_PATH_RECORD) ==
	      (const void *)sa->ours;
	cl_spinlock_release(&disp->lock);
	return yes;
}

void ibr_sa_dlids_uninstall(struct ibr_sa_dlids *sa)
{
	osm_opensm_t *osm;

	if (!sa)
		return;
	osm = sa->osm;
	/* OpenSM 3.3.23 unloads plugins after osm_sa_shutdown(), which has
	 * already unregistered ours (through pr_disp_h) and waited for its
	 * running calls: then there is no SA left to give the handler back
	 * to.  Should a plugin unload with the SA still up, its handler is
	 * put back in our place. */
	if (still_registered(sa)) {
		cl_disp_unregister(sa->ours);
		osm->sa.pr_disp_h = cl_disp_register(osm->sa.p_disp,
						     OSM_MSG_MAD_PATH_RECORD,
						     sa->orig_cb, sa->orig_ctx);
		if (osm->sa.pr_disp_h == CL_DISP_INVALID_HANDLE)
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB24: ibrouting: "
				"cannot restore OpenSM's PathRecord handler\n");
		else
			OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "ibrouting: "
				"OpenSM's PathRecord handler restored\n");
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "ibrouting: SA: %" PRIuFAST64
		" PathRecord Gets answered for a designated DLID, %"
		PRIuFAST64 " passed through\n",
		(uint_fast64_t)atomic_load(&sa->designated),
		(uint_fast64_t)atomic_load(&sa->passed));
	table_free(sa->table);
	pthread_rwlock_destroy(&sa->lock);
	free(sa);
}
