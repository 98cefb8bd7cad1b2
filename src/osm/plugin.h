/*
 * plugin.h - the OpenSM side of ibrouting: shared by the plugin's files.
 *
 * Every OpenSM header is included through here, osm_config.h first: the
 * layout of osm_subn_opt_t and osm_opensm_t depends on the feature macros
 * it defines, and a plugin compiled without them reads the wrong offsets.
 */
#ifndef IBROUTING_OSM_PLUGIN_H
#define IBROUTING_OSM_PLUGIN_H

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_log.h>

#include "ibrouting/engine.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

/* Options from opensm-plugin.conf (see opensm-plugin.conf(5)). */
#define IBR_PLUGIN_MAX_ENGINES 16

/* How the tables are checked before the push (verify_method). */
enum ibr_verify_method {
	IBR_VERIFY_CERTIFICATE,  /* certify.h; the full check if it fails */
	IBR_VERIFY_FULL,         /* verify.h: the channel dependency graph */
};

struct ibr_plugin_options {
	struct ibr_root_choice root;   /* used when root_guid_file is unset */
	bool verify_before_push;
	enum ibr_verify_method verify_method;
	char *dump_dir;                /* NULL: no extra dumps */
	bool sa_designated_dlids;      /* the SA hands out designated DLIDs */
	const char *path;              /* the file read, for messages */
	/* `ENGINE_KEY VALUE` lines: engine ENGINE's option KEY, per engine
	 * of the registry (ibr_engines[i]), each checked against what the
	 * engine declares */
	struct ibr_options engine[IBR_PLUGIN_MAX_ENGINES];
};

/* Reads the options; every problem is logged as an ERR line naming the
 * file:line, key and value, and the default is kept.  A missing file at
 * the default path is not an error. */
void ibr_plugin_options_load(struct ibr_plugin_options *o, osm_log_t *log);
void ibr_plugin_options_free(struct ibr_plugin_options *o);

#define IBR_OSM_LIDLESS_NAMED 4

/* A fabric built from OpenSM's discovered subnet, and the way back from
 * our switch indexes to OpenSM's switches. */
struct ibr_osm_fabric {
	struct ibr_fabric *fabric;
	osm_switch_t **switches;       /* per switch index */
	/* Switches and linked CA ports OpenSM left without a LID, left out
	 * of the fabric; the GUIDs of the first IBR_OSM_LIDLESS_NAMED (node
	 * GUID of a switch, port GUID of a CA port).  Set even when the
	 * build fails later. */
	uint32_t num_lidless;
	uint64_t lidless_guid[IBR_OSM_LIDLESS_NAMED];
};

/* LIDs are OpenSM's: none is assigned here (see adapter.c). */
int ibr_osm_fabric_build(osm_opensm_t *osm, struct ibr_osm_fabric *out,
			 struct ibr_error *err);
void ibr_osm_fabric_free(struct ibr_osm_fabric *of);

/* The root from OpenSM's root_guid_file: the first listed GUID that is a
 * switch of the fabric.  Returns 0 and sets *guid (0 if the option is
 * unset), or -1 if the file cannot be read or names no switch. */
int ibr_osm_root_from_guid_file(osm_opensm_t *osm, const struct ibr_fabric *f,
				uint64_t *guid, struct ibr_error *err);

/* ---- the SA hands out designated DLIDs (sa_dlids.c) ------------------ */

struct ibr_sa_dlids;

/* Wraps OpenSM's PathRecord handler (call from create(): the SA is
 * initialised, not yet bound).  NULL, after an ERR line, when it cannot;
 * the SA then answers as OpenSM does.  Every function below takes NULL
 * and does nothing with it. */
struct ibr_sa_dlids *ibr_sa_dlids_install(osm_opensm_t *osm);

/* After a successful run of our engine (OpenSM's lock held): copies what
 * the SA needs of r's designated map and swaps it in; a result without a
 * map clears the table.  engine_ctx is the routing engine's context
 * (re->context): the table applies while osm->routing_engine_used has
 * it.  The fabric and result may be freed right after. */
void ibr_sa_dlids_publish(struct ibr_sa_dlids *sa, const void *engine_ctx,
			  const char *engine, const struct ibr_fabric *f,
			  const struct ibr_result *r);

/* No DLID designated any more (our engine failed). */
void ibr_sa_dlids_clear(struct ibr_sa_dlids *sa);

/* Puts OpenSM's handler back if ours is still registered, frees. */
void ibr_sa_dlids_uninstall(struct ibr_sa_dlids *sa);

#endif
