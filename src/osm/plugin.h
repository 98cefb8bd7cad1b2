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

#include <sys/types.h>
#include <time.h>

#include "ibrouting/engine.h"
#include "ibrouting/plugin_conf.h"
#include "ibrouting/prior.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"

/* Options from opensm-plugin.conf (see opensm-plugin.conf(5)); parsed
 * by the core (plugin_conf.h), read and logged by options.c. */

/* One version of the options file, to notice that it changed. */
struct ibr_conf_file_id {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

struct ibr_plugin_options {
	struct ibr_plugin_conf conf;   /* in force */
	const char *path;              /* the file ($IBROUTING_CONF or default) */
	char path_text[1024];          /* path escaped, for messages */
	struct ibr_conf_file_id id;    /* the version last read */
	unsigned reads;                /* how often it was read */
};

/* Reads the options; every problem is logged as an ERR line naming the
 * file:line, key and value, and the default is kept.  A missing file at
 * the default path is not an error. */
void ibr_plugin_options_load(struct ibr_plugin_options *o, osm_log_t *log);
/* Reads the file again when it changed since the last read, logging what
 * changed; true when an option did. */
bool ibr_plugin_options_refresh(struct ibr_plugin_options *o, osm_log_t *log);
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

/* ---- the plugin and its engines (plugin.c) --------------------------- */

struct ibr_sa_dlids;
struct ibr_hybrid;

/* The counters of status.c (its header comment has their invariants). */
struct ibr_plugin_status {
	uint64_t runs;                 /* routing runs of our engines */
	uint64_t pushed;               /* configured on the switches */
	uint64_t fallbacks;            /* refused: OpenSM fell back */
	uint64_t verifier_refusals;    /* of those, on the verifier's findings */
	uint64_t not_ours;             /* sweeps configured with other tables */
	double last_routing_ms;        /* build_lid_matrices of the last run */
	char last_engine[64];          /* the last run's engine, or whose
					* tables OpenSM configured */
	const char *last_outcome;      /* routed, pushed, refused, ... */
	const char *dumps;             /* current, removed; NULL: none */
	bool refused_this_sweep;
	time_t updated;
};

struct plugin {
	osm_opensm_t *osm;
	struct ibr_plugin_options opts;
	struct ibr_plugin_status status;
	struct ibr_sa_dlids *sa;       /* NULL: the SA is OpenSM's alone */
};

/* One registered engine, single or hybrid; the state of a run lives from
 * one callback to the next. */
struct engine_ctx {
	struct plugin *plugin;
	char name[64];                 /* as routing_engine names it */
	const struct ibr_engine *engine;  /* single: the engine; hybrid: final */
	struct ibr_hybrid *hybrid;     /* its machine; a single engine's too */
	/* The model of OpenSM's subnet: built by a run, kept for the next
	 * ones until OpenSM's next heavy sweep (HEAVY_SWEEP_START), which
	 * alone discovers, adds and drops switches: a re-route and a
	 * hybrid's next pass reuse it (model_reused) */
	struct ibr_osm_fabric of;
	bool model_reused;
	struct ibr_result result;      /* what ucast_build_fwd_tables pushes */
	bool routed;
	double model_ms, verify_ms, hops_ms;  /* phases of the last run */
	int check_kind;                /* how it was checked (plugin.c) */
	/* For the hop tables, written by the event callback (plugin.c, "hop
	 * tables") with no allocation of ours: a walker over the fabric,
	 * allocated with the run. */
	struct ibr_walker walker;
	bool hops_pending;            /* pushed; hop tables not written yet */
	bool refused_by_verifier;     /* the last run's refusal: findings */
	/* the root chain's first link, read with the run (root_guid_file) */
	uint64_t *root_guids;
	uint32_t num_root_guids, root_guids_cap;
	char root_source[1100];        /* "root_guid_file PATH" */
	char guid_source[1100];        /* the options file: "the root option of PATH" */
	char roots_text[400];          /* "root 0x... (how)" for the INFO line */
	uint64_t roots_digest;         /* of the root set last logged whole */
	uint64_t prior_root;        /* the prior's single root, for auto */
	/* what the run's INFO line says (ibr_plugin_finish) */
	char label[192];
	char checked[600];
	uint64_t designated_flows, designated_load;
	/* the run's designated map stays out of the SA (a Double Scheme
	 * before SWITCH_SA: the SA answers the prior half) */
	bool sa_hold;
	/* The tables of ours OpenSM configured last from this context, with
	 * the fabric they were made for and the engine that made them: fera,
	 * colorl and dr route from them after a change (prior.h).  Kept from one
	 * sweep to the next; dropped when OpenSM configures another engine's
	 * tables.  Never OpenSM's structures: our model and result alone. */
	struct ibr_fabric *prior_fabric;
	struct ibr_result prior_result;
	struct ibr_prior prior;        /* valid while prior_fabric is set */
};

/* The pieces of a routing run, for hybrid.c. */
void ibr_plugin_drop_run(struct engine_ctx *c);
void ibr_plugin_drop_model(struct engine_ctx *c);
void ibr_plugin_drop_prior(struct engine_ctx *c);
/* Builds c->of from OpenSM's subnet (WRN IB28 for each loopback cable left
 * out) and the root chain's request (plugin.c, "root"): root_guid_file's
 * switches as a set, the root option, auto; the core resolves it when
 * routing (roots.h).  Fails, err saying why, when the fabric cannot be
 * built. */
int ibr_plugin_model(struct engine_ctx *c, struct ibr_root_choice *root,
		     struct ibr_error *err);
/* The `threads` option: auto is the CPUs OpenSM's process may run on.
 * Workers see only our structures, never OpenSM's (parallel.h). */
unsigned ibr_plugin_threads(const struct plugin *p);
/* Resolves the roots (a link passed over: WRN IB27; a set that leaves
 * hosts apart: WRN IB35), routes c->of with e into c->result with the
 * options' port choice and verifies it (verify_before_push); findings
 * land in rep.  Fails when root_fallback refuse meets an unusable root. */
/* rf: the fabric to route on (NULL: c->of.fabric; a Double Scheme run:
 * the view of its LID half, ibr_ds_view). */
int ibr_plugin_route(struct engine_ctx *c, const struct ibr_fabric *rf,
		     const struct ibr_engine *e,
		     const struct ibr_root_choice *root,
		     struct ibr_verify_report *rep, struct ibr_error *err);
/* Hop tables from c->result, and what the run's INFO line will say:
 * `label`, the designated load of rep (may be NULL), and `checked` (NULL:
 * the verifier's usual words) for what was verified. */
int ibr_plugin_finish(struct engine_ctx *c, const char *label,
		      const struct ibr_verify_report *rep, const char *checked);
void ibr_plugin_log_findings(struct engine_ctx *c,
			     const struct ibr_verify_report *rep);
void ibr_plugin_log_lidless(osm_log_t *log, const char *name,
			    const struct ibr_osm_fabric *of);
void ibr_plugin_warn_lmc(osm_log_t *log, const struct ibr_engine *e,
			 unsigned lmc);

/* ---- operations (status.c) ------------------------------------------ */

/* After a routing run of ours (ok: tables kept for the push; else
 * refused, by_verifier when on the verifier's findings), ms long. */
void ibr_status_run(struct plugin *p, const char *engine, bool ok,
		    bool by_verifier, double ms);
/* The dumps of a run written to dump_dir (ok), or failed: removed. */
void ibr_status_dumps_written(struct plugin *p, bool ok);
/* OpenSM configured the switches (UCAST_ROUTING_DONE): with this sweep's
 * tables of ours, or else with those of tables_by (an engine's name, or
 * OpenSM's unicast cache); the dumps of ours are removed then. */
void ibr_status_routing_done(struct plugin *p, bool ours,
			     const char *tables_by);

/* ---- hybrid engines (hybrid.c) ----------------------------------------- */

struct ibr_hybrid *ibr_hybrid_new(const struct ibr_engine *provisional,
				  const struct ibr_engine *final);
void ibr_hybrid_free(struct ibr_hybrid *h);
/* A PROVISIONAL+FINAL pair, not a single engine's machine. */
bool ibr_hybrid_is_pair(const struct ibr_hybrid *h);
/* build_lid_matrices of a hybrid: the provisional pass after a change,
 * the final pass (or its next safe step) when the fabric is unchanged. */
int ibr_hybrid_build(struct engine_ctx *c);
/* The engine whose tables alone c's last run pushed: the final one once
 * the final tables are in place (not by the Double Scheme, whose tables
 * hold two functions), else NULL. */
const struct ibr_engine *ibr_hybrid_tables_engine(const struct engine_ctx *c);
/* OpenSM has pushed c's tables (SUBNET UP, or a re-route completed):
 * asks for a re-route when a pass is still to come. */
void ibr_hybrid_pushed(struct engine_ctx *c);
/* OpenSM's update_sl2vl for port (with transition double_scheme): the
 * restricted table of the Double Scheme's state, else t untouched.  Runs
 * under OpenSM's lock, in the sweeper's thread. */
void ibr_hybrid_update_sl2vl(struct engine_ctx *c, osm_physp_t *port,
			     ib_slvl_table_t *t);
/* OpenSM's path_sl: the SL of the DLID's half (SL bit 3), the hint's
 * class kept; the hint itself without a Double Scheme. */
uint8_t ibr_hybrid_path_sl(struct engine_ctx *c, uint8_t hint, uint16_t dlid);

/* ---- the SA hands out designated DLIDs (sa_dlids.c) ------------------ */

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
