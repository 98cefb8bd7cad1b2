/*
 * test_lids.c - ibr_lids_assign() (OpenSM's LID rule, see lids.h) and
 * the LID checks of ibr_fabric_index().
 *
 * Invariants checked on hand-built fabrics:
 *   - the SM's port is served first (the one set, else port 0 of node 0
 *     if a switch, port 1 if a CA), then the other holders by ascending
 *     byte-swapped port GUID, whatever the node order;
 *   - each takes 2^lmc LIDs (one for a switch without lmc_esp0) from the
 *     first free range holding an aligned block, and LIDs skipped by the
 *     alignment are never handed out later;
 *   - LIDs a source fixed are kept and split the free ranges;
 *   - unlinked CA ports get no LID;
 *   - LIDs given for another LMC (ibr_lids_for_lmc) move as OpenSM's LID
 *     manager moves the LIDs it finds in PortInfo: aligned ranges reserved
 *     first, kept in serving order where no holder served before kept a
 *     LID inside, the others given blocks of what is left, reserved
 *     ranges that lost their holder never handed out; nothing moves when
 *     the LMC fits (the exact LIDs OpenSM 3.3.23 gave tests/fabrics/
 *     fig1.net at lmc 2 over ibsim are checked by cli_inputs.sh);
 *   - errors (misaligned, given twice, beyond 0xBFFF, bad LMC, LID space
 *     exhausted) name the holder; ibr_fabric_index() names a holder left
 *     without a LID and takes OpenSM-style LIDs as they are.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibrouting/fabric.h"
#include "ibrouting/lids.h"

/* ---- helpers -------------------------------------------------------- */

static uint32_t add(struct ibr_fabric *f, enum ibr_node_type t, uint64_t guid,
		    unsigned ports, const char *desc)
{
	struct ibr_error err = { "" };
	uint32_t n = ibr_fabric_add_node(f, t, guid, ports, desc, NULL, &err);

	assert_int_not_equal(n, IBR_NONE);
	return n;
}

static void link2(struct ibr_fabric *f, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb)
{
	struct ibr_error err = { "" };

	assert_int_equal(ibr_fabric_connect(f, a, pa, b, pb, &err), 0);
}

static void assign_ok(struct ibr_fabric *f, unsigned lmc)
{
	struct ibr_error err = { "" };

	if (ibr_lids_assign(f, lmc, &err))
		fail_msg("ibr_lids_assign: %s", err.msg);
}

static void finalize_ok(struct ibr_fabric *f, unsigned lmc)
{
	struct ibr_error err = { "" };

	if (ibr_fabric_finalize(f, lmc, &err))
		fail_msg("ibr_fabric_finalize: %s", err.msg);
}

/* ibr_lids_assign() must fail with a message containing `want`. */
static void assign_fails(struct ibr_fabric *f, unsigned lmc, const char *want)
{
	struct ibr_error err = { "" };

	assert_int_equal(ibr_lids_assign(f, lmc, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, want);
}

static void index_fails(struct ibr_fabric *f, const char *want)
{
	struct ibr_error err = { "" };

	assert_int_equal(ibr_fabric_index(f, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, want);
}

static unsigned lid(const struct ibr_fabric *f, uint32_t node, unsigned port)
{
	return ibr_port(f, node, port)->base_lid;
}

/*
 * ibsim's numbering of tests/fabrics/two-switch.net: switches 0x200000
 * (node 0, the SM by default) and 0x200001, CAs from 0x100000 taking
 * ports + 1 GUIDs each, one of them with 2 ports (port 2 unlinked).
 *
 *   ca 0x100000 -1[sw A]7,8 === 7,8[sw B]1- ca 0x100004 (port 1 of 2)
 *   ca 0x100002 -2                    2- ca 0x100007
 */
struct two_switch {
	struct ibr_fabric *f;
	uint32_t a, b, c0, c1, c2, c3;
};

static struct two_switch two_switch(void)
{
	struct two_switch t;

	t.f = ibr_fabric_new();
	assert_non_null(t.f);
	t.a = add(t.f, IBR_NODE_SWITCH, 0x200000, 8, "leaf-a");
	t.b = add(t.f, IBR_NODE_SWITCH, 0x200001, 8, "leaf-b");
	t.c0 = add(t.f, IBR_NODE_CA, 0x100000, 1, "hca-a1");
	t.c1 = add(t.f, IBR_NODE_CA, 0x100002, 1, "hca-a2");
	t.c2 = add(t.f, IBR_NODE_CA, 0x100004, 2, "hca-b1");
	t.c3 = add(t.f, IBR_NODE_CA, 0x100007, 1, "hca-b2");
	link2(t.f, t.a, 1, t.c0, 1);
	link2(t.f, t.a, 2, t.c1, 1);
	link2(t.f, t.a, 7, t.b, 7);
	link2(t.f, t.a, 8, t.b, 8);
	link2(t.f, t.b, 1, t.c2, 1);
	link2(t.f, t.b, 2, t.c3, 1);
	return t;
}

/* ---- the rule ------------------------------------------------------- */

/* What OpenSM 3.3.23 gave this fabric over ibsim: byte-swapped port GUID
 * order interleaves switches and CAs (0x..01 before 0x..03 whatever the
 * type); the SM's switch, first in the file, is served first. */
static void test_ibsim_interleaving(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	finalize_ok(t.f, 0);
	assert_int_equal(lid(t.f, t.a, 0), 1);     /* the SM: 0x200000 */
	assert_int_equal(lid(t.f, t.c0, 1), 2);    /* 0x100001 */
	assert_int_equal(lid(t.f, t.b, 0), 3);     /* 0x200001 */
	assert_int_equal(lid(t.f, t.c1, 1), 4);    /* 0x100003 */
	assert_int_equal(lid(t.f, t.c2, 1), 5);    /* 0x100005 */
	assert_int_equal(lid(t.f, t.c3, 1), 6);    /* 0x100008 */
	assert_int_equal(lid(t.f, t.c2, 2), 0);    /* unlinked: no LID */
	assert_int_equal(t.f->max_lid, 6);
	assert_int_equal(t.f->lid_owner[5].node, t.c2);
	assert_int_equal(t.f->lid_owner[5].port, 1);
	ibr_fabric_free(t.f);
}

/* The least significant byte of the GUID counts first: 0x0201 (LSB 01)
 * before 0x0102 (LSB 02) before 0x0302, whatever the node order. */
static void test_byte_swapped_order(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	uint32_t sm = add(f, IBR_NODE_SWITCH, 0x9000, 4, "sm");
	uint32_t x = add(f, IBR_NODE_SWITCH, 0x0302, 4, "x");
	uint32_t y = add(f, IBR_NODE_SWITCH, 0x0102, 4, "y");
	uint32_t z = add(f, IBR_NODE_SWITCH, 0x0201, 4, "z");
	uint32_t w = add(f, IBR_NODE_SWITCH, 0x0100000000000000ull, 4, "w");

	(void)state;
	link2(f, sm, 1, x, 1);
	link2(f, x, 2, y, 1);
	link2(f, y, 2, z, 1);
	link2(f, z, 2, w, 1);
	finalize_ok(f, 0);
	assert_int_equal(lid(f, sm, 0), 1);
	assert_int_equal(lid(f, w, 0), 2);  /* swapped: 0x01 */
	assert_int_equal(lid(f, z, 0), 3);  /* swapped: 0x0102000000000000 */
	assert_int_equal(lid(f, y, 0), 4);  /* swapped: 0x0201000000000000 */
	assert_int_equal(lid(f, x, 0), 5);  /* swapped: 0x0203000000000000 */
	ibr_fabric_free(f);
}

/* The SM's port set: served first, even if its GUID sorts last. */
static void test_sm_port_first(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	t.f->sm_node = t.c3;
	t.f->sm_port = 1;
	assign_ok(t.f, 0);
	assert_int_equal(lid(t.f, t.c3, 1), 1);
	assert_int_equal(lid(t.f, t.a, 0), 2);
	assert_int_equal(lid(t.f, t.c0, 1), 3);
	assert_int_equal(lid(t.f, t.b, 0), 4);
	assert_int_equal(lid(t.f, t.c1, 1), 5);
	assert_int_equal(lid(t.f, t.c2, 1), 6);
	ibr_fabric_free(t.f);

	/* a switch SM: its port 0, whatever sm_port says */
	t = two_switch();
	t.f->sm_node = t.b;
	t.f->sm_port = 3;
	assign_ok(t.f, 0);
	assert_int_equal(lid(t.f, t.b, 0), 1);
	assert_int_equal(lid(t.f, t.a, 0), 2);
	assert_int_equal(lid(t.f, t.c0, 1), 3);
	ibr_fabric_free(t.f);
}

/* No SM set and a CA first in the file: ibsim attaches the SM to that
 * CA's port 1. */
static void test_default_sm_on_ca(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	uint32_t ca = add(f, IBR_NODE_CA, 0x100010, 2, "first");
	uint32_t sw = add(f, IBR_NODE_SWITCH, 0x200000, 4, "sw");
	uint32_t other = add(f, IBR_NODE_CA, 0x100000, 1, "other");

	(void)state;
	link2(f, sw, 1, ca, 1);
	link2(f, sw, 2, ca, 2);
	link2(f, sw, 3, other, 1);
	finalize_ok(f, 0);
	assert_int_equal(f->sm_node, IBR_NONE); /* not set by the rule */
	assert_int_equal(lid(f, ca, 1), 1);     /* 0x100011: the SM */
	assert_int_equal(lid(f, sw, 0), 2);     /* 0x200000 */
	assert_int_equal(lid(f, other, 1), 3);  /* 0x100001 */
	assert_int_equal(lid(f, ca, 2), 4);     /* 0x100012 */
	ibr_fabric_free(f);
}

/* LMC 2 without lmc_esp0: CAs take aligned blocks of 4, switches one
 * LID, and the LIDs skipped to align are lost: SM CA 4-7 (1-3 lost),
 * switches 8 and 9, CA 12-15 (10 and 11 lost), CAs 16-19, 20-23. */
static void test_lmc_blocks_skip(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	t.f->sm_node = t.c0;
	t.f->sm_port = 1;
	finalize_ok(t.f, 2);
	assert_int_equal(t.f->lmc, 2);
	assert_int_equal(lid(t.f, t.c0, 1), 4);
	assert_int_equal(ibr_port(t.f, t.c0, 1)->lmc, 2);
	assert_int_equal(lid(t.f, t.a, 0), 8);
	assert_int_equal(ibr_port(t.f, t.a, 0)->lmc, 0);
	assert_int_equal(lid(t.f, t.b, 0), 9);     /* 0x200001 */
	assert_int_equal(lid(t.f, t.c1, 1), 12);   /* 0x100003 */
	assert_int_equal(lid(t.f, t.c2, 1), 16);
	assert_int_equal(lid(t.f, t.c3, 1), 20);
	assert_int_equal(t.f->max_lid, 23);
	for (unsigned l = 1; l <= 3; l++)
		assert_int_equal(t.f->lid_owner[l].node, IBR_NONE);
	for (unsigned l = 10; l <= 11; l++)
		assert_int_equal(t.f->lid_owner[l].node, IBR_NONE);
	ibr_fabric_free(t.f);
}

/* Default SM on a switch with LMC 1: the switch takes LID 1, the CA
 * 0x100001 then 2-3, the other switch 4. */
static void test_lmc_switch_sm(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	finalize_ok(t.f, 1);
	assert_int_equal(lid(t.f, t.a, 0), 1);
	assert_int_equal(lid(t.f, t.c0, 1), 2);
	assert_int_equal(lid(t.f, t.b, 0), 4);
	assert_int_equal(lid(t.f, t.c1, 1), 6);
	assert_int_equal(lid(t.f, t.c2, 1), 8);
	assert_int_equal(lid(t.f, t.c3, 1), 10);
	ibr_fabric_free(t.f);
}

/* lmc_esp0: switches take 2^lmc LIDs too, aligned. */
static void test_lmc_esp0(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	t.f->lmc_esp0 = true;
	finalize_ok(t.f, 1);
	assert_int_equal(lid(t.f, t.a, 0), 2);
	assert_int_equal(ibr_port(t.f, t.a, 0)->lmc, 1);
	assert_int_equal(lid(t.f, t.c0, 1), 4);
	assert_int_equal(lid(t.f, t.b, 0), 6);
	assert_int_equal(t.f->lid_owner[7].node, t.b);
	assert_int_equal(lid(t.f, t.c3, 1), 12);
	assert_int_equal(t.f->max_lid, 13);
	ibr_fabric_free(t.f);
}

/* Fixed LIDs are kept and cut the free ranges: with LMC 1 and switch B
 * fixed at 3, the free ranges are 1-2 and 4-...  The SM's CA needs an
 * aligned pair: 1-2 has none (2-3 crosses 3), so 4-5; switch A then
 * takes 1 and the next CA 6-7 (2 is left to a single LID, not a pair). */
static void test_given_lids_split_ranges(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	ibr_fabric_set_lid(t.f, t.b, 0, 3, 0);
	ibr_fabric_set_lid(t.f, t.c3, 1, 40, 1);
	t.f->sm_node = t.c0;
	t.f->sm_port = 1;
	finalize_ok(t.f, 1);
	assert_int_equal(lid(t.f, t.b, 0), 3);
	assert_int_equal(lid(t.f, t.c3, 1), 40);
	assert_int_equal(lid(t.f, t.c0, 1), 4);
	assert_int_equal(lid(t.f, t.a, 0), 1);
	assert_int_equal(lid(t.f, t.c1, 1), 6);
	assert_int_equal(lid(t.f, t.c2, 1), 8);
	assert_int_equal(t.f->lid_owner[2].node, IBR_NONE);
	assert_int_equal(t.f->max_lid, 41);
	ibr_fabric_free(t.f);

	/* LMC 0: the gap below a fixed LID is used first */
	t = two_switch();
	ibr_fabric_set_lid(t.f, t.c0, 1, 2, 0);
	finalize_ok(t.f, 0);
	assert_int_equal(lid(t.f, t.a, 0), 1);
	assert_int_equal(lid(t.f, t.c0, 1), 2);
	assert_int_equal(lid(t.f, t.b, 0), 3);
	assert_int_equal(lid(t.f, t.c1, 1), 4);
	ibr_fabric_free(t.f);
}

/* A switch's fixed LID counts as one LID without lmc_esp0. */
static void test_given_switch_lmc_ignored(void **state)
{
	struct two_switch t = two_switch();

	(void)state;
	ibr_fabric_set_lid(t.f, t.a, 0, 5, 2);
	finalize_ok(t.f, 0);
	assert_int_equal(ibr_port(t.f, t.a, 0)->lmc, 0);
	assert_int_equal(lid(t.f, t.c0, 1), 1);
	assert_int_equal(lid(t.f, t.b, 0), 2);
	assert_int_equal(lid(t.f, t.c1, 1), 3);
	assert_int_equal(lid(t.f, t.c2, 1), 4);
	assert_int_equal(lid(t.f, t.c3, 1), 6);
	ibr_fabric_free(t.f);
}

/* ---- LIDs given for another LMC ------------------------------------ */

static void for_lmc_ok(struct ibr_fabric *f, unsigned lmc,
		       struct ibr_lid_moves *m)
{
	struct ibr_error err = { "" };

	if (ibr_lids_for_lmc(f, lmc, m, &err))
		fail_msg("ibr_lids_for_lmc: %s", err.msg);
}

/* LIDs 1-5 and 8 given at LMC 0, asked for at LMC 2.  Reserved: 1 and 3
 * (switches), 4-7 (c1, aligned), 8-11 (c3); free: 2 and 12 on.  Served:
 * A (the SM) keeps 1; c0 at 2 is not aligned: 12-15 (2 holds no block of
 * 4); B keeps 3; c1 keeps 4-7; c2 at 5, not aligned: 16-19; c3 keeps
 * 8-11.  LID 2 stays free for a switch. */
static void test_for_lmc_keeps_aligned(void **state)
{
	struct two_switch t = two_switch();
	struct ibr_lid_moves m;

	(void)state;
	ibr_fabric_set_lid(t.f, t.a, 0, 1, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 2, 0);
	ibr_fabric_set_lid(t.f, t.b, 0, 3, 0);
	ibr_fabric_set_lid(t.f, t.c1, 1, 4, 0);
	ibr_fabric_set_lid(t.f, t.c2, 1, 5, 0);
	ibr_fabric_set_lid(t.f, t.c3, 1, 8, 0);
	for_lmc_ok(t.f, 2, &m);
	assert_true(m.relid);
	assert_int_equal(m.kept, 4);
	assert_int_equal(m.moved, 2);
	assert_int_equal(m.fresh, 0);
	finalize_ok(t.f, 2);
	assert_int_equal(lid(t.f, t.a, 0), 1);
	assert_int_equal(lid(t.f, t.c0, 1), 12);
	assert_int_equal(lid(t.f, t.b, 0), 3);
	assert_int_equal(lid(t.f, t.c1, 1), 4);
	assert_int_equal(lid(t.f, t.c2, 1), 16);
	assert_int_equal(lid(t.f, t.c3, 1), 8);
	assert_int_equal(ibr_port(t.f, t.c0, 1)->lmc, 2);
	assert_int_equal(ibr_port(t.f, t.c1, 1)->lmc, 2);
	assert_int_equal(ibr_port(t.f, t.b, 0)->lmc, 0);
	assert_int_equal(t.f->lid_owner[2].node, IBR_NONE);
	assert_int_equal(t.f->lid_owner[5].node, t.c1);
	assert_int_equal(t.f->max_lid, 19);
	ibr_fabric_free(t.f);
}

/* Switch B at 6, inside c1's aligned 4-7, is served before c1 (0x200001
 * before 0x100003): B keeps 6, so c1 loses 4-7, and 4, 5 and 7 stay
 * unused, reserved by the init sweep; c0 (2), c1 and c2 (5) take 8, 12
 * and 16 (2-3 holds no aligned block of 4).  c3, which the file gives no
 * LID, is served in its turn: 20. */
static void test_for_lmc_switch_wins(void **state)
{
	struct two_switch t = two_switch();
	struct ibr_lid_moves m;

	(void)state;
	ibr_fabric_set_lid(t.f, t.a, 0, 1, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 2, 0);
	ibr_fabric_set_lid(t.f, t.b, 0, 6, 0);
	ibr_fabric_set_lid(t.f, t.c1, 1, 4, 0);
	ibr_fabric_set_lid(t.f, t.c2, 1, 5, 0);
	for_lmc_ok(t.f, 2, &m);
	assert_int_equal(m.kept, 2);
	assert_int_equal(m.moved, 3);
	assert_int_equal(m.fresh, 1);
	finalize_ok(t.f, 2);
	assert_int_equal(lid(t.f, t.a, 0), 1);
	assert_int_equal(lid(t.f, t.b, 0), 6);
	assert_int_equal(lid(t.f, t.c0, 1), 8);
	assert_int_equal(lid(t.f, t.c1, 1), 12);
	assert_int_equal(lid(t.f, t.c2, 1), 16);
	assert_int_equal(lid(t.f, t.c3, 1), 20);   /* no LID in the file */
	for (unsigned l = 2; l <= 5; l++)
		assert_int_equal(t.f->lid_owner[l].node, IBR_NONE);
	assert_int_equal(t.f->lid_owner[7].node, IBR_NONE);
	ibr_fabric_free(t.f);
}

/* LIDs that fit the LMC asked for stay as they are, nothing reported;
 * a smaller LMC keeps every aligned base. */
static void test_for_lmc_nothing_to_move(void **state)
{
	struct two_switch t = two_switch();
	struct ibr_lid_moves m;

	(void)state;
	ibr_fabric_set_lid(t.f, t.b, 0, 3, 0);
	ibr_fabric_set_lid(t.f, t.c1, 1, 8, 2);
	for_lmc_ok(t.f, 2, &m);
	assert_false(m.relid);
	assert_int_equal(m.kept + m.moved + m.fresh, 0);
	assert_int_equal(lid(t.f, t.a, 0), 0);
	ibr_fabric_free(t.f);

	t = two_switch();
	ibr_fabric_set_lid(t.f, t.c1, 1, 8, 2);
	ibr_fabric_set_lid(t.f, t.c2, 1, 12, 2);
	for_lmc_ok(t.f, 0, &m);
	assert_true(m.relid);
	assert_int_equal(m.kept, 2);
	assert_int_equal(m.moved, 0);
	assert_int_equal(m.fresh, 4);
	finalize_ok(t.f, 0);
	assert_int_equal(lid(t.f, t.c1, 1), 8);
	assert_int_equal(ibr_port(t.f, t.c1, 1)->lmc, 0);
	assert_int_equal(lid(t.f, t.c2, 1), 12);
	assert_int_equal(t.f->max_lid, 12);
	ibr_fabric_free(t.f);
}

/* ---- errors --------------------------------------------------------- */

static void test_errors(void **state)
{
	struct two_switch t;

	(void)state;
	t = two_switch();
	assign_fails(t.f, 8, "LMC 8 out of range 0..7");
	ibr_fabric_free(t.f);

	t = two_switch();
	ibr_fabric_set_lid(t.f, t.c1, 1, 6, 2);
	assign_fails(t.f, 2, "CA 0x0000000000100002 \"hca-a2\" port 1: base "
		     "LID 6 is not aligned to its LMC 2 (multiple of 4 "
		     "expected)");
	ibr_fabric_free(t.f);

	t = two_switch();
	ibr_fabric_set_lid(t.f, t.a, 0, 7, 0);
	ibr_fabric_set_lid(t.f, t.c2, 1, 6, 1);
	assign_fails(t.f, 0, "LID 7 is given twice: to switch "
		     "0x0000000000200000 \"leaf-a\" and to CA "
		     "0x0000000000100004 \"hca-b1\" port 1");
	ibr_fabric_free(t.f);

	t = two_switch();
	ibr_fabric_set_lid(t.f, t.c0, 1, 0xBFFE, 2);
	assign_fails(t.f, 0, "is not aligned");
	ibr_fabric_set_lid(t.f, t.c0, 1, 0xBFFC, 3);
	assign_fails(t.f, 0, "is not aligned");
	ibr_fabric_set_lid(t.f, t.c0, 1, 0xBFFE, 1);  /* the top pair: fine */
	ibr_fabric_set_lid(t.f, t.c1, 1, 0xC001, 0);
	assign_fails(t.f, 0, "\"hca-a2\" port 1: LID 49153+0 is beyond the "
		     "unicast LID space (max 0xBFFF)");
	ibr_fabric_free(t.f);

	t = two_switch();
	ibr_fabric_set_lid(t.f, t.c0, 1, 4, 9);
	assign_fails(t.f, 0, "\"hca-a1\" port 1: LMC 9 out of range 0..7");
	ibr_fabric_free(t.f);
}

/* 16 switches in a chain, `cas` CAs on them (24 each at most). */
static struct ibr_fabric *many_cas(unsigned cas)
{
	struct ibr_fabric *f = ibr_fabric_new();
	uint32_t sw[16];

	for (unsigned s = 0; s < 16; s++) {
		sw[s] = add(f, IBR_NODE_SWITCH, 0x200000 + s, 30, "sw");
		if (s > 0)
			link2(f, sw[s - 1], 30, sw[s], 29);
	}
	for (unsigned c = 0; c < cas; c++)
		link2(f, sw[c / 24], 1 + c % 24,
		      add(f, IBR_NODE_CA, 0x100000 + 2 * c, 1, "ca"), 1);
	return f;
}

/* LMC 7 with lmc_esp0: 383 blocks of 128 fit in 1..0xBFFF (the first
 * from 128), so 16 switches and 367 CAs fill the space; one more CA and
 * the message names who found no block. */
static void test_lid_space_exhausted(void **state)
{
	struct ibr_fabric *f = many_cas(367);
	struct ibr_error err = { "" };

	(void)state;
	f->lmc_esp0 = true;
	finalize_ok(f, 7);
	assert_int_equal(f->max_lid, 0xBFFF);
	assert_int_equal(ibr_switch_lid(f, 0), 128);
	ibr_fabric_free(f);

	f = many_cas(368);
	f->lmc_esp0 = true;
	assert_int_equal(ibr_lids_assign(f, 7, &err), -1);
	if (!strstr(err.msg, "more LIDs than the LID space: no free block of "
		    "128 LIDs left for ") ||
	    (!strstr(err.msg, "for CA 0x") && !strstr(err.msg, "for switch 0x")))
		fail_msg("unexpected message \"%s\"", err.msg);
	ibr_fabric_free(f);
}

/* ibr_fabric_index: LIDs as they are, none invented. */
static void test_index_takes_lids_as_they_are(void **state)
{
	struct two_switch t = two_switch();
	struct ibr_error err = { "" };

	(void)state;
	/* OpenSM-like LIDs, not the ones lids.c would give */
	ibr_fabric_set_lid(t.f, t.a, 0, 9, 0);
	ibr_fabric_set_lid(t.f, t.b, 0, 3, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 4, 1);
	ibr_fabric_set_lid(t.f, t.c1, 1, 12, 1);
	ibr_fabric_set_lid(t.f, t.c2, 1, 6, 1);
	ibr_fabric_set_lid(t.f, t.c3, 1, 10, 1);
	assert_int_equal(ibr_fabric_index(t.f, &err), 0);
	assert_int_equal(lid(t.f, t.a, 0), 9);
	assert_int_equal(t.f->max_lid, 13);
	assert_int_equal(t.f->lid_owner[11].node, t.c3);
	assert_int_equal(t.f->lid_owner[1].node, IBR_NONE);
	assert_int_equal(ibr_switch_lid(t.f, t.f->nodes[t.b].sw_index), 3);
	ibr_fabric_free(t.f);
}

static void test_index_refuses(void **state)
{
	struct two_switch t;

	(void)state;
	/* a switch without a LID, named */
	t = two_switch();
	ibr_fabric_set_lid(t.f, t.a, 0, 1, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 2, 0);
	ibr_fabric_set_lid(t.f, t.c1, 1, 3, 0);
	ibr_fabric_set_lid(t.f, t.c2, 1, 4, 0);
	ibr_fabric_set_lid(t.f, t.c3, 1, 5, 0);
	index_fails(t.f, "switch 0x0000000000200001 \"leaf-b\" has no LID");
	ibr_fabric_free(t.f);

	/* a CA port without a LID, named */
	t = two_switch();
	ibr_fabric_set_lid(t.f, t.a, 0, 1, 0);
	ibr_fabric_set_lid(t.f, t.b, 0, 2, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 3, 0);
	ibr_fabric_set_lid(t.f, t.c1, 1, 4, 0);
	ibr_fabric_set_lid(t.f, t.c3, 1, 5, 0);
	index_fails(t.f, "CA 0x0000000000100004 \"hca-b1\" port 1 has no LID");
	ibr_fabric_free(t.f);

	/* two holders on one LID */
	t = two_switch();
	ibr_fabric_set_lid(t.f, t.a, 0, 1, 0);
	ibr_fabric_set_lid(t.f, t.b, 0, 2, 0);
	ibr_fabric_set_lid(t.f, t.c0, 1, 4, 1);
	ibr_fabric_set_lid(t.f, t.c1, 1, 5, 0);
	ibr_fabric_set_lid(t.f, t.c2, 1, 6, 0);
	ibr_fabric_set_lid(t.f, t.c3, 1, 7, 0);
	index_fails(t.f, "LID 5 is held twice: by CA 0x0000000000100000 "
		    "\"hca-a1\" port 1 and by CA 0x0000000000100002 \"hca-a2\" "
		    "port 1");
	ibr_fabric_free(t.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibsim_interleaving),
		cmocka_unit_test(test_byte_swapped_order),
		cmocka_unit_test(test_sm_port_first),
		cmocka_unit_test(test_default_sm_on_ca),
		cmocka_unit_test(test_lmc_blocks_skip),
		cmocka_unit_test(test_lmc_switch_sm),
		cmocka_unit_test(test_lmc_esp0),
		cmocka_unit_test(test_given_lids_split_ranges),
		cmocka_unit_test(test_given_switch_lmc_ignored),
		cmocka_unit_test(test_for_lmc_keeps_aligned),
		cmocka_unit_test(test_for_lmc_switch_wins),
		cmocka_unit_test(test_for_lmc_nothing_to_move),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lid_space_exhausted),
		cmocka_unit_test(test_index_takes_lids_as_they_are),
		cmocka_unit_test(test_index_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
