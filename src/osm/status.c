/*
 * status.c - what an operator watches: counters of the plugin's routing
 * runs, the status file, and dumps that never outlive their tables.
 *
 * With dump_dir set, DIR/ibrouting.status is replaced whole (atomic_file.h)
 * after every run of ours and every time OpenSM reports its switches
 * configured (UCAST_ROUTING_DONE): key=value lines, '#' comments, keys in
 * a fixed order, documented in libibrouting(8).  Without dump_dir the
 * counters are only logged, at INFO every IBR_STATUS_LOG_EVERY runs.
 *
 * Invariants:
 *   - the dumps in dump_dir describe the tables on the switches, or are
 *     not there: when OpenSM configures tables that are not this sweep's
 *     tables of ours (our engine refused and OpenSM fell back, another
 *     engine routed, or OpenSM served the sweep from its unicast cache
 *     without calling any engine), the dumps of our last run are removed;
 *   - pushed + fallbacks <= runs: the others are runs whose tables OpenSM
 *     has not reported configured (yet, or at all); verifier_refusals <=
 *     fallbacks.
 * State manager thread only (OpenSM's routing and events): no lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ibrouting/atomic_file.h"
#include "ibrouting/escape.h"
#include "plugin.h"

#define STATUS_FILE "ibrouting.status"
/* the counters' INFO line, every this many runs of ours */
#define IBR_STATUS_LOG_EVERY 100

/* The dumps ibr_dump_write() puts into dump_dir (dump.h). */
static const char *const dump_files[] = {
	"opensm-subnet.lst", "opensm-lfts.dump", "opensm.fdbs",
	"ibrouting-dlids.dump",
};

static void write_status(struct plugin *p)
{
	const struct ibr_plugin_status *st = &p->status;
	const char *dir = p->opts.conf.dump_dir;
	struct ibr_atomic_file af;
	struct ibr_error err = { "" };
	char path[sizeof(p->opts.path_text)];

	if (!dir)
		return;
	if (ibr_atomic_open(&af, dir, STATUS_FILE, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, "ERR IB33: status file: "
			"%s\n", err.msg);
		return;
	}
	/* the path as the log prints it: one line whatever its bytes */
	snprintf(path, sizeof(path), "%s", p->opts.path_text);
	fprintf(af.out,
		"# ibrouting.status: the ibrouting plugin's counters since "
		"OpenSM started\n"
		"# (libibrouting(8)); replaced whole after every routing run\n"
		"version=%s\n"
		"pid=%ld\n"
		"updated=%lld\n"
		"options_file=%s\n"
		"options_reads=%u\n"
		"runs=%" PRIu64 "\n"
		"pushed=%" PRIu64 "\n"
		"fallbacks=%" PRIu64 "\n"
		"verifier_refusals=%" PRIu64 "\n"
		"not_ours=%" PRIu64 "\n"
		"last_engine=%s\n"
		"last_outcome=%s\n"
		"last_routing_ms=%.3f\n"
		"dumps=%s\n",
		PACKAGE_VERSION, (long)getpid(), (long long)st->updated, path,
		p->opts.reads, st->runs, st->pushed, st->fallbacks,
		st->verifier_refusals, st->not_ours,
		st->last_engine[0] ? st->last_engine : "-",
		st->last_outcome ? st->last_outcome : "-",
		st->last_routing_ms, st->dumps ? st->dumps : "none");
	if (ibr_atomic_commit(&af, &err))
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, "ERR IB33: status file: "
			"%s\n", err.msg);
}

static void log_counters(struct plugin *p)
{
	const struct ibr_plugin_status *st = &p->status;

	OSM_LOG(&p->osm->log, OSM_LOG_INFO, "ibrouting: %" PRIu64 " runs: %"
		PRIu64 " pushed, %" PRIu64 " fallbacks (%" PRIu64 " refused by "
		"the verifier), %" PRIu64 " sweeps configured with tables not "
		"ours; last run %s %s in %.3f ms\n", st->runs, st->pushed,
		st->fallbacks, st->verifier_refusals, st->not_ours,
		st->last_engine, st->last_outcome, st->last_routing_ms);
}

void ibr_status_run(struct plugin *p, const char *engine, bool ok,
		    bool by_verifier, double ms)
{
	struct ibr_plugin_status *st = &p->status;

	st->runs++;
	st->updated = time(NULL);
	st->last_routing_ms = ms;
	snprintf(st->last_engine, sizeof(st->last_engine), "%s", engine);
	if (ok) {
		st->last_outcome = "routed";
	} else {
		st->fallbacks++;
		st->verifier_refusals += by_verifier;
		st->last_outcome = by_verifier ? "refused-by-verifier" :
				   "refused";
		st->refused_this_sweep = true;
	}
	if (st->runs % IBR_STATUS_LOG_EVERY == 0)
		log_counters(p);
	write_status(p);
}

/* Our dumps of an earlier run, removed: they no longer describe the
 * switches' tables. */
static void remove_dumps(struct plugin *p)
{
	const char *dir = p->opts.conf.dump_dir;
	char path[4096], name[sizeof(path) * 2];
	bool removed = false;

	for (size_t i = 0; i < sizeof(dump_files) / sizeof(dump_files[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     dump_files[i]) >= sizeof(path))
			continue;
		if (unlink(path) == 0) {
			removed = true;
		} else if (errno != ENOENT) {
			OSM_LOG(&p->osm->log, OSM_LOG_ERROR, "ERR IB33: cannot "
				"remove the stale dump %s: %s\n",
				ibr_escape_str(path, name, sizeof(name)),
				strerror(errno));
		}
	}
	if (removed)
		OSM_LOG(&p->osm->log, OSM_LOG_INFO, "ibrouting: dumps in %s "
			"removed: the switches' tables are not ours from this "
			"sweep\n", ibr_escape_str(dir, name, sizeof(name)));
}

void ibr_status_dumps_written(struct plugin *p, bool ok)
{
	/* a failed write may leave files of two runs: none is better */
	if (!ok)
		remove_dumps(p);
	p->status.dumps = ok ? "current" : "removed";
}

void ibr_status_routing_done(struct plugin *p, bool ours,
			     const char *tables_by)
{
	struct ibr_plugin_status *st = &p->status;

	st->updated = time(NULL);
	if (ours) {
		st->pushed++;
		st->last_outcome = "pushed";
	} else {
		st->not_ours++;
		/* a refusal of ours in this sweep keeps its name: it says
		 * why the tables are not ours */
		if (!st->refused_this_sweep)
			st->last_outcome = "not-ours";
		snprintf(st->last_engine, sizeof(st->last_engine), "%s",
			 tables_by);
		if (p->opts.conf.dump_dir) {
			remove_dumps(p);
			st->dumps = "removed";
		}
	}
	st->refused_this_sweep = false;
	write_status(p);
}
