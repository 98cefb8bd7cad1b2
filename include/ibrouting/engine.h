/*
 * engine.h - the routing engines, their registry, and the run that drives
 * them.
 *
 * An engine is a name, a summary, the options it accepts, its
 * capabilities (fields the run, the checks, the mender and the plugin
 * read: outside its own file no code recognises an engine by its name)
 * and one hook:
 *
 *     int route(struct ibr_route_ctx *ctx, struct ibr_result *r, err);
 *
 * It receives r allocated (every entry IBR_NO_PATH) and must fill every
 * LID of every range, keeping the contracts of doc/design.md (connectivity,
 * loop-freedom, deadlock-freedom on one VL over all LIDs, determinism,
 * designated DLIDs).  Its figures go into r->stats with ibr_stat_set().
 *
 * The context belongs to one routing run: the fabric, the root set
 * resolved once (roots.h) and the up/down orientation from it, shared by
 * every engine routed with the same context (a hybrid's provisional and
 * final passes), the options, and the port-choice policy every engine
 * applies among the ports its own rule allows.  The registry is the one
 * list of engines: the plugin registers, the CLI lists (`ibrouting
 * engines`) and the tests iterate exactly ibr_engines[].
 */
#ifndef IBROUTING_ENGINE_H
#define IBROUTING_ENGINE_H

#include <stdbool.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/roots.h"
#include "ibrouting/updown.h"

#define IBR_MAX_OPTIONS 16
/* The figure of multi-LID engines: CA LIDs they would use without the
 * LMC's limit (2^ceil(lg k) for a destination whose paths need k). */
#define IBR_STAT_CA_LIDS_NEEDED "CA LIDs needed"
#define IBR_OPTION_KEY_LEN 32
#define IBR_OPTION_VALUE_LEN 96

/* An option an engine accepts: `key`, its default, what it means.  A
 * numeric option gives its range in min..max (max > min); a word option
 * lists the words it accepts in `choices` (NULL-terminated); others leave
 * these empty and check their value themselves. */
struct ibr_option_spec {
	const char *key;
	const char *def;
	unsigned min, max;
	const char *help;
	const char *const *choices;
};

/* key=value pairs given by the user (CLI -o, the plugin's options file). */
struct ibr_options {
	unsigned count;
	struct {
		char key[IBR_OPTION_KEY_LEN];
		char value[IBR_OPTION_VALUE_LEN];
	} item[IBR_MAX_OPTIONS];
};

struct ibr_route_ctx;
struct ibr_prior;

struct ibr_engine {
	const char *name;
	const char *summary;
	const struct ibr_option_spec *options;  /* NULL or {NULL}-terminated */
	/* The LMC the engine needs to do its work (multi-LID engines: 1);
	 * below it the engine still routes (e.g. dr as FERa) and the CLI and
	 * the plugin warn. */
	unsigned min_lmc;
	/* What it does below min_lmc, for the warning ("routing as fera");
	 * NULL: "routing on base LIDs only". */
	const char *below_min_lmc;
	/* Multi-LID engines count, in r->stats, the CA LIDs they would use
	 * without the LMC's limit (IBR_STAT_CA_LIDS_NEEDED) and, under the
	 * figure overflow_stat, the pairs for which their destination's range
	 * had no LID left; overflow_fate says what became of those, for the
	 * summaries ("took FERa's route on the base LID").  NULL for
	 * single-LID engines. */
	const char *overflow_stat;
	const char *overflow_fate;
	/* The engine balances its routes by load: on an irregular fabric
	 * `auto` measures candidate roots for it (roots.h); false for pira,
	 * whose routing window comes first.  A hybrid follows its final
	 * engine (both passes share one orientation). */
	bool measures_root;
	/* Several routes per destination, one per LID of its range, and a
	 * designated DLID per pair of CA ports (dr, colorl: the multi-LID
	 * engines): the run completes every range from every switch
	 * (ranges.h) and the check measures the load along the designated
	 * DLIDs (check.h).  false: one route per destination, every LID of
	 * a range a copy of the base's column, no designated map (pira,
	 * fera). */
	bool designates_dlids;
	/* After a change the engine keeps the routes of the prior tables
	 * that still hold and mends the others (prior.h; its option
	 * IBR_PRIOR_OPTION bounds how many may have broken), so the plugin
	 * keeps its tables for its next run. */
	bool routes_from_prior;
	int (*route)(struct ibr_route_ctx *ctx, struct ibr_result *r,
		     struct ibr_error *err);
	/* The engine's tables afresh, whatever tables are in place: a
	 * fallback's are the walks the mender takes where no walk in place
	 * holds (prior.h).  NULL for an engine that is no fallback. */
	int (*route_afresh)(struct ibr_route_ctx *ctx, struct ibr_result *r,
			    struct ibr_error *err);
	/* With routes_from_prior: the engine whose tables afresh
	 * (route_afresh, one route per destination, legal from every
	 * switch) mend the prior tables where none of their walks holds;
	 * a field, so the reconfiguration layer never reaches up into the
	 * engines' registry. */
	const struct ibr_engine *fallback;
};

/* How an engine chooses among the ports its rule allows (DESIGN.md, "Port
 * choice"): the least loaded by the routes placed so far, destinations
 * routed one by one (SSSP-style), the lowest port only as the last tie;
 * or the lowest port, the papers' rule (their exact figures). */
enum ibr_port_choice {
	IBR_PORT_BALANCED,
	IBR_PORT_LOWEST,
};

const char *ibr_port_choice_name(enum ibr_port_choice pc);
/* "balanced" or "lowest"; -1 for anything else. */
int ibr_port_choice_parse(const char *name, enum ibr_port_choice *pc);

struct ibr_route_ctx {
	const struct ibr_fabric *f;
	uint32_t root;                  /* roots.sw[0] */
	struct ibr_roots roots;         /* resolved at init, with its notes */
	const struct ibr_options *options;  /* may be NULL */
	const struct ibr_engine *engine;    /* the engine being run */
	enum ibr_port_choice port_choice;   /* IBR_PORT_BALANCED after init */
	/* worker threads for the engines' independent work (1 after init):
	 * the tables are the same, byte for byte, for any count */
	unsigned threads;
	struct ibr_updown updown;       /* built at init from the roots */
	bool have_updown;
	/* the prior tables, for the engines that route from them after
	 * a change (prior.h); NULL after init */
	const struct ibr_prior *prior;
};

/* ---- the registry --------------------------------------------------- */

/* Every engine, NULL-terminated, in the order they are listed. */
extern const struct ibr_engine *const ibr_engines[];

const struct ibr_engine *ibr_engine_find(const char *name);

/* "pira, fera" into buf; returns buf. */
const char *ibr_engine_names(char *buf, size_t len);

/* Hybrids (PIRa paper §3.4): PROVISIONAL+FINAL, the provisional engine's
 * tables at once, the final one's a re-route later.  The plugin registers
 * these always (NULL-terminated), and any other pair of our engines its
 * routing_engine names. */
extern const char *const ibr_default_hybrids[];

/* Splits hybrid NAME (len bytes, "a+b") into two engines of the registry;
 * -1 when it is no such pair. */
int ibr_hybrid_split(const char *name, size_t len,
		     const struct ibr_engine **provisional,
		     const struct ibr_engine **final);

/* ---- options -------------------------------------------------------- */

/* Adds "key=value" (or key and value apart when value is not NULL). */
int ibr_options_add(struct ibr_options *o, const char *key,
		    const char *value, struct ibr_error *err);

/* Refuses an option the engine does not accept, a numeric value out of
 * its range and a word not among its choices, naming the key, the value
 * and what is accepted. */
int ibr_options_check(const struct ibr_options *o, const struct ibr_engine *e,
		      struct ibr_error *err);

/* The value of the engine's option `key` in this run (the user's, else the
 * default); numeric ones parsed and range-checked. */
const char *ibr_option_str(const struct ibr_route_ctx *ctx, const char *key);
int ibr_option_uint(const struct ibr_route_ctx *ctx, const char *key,
		    unsigned *out, struct ibr_error *err);

/* ---- one run -------------------------------------------------------- */

/* Resolves the root set (roots.h) and builds the orientation from it.
 * Roots that cannot reach the SM's switch going down are left out; a set
 * that would leave hosts apart is replaced by its first root alone;
 * ctx->roots.replaced says which, ctx->roots.unreached what remains
 * without a route down (switch traffic only).  options may be NULL and
 * must outlive the context. */
int ibr_ctx_init(struct ibr_route_ctx *ctx, const struct ibr_fabric *f,
		 const struct ibr_root_choice *root,
		 const struct ibr_options *options, struct ibr_error *err);
void ibr_ctx_free(struct ibr_route_ctx *ctx);

/* The run's up/down orientation from its root; NULL after a message. */
const struct ibr_updown *ibr_ctx_updown(struct ibr_route_ctx *ctx,
					struct ibr_error *err);

/* Runs engine e in ctx: checks its options, allocates r, routes, times
 * it.  On failure r is freed: a caller never sees half-built tables. */
int ibr_route(struct ibr_route_ctx *ctx, const struct ibr_engine *e,
	      struct ibr_result *r, struct ibr_error *err);

/* A context for one engine, routed and freed: for callers with nothing to
 * share between engines.  Balanced port choice. */
int ibr_route_once(const struct ibr_fabric *f, const struct ibr_engine *e,
		   const struct ibr_root_choice *root,
		   const struct ibr_options *options, struct ibr_result *r,
		   struct ibr_error *err);
/* The same with a port-choice policy. */
int ibr_route_once_with(const struct ibr_fabric *f, const struct ibr_engine *e,
			const struct ibr_root_choice *root,
			const struct ibr_options *options,
			enum ibr_port_choice pc, struct ibr_result *r,
			struct ibr_error *err);

#endif
