/*
 * load.c - one loader contract for every kind of FABRIC (see load.h).
 *
 * The builders (topology reader, generator, dump reader) differ only in
 * where nodes, links and LIDs come from; everything after that is here,
 * once: the SM is placed before missing LIDs are assigned (OpenSM gives
 * its own port the first), LIDs a file gave for another LMC than the one
 * asked for are moved as OpenSM would move them (lids.h), without one the
 * LMC the file's CA ports were given with is the fabric's, an explicit
 * LMC is a dump's (which records none) unless its LIDs contradict it, and
 * the fabric is finalized.  Every message names the source
 * first: "FILE:LINE: ..." from the readers and from the model when a node
 * is at fault (its origin), "FILE: ..." for the fabric as a whole.
 * SOURCE "-" is a topology file on standard input, named "<stdin>".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibrouting/dump.h"
#include "ibrouting/generate.h"
#include "ibrouting/lids.h"
#include "ibrouting/load.h"
#include "ibrouting/topo_io.h"

int ibr_fabric_set_sm(struct ibr_fabric *f, uint64_t guid,
		      struct ibr_error *err)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			if (ibr_port(f, n, p)->guid == guid &&
			    (p > 0 || f->nodes[n].type == IBR_NODE_SWITCH)) {
				f->sm_node = n;
				f->sm_port = f->nodes[n].type == IBR_NODE_SWITCH ? 0 : p;
				return 0;
			}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].guid == guid) {
			f->sm_node = n;
			f->sm_port = 1;
			return 0;
		}
	return ibr_error_set(err, "SM 0x%016" PRIx64 ": no such node or port "
			     "GUID in the fabric", guid);
}

static bool is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* err, led by "NAME: " unless it names NAME already (a node's origin). */
static int name_source(const char *name, const struct ibr_error *e,
		       struct ibr_error *err)
{
	if (strncmp(e->msg, name, strlen(name)) == 0)
		return ibr_error_set(err, "%s", e->msg);
	return ibr_error_set(err, "%s: %s", name, e->msg);
}

static int load_dump(const char *dir, const struct ibr_load_options *o,
		     struct ibr_fabric **fp, struct ibr_result *tables,
		     struct ibr_error *err)
{
	struct ibr_error e = { "" };
	struct ibr_result r;

	/* the dump's LIDs are OpenSM's, and it does not record the LMC:
	 * an explicit one says it, or is refused if the LIDs contradict it */
	if (ibr_dump_read_lmc(dir, o->lmc_given ? (int)o->lmc : -1, fp, &r, err))
		return -1;
	if (tables)
		*tables = r;
	else
		ibr_result_free(&r);
	if (o->component_guid)
		ibr_error_set(err, "%s is an OpenSM dump: the part OpenSM "
			      "discovered, no other part to choose", dir);
	else if (!o->sm_guid || ibr_fabric_set_sm(*fp, o->sm_guid, &e) == 0)
		return 0;
	else
		name_source(dir, &e, err);
	if (tables)
		ibr_result_free(tables);
	ibr_fabric_free(*fp);
	*fp = NULL;
	return -1;
}

/* The LMC every CA port the source gave a LID was given with (an
 * ibnetdiscover file's `lid N lmc 1`), or fallback when there is none or
 * they differ (then each keeps its own, and LID-less ports get fallback). */
static unsigned source_lmc(const struct ibr_fabric *f, unsigned fallback)
{
	int lmc = -1;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (f->nodes[n].type != IBR_NODE_CA)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, n, p);
			if (port->remote_node == IBR_NONE || !port->base_lid)
				continue;
			if (lmc >= 0 && lmc != port->lmc)
				return fallback;
			lmc = port->lmc;
		}
	}
	return lmc >= 0 ? (unsigned)lmc : fallback;
}

int ibr_load(const char *source, const struct ibr_load_options *opts,
	     struct ibr_fabric **fp, struct ibr_result *tables,
	     struct ibr_error *err)
{
	static const struct ibr_load_options defaults;
	const struct ibr_load_options *o = opts ? opts : &defaults;
	bool from_stdin = strcmp(source, "-") == 0;
	const char *name = from_stdin ? "<stdin>" : source;
	struct ibr_error e = { "" };
	struct ibr_lid_moves ignored, *moves = o->lid_moves ? o->lid_moves : &ignored;
	struct ibr_fabric *f;

	*fp = NULL;
	memset(moves, 0, sizeof(*moves));
	if (tables)
		memset(tables, 0, sizeof(*tables));
	/* every source says what it left out, nothing for a dump (OpenSM's
	 * connected view) or a connected file */
	if (o->left_out)
		memset(o->left_out, 0, sizeof(*o->left_out));
	if (strncmp(source, "gen:", 4) != 0 && is_directory(source))
		return load_dump(source, o, fp, tables, err);
	if (strncmp(source, "gen:", 4) == 0)
		f = ibr_generate(source + 4, &e);
	else if (from_stdin)
		f = ibr_fabric_read_stream(stdin, name, &e);
	else
		f = ibr_fabric_read_file(source, &e);
	if (!f)
		return name_source(name, &e, err);
	/* LIDs the source gave for another LMC move as OpenSM would move
	 * them: after the SM is placed (served first) and the part OpenSM
	 * sees is cut (its LIDs are that part's) */
	if ((o->sm_guid && ibr_fabric_set_sm(f, o->sm_guid, &e)) ||
	    (o->left_out && ibr_fabric_keep_component(&f, o->component_guid,
						      o->left_out, &e)) ||
	    (o->lmc_given && ibr_lids_for_lmc(f, o->lmc, moves, &e)) ||
	    ibr_fabric_finalize(f, o->lmc_given ? o->lmc :
				source_lmc(f, o->lmc), &e)) {
		ibr_fabric_free(f);
		return name_source(name, &e, err);
	}
	*fp = f;
	return 0;
}
