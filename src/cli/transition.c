/*
 * transition.c - `ibrouting transition`: what a hybrid engine does inside
 * OpenSM after a topology change, offline (see ibrouting(1)).
 *
 *   ibrouting transition -e ENGINE|PROVISIONAL+FINAL [--lmc N] [--root GUID]
 *                        [--root-strategy S] [--root-fallback next|refuse]
 *                        [--sm GUID] [--before FABRIC0] [--dump-dir DIR]
 *                        FABRIC
 *
 * Drives the core's reconfiguration state machine (reconf.h), the one the
 * plugin drives inside OpenSM, one routing run after the other while it
 * wants a re-route: the provisional pass on FABRIC (with --before, after
 * the way on FABRIC0 was run to its end, so that columns of those tables
 * are kept as OpenSM's provisional pass keeps them), then the final pass:
 * the union of the prior tables and the final ones (ibr_verify_union:
 * what the switches may hold while OpenSM sends them), and when it is not
 * clean, the safe steps (transition.h), each checked with the tables
 * before it and on its own.  Prints per step the entries and LFT blocks
 * (64 LIDs of one switch: what OpenSM sends) that change.  Exit status 0
 * when the final tables are reached, 1 when a check fails or the way is
 * blocked (the machine keeps the prior tables), 2 on bad usage or
 * input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibrouting/double_scheme.h"
#include "ibrouting/dump.h"
#include "ibrouting/engine.h"
#include "ibrouting/prior.h"
#include "ibrouting/reconf.h"
#include "ibrouting/verify.h"
#include "util/parallel.h"
#include "cli.h"

/* -e: PROVISIONAL+FINAL, or one engine (a hybrid of one: its own tables
 * after the change, the same way from the prior tables). */
static int split_hybrid(const char *name, const struct ibr_engine **prov,
			const struct ibr_engine **fin)
{
	char names[256];

	if (!strchr(name, '+')) {
		*prov = NULL;
		*fin = ibr_engine_find(name);
		if (!*fin)
			return cli_fail("unknown engine \"%s\" (known: %s; or "
					"two joined by +, e.g. pira+fera)", name,
					ibr_engine_names(names, sizeof(names)));
		return 0;
	}
	if (ibr_hybrid_split(name, strlen(name), prov, fin))
		return cli_fail("unknown engine in \"%s\" (known: %s)", name,
				ibr_engine_names(names, sizeof(names)));
	return 0;
}

static void print_findings(const char *what, const struct ibr_verify_report *rep)
{
	cli_printf("%s %" PRIu64 " %s, %" PRIu64 " %s%s%s\n", what, rep->loops,
		   PLURAL(rep->loops, "LID can loop", "LIDs can loop"), rep->cycles,
		   PLURAL(rep->cycles, "dependency cycle", "dependency cycles"),
		   rep->num_messages ? ": " : "",
		   rep->num_messages ? rep->messages[0] : "");
}

/* One routing run of the machine on f, as the plugin makes it: the
 * provisional pass when f is not the fabric of the prior tables, else
 * the final pass (the final engine routed once, from the provisional
 * pass's roots).  *provisional says which; *fin_ms the final engine's
 * time.  -1 after a message on stderr; 1 after one when an engine's own
 * tables have findings (the verifier's verdict, exit status 1, as
 * `ibrouting route` gives it). */
static int run(struct ibr_reconf *m, const struct ibr_fabric *f,
	       const struct ibr_fabric *f_prior, struct cli_roots *roots,
	       const char **how, bool *provisional,
	       struct ibr_reconf_move *mv, uint32_t *kept)
{
	struct ibr_prior prior;
	const struct ibr_verify_options only = { .check_only = true };
	struct cli_roots final_roots = { .port_choice = roots->port_choice,
					 .threads = roots->threads };
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	struct ibr_route_ctx ctx;
	struct ibr_result r;

	*provisional = ibr_reconf_changed(m, f);
	*kept = 0;
	/* auto measures its root as for the final engine (roots.h) */
	roots->choice.unmeasured = !m->fin->measures_root;
	memset(mv, 0, sizeof(*mv));
	if (*provisional || !ibr_reconf_has_final(m)) {
		const struct ibr_engine *e = *provisional && m->prov ? m->prov :
					     m->fin;
		struct ibr_fabric *view = NULL;
		const struct ibr_fabric *rf = f;
		/* a single engine routes with the roots asked for, as after
		 * a change; a hybrid's final pass with the provisional's */
		bool own_roots = *provisional || !m->prov;

		if (!own_roots)
			ibr_reconf_final_root(m, &final_roots.choice);
		/* the Double Scheme routes on the run's LID half */
		if (m->double_scheme) {
			if (ibr_ds_view(f, ibr_reconf_half(m, *provisional),
					&view, &err)) {
				cli_error(err.msg);
				return -1;
			}
			rf = view;
		}
		if (cli_ctx_init(rf, own_roots ? roots : &final_roots, NULL,
				 &ctx, own_roots ? how : NULL)) {
			ibr_fabric_free(view);
			return -1;
		}
		/* a single engine after a change routes from the prior
		 * tables, as the plugin's does (prior.h) */
		if (!m->prov && *provisional && m->have_prior && f_prior &&
		    !view && e->routes_from_prior) {
			prior = (struct ibr_prior){ .f = f_prior, .r = &m->prior,
						    .engine = e->name };
			ctx.prior = &prior;
		}
		if (ibr_route(&ctx, e, &r, &err)) {
			ibr_ctx_free(&ctx);
			ibr_fabric_free(view);
			cli_error(err.msg);
			return -1;
		}
		ibr_ctx_free(&ctx);
		if (ibr_verify(rf, &r, &only, &rep, &err)) {
			cli_fail("%s tables: %s", e->name, err.msg);
			ibr_result_free(&r);
			ibr_fabric_free(view);
			return -1;
		}
		if (ibr_verify_findings(&rep)) {
			cli_fail("%s tables: %s", e->name, rep.messages[0]);
			ibr_result_free(&r);
			ibr_fabric_free(view);
			return 1;
		}
		if (view && ibr_reconf_place(m, f, view, *provisional, &r,
					     &err)) {
			ibr_fabric_free(view);
			cli_error(err.msg);
			return -1;
		}
		ibr_fabric_free(view);
		if (*provisional) {
			int rc = ibr_reconf_change(m, f, &r, &rep, kept, mv,
						   &err);

			ibr_result_free(&r);
			if (rc)
				cli_error(err.msg);
			return rc;
		}
		ibr_reconf_set_final(m, &r, &rep);
	}
	if (ibr_reconf_next(m, f, mv, &err) == 0)
		return 0;
	cli_error(err.msg);
	return -1;
}

/* The way on FABRIC0 to its end: the prior tables before the change.
 * As run(): -1, or 1 for an engine's tables with findings. */
static int settle(struct ibr_reconf *m, const struct ibr_fabric *f,
		  struct cli_roots *roots)
{
	const struct ibr_fabric *f_prior = NULL;
	struct ibr_reconf_move mv;
	const char *how;
	uint32_t kept;
	bool provisional;

	do {
		int rc = run(m, f, f_prior, roots, &how, &provisional, &mv,
			     &kept);

		if (rc)
			return rc;
		f_prior = f;
	} while (ibr_reconf_take_reroute(m));
	cli_printf("before    the way on the fabric before ends %s%s%s after %u "
		   "%s\n", ibr_reconf_state_name(m->state), m->reason ? ": " : "",
		   m->reason ? m->reason : "", m->step,
		   PLURAL(m->step, "step", "steps"));
	return 0;
}

/* Entries in which a and b differ, by LID half and on switch LIDs. */
static void half_difference(const struct ibr_fabric *f,
			    const struct ibr_result *a,
			    const struct ibr_result *b, uint64_t by_half[2],
			    uint64_t *switch_lids)
{
	by_half[0] = by_half[1] = *switch_lids = 0;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const struct ibr_lid_owner *o = &f->lid_owner[lid];
		const struct ibr_port *p;
		uint64_t d = 0;

		if (o->node == IBR_NONE)
			continue;
		for (uint32_t s = 0; s < f->num_switches; s++)
			d += ibr_entry(a, s, lid) != ibr_entry(b, s, lid);
		p = ibr_port(f, o->node, o->port);
		if (f->nodes[o->node].type == IBR_NODE_SWITCH)
			*switch_lids += d;
		else
			by_half[(lid - p->base_lid) >> (f->lmc - 1)] += d;
	}
}

static void print_half(const char *role, unsigned half, char set,
		       const char *engine, const struct ibr_verify_report *rep)
{
	cli_printf("half %u    %s, %s, VL set %c: %" PRIu64 " walks %s, %" PRIu64
		   " channel dependencies, %s, longest chain %" PRIu64 " %s\n",
		   half, engine, role, set, rep->walks,
		   ibr_verify_delivers(rep) ? "delivered" : "NOT delivered",
		   rep->dependencies, rep->cycles ? "A CYCLE" : "acyclic",
		   rep->longest_chain, PLURAL(rep->longest_chain, "channel",
					      "channels"));
}

/* The first final pass by the Double Scheme: the halves, each verified
 * on its own VL set, and the check's verdict. */
static void print_ds_check(const struct ibr_reconf *m,
			   const struct ibr_fabric *f,
			   const struct ibr_reconf_move *mv)
{
	unsigned h = m->ds.prior_half, n = 1u << (f->lmc - 1);

	cli_printf("double    LMC %u: half 0 = base+0..%u, half 1 = base+%u..%u "
		   "of every CA port, %u %s per port per half (of %u); switch "
		   "LIDs carry the function in force\n", f->lmc, n - 1, n,
		   2 * n - 1, n, PLURAL(n, "LID", "LIDs"), 2 * n);
	print_half("in force", h, 'A', m->prov->name, &m->ds.prior_rep);
	print_half("new", 1 - h, 'B', m->fin->name, &m->ds.new_rep);
	if (mv->blocked)
		cli_printf("check     refused: %s\n", mv->finding);
	else
		cli_printf("check     per VL set: A acyclic, B acyclic, no "
			   "dependency between the sets (a packet keeps its SL "
			   "and its DLID's half): the new half may be pushed\n");
}

/* A Double Scheme sub-step, done: what it changes or waits for. */
static void print_ds_step(const struct ibr_reconf *m,
			  const struct ibr_fabric *f,
			  const struct ibr_result *before, unsigned life)
{
	unsigned ph = m->ds.prior_half, nw = 1 - ph;
	uint64_t chain = m->ds.prior_rep.longest_chain, by_half[2], sw;
	uint64_t entries, blocks;
	double bound = ibr_ds_drain_bound(chain, life);
	char wait[200];

	if (bound < 0)
		snprintf(wait, sizeof(wait), "no bound: packet_life_time %u "
			 "> %u turns the switches' limit off", life,
			 IBR_DS_PACKET_LIFE_MAX);
	else
		snprintf(wait, sizeof(wait), "bound %" PRIu64 " switches x "
			 "%.3f s = %.3f s (longest chain %" PRIu64 " %s of "
			 "%s, packet_life_time %u)", chain + 1,
			 ibr_ds_drain_bound(0, life), bound, chain,
			 PLURAL(chain, "channel", "channels"), m->prov->name,
			 life);
	cli_printf("ds %u      ", m->ds_step);
	switch (m->ds_step) {
	case IBR_DS_RESTRICT_SL2VL:
		cli_printf("restrict SL-to-VL: the SLs of half %u -> VL set A "
			   "only; VL set B takes no new packet\n", ph);
		break;
	case IBR_DS_PUSH_NEW:
	case IBR_DS_SWITCH_SA:
		half_difference(f, before, &m->prior, by_half, &sw);
		ibr_result_difference(before, &m->prior, &entries, &blocks);
		if (m->ds_step == IBR_DS_PUSH_NEW)
			cli_printf("push %s on half %u: ", m->fin->name, nw);
		else
			cli_printf("switch the SA to half %u and its SLs; switch "
				   "LIDs take %s: ", nw, m->fin->name);
		cli_printf("%" PRIu64 " %s in %" PRIu64 " LFT %s (half %u: %"
			   PRIu64 ", half %u: %" PRIu64 ", switch LIDs: %" PRIu64
			   ")\n", entries, PLURAL(entries, "entry", "entries"),
			   blocks, PLURAL(blocks, "block", "blocks"), ph,
			   by_half[ph], nw, by_half[nw], sw);
		break;
	case IBR_DS_DRAIN_NEW_VLS:
		cli_printf("wait until VL set B holds no packet of the prior function: %s\n", wait);
		break;
	case IBR_DS_DRAIN_PRIOR_VLS:
		cli_printf("wait until VL set A holds no packet of the prior function: %s\n", wait);
		break;
	case IBR_DS_RESTORE_SL2VL:
		cli_printf("restore SL-to-VL: the SLs of half %u -> every data "
			   "VL; final\n", nw);
		break;
	default:
		cli_printf("?\n");
	}
}

/* A push of the way that the machine decided on a change (a single
 * engine's first) or that empties entries first (no safe step left). */
static void print_step(unsigned n, const struct ibr_reconf_move *mv)
{
	if (mv->emptied)
		cli_printf("step %-4u %" PRIu64 " %s emptied first (no safe step "
			   "left%s%s): their prior and new routes never mixed; the "
			   "new tables follow whole\n", n, mv->emptied,
			   PLURAL(mv->emptied, "entry", "entries"),
			   mv->finding[0] ? ": " : "", mv->finding);
	else
		cli_printf("step %-4u %" PRIu64 " %s moved, %" PRIu64 " %s left; "
			   "union verified, tables verified\n", n, mv->changed,
			   PLURAL(mv->changed, "entry", "entries"), mv->left,
			   PLURAL(mv->left, "entry", "entries"));
}

/* The runs on f while the machine wants them; returns the exit status. */
static int walk(struct ibr_reconf *m, const struct ibr_fabric *f,
		const struct ibr_fabric *f_prior, struct cli_roots *roots,
		unsigned life)
{
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	struct ibr_result before;
	uint64_t all_entries = 0, all_blocks = 0, entries, blocks;
	double prov_ms = 0;
	const char *how = "";
	char set[160], how_text[512] = "";
	uint32_t kept = 0;
	bool provisional, have_before = false, head = false, had_prov = false;
	unsigned pushes = 0;   /* final passes that changed tables */
	int rc = 0;

	/* with --before, the prior tables are FABRIC0's: when f is the
	 * same fabric (in any order) no provisional pass comes first */
	if (m->have_prior) {
		have_before = ibr_result_copy(&before, &m->prior, &err) == 0;
		if (!have_before) {
			cli_error(err.msg);
			return EXIT_USAGE;
		}
	}
	do {
		int ran = run(m, f, f_prior, roots, &how, &provisional, &mv,
			      &kept);

		if (ran) {
			rc = ran > 0 ? EXIT_FINDINGS : EXIT_USAGE;
			break;
		}
		f_prior = f;
		if (provisional && !m->prov) {
			/* a single engine: its tables, the way from the
			 * prior tables (on FABRIC0's, mapped onto FABRIC) */
			head = true;
			ibr_roots_format(f, m->final.roots, m->final.num_roots,
					 4, set, sizeof(set));
			cli_printf("passes    %s %.3f ms%s, root%s %s (%s)\n",
				   m->fin->name, m->final.stats.compute_ms,
				   ibr_stat_get(&m->final, "pairs kept",
						UINT64_MAX) != UINT64_MAX ?
				   " from the prior tables" : "",
				   m->final.num_roots > 1 ? "s" : "", set, how);
			if (mv.first)
				cli_printf("union     nothing of ours in place: one "
					   "push\n");
			else if (mv.unchanged)
				cli_printf("union     the final tables are the prior ones\n");
			else if (mv.stepping)
				print_findings("union     prior and new "
					       "mixed:", &mv.union_rep);
			else
				cli_printf("union     prior and new mixed: no "
					   "loop, acyclic: one push, %" PRIu64
					   " entries change\n", mv.changed);
			if (m->state == IBR_RECONF_SAFE_STEP) {
				pushes++;
				print_step(pushes, &mv);
			}
		} else if (provisional) {
			had_prov = true;
			prov_ms = m->prior.stats.compute_ms;
			/* cli_ctx_init's words are overwritten by the next */
			snprintf(how_text, sizeof(how_text), "%s", how);
			if (kept)
				cli_printf("kept      %u LIDs kept from the prior "
					   "tables\n", kept);
			if (mv.stepping)
				print_findings("union     prior and "
					       "provisional mixed:",
					       &mv.union_rep);
			else if (!mv.first)
				cli_printf("union     prior and provisional "
					   "mixed: no loop, acyclic: one push\n");
			if (m->state == IBR_RECONF_SAFE_STEP)
				print_step(++pushes, &mv);
		} else if (m->leg_provisional || !m->have_final) {
			/* the way to the provisional tables, after a union of
			 * them with the prior tables that was not clean */
			pushes++;
			if (m->leg_provisional || mv.emptied)
				print_step(pushes, &mv);
			else
				cli_printf("step %-4u the provisional tables "
					   "pushed; the final pass next\n", pushes);
			have_before = false;
			ibr_result_free(&before);
			if (ibr_result_copy(&before, &m->prior, &err)) {
				cli_error(err.msg);
				rc = EXIT_USAGE;
				break;
			}
			have_before = true;
			continue;
		} else if (!head) {
			/* the first final pass: both tables known */
			head = true;
			ibr_roots_format(f, m->final.roots, m->final.num_roots,
					 4, set, sizeof(set));
			if (had_prov)
				cli_printf("passes    provisional %s %.3f ms, final "
					   "%s %.3f ms, root%s %s (%s)\n",
					   m->prov->name, prov_ms, m->fin->name,
					   m->final.stats.compute_ms,
					   m->num_roots > 1 ? "s" : "", set,
					   how_text);
			else
				cli_printf("passes    no provisional pass: the fabric "
					   "before the change is this one; final %s "
					   "%.3f ms, root%s %s\n", m->fin->name,
					   m->final.stats.compute_ms,
					   m->num_roots > 1 ? "s" : "", set);
			ibr_result_difference(&before, &m->final, &entries, &blocks);
			cli_printf("change    %" PRIu64 " of %" PRIu64 " entries "
				   "(%.2f%%) in %" PRIu64 " LFT blocks\n", entries,
				   (uint64_t)before.num_switches * before.num_lids,
				   100.0 * (double)entries / (double)((uint64_t)
				   before.num_switches * before.num_lids), blocks);
			if (m->double_scheme)
				print_ds_check(m, f, &mv);
			else if (mv.stepping)
				print_findings("union     provisional and final "
					       "mixed:", &mv.union_rep);
			else
				cli_printf("union     provisional and final mixed: "
					   "no loop, acyclic: one push\n");
		}
		/* every pass that moves towards the final tables once the way
		 * goes in steps, the last included: after a few steps the
		 * union of the prior tables and the final ones may be
		 * clean, and the final tables go whole, as in OpenSM */
		if (m->double_scheme && !provisional && !mv.unchanged &&
		    m->ds_step != IBR_DS_NONE &&
		    (m->state == IBR_RECONF_DOUBLE_SCHEME ||
		     m->state == IBR_RECONF_FINAL))
			print_ds_step(m, f, &before, life);
		if (m->double_scheme && m->state == IBR_RECONF_REFUSED) {
			rc = EXIT_FINDINGS;
			break;
		}
		if (!provisional && mv.emptied) {
			pushes++;
			print_step(pushes, &mv);
			all_entries += mv.emptied;
		} else if (!provisional && !mv.unchanged && (mv.stepping || pushes) &&
		    (m->state == IBR_RECONF_SAFE_STEP ||
		     m->state == IBR_RECONF_FINAL)) {
			ibr_result_difference(&before, &m->prior, &entries, &blocks);
			cli_printf("step %-4u %" PRIu64 " %s in %" PRIu64 " LFT %s, %"
				   PRIu64 " %s left; union verified, tables "
				   "verified\n", ++pushes, entries, PLURAL(entries,
				   "entry", "entries"), blocks, PLURAL(blocks, "block",
				   "blocks"), mv.left, PLURAL(mv.left, "entry",
				   "entries"));
			all_entries += entries;
			all_blocks += blocks;
		}
		if (m->state == IBR_RECONF_REFUSED) {
			if (mv.blocked)
				cli_printf("steps     blocked after %u %s (%s): %"
					   PRIu64 " %s left%s%s\n", m->step,
					   PLURAL(m->step, "step", "steps"),
					   m->reason, mv.left,
					   PLURAL(mv.left, "entry", "entries"),
					   mv.finding[0] ? ": " : "", mv.finding);
			else
				cli_printf("steps     blocked: %s\n", m->reason);
			rc = EXIT_FINDINGS;
			break;
		}
		if (have_before)
			ibr_result_free(&before);
		have_before = ibr_result_copy(&before, &m->prior, &err) == 0;
		if (!have_before) {
			cli_error(err.msg);
			rc = EXIT_USAGE;
			break;
		}
	} while (ibr_reconf_take_reroute(m));
	if (rc == 0 && pushes > 0)
		cli_printf("steps     %u to the final tables: %" PRIu64 " entries, %"
			   PRIu64 " LFT blocks sent in all\n", pushes, all_entries,
			   all_blocks);
	if (have_before)
		ibr_result_free(&before);
	return rc;
}

static int cmd_transition(int argc, char **argv);

/* --dump-dir: the tables the switches hold at the end of the way (the
 * machine's prior: with the Double Scheme both halves, switch LIDs with the
 * final function), as route --dump-dir writes a run's. */
static int dump_pushed(const char *dir, const struct ibr_fabric *f,
		     const struct ibr_reconf *m)
{
	struct ibr_error err = { "" };

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return cli_fail("--dump-dir %s: %s", dir, strerror(errno));
	if (ibr_dump_write(dir, f, &m->prior, &err)) {
		cli_error(err.msg);
		return EXIT_USAGE;
	}
	cli_printf("dumps     %s/opensm-subnet.lst, opensm-lfts.dump, "
		   "opensm.fdbs, ibrouting-dlids.dump: the prior tables\n", dir);
	return 0;
}

/* --double-scheme on a fabric: its LMC must leave two halves. */
static int ds_flag(struct ibr_reconf *m, const struct ibr_fabric *f, bool on)
{
	struct ibr_error err = { "" };

	if (on && ibr_reconf_double_scheme(m, f->lmc, &err))
		return cli_fail("--double-scheme: %s (the fabric has LMC %u: "
				"give --lmc 1 or more)", err.msg, f->lmc);
	return 0;
}

static const struct cli_option transition_options[] = {
	{ "engine", 'e', 'e', "ENGINE|PROVISIONAL+FINAL", "one engine (a "
	  "hybrid of one), or two joined by + (ibrouting engines lists "
	  "them); required" },
	{ "lmc", 0, 'l', "N", "the subnet's LMC, 0..7 (default: the file's, "
	  "else 0), as route's" },
	CLI_ROOT_OPTIONS,
	{ "port-choice", 0, 'P', "balanced|lowest", "among the ports a rule "
	  "allows: the least loaded (default) or the lowest" },
	CLI_THREADS_OPTION,
	{ "sm", 0, 'm', "GUID", "node or port GUID the SM runs on, as route's" },
	{ "before", 0, 'b', "FABRIC0", "the fabric before the change: its way "
	  "is run to its end first, and the provisional pass keeps columns of "
	  "those tables, as inside OpenSM" },
	{ "double-scheme", 0, 'D', NULL, "the final pass by the Double Scheme "
	  "(needs --lmc >= 1): each engine on one LID half, each half checked "
	  "on its own VL set, the steps of the paper's 3.1" },
	{ "packet-life", 0, 'L', "N", "with --double-scheme: the switches' "
	  "packet life time, 4.096 us * 2^N, for the drain bound (OpenSM's "
	  "packet_life_time; default 18)" },
	{ "dump-dir", 0, 'd', "DIR", "once the final tables are reached, "
	  "write them as OpenSM's dumps into DIR (created if missing), as "
	  "route's" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

const struct cli_command cli_transition = {
	"transition", cmd_transition, "-e ENGINE|PROVISIONAL+FINAL [options] "
	"FABRIC",
	"An engine's way after a change, offline: the tables, their union, "
	"the steps.\nRuns the plugin's reconfiguration state machine on "
	"FABRIC: a hybrid's provisional pass,\nthen the final tables in one "
	"push or in steps, every union of consecutive tables checked.\nExit "
	"status 0: the final tables reached, every check clean; 1: a check "
	"failed or the\nway is blocked; 2: bad usage or input.",
	transition_options, cli_fabric_help,
};

static int cmd_transition(int argc, char **argv)
{
	static struct cli_roots roots = { .choice.strategy = IBR_ROOT_AUTO };
	struct ibr_load_options load = { 0 };
	const struct ibr_engine *prov = NULL, *fin = NULL;
	const char *before = NULL, *dump_dir = NULL;
	unsigned life = IBR_DS_PACKET_LIFE_DEFAULT;
	bool double_scheme = false;
	struct ibr_fabric *f, *f0 = NULL;
	struct ibr_reconf m;
	int c, taken, rc = 0;

	while ((c = cli_getopt(argc, argv, &cli_transition)) != -1) {
		taken = cli_routing_option(c, optarg, &roots, &load);
		if (taken < 0)
			return EXIT_USAGE;
		if (taken > 0)
			continue;
		switch (c) {
		case 'e':
			if (split_hybrid(optarg, &prov, &fin))
				return EXIT_USAGE;
			break;
		case 'b':
			before = optarg;
			break;
		case 'D':
			double_scheme = true;
			break;
		case 'L':
			if (cli_parse_uint("--packet-life", optarg, 31, &life))
				return EXIT_USAGE;
			break;
		case 'd':
			dump_dir = optarg;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (cli_roots_check(&roots))
		return EXIT_USAGE;
	if (!fin)
		return cli_fail("choose -e ENGINE or PROVISIONAL+FINAL (e.g. "
				"fera, pira+fera)");
	if (optind != argc - 1)
		return cli_fail("expected one FABRIC argument");
	ibr_reconf_init(&m, prov, fin);
	m.threads = ibr_threads_or_available(roots.threads);
	if (double_scheme && !prov)
		return cli_fail("--double-scheme takes a hybrid: each of its "
				"engines routes one LID half");
	if (before) {
		/* kept until the end: a single engine routes from its
		 * prior tables after the change */
		f0 = cli_load_fabric(before, &load);
		if (!f0)
			return EXIT_USAGE;
		if (ds_flag(&m, f0, double_scheme))
			rc = EXIT_USAGE;
		else if ((rc = settle(&m, f0, &roots)) != 0)
			rc = rc > 0 ? EXIT_FINDINGS : EXIT_USAGE;
	}
	f = rc ? NULL : cli_load_fabric(argv[optind], &load);
	if (f && ds_flag(&m, f, double_scheme)) {
		rc = EXIT_USAGE;
		ibr_fabric_free(f);
	} else if (f) {
		cli_print_fabric(argv[optind], f);
		rc = walk(&m, f, f0, &roots, life);
		if (rc == 0 && dump_dir)
			rc = dump_pushed(dump_dir, f, &m);
		ibr_fabric_free(f);
	} else if (!rc) {
		rc = EXIT_USAGE;
	}
	ibr_reconf_reset(&m);
	ibr_fabric_free(f0);
	return rc;
}
