/*
 * test_topo_io.c - topology files in and out (topo_read.c, topo_write.c).
 *
 * Inputs are written here as strings and read through fmemopen, so each
 * test shows the file it is about.  The GUIDs expected from files without
 * GUID lines are ibsim's (checked against ibsim 0.10 + ibnetdiscover).
 * Every bad input is checked for its exact "file:line:" prefix and a key
 * word of the message.  A fuzz test cuts and flips bytes of valid files:
 * each must give a fabric or an error, never a crash (run it under
 * valgrind or -fsanitize=address to see leaks and overruns).  The
 * building API itself: a fabric reserved up front moves nothing while it
 * is built, interned strings never move, and the order of a file's
 * records changes no switch or end-port index and no fingerprint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibrouting/component.h"
#include "ibrouting/load.h"
#include "ibrouting/topo_io.h"
#include "util/lines.h"
#include "failing_alloc.h"

/* ---- helpers ------------------------------------------------------- */

static struct ibr_fabric *read_text(const char *name, const char *text,
				    struct ibr_error *err)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct ibr_fabric *f;

	assert_non_null(in);
	memset(err, 0, sizeof(*err));
	f = ibr_fabric_read_stream(in, name, err);
	fclose(in);
	return f;
}

/* Reads text that must be valid; fails the test with the message if not. */
static struct ibr_fabric *read_ok(const char *text)
{
	struct ibr_error err;
	struct ibr_fabric *f = read_text("ok.net", text, &err);

	if (!f)
		fail_msg("unexpected error: %s", err.msg);
	return f;
}

static void finalize_ok(struct ibr_fabric *f, unsigned lmc)
{
	struct ibr_error err = { { 0 } };

	if (ibr_fabric_finalize(f, lmc, &err))
		fail_msg("finalize failed: %s", err.msg);
}

/* The read must fail with a message starting with prefix and holding
 * word. */
static void expect_error(const char *text, const char *prefix,
			 const char *word)
{
	struct ibr_error err;
	struct ibr_fabric *f = read_text("x.net", text, &err);

	if (f)
		fail_msg("accepted, expected an error \"%s...%s\"", prefix, word);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
	    !strstr(err.msg, word))
		fail_msg("got \"%s\", expected \"%s\" ... \"%s\"", err.msg, prefix,
			 word);
}

static uint32_t node_by_guid(const struct ibr_fabric *f, uint64_t guid)
{
	uint32_t n = ibr_fabric_find_guid(f, guid);

	if (n == IBR_NONE)
		fail_msg("no node with GUID 0x%llx", (unsigned long long)guid);
	return n;
}

static void assert_linked(const struct ibr_fabric *f, uint32_t a, unsigned pa,
			  uint32_t b, unsigned pb)
{
	assert_int_equal(ibr_port(f, a, pa)->remote_node, b);
	assert_int_equal(ibr_port(f, a, pa)->remote_port, pb);
	assert_int_equal(ibr_port(f, b, pb)->remote_node, a);
	assert_int_equal(ibr_port(f, b, pb)->remote_port, pa);
}

/* Same nodes in the same order, same GUIDs, ports, links, LIDs, LMCs. */
static void assert_same_fabric(const struct ibr_fabric *a,
			       const struct ibr_fabric *b)
{
	assert_int_equal(a->num_nodes, b->num_nodes);
	assert_int_equal(a->num_ports, b->num_ports);
	assert_int_equal(a->num_switches, b->num_switches);
	assert_int_equal(a->num_end_ports, b->num_end_ports);
	assert_int_equal(a->max_lid, b->max_lid);
	for (uint32_t i = 0; i < a->num_nodes; i++) {
		const struct ibr_node *x = &a->nodes[i], *y = &b->nodes[i];
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->num_ports, y->num_ports);
		assert_int_equal(x->guid, y->guid);
		assert_string_equal(x->desc, y->desc);
		for (unsigned p = 0; p <= x->num_ports; p++) {
			const struct ibr_port *px = ibr_port(a, i, p);
			const struct ibr_port *py = ibr_port(b, i, p);
			assert_int_equal(px->guid, py->guid);
			assert_int_equal(px->remote_node, py->remote_node);
			assert_int_equal(px->remote_port, py->remote_port);
			assert_int_equal(px->base_lid, py->base_lid);
			assert_int_equal(px->lmc, py->lmc);
		}
	}
}

/* Writes f (finalized), reads it back, finalizes with the same LMC. */
static struct ibr_fabric *write_read(const struct ibr_fabric *f,
				     char **text_out)
{
	struct ibr_error err = { { 0 } };
	struct ibr_fabric *g;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	if (ibr_fabric_write_net(f, out, &err))
		fail_msg("write failed: %s", err.msg);
	fclose(out);
	g = read_text("rt.net", text, &err);
	if (!g)
		fail_msg("reading back failed: %s\n%s", err.msg, text);
	finalize_ok(g, f->lmc);
	if (text_out)
		*text_out = text;
	else
		free(text);
	return g;
}

/* Every link's width and speed in b as in a, where a knows them; where
 * it does not, the writer's 4x QDR. */
static void assert_same_rates(const struct ibr_fabric *a,
			      const struct ibr_fabric *b)
{
	for (uint32_t i = 0; i < a->num_nodes; i++)
		for (unsigned p = 1; p <= a->nodes[i].num_ports; p++) {
			const struct ibr_port *px = ibr_port(a, i, p);
			const struct ibr_port *py = ibr_port(b, i, p);
			if (px->remote_node == IBR_NONE)
				continue;
			assert_int_equal(py->width, px->width ? px->width : 4);
			assert_int_equal(py->speed, px->speed ? px->speed :
					 IBR_SPEED_QDR);
		}
}

static void assert_round_trip(const struct ibr_fabric *f)
{
	struct ibr_fabric *g = write_read(f, NULL);

	assert_same_fabric(f, g);
	assert_same_rates(f, g);
	ibr_fabric_free(g);
}

/* ---- reading ibsim net files ---------------------------------------- */

/* No GUID lines: ibsim counts switches from 0x200000 by one and CAs from
 * 0x100000 by (ports + 1), in file order, whatever the node ids say. */
static const char ibsim_net[] =
	"# a small ibsim net file\n"
	"\n"
	"Switch\t8 \"sw-top\"\n"
	"[1]\t\"hostA\"[1]\n"
	"[2]\t\"hostB\"[2]\n"
	"[5]\t\"sw-low\"[6]\tw=3\n"    /* 1x|4x: a LinkWidthEnabled mask */
	"\n"
	"Hca\t2 \"hostA\"\n"
	"[1]\t\"sw-top\"[1]\n"
	"\n"
	"Switch 24 \"sw-low\"\n"
	"[6]\t\"sw-top\"[5]\n"
	"[7]\t\"hostC\"\n"
	"\n"
	"Ca\t1 \"hostC\"\n"
	"[1]\t\"sw-low\"[7]\n"
	"\n"
	"Hca\t4 \"hostB\"\n"
	"[2]\t\"sw-top\"[2]\n";

/* ---- building ------------------------------------------------------ */

/* Reserved room: adding that many nodes and ports moves no array, and
 * every description stays where it was interned (a long one included). */
static void test_reserve_moves_nothing(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { "" };
	char *longdesc = malloc(40000), desc[32];
	const char *first = NULL;
	void *nodes, *ports, *keys;

	(void)state;
	memset(longdesc, 'x', 39999);
	longdesc[39999] = '\0';
	assert_int_equal(ibr_fabric_reserve(f, 3000, 3000 * 3, &err), 0);
	nodes = f->nodes;
	ports = f->ports;
	keys = f->guid_index.key;
	for (unsigned i = 0; i < 3000; i++) {
		uint32_t id;
		snprintf(desc, sizeof(desc), "node %u", i);
		id = ibr_fabric_add_node(f, IBR_NODE_CA, 0x1000 + 2 * i, 2,
					 i == 1500 ? longdesc : desc, NULL, &err);
		assert_int_equal(id, i);
		if (i == 0)
			first = f->nodes[0].desc;
	}
	assert_ptr_equal(f->nodes, nodes);
	assert_ptr_equal(f->ports, ports);
	assert_ptr_equal(f->guid_index.key, keys);
	assert_ptr_equal(f->nodes[0].desc, first);
	assert_string_equal(first, "node 0");
	assert_string_equal(f->nodes[2999].desc, "node 2999");
	assert_string_equal(f->nodes[1500].desc, longdesc);
	assert_int_equal(ibr_fabric_find_guid(f, 0x1000 + 2 * 2999), 2999);
	free(longdesc);
	ibr_fabric_free(f);
}

static void test_ibsim_guid_numbering(void **state)
{
	struct ibr_fabric *f = read_ok(ibsim_net);
	uint32_t top, low, a, b, c;

	(void)state;
	assert_int_equal(f->num_nodes, 5);
	top = node_by_guid(f, 0x200000);
	low = node_by_guid(f, 0x200001);
	a = node_by_guid(f, 0x100000);  /* Hca 2: takes 3 GUIDs */
	c = node_by_guid(f, 0x100003);  /* Ca 1: takes 2 */
	b = node_by_guid(f, 0x100005);
	assert_int_equal(top, 0);
	assert_int_equal(a, 1);
	assert_int_equal(low, 2);
	assert_int_equal(c, 3);
	assert_int_equal(b, 4);
	assert_int_equal(f->nodes[top].type, IBR_NODE_SWITCH);
	assert_int_equal(f->nodes[low].num_ports, 24);
	assert_int_equal(f->nodes[b].type, IBR_NODE_CA);
	assert_int_equal(f->nodes[b].num_ports, 4);
	/* CA port GUID = node GUID + port; switch ports share the node's */
	assert_int_equal(ibr_port(f, b, 2)->guid, 0x100007);
	assert_int_equal(ibr_port(f, top, 5)->guid, 0x200000);
	/* no description: the node id */
	assert_string_equal(f->nodes[low].desc, "sw-low");
	assert_string_equal(f->nodes[a].origin, "ok.net:8");
	assert_linked(f, top, 1, a, 1);
	assert_linked(f, top, 2, b, 2);
	assert_linked(f, top, 5, low, 6);
	assert_linked(f, low, 7, c, 1); /* "[7] "hostC"": peer port 1 */
	finalize_ok(f, 0);
	ibr_fabric_free(f);
}

static void test_guid_directives(void **state)
{
	struct ibr_fabric *f = read_ok(
		"switchguid=0x1000\n"
		"Switch 4 \"s0\"\n"
		"[1] \"h0\"[1]\n"
		"[2] \"s1\"[2]\n"
		"\n"
		"Switch 4 \"s1\"\n"           /* counts on: 0x1001 */
		"[2] \"s0\"[2]\n"
		"\n"
		"switchguid+0x10\n"           /* base 0x1000 + 0x10 */
		"Switch 4 \"s2\"\n"
		"[1] \"s1\"[1]\n"
		"\n"
		"caguid=0x5000\n"
		"Ca 2 \"h0\"\n"
		"[1] \"s0\"[1]\n"
		"\n"
		"Ca 1 \"h1\"\n"               /* 0x5000 + 3 */
		"[1] \"s2\"[2]\n"
		"\n"
		"hcaguids+0x100\n"            /* base 0x5000 + 0x100 */
		"Hca 1 \"h2\"\n"
		"[1] \"s2\"[3]\n"
		"\n"
		"switchguid=0x2c9000000a0b0(2c9000000a0b0)\n"
		"Switch 4 \"s3\"\n"
		"[1] \"s2\"[4]\n");

	(void)state;
	assert_int_equal(f->nodes[0].guid, 0x1000);
	assert_int_equal(f->nodes[1].guid, 0x1001);
	assert_int_equal(f->nodes[2].guid, 0x1010);
	assert_int_equal(f->nodes[3].guid, 0x5000);
	assert_int_equal(f->nodes[4].guid, 0x5003);
	assert_int_equal(f->nodes[5].guid, 0x5100);
	assert_int_equal(ibr_port(f, 5, 1)->guid, 0x5101);
	assert_int_equal(f->nodes[6].guid, 0x2c9000000a0b0);
	assert_linked(f, 2, 1, 1, 1);  /* one-sided: only s2 lists it */
	finalize_ok(f, 0);
	ibr_fabric_free(f);
}

/* Whatever the ids look like, ibsim does not parse GUIDs out of them. */
static void test_ids_are_not_guids(void **state)
{
	struct ibr_fabric *f = read_ok(
		"Switch 4 \"S-0002c90300001111\"\n"
		"[1] \"H-0002c90300002222\"[1]\n"
		"\n"
		"Ca 1 \"H-0002c90300002222\"\n"
		"[1] \"S-0002c90300001111\"[1]\n");

	(void)state;
	assert_int_equal(f->nodes[0].guid, 0x200000);
	assert_int_equal(f->nodes[1].guid, 0x100000);
	ibr_fabric_free(f);
}

static void test_one_sided_links(void **state)
{
	/* Every link listed by the switches only; CAs have no port line. */
	struct ibr_fabric *f = read_ok(
		"Switch 4 \"a\"\n"
		"[1] \"b\"[1]\n"
		"[2] \"h1\"[1]\n"
		"[3] \"h2\"[2]\n"
		"\n"
		"Switch 4 \"b\"\n"
		"[2] \"h3\"\n"
		"\n"
		"Ca 1 \"h1\"\n"
		"\n"                          /* records end at blank lines */
		"Ca 2 \"h2\"\n"
		"\n"
		"Ca 1 \"h3\"\n");

	(void)state;
	assert_int_equal(f->num_nodes, 5);
	assert_linked(f, 0, 1, 1, 1);
	assert_linked(f, 0, 2, 2, 1);
	assert_linked(f, 0, 3, 3, 2);
	assert_linked(f, 1, 2, 4, 1);
	assert_int_equal(ibr_port(f, 3, 1)->remote_node, IBR_NONE);
	finalize_ok(f, 1);
	assert_int_equal(f->num_end_ports, 3);
	ibr_fabric_free(f);
}

/* Comments, blank lines, options, CRLF, ibnetdiscover -g decorations. */
static void test_tolerated_syntax(void **state)
{
	struct ibr_fabric *f = read_ok(
		"# comment\r\n"
		"   \t\r\n"
		"vendid=0x2c9\r\n"
		"devid = 0xb924\n"
		"sysimgguid=0xb8cffff004207\t\t# Chassis 1 (spine)\n"
		"width=3\n"
		"speed=7\n"
		"extspeed=0\n"
		"pdebug=0\n"
		"rtguid=0x300000\n"
		"Non-Chassis Nodes\n"
		"Chassis 1 (guid 0x2c90000000001)\n"
		"Hostname: frontend\n"
		"Switch 8 \"s1\"   # my switch lid 7 lmc 0\n"
		"# a comment inside the record\n"
		"[1][ext 3]\t\"s2\"[2][ext 4]\ts=2 w=4 e=0  # 4xQDR\n"
		"[3]\t\"h1\"[1](100001)\t# \"host\" lid 3 4xQDR\n"
		"\t# an indented comment ends the record\n"
		"Switch 8 \"s2\" #\n"
		"[2] \"s1\"[1]\n"
		"\n"
		"Hca 1 \"h1\" # \"host one\"\n"
		"[1](100001) \"s1\"[3]\n");

	(void)state;
	assert_int_equal(f->num_nodes, 3);
	assert_string_equal(f->nodes[0].desc, "my switch");
	assert_int_equal(ibr_port(f, 0, 0)->base_lid, 7);
	assert_string_equal(f->nodes[1].desc, "s2"); /* empty comment */
	assert_string_equal(f->nodes[2].desc, "host one");
	assert_linked(f, 0, 1, 1, 2);
	assert_linked(f, 0, 3, 2, 1);
	finalize_ok(f, 0);
	ibr_fabric_free(f);
}

/* ---- reading ibnetdiscover output ------------------------------------ */

static const char disc_net[] =
	"#\n"
	"# Topology file: generated on Tue Jun  5 14:15:10 2007\n"
	"#\n"
	"# Initiated from node 0002c9030001b2e0 port 0002c9030001b2e1\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xb924\n"
	"sysimgguid=0xb8cffff004207\n"
	"switchguid=0xb8cffff004207(b8cffff004207)\n"
	"Switch\t36 \"S-000b8cffff004207\"\t\t# \"MF0;switch-abc\" enhanced "
	"port 0 lid 16 lmc 0\n"
	"[1]\t\"H-0002c9030001b2e0\"[1](2c9030001b2e1) \t\t# \"host1 HCA-1\" "
	"lid 3 4xQDR\n"
	"[3]\t\"S-000b8cffff004208\"[5]\t\t# \"other switch\" lid 17 4xQDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xb924\n"
	"switchguid=0xb8cffff004208(b8cffff004208)\n"
	"Switch\t36 \"S-000b8cffff004208\"\t\t# \"other switch\" base port 0 "
	"lid 17 lmc 0\n"
	"[5]\t\"S-000b8cffff004207\"[3]\t\t# \"MF0;switch-abc\" lid 16 4xQDR\n"
	"[9]\t\"H-0002c9030001c000\"[2](2c9030001c0a2) \t\t# \"host2 HCA-1\" "
	"lid 8 4xQDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x1003\n"
	"sysimgguid=0x2c9030001b2e3\n"
	"caguid=0x2c9030001b2e0\n"
	"Ca\t2 \"H-0002c9030001b2e0\"\t\t# \"host1 HCA-1\"\n"
	"[1](2c9030001b2e1) \t\"S-000b8cffff004207\"[1]\t\t# lid 3 lmc 0 "
	"\"MF0;switch-abc\" lid 16 4xQDR\n"
	"\n"
	"caguid=0x2c9030001c000\n"
	"Ca\t2 \"H-0002c9030001c000\"\t\t# \"host2 HCA-1\"\n"
	"[2](2c9030001c0a2) \t\"S-000b8cffff004208\"[9]\t\t# lid 8 lmc 2 "
	"\"other switch\" lid 17 4xQDR\n";

static void test_ibnetdiscover_output(void **state)
{
	struct ibr_fabric *f = read_ok(disc_net);
	uint32_t s1, s2, h1, h2;

	(void)state;
	assert_int_equal(f->num_nodes, 4);
	s1 = node_by_guid(f, 0xb8cffff004207);
	s2 = node_by_guid(f, 0xb8cffff004208);
	h1 = node_by_guid(f, 0x2c9030001b2e0);
	h2 = node_by_guid(f, 0x2c9030001c000);
	assert_string_equal(f->nodes[s1].desc, "MF0;switch-abc");
	assert_string_equal(f->nodes[h1].desc, "host1 HCA-1");
	assert_string_equal(f->nodes[s1].origin, "ok.net:10");
	assert_int_equal(f->nodes[s1].num_ports, 36);
	assert_false(f->lmc_esp0); /* "enhanced port 0" is only noted */
	assert_linked(f, s1, 1, h1, 1);
	assert_linked(f, s1, 3, s2, 5);
	assert_linked(f, s2, 9, h2, 2);
	/* port GUIDs from the parentheses */
	assert_int_equal(ibr_port(f, h1, 1)->guid, 0x2c9030001b2e1);
	assert_int_equal(ibr_port(f, h2, 2)->guid, 0x2c9030001c0a2);
	assert_int_equal(ibr_port(f, h2, 1)->guid, 0x2c9030001c001);
	finalize_ok(f, 0);
	/* LIDs kept, whatever LMC the caller picks for the others */
	assert_int_equal(ibr_port(f, s1, 0)->base_lid, 16);
	assert_int_equal(ibr_port(f, s2, 0)->base_lid, 17);
	assert_int_equal(ibr_port(f, h1, 1)->base_lid, 3);
	assert_int_equal(ibr_port(f, h2, 2)->base_lid, 8);
	assert_int_equal(ibr_port(f, h2, 2)->lmc, 2);
	assert_int_equal(f->lid_owner[10].node, h2);
	ibr_fabric_free(f);
}

/* Link rates as ibsim brings the links up: the directives before a node,
 * a port line's w= s= e= and ibnetdiscover's `lid N 2xHDR` say what each
 * end enables, the link gets the best both share; ends sharing no width
 * leave it unknown, with one note; a link nothing is said of is ibsim's
 * 4x SDR.  Written back, every rate reads the same. */
static void test_link_rates(void **state)
{
	struct ibr_fabric *f = read_ok(
		"width=8\n"                 /* 12x only, for the nodes below */
		"Switch 8 \"a\"\n"
		"[1] \"b\"[1] s=2\n"          /* 12x, DDR */
		"[2] \"h\"[1] # \"h\" lid 3 2xHDR\n"
		"[3] \"c\"[1] w=4\n"          /* 8x: c enables 12x only */
		"[4] \"d\"[1]\n"
		"\n"
		"Switch 8 \"b\"\n"
		"[1] \"a\"[1] w=9 s=3\n"      /* 1x|12x, SDR|DDR */
		"\n"
		"Hca 1 \"h\"\n"
		"[1] \"a\"[2] # lid 3 lmc 0 \"a\" lid 1 2xHDR\n"
		"\n"
		"Switch 8 \"c\"\n"
		"[1] \"a\"[3]\n"
		"\n"
		"Switch 8 \"d\"\n"
		"[1] \"a\"[4] # \"a\" lid 1 12xFDR10\n");
	struct ibr_fabric *g, *plain = read_ok(ibsim_net);
	uint32_t a, b, c, h;

	(void)state;
	a = 0, b = 1, h = 2, c = 3;
	assert_int_equal(ibr_port(f, a, 1)->width, 12);
	assert_int_equal(ibr_port(f, b, 1)->speed, IBR_SPEED_DDR);
	assert_int_equal(ibr_port(f, a, 2)->width, 2);
	assert_int_equal(ibr_port(f, h, 1)->speed, IBR_SPEED_HDR);
	assert_int_equal(ibr_port(f, a, 3)->width, 0);
	assert_int_equal(ibr_port(f, c, 1)->speed, IBR_SPEED_UNKNOWN);
	/* d's end says 12x FDR10, a's enables 12x and SDR only */
	assert_int_equal(ibr_port(f, a, 4)->width, 12);
	assert_int_equal(ibr_port(f, a, 4)->speed, IBR_SPEED_SDR);
	assert_int_equal(f->num_notes, 1);
	assert_non_null(strstr(f->notes[0], "ok.net: 1 link whose ends enable "
			       "no common width or speed"));
	assert_non_null(strstr(f->notes[0], "ok.net:5: port 3 of switch"));
	finalize_ok(f, 0);
	g = write_read(f, NULL);
	assert_same_rates(f, g);
	ibr_fabric_free(g);
	ibr_fabric_free(f);
	/* nothing said but sw-top[5]'s w=3 (1x|4x): every link 4x SDR, as
	 * ibsim serves them (its defaults: 4x, SDR) */
	assert_int_equal(ibr_port(plain, 0, 5)->width, 4);
	assert_int_equal(ibr_port(plain, 0, 5)->speed, IBR_SPEED_SDR);
	assert_int_equal(ibr_port(plain, 0, 1)->width, 4);
	assert_int_equal(ibr_port(plain, 0, 1)->speed, IBR_SPEED_SDR);
	assert_int_equal(plain->num_notes, 0);
	ibr_fabric_free(plain);
}

/* ---- files as administrators capture them ------------------------- */

/* text as a terminal saves it: before, then text with every line ending
 * in blanks and CR LF, then after (a prompt: no line end). */
static char *captured(const char *before, const char *text, const char *after)
{
	char *out = malloc(strlen(before) + 4 * strlen(text) + strlen(after) + 1);
	char *o = out;

	assert_non_null(out);
	o += sprintf(o, "%s", before);
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			memcpy(o, " \t\r\n", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	strcpy(o, after);
	return out;
}

static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* ibnetdiscover's output saved from a terminal: the banner and the command
 * line before it, CR LF and blanks at the ends of lines, the next prompt
 * right after its last port line.  The same fabric as the output itself,
 * and one note naming the lines skipped. */
static void test_capture_around_records(void **state)
{
	char *text = captured("ibnetdiscover output from node01, Tue Mar 4\r\n"
			      "[root@node01 ~]# ibnetdiscover\r\n", disc_net,
			      "[root@node01 ~]# ");
	struct ibr_fabric *f = read_ok(disc_net), *g;
	struct ibr_error err;
	char want[128];

	(void)state;
	g = read_text("cap.net", text, &err);
	if (!g)
		fail_msg("capture refused: %s", err.msg);
	finalize_ok(f, 0);
	finalize_ok(g, 0);
	assert_same_fabric(f, g);
	assert_int_equal(f->num_notes, 0);
	assert_int_equal(g->num_notes, 1);
	snprintf(want, sizeof(want), "cap.net: skipped 3 lines that are no "
		 "topology record: 1-2, %u", count_lines(disc_net) + 3);
	assert_string_equal(g->notes[0], want);
	ibr_fabric_free(g);
	free(text);

	/* a byte order mark, a Debian prompt, a "$" prompt after a blank line */
	g = read_text("cap.net", "\xEF\xBB\xBFuser@node01:~$ ibnetdiscover\n"
		      "Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		      "[1] \"S1\"[1]\n\n$ \n", &err);
	if (!g)
		fail_msg("capture refused: %s", err.msg);
	assert_int_equal(g->num_nodes, 2);
	assert_int_equal(g->num_notes, 1);
	assert_string_equal(g->notes[0], "cap.net: skipped 2 lines that are "
			    "no topology record: 1, 8");
	ibr_fabric_free(g);
	ibr_fabric_free(f);
}

/* Text between two lines of the grammar is inside the records: refused at
 * its first line, with the message the grammar gives it. */
static void test_err_text_inside_records(void **state)
{
	(void)state;
	/* between two records, and its first line named */
	expect_error("Switch 2 \"S1\"\n[1] \"H1\"[1]\n\n"
		     "node01 rebooted here\nand came back\n\n"
		     "Ca 1 \"H1\"\n[1] \"S1\"[1]\n",
		     "x.net:4: expected a Switch, Ca or Hca record", "rebooted");
	/* in a record, after a port line */
	expect_error("Switch 2 \"S1\"\n[1] \"H1\"[1]\nnot a port line\n"
		     "[2] \"H1\"[2]\n\nCa 2 \"H1\"\n",
		     "x.net:3: expected a port line or a blank line to end the "
		     "record of switch \"S1\"", "not a port line");
	/* right after a header, even at the end of the file */
	expect_error("Switch 2 \"S1\"\nnot a port line\n",
		     "x.net:2: expected a port line or a blank line", "");
	/* between the directives and their record */
	expect_error("# c\nvendid=0x2c9\nibnetdiscover v1.5\nSwitch 2 \"S1\"\n",
		     "x.net:3: expected a Switch, Ca or Hca record", "v1.5");
	/* a grammar word in another case is a record ibsim drops, no text */
	expect_error("switch 2 \"S1\"\n", "x.net:1: expected a Switch", "switch");
	expect_error("Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		     "[1] \"S1\"[1]\n\nHCA 1 \"H2\"\n",
		     "x.net:7: expected a Switch", "HCA");
	/* a port line is no text, before the first header either */
	expect_error("[root@node01 ~]# ibnetdiscover\n[1] \"H1\"[1]\n",
		     "x.net:2: expected a node header", "");
	/* text alone is no topology file */
	expect_error("hello\nworld\n", "x.net:1: expected a Switch", "hello");
}

/* `lid 65535`: ibnetdiscover's LID of a port OpenSM had given none yet.
 * No LID, exactly as `lid 0`, and one note with the count and the first
 * line; other LIDs above the unicast range are still refused. */
static void test_lid_65535_is_no_lid(void **state)
{
	static const char lidless[] =
		"Switch 4 \"S1\" # \"s1\" base port 0 lid 65535 lmc 0\n"
		"[1] \"H1\"[1]\n"
		"[2] \"H2\"[1]\n"
		"\n"
		"Ca 1 \"H1\"\n"
		"[1] \"S1\"[1] # lid 0xffff lmc 0 \"s1\" lid 65535 4xQDR\n"
		"\n"
		"Ca 1 \"H2\"\n"
		"[1] \"S1\"[2] # lid 2 lmc 0 \"s1\" lid 65535 4xQDR\n";
	static const char no_lid[] =
		"Switch 4 \"S1\" # \"s1\" base port 0 lid 0 lmc 0\n"
		"[1] \"H1\"[1]\n"
		"[2] \"H2\"[1]\n"
		"\n"
		"Ca 1 \"H1\"\n"
		"[1] \"S1\"[1]\n"
		"\n"
		"Ca 1 \"H2\"\n"
		"[1] \"S1\"[2] # lid 2 lmc 0 \"s1\" lid 0 4xQDR\n";
	struct ibr_fabric *f = read_ok(lidless), *g = read_ok(no_lid);

	(void)state;
	assert_int_equal(ibr_port(f, 0, 0)->base_lid, 0);
	assert_int_equal(ibr_port(f, 1, 1)->base_lid, 0);
	assert_int_equal(f->num_notes, 1);
	assert_string_equal(f->notes[0], "ok.net:1: 2 ports with lid 65535 (no "
			    "LID assigned when captured): given LIDs as OpenSM "
			    "would");
	finalize_ok(f, 0);
	finalize_ok(g, 0);
	assert_same_fabric(f, g);
	assert_int_equal(ibr_port(f, 2, 1)->base_lid, 2);
	assert_int_not_equal(ibr_port(f, 0, 0)->base_lid, 0);
	assert_int_not_equal(ibr_port(f, 1, 1)->base_lid, 0);
	ibr_fabric_free(f);
	ibr_fabric_free(g);
	expect_error("Switch 4 \"S1\" # \"s\" base port 0 lid 65534 lmc 0\n",
		     "x.net:1: LID 65534 out of range", "1..49151");
}

/* What ibsim's parser takes and reads as it looks is taken: blanks inside
 * a port's brackets (its atoi()) and around a port option's '='. */
static void test_ibsim_blanks(void **state)
{
	struct ibr_fabric *f = read_ok(
		"Switch 4 \"S1\"\n"
		"[ 1 ] \"H1\"[ 2 ]  w = 4 s= 2\te =0\n"
		"\n"
		"Ca 2 \"H1\"\n"
		"[2 ] \"S1\"[1]\n");

	(void)state;
	assert_linked(f, 0, 1, 1, 2);
	ibr_fabric_free(f);
	expect_error("Switch 4 \"S1\"\n[1] \"H1\"[1] w = 0\n",
		     "x.net:2: expected w=N", "1..31");
}

/* A director's capture as ibnetdiscover writes it, its CA headers as the
 * one in tests/fabrics/real writes them ("Ca  1"). */
static const char director_tabs[] =
	"switchguid=0xc42a10300a9b026(c42a10300a9b026)\n"
	"Switch\t4 \"S-0c42a10300a9b026\"\t\t# \"MF0;leaf:MQM8700/U1\" "
	"enhanced port 0 lid 5 lmc 0\n"
	"[1]\t\"H-1c34da03005503dc\"[1](1c34da03005503dd) \t\t# \"h1 HCA-1\" "
	"lid 65535 4xHDR\n"
	"[2]\t\"H-0c42a10300fb53dc\"[2](c42a10300fb53de) \t\t# \"h2 HCA-1\" "
	"lid 7 4xHDR\n"
	"[3]\t\"S-0c42a103008b5558\"[20]\t\t# \"MF0;spine:MCS8500/L16/U2\" "
	"lid 6 4xHDR\n"
	"\n"
	"switchguid=0xc42a103008b5558(c42a103008b5558)\n"
	"Switch\t36 \"S-0c42a103008b5558\"\t\t# \"MF0;spine:MCS8500/L16/U2\" "
	"base port 0 lid 6 lmc 0\n"
	"[20]\t\"S-0c42a10300a9b026\"[3]\t\t# \"MF0;leaf:MQM8700/U1\" lid 5 "
	"4xHDR\n"
	"\n"
	"caguid=0x1c34da03005503dc\n"
	"Ca  1 \"H-1c34da03005503dc\"\t\t# \"h1 HCA-1\"\n"
	"[1](1c34da03005503dd) \t\"S-0c42a10300a9b026\"[1]\t\t# lid 65535 "
	"lmc 0 \"MF0;leaf:MQM8700/U1\" lid 5 4xHDR\n"
	"\n"
	"caguid=0xc42a10300fb53dc\n"
	"Hca\t2 \"H-0c42a10300fb53dc\"\t\t# \"h2 HCA-1\"\n"
	"[2](c42a10300fb53de) \t\"S-0c42a10300a9b026\"[2]\t\t# lid 7 lmc 0 "
	"\"MF0;leaf:MQM8700/U1\" lid 5 4xHDR\n";

/* text without its tabs, as a PuTTY log keeps it; to be freed */
static char *without_tabs(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (; *text; text++)
		if (*text != '\t')
			*o++ = *text;
	*o = '\0';
	return out;
}

/* A capture whose tabs were all lost: `Switch4 "S-..."# ...`,
 * `[1]"H-..."[1](...) # ...`, `Hca2`.  ibsim reads it as the file with
 * its tabs, and so does the reader; `Ca1`, whose number ibsim reads from
 * the rest of the line (skipping the '1'), is refused at its line, and
 * keywords stay whole otherwise. */
static void test_tabs_lost(void **state)
{
	char *text = without_tabs(director_tabs);
	struct ibr_fabric *f = read_ok(director_tabs), *g;
	struct ibr_error err;

	(void)state;
	assert_non_null(strstr(text, "\nSwitch36 \"S-0c42a103008b5558\"# "));
	assert_non_null(strstr(text, "\n[20]\"S-0c42a10300a9b026\"[3]# "));
	assert_non_null(strstr(text, "\nHca2 \"H-"));
	g = read_text("ok.net", text, &err);
	if (!g)
		fail_msg("without tabs: %s", err.msg);
	assert_int_equal(g->num_nodes, 4);
	assert_int_equal(g->nodes[1].num_ports, 36);
	assert_int_equal(g->num_notes, 1); /* the lid 65535, as with tabs */
	assert_string_equal(f->notes[0], g->notes[0]);
	finalize_ok(f, 0);
	finalize_ok(g, 0);
	assert_same_fabric(f, g);
	assert_linked(g, 0, 3, 1, 20);
	assert_int_equal(ibr_port(g, 0, 0)->base_lid, 5);
	assert_int_equal(ibr_port(g, 3, 2)->base_lid, 7);
	ibr_fabric_free(f);
	ibr_fabric_free(g);
	free(text);

	/* ibsim reads 0 ports from "H-0c42...": a parse error at line 4 */
	expect_error("Switch2 \"S-0c42a10300a9b026\"# \"leaf\"\n"
		     "[1]\"H-0c42a10300fb53dc\"[1]# \"h\" lid 4 4xHDR\n"
		     "\n"
		     "Ca1 \"H-0c42a10300fb53dc\"# \"h\"\n"
		     "[1]\"S-0c42a10300a9b026\"[1]# lid 4 lmc 0 \"leaf\" lid 3 "
		     "4xHDR\n",
		     "x.net:4: expected a blank between \"Ca\" and its number "
		     "of ports", "reads 0 ports");
	/* ibsim: 2 ports; the same for a router */
	expect_error("Ca12 \"H1\"\n", "x.net:1: expected a blank", "reads 2");
	expect_error("rtguid=0x10\nRt12 \"R1\"\n", "x.net:2: expected a blank",
		     "the '1' after \"Rt\"");
	/* the number, not more: ibsim reads 4 ports here, but no id follows */
	expect_error("Switch4x \"S1\"\n", "x.net:1: expected a quoted node id",
		     "'x");
	/* not ibsim's keyword as written: text, refused inside the records */
	expect_error("Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nswitch2 \"S2\"\n"
		     "\nCa 1 \"H1\"\n[1] \"S1\"[1]\n",
		     "x.net:4: expected a Switch, Ca or Hca record", "switch2");
	expect_error("Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nSwitchX2 \"S2\"\n"
		     "\nCa 1 \"H1\"\n[1] \"S1\"[1]\n",
		     "x.net:4: expected a Switch, Ca or Hca record", "SwitchX2");
	/* a switch's prompt after the last record is skipped as before */
	g = read_text("cap.net", "Switch2 \"S1\"# \"s\"\n[1]\"H1\"[1]\n\n"
		      "Ca 1 \"H1\"\n[1]\"S1\"[1]\n\n"
		      "switch01 [standalone: master] # ", &err);
	if (!g)
		fail_msg("prompt: %s", err.msg);
	assert_int_equal(g->num_notes, 1);
	assert_string_equal(g->notes[0], "cap.net: skipped 1 line that is no "
			    "topology record: 7");
	ibr_fabric_free(g);
}

/* A peer port's GUID given only by the switch side is taken. */
static void test_peer_port_guid(void **state)
{
	struct ibr_fabric *f = read_ok(
		"Switch 4 \"s\"\n"
		"[2] \"h\"[1](abcd77)\n"
		"\n"
		"caguid=0xabcd00\n"
		"Ca 1 \"h\"\n");

	(void)state;
	assert_int_equal(f->nodes[1].guid, 0xabcd00);
	assert_int_equal(ibr_port(f, 1, 1)->guid, 0xabcd77);
	ibr_fabric_free(f);
	expect_error("Switch 4 \"s\"\n"
		     "[2] \"h\"[1](abcd05)\n"
		     "\n"
		     "Ca 1 \"h\"\n"
		     "[1](abcd01) \"s\"[2]\n",
		     "x.net:2: port GUID 0xabcd05", "differs");
}

/* ---- the example fabrics of tests/fabrics --------------------------- */

static struct ibr_fabric *read_example(const char *file)
{
	char path[512];
	struct ibr_error err = { { 0 } };
	struct ibr_fabric *f;

	snprintf(path, sizeof(path), "%s/%s", FABRICS_DIR, file);
	f = ibr_fabric_read_file(path, &err);
	if (!f)
		fail_msg("%s", err.msg);
	return f;
}

static void test_example_two_switch(void **state)
{
	struct ibr_fabric *f = read_example("two-switch.net");
	uint32_t a, b;

	(void)state;
	assert_int_equal(f->num_nodes, 6);
	a = node_by_guid(f, 0x200000);
	b = node_by_guid(f, 0x200001);
	node_by_guid(f, 0x100000);
	node_by_guid(f, 0x100002);
	node_by_guid(f, 0x100004);
	assert_int_equal(ibr_port(f, node_by_guid(f, 0x100007), 2)->guid,
			 0x100009);
	assert_linked(f, a, 7, b, 7);
	assert_linked(f, a, 8, b, 8);
	finalize_ok(f, 0);
	assert_int_equal(f->num_switches, 2);
	assert_int_equal(f->num_end_ports, 4);
	assert_int_equal(f->sw_adj_start[1] - f->sw_adj_start[0], 2);
	assert_round_trip(f);
	ibr_fabric_free(f);
}

static void test_example_ring6(void **state)
{
	struct ibr_fabric *f = read_example("ring6.net");

	(void)state;
	assert_int_equal(f->num_nodes, 15);
	for (unsigned s = 0; s < 6; s++) {
		uint32_t n = node_by_guid(f, 0x2c90000000100 + s);
		uint32_t next = node_by_guid(f, 0x2c90000000100 + (s + 1) % 6);
		assert_linked(f, n, 1, next, 2);
	}
	assert_linked(f, node_by_guid(f, 0x2c90000000100), 3,
		      node_by_guid(f, 0x2c90000000103), 3);
	assert_linked(f, node_by_guid(f, 0x2c90000000101), 3,
		      node_by_guid(f, 0x2c90000000104), 3);
	/* CAs: 1- and 2-port HCAs from 0x2c90000001000 */
	node_by_guid(f, 0x2c90000001006);
	node_by_guid(f, 0x2c90000001009);
	node_by_guid(f, 0x2c90000001012);
	finalize_ok(f, 2);
	assert_int_equal(f->num_switches, 6);
	assert_int_equal(f->num_end_ports, 9);
	assert_round_trip(f);
	ibr_fabric_free(f);
}

/* ---- writing ---------------------------------------------------------- */

static void test_write_format(void **state)
{
	static const char want[] =
		"switchguid=0xa00\n"
		"Switch\t4 \"S-0000000000000a00\"\t\t# \"sw=1\" base port 0 lid 1 "
		"lmc 0\n"
		"[2]\t\"H-0000000000000b00\"[1](b01) \t\t# \"h-1\" lid 4 4xQDR\n"
		"\n"
		"caguid=0xb00\n"
		"Ca\t1 \"H-0000000000000b00\"\t\t# \"h=1\"\n"
		"[1](b01) \t\"S-0000000000000a00\"[2]\t\t# lid 4 lmc 2 \"sw-1\" "
		"lid 1 4xQDR\n"
		"\n";
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { { 0 } };
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	uint32_t s, h;

	(void)state;
	s = ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0xa00, 4, "sw=1", NULL,
				&err);
	h = ibr_fabric_add_node(f, IBR_NODE_CA, 0xb00, 1, "h=1", NULL, &err);
	assert_int_equal(ibr_fabric_connect(f, s, 2, h, 1, &err), 0);
	finalize_ok(f, 2);
	out = open_memstream(&text, &len);
	assert_int_equal(ibr_fabric_write_net(f, out, &err), 0);
	fclose(out);
	/* after the leading comment block; '=' in peer descriptions -> '-' */
	assert_non_null(strstr(text, "\n\nswitchguid"));
	assert_string_equal(strstr(text, "switchguid"), want);
	free(text);
	assert_round_trip(f);
	ibr_fabric_free(f);
}

static void test_write_rejects(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { { 0 } };
	FILE *out = fopen("/dev/null", "w");
	uint32_t s, h;

	(void)state;
	assert_non_null(out);
	s = ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0xa00, 4, "sw", NULL, &err);
	h = ibr_fabric_add_node(f, IBR_NODE_CA, 0xa00, 1, "say \"hi\"", NULL,
				&err);
	ibr_fabric_connect(f, s, 1, h, 1, &err);
	assert_int_equal(ibr_fabric_write_net(f, out, &err), -1);
	assert_non_null(strstr(err.msg, "not finalized"));
	finalize_ok(f, 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(ibr_fabric_write_net(f, out, &err), -1);
	assert_non_null(strstr(err.msg, "double quote"));
	strcpy(f->nodes[h].desc, "plain"); /* shorter: fits the old one */
	memset(&err, 0, sizeof(err));
	assert_int_equal(ibr_fabric_write_net(f, out, &err), -1);
	assert_non_null(strstr(err.msg, "two nodes have GUID 0x0000000000000a00"));
	fclose(out);
	ibr_fabric_free(f);
}

/* ---- round trips over generated fabrics ------------------------------ */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Descriptions that tempt both readers: quotes aside, anything goes. */
static const char *const tricky_desc[] = {
	"", "plain", "with # hash", "a=b s=9 w=0", "lid 5 lmc 3",
	" spaced out ", "tab\there", "enhanced port 0 lid 9", "MF0;sw:x/y",
};

/* A connected random fabric (from the global rng) with random GUIDs and
 * descriptions and some fixed, scattered LIDs. */
static struct ibr_fabric *random_fabric(unsigned lmc)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { { 0 } };
	unsigned S = 2 + rnd() % 12, used[16] = { 0 }, nports = 12;
	uint64_t base = rnd() & 0xffffffffff000000ull;
	static uint8_t taken[IBR_MAX_UCAST_LID + 1];

	memset(taken, 0, sizeof(taken));
	for (unsigned s = 0; s < S; s++)
		ibr_fabric_add_node(f, IBR_NODE_SWITCH, base + 0x100 + s, nports,
				    tricky_desc[rnd() % 9], NULL, &err);
	for (unsigned s = 1; s < S; s++) { /* a random tree, then extras */
		unsigned t = rnd() % s;
		ibr_fabric_connect(f, s, ++used[s], t, ++used[t], &err);
	}
	for (unsigned k = rnd() % 6; k > 0; k--) {
		unsigned a = rnd() % S, b = rnd() % S;
		if (a != b && used[a] < nports - 3 && used[b] < nports - 3)
			ibr_fabric_connect(f, a, ++used[a], b, ++used[b], &err);
	}
	for (unsigned s = 0; s < S; s++) /* some links' rates said */
		for (unsigned p = 1; p <= used[s]; p++)
			if (rnd() % 2) {
				static const unsigned lanes[] = { 1, 2, 4, 8, 12 };
				ibr_fabric_set_link_rate(f, s, p,
							 lanes[rnd() % 5], 1 +
							 rnd() % (IBR_SPEED_COUNT - 1));
			}
	for (unsigned s = 0; s < S; s++) {
		for (unsigned k = rnd() % 3; k > 0 && used[s] < nports; k--) {
			unsigned ports = 1 + rnd() % 2, p = 1 + rnd() % ports;
			uint32_t ca = ibr_fabric_add_node(f, IBR_NODE_CA,
							  base + 0x10000 +
							  f->num_nodes * 4, ports,
							  tricky_desc[rnd() % 9],
							  NULL, &err);
			ibr_fabric_connect(f, s, ++used[s], ca, p, &err);
			if (rnd() % 2)
				ibr_fabric_set_link_rate(f, ca, p, 4,
							 IBR_SPEED_HDR);
			if (rnd() % 2) { /* a fixed, aligned, free LID */
				unsigned lid = (1 + rnd() % 2000) << lmc;
				if (!taken[lid]) {
					memset(taken + lid, 1, 1u << lmc);
					ibr_fabric_set_lid(f, ca, p, lid, lmc);
				}
			}
		}
	}
	assert_string_equal(err.msg, "");
	finalize_ok(f, lmc);
	return f;
}

static void test_round_trip_random(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct ibr_fabric *f;
		rng = seed * 0x9e3779b97f4a7c15ull;
		f = random_fabric(seed % 4);
		assert_round_trip(f);
		ibr_fabric_free(f);
	}
}

static void test_round_trip_ibnetdiscover(void **state)
{
	struct ibr_fabric *f = read_ok(disc_net);

	(void)state;
	finalize_ok(f, 1);
	assert_round_trip(f);
	ibr_fabric_free(f);
}

/* ---- bad inputs: one test per mistake ---------------------------------- */

static void test_err_port_range(void **state)
{
	struct ibr_error err;

	(void)state;
	assert_null(read_text("fig1.net",
			      "Switch 4 \"S1\"\n[1] \"S2\"[1]\n[9] \"S2\"[2]\n",
			      &err));
	assert_string_equal(err.msg,
			    "fig1.net:3: port 9 out of range 1..4 for switch \"S1\"");
	expect_error("Switch 4 \"S1\"\n[0] \"S2\"[1]\n", "x.net:2: port 0",
		     "out of range 1..4");
	/* the peer's port, found once the peer is known */
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[7]\n\nSwitch 6 \"S2\"\n",
		     "x.net:2: port 7 out of range 1..6 for switch \"S2\"", "");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[255]\n",
		     "x.net:2: peer port 255", "out of range");
}

static void test_err_unknown_peer(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\n"
		     "Switch 4 \"S2\"\n[1] \"S1\"[1]\n[2] \"Sw9\"[1]\n",
		     "x.net:6: link to unknown node \"Sw9\"", "port 2");
}

static void test_err_bad_port_line(void **state)
{
	static const char *const bad[] = {
		"[1 \"S2\"[1]", "[x] \"S2\"[1]", "[1] S2[1]", "[1] \"S2\"[1",
		"[1] \"S2\"[x]", "[1](zz) \"S2\"[1]", "[1] \"S2\"[1](12",
		"[1][ext] \"S2\"[1]", "[]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char text[128];
		snprintf(text, sizeof(text), "# ports\nSwitch 4 \"S1\"\n%s\n",
			 bad[i]);
		expect_error(text, "x.net:3: expected a port line like "
			     "[1] \"peer\"[2], found ", "");
	}
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1] junk\n",
		     "x.net:2: expected a port option", "'junk'");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1] w=0\n",
		     "x.net:2: expected w=N", "1..31");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1] s=8\n",
		     "x.net:2: expected s=N", "0..7");
}

static void test_err_truncated(void **state)
{
	(void)state;
	/* the file stops in a port line, inside S1's record */
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n[2] \"S2\"",
		     "x.net:3: truncated file", "record of switch \"S1\"");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\nCa 2 \"H1\" # \"h",
		     "x.net:4: expected a closing \"", "description");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\nCa 2 \"H1\"",
		     "x.net:4: truncated file", "header of \"H1\"");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\nCa 2 \"H",
		     "x.net:4: expected a closing \" after the node id", "");
}

static void test_err_duplicate_id(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\"\n\nCa 1 \"H1\"\n\nSwitch 8 \"S1\"\n",
		     "x.net:5: duplicate node id \"S1\"", "declared at x.net:1");
}

static void test_err_duplicate_guid(void **state)
{
	(void)state;
	expect_error("switchguid=0x10\nSwitch 4 \"S1\"\n\n"
		     "switchguid=0x10\nSwitch 4 \"S2\"\n",
		     "x.net:5: node \"S2\" gets GUID 0x0000000000000010",
		     "\"S1\" declared at x.net:2");
	/* a CA and a switch may not share one either (ibsim refuses) */
	expect_error("caguid=0x200000\nCa 1 \"H1\"\n\nSwitch 4 \"S1\"\n",
		     "x.net:4: node \"S1\" gets GUID", "already");
}

static void test_err_num_ports(void **state)
{
	(void)state;
	expect_error("Switch 0 \"S1\"\n", "x.net:1: number of ports 0",
		     "out of range 1..254");
	expect_error("\nCa 255 \"H1\"\n", "x.net:2: number of ports 255",
		     "out of range 1..254");
	expect_error("Switch \"S1\"\n", "x.net:1: expected the number of ports",
		     "'\"S1\"'");
}

static void test_err_lid_range(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\" # \"s\" base port 0 lid 49152 lmc 0\n",
		     "x.net:1: LID 49152 out of range", "1..49151");
	expect_error("Switch 4 \"S1\" # \"s\" base port 0 lid 0xC000\n",
		     "x.net:1: LID 49152", "out of range");
	expect_error("Switch 4 \"S1\" # \"s\" base port 0 lid 5 lmc 8\n",
		     "x.net:1: LMC 8 out of range", "0..7");
	expect_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		     "[1] \"S1\"[1] # lid 50000 lmc 0 \"s\" lid 1 4xQDR\n",
		     "x.net:5: LID 50000 out of range", "");
	expect_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		     "[1] \"S1\"[1] # lid 4 lmc 9 \"s\" lid 1 4xQDR\n",
		     "x.net:5: LMC 9 out of range", "");
	expect_error("Switch 4 \"S1\" # \"s\" lid many\n",
		     "x.net:1: expected a number after \"lid\"", "many");
}

/* ibsim reads a CA port's LID only if "lid" also follows the last quote. */
static void test_err_lid_ibsim_drops(void **state)
{
	struct ibr_fabric *f;

	(void)state;
	expect_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		     "[1] \"S1\"[1] # lid 4 lmc 0 \"sw\"\n",
		     "x.net:5: expected \"lid N <width>x<speed>\"", "drops");
	/* no quote at all: ibsim takes it, so do we */
	f = read_ok("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n"
		    "[1] \"S1\"[1] # lid 4 lmc 0\n");
	assert_int_equal(ibr_port(f, 1, 1)->base_lid, 4);
	ibr_fabric_free(f);
}

static void test_err_port_twice(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n# c\n[1] \"S2\"[2]\n",
		     "x.net:4: port 1 of switch \"S1\" listed twice",
		     "first at x.net:2");
}

static void test_err_inconsistent_link(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\n"
		     "Switch 4 \"S2\"\n[1] \"S1\"[2]\n",
		     "x.net:5: port 1 of switch \"S2\" is linked to \"S1\"[2] here "
		     "but to \"S1\"[1] at x.net:2", "");
	expect_error("Switch 4 \"S1\"\n[1] \"S2\"[1]\n\n"
		     "Switch 4 \"S3\"\n[1] \"S2\"[1]\n\nSwitch 4 \"S2\"\n",
		     "x.net:5: port 1 of switch \"S2\" is linked to \"S1\"[1] at "
		     "x.net:2", "not to \"S3\"[1]");
	/* a CA cabled to itself; a switch's loopback is left out instead
	 * (test_loopback_left_out) */
	expect_error("Ca 2 \"H1\"\n[1] \"H1\"[2]\n",
		     "x.net:2: port 1 of CA \"H1\"", "its own node");
}

/* A loopback cable (a switch port cabled to another port of the same
 * switch) is listed once, with the file:line of its first port line, and
 * neither port is linked: routing never sees it.  A port cabled to itself
 * counts as one.  Written and read back, they are listed again.  A port
 * of a loopback linked elsewhere too is an error. */
static void test_loopback_left_out(void **state)
{
	struct ibr_fabric *f = read_ok(
		"Switch 6 \"S1\"\n"
		"[1] \"H1\"[1]\n"
		"[2] \"S2\"[1]\n"
		"[5] \"S1\"[3]\n"
		"[3] \"S1\"[5]\n"
		"[6] \"S1\"[6]\n"
		"\n"
		"Switch 4 \"S2\"\n"
		"[1] \"S1\"[2]\n"
		"[2] \"H2\"[1]\n"
		"\n"
		"Hca 1 \"H1\"\n[1] \"S1\"[1]\n\n"
		"Hca 1 \"H2\"\n[1] \"S2\"[2]\n");
	struct ibr_fabric *g;
	uint32_t s1;

	(void)state;
	finalize_ok(f, 0);
	s1 = f->loopbacks[0].node;
	assert_int_equal(f->num_loopbacks, 2);
	assert_string_equal(f->nodes[s1].desc, "S1");
	assert_int_equal(f->loopbacks[0].port, 3);
	assert_int_equal(f->loopbacks[0].peer_port, 5);
	assert_string_equal(f->loopbacks[0].origin, "ok.net:4");
	assert_int_equal(f->loopbacks[1].node, s1);
	assert_int_equal(f->loopbacks[1].port, 6);
	assert_int_equal(f->loopbacks[1].peer_port, 6);
	assert_string_equal(f->loopbacks[1].origin, "ok.net:6");
	for (unsigned p = 3; p <= 6; p++)
		assert_int_equal(ibr_port(f, s1, p)->remote_node, IBR_NONE);
	/* one inter-switch link each way, the cable S1[2]-S2[1] */
	assert_int_equal(f->sw_adj_start[f->num_switches], 2);
	/* written and read back, the loopbacks are there again */
	g = write_read(f, NULL);
	assert_same_fabric(f, g);
	assert_int_equal(g->num_loopbacks, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(g->loopbacks[i].node, f->loopbacks[i].node);
		assert_int_equal(g->loopbacks[i].port, f->loopbacks[i].port);
		assert_int_equal(g->loopbacks[i].peer_port,
				 f->loopbacks[i].peer_port);
	}
	ibr_fabric_free(g);
	ibr_fabric_free(f);

	expect_error("Switch 6 \"S1\"\n[3] \"S1\"[5]\n[5] \"S2\"[1]\n\n"
		     "Switch 4 \"S2\"\n",
		     "x.net:", "port 5 is linked twice");
	expect_error("Switch 6 \"S1\"\n[3] \"S1\"[5]\n[4] \"S1\"[5]\n",
		     "x.net:3: switch \"S1\" port 5 is linked twice", "own port 3");
}

static void test_err_garbage_after_header(void **state)
{
	(void)state;
	expect_error("Switch 4 \"S1\" lid 5\n",
		     "x.net:1: expected a # comment or the end of the line", "lid 5");
	expect_error("Ca 2 \"H1\" \"again\"\n",
		     "x.net:1: expected a # comment", "again");
	expect_error("Switch 4 S1\n", "x.net:1: expected a quoted node id",
		     "S1");
	expect_error("Switch 4 \"\"\n", "x.net:1: expected a node id", "");
}

static void test_err_not_supported(void **state)
{
	(void)state;
	/* a router is a CA, but ibsim counts router GUIDs from 0 */
	expect_error("Rt 2 \"R1\"\n", "x.net:1: node \"R1\" gets GUID 0",
		     "rtguid=");
	expect_error("include \"other.net\"\n", "x.net:1: include is not "
		     "supported", "");
	expect_error("# m\nmodule=\"m\"\n", "x.net:2: module is not supported",
		     "");
	expect_error("do dump\n", "x.net:1: do (ibsim commands) is not "
		     "supported", "");
	expect_error("Switch 4 \"S1\"\n@1 \"alias\"\n",
		     "x.net:2: port aliases", "not supported");
	expect_error("Switch 4 \"S1\"\n[1] \"a@S2\"[1]\n",
		     "x.net:2: node aliases", "not supported");
	expect_error("Switch 4 \"m#S1\"\n", "x.net:1: expected a node id "
		     "without '#'", "module");
}

/* Lines ibsim would read otherwise than they look are refused. */
static void test_err_ibsim_pitfalls(void **state)
{
	(void)state;
	/* S1 lists fewer ports than it has: ibsim swallows the next line */
	expect_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\nCa 1 \"H1\"\n"
		     "[1] \"S1\"[1]\n",
		     "x.net:3: expected a port line or a blank line to end the "
		     "record of switch \"S1\" (x.net:1)", "swallow");
	expect_error("Switch 4 \"S1\"\n[1] \"H1\" [2]\n",
		     "x.net:2: expected [port] right after the peer id",
		     "port 1");
	expect_error("  Switch 4 \"S1\"\n",
		     "x.net:1: expected a record", "indented");
	expect_error("Switch 1 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n",
		     "x.net:3: port line outside a record", "after its 1 ports");
	expect_error("[1] \"H1\"[1]\n", "x.net:1: expected a node header", "");
	expect_error("Switches 4 \"S1\"\n", "x.net:1: expected a Switch, Ca "
		     "or Hca record", "Switches");
}

static void test_err_directives(void **state)
{
	(void)state;
	expect_error("switchguid\n", "x.net:1: expected a GUID like "
		     "switchguid=", "end of the line");
	expect_error("caguid=0x10 junk\n", "x.net:1: expected a GUID like "
		     "caguid=", "junk");
	expect_error("switchguid=0x1ffffffffffffffff\n",
		     "x.net:1: expected a GUID", "");
	expect_error("width=0\n", "x.net:1: expected width=N with N in 1..31",
		     "");
	expect_error("vendid 5\n", "x.net:1: expected '=' after \"vendid\"", "");
}

static void test_err_nul_byte(void **state)
{
	struct ibr_error err;
	static const char text[] = "Switch 4 \"S1\"\n[1] \"S\0\"[1]\n";
	FILE *in = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct ibr_fabric *f;

	(void)state;
	memset(&err, 0, sizeof(err));
	f = ibr_fabric_read_stream(in, "x.net", &err);
	fclose(in);
	assert_null(f);
	assert_string_equal(err.msg, "x.net:2: expected text, found a NUL byte "
			    "at column 7");
}

static void test_err_missing_file(void **state)
{
	struct ibr_error err = { { 0 } };

	(void)state;
	assert_null(ibr_fabric_read_file("/nonexistent/fabric.net", &err));
	assert_non_null(strstr(err.msg, "/nonexistent/fabric.net: cannot open"));
}

/* Errors found later by finalize still point into the file. */
static void test_origin_in_finalize_errors(void **state)
{
	struct ibr_fabric *f = read_ok("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\n"
				       "Ca 1 \"H1\"\n\n# cut off\n"
				       "Switch 4 \"S2\"\n");
	struct ibr_error err = { { 0 } };

	(void)state;
	assert_int_equal(ibr_fabric_finalize(f, 0, &err), -1);
	assert_non_null(strstr(err.msg, "disconnected"));
	assert_non_null(strstr(err.msg, "ok.net:7"));
	ibr_fabric_free(f);
}

/* ---- fuzz ------------------------------------------------------------- */

static void fuzz_one(const char *src, size_t len)
{
	char *buf = malloc(len + 1);
	size_t cut = rnd() % (len + 1), flips = rnd() % 4;
	struct ibr_error err;
	struct ibr_fabric *f;
	FILE *in;

	memcpy(buf, src, len);
	for (size_t k = 0; k < flips && cut > 0; k++) {
		size_t at = rnd() % cut;
		buf[at] = rnd() % 3 ? (char)(rnd() & 0xff) : "[]\"#\n0 9"[rnd() % 8];
	}
	if (cut == 0) { /* fmemopen wants a non-empty buffer */
		buf[0] = '\n';
		cut = 1;
	}
	in = fmemopen(buf, cut, "r");
	assert_non_null(in);
	memset(&err, 0, sizeof(err));
	f = ibr_fabric_read_stream(in, "fuzz.net", &err);
	fclose(in);
	if (f) {
		assert_string_equal(err.msg, "");
		ibr_fabric_finalize(f, rnd() % 3, &err); /* may fail, no crash */
		ibr_fabric_free(f);
	} else {
		assert_true(strncmp(err.msg, "fuzz.net:", 9) == 0);
	}
	free(buf);
}

static void test_fuzz(void **state)
{
	struct ibr_fabric *f;
	char *written;

	(void)state;
	rng = 0x1234567;
	f = random_fabric(1);
	ibr_fabric_free(write_read(f, &written));
	ibr_fabric_free(f);
	rng = 0xfeedbeef;
	for (unsigned i = 0; i < 1500; i++) {
		fuzz_one(disc_net, sizeof(disc_net) - 1);
		fuzz_one(ibsim_net, sizeof(ibsim_net) - 1);
		fuzz_one(director_tabs, sizeof(director_tabs) - 1);
		fuzz_one(written, strlen(written));
	}
	free(written);
}

/* The fabric's GUID index: every node found as it is added (readers look
 * GUIDs up while building), misses and GUID 0 too, and of two nodes that
 * share a GUID the first. */
static void test_find_guid(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { "" };
	const uint32_t n = 5000; /* the index grows several times */
	uint64_t vendor = 0x0002c90300000000ull;

	(void)state;
	assert_int_equal(ibr_fabric_find_guid(f, 0), IBR_NONE);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t guid = i == 0 ? 0 : vendor + 8 * (uint64_t)i;
		assert_int_equal(ibr_fabric_add_node(f, IBR_NODE_CA, guid, 1,
						     NULL, NULL, &err), i);
		assert_int_equal(ibr_fabric_find_guid(f, guid), i);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t guid = i == 0 ? 0 : vendor + 8 * (uint64_t)i;
		assert_int_equal(ibr_fabric_find_guid(f, guid), i);
		assert_int_equal(ibr_fabric_find_guid(f, guid + 1), IBR_NONE);
	}
	assert_int_equal(ibr_fabric_add_node(f, IBR_NODE_SWITCH, vendor + 8, 4,
					     NULL, NULL, &err), n);
	assert_int_equal(ibr_fabric_find_guid(f, vendor + 8), 1);
	ibr_fabric_free(f);
}

/* The records of text (blank-line separated) in reverse order. */
static char *records_reversed(const char *text)
{
	size_t len = strlen(text), n = 0, at = 0;
	const char **start = malloc((len + 1) * sizeof(*start));
	size_t *size = malloc((len + 1) * sizeof(*size));
	char *out = malloc(2 * len + 2), *w = out;

	assert_non_null(start);
	assert_non_null(size);
	assert_non_null(out);
	while (at < len) {
		const char *end = strstr(text + at, "\n\n");
		size_t stop = end ? (size_t)(end - text) + 1 : len;
		if (stop > at) {
			start[n] = text + at;
			size[n++] = stop - at;
		}
		at = stop;
		while (at < len && text[at] == '\n')
			at++;
	}
	while (n-- > 0) {
		memcpy(w, start[n], size[n]);
		w += size[n];
		*w++ = '\n';
	}
	*w = '\0';
	free(start);
	free(size);
	return out;
}

/* The same fabric read from its records in another order: the same
 * switch indexes (ascending GUIDs), links, end ports and fingerprint,
 * though the node ids differ. */
static void test_record_order_changes_no_index(void **state)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f = NULL, *g, *other = NULL;
	char *text = NULL, *reversed;

	(void)state;
	if (ibr_load("gen:random:sw=16,ca=40,caports=2,seed=3", NULL, &f, NULL,
		     &err) ||
	    ibr_load("gen:random:sw=16,ca=40,caports=2,seed=4", NULL, &other,
		     NULL, &err))
		fail_msg("%s", err.msg);
	ibr_fabric_free(write_read(f, &text));
	reversed = records_reversed(text);
	g = read_ok(reversed);
	finalize_ok(g, f->lmc);
	assert_int_not_equal(f->sw_node[0], g->sw_node[0]);
	assert_int_equal(f->num_switches, g->num_switches);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		assert_int_equal(ibr_switch(f, s)->guid, ibr_switch(g, s)->guid);
		if (s > 0)
			assert_true(ibr_switch(f, s - 1)->guid <
				    ibr_switch(f, s)->guid);
		assert_int_equal(f->sw_adj_start[s + 1], g->sw_adj_start[s + 1]);
		assert_int_equal(f->sw_ca_start[s + 1], g->sw_ca_start[s + 1]);
	}
	for (uint32_t i = 0; i < f->sw_adj_start[f->num_switches]; i++) {
		assert_int_equal(f->sw_adj[i].peer, g->sw_adj[i].peer);
		assert_int_equal(f->sw_adj[i].port, g->sw_adj[i].port);
		assert_int_equal(f->sw_adj[i].peer_port, g->sw_adj[i].peer_port);
	}
	assert_int_equal(f->num_end_ports, g->num_end_ports);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *x = &f->end_ports[e];
		const struct ibr_end_port *y = &g->end_ports[e];
		assert_int_equal(f->nodes[x->node].guid, g->nodes[y->node].guid);
		assert_int_equal(x->port, y->port);
		assert_int_equal(x->sw, y->sw);
		assert_int_equal(x->sw_port, y->sw_port);
		assert_int_equal(f->sw_cas[e], g->sw_cas[e]);
	}
	assert_true(ibr_fabric_fingerprint(f) == ibr_fabric_fingerprint(g));
	assert_true(ibr_fabric_fingerprint(f) != ibr_fabric_fingerprint(other));
	free(text);
	free(reversed);
	ibr_fabric_free(f);
	ibr_fabric_free(g);
	ibr_fabric_free(other);
}

/* ---- hardening: limits, allocation failures, GUID 0, routers ------ */

/* Every allocation of a read, refused in turn: each refusal is an error
 * naming the file and line, never a fabric read short (an end of file). */
static void test_alloc_failure_is_an_error(void **state)
{
	static const char text[] =
		"switchguid=0x10\nSwitch 4 \"S1\" # \"s1\" lid 1\n"
		"[1] \"H1\"[1]\n[2] \"S2\"[1]\n\n"
		"Switch 4 \"S2\"\n[1] \"S1\"[2]\n[2] \"H2\"[1]\n\n"
		"Ca 1 \"H1\"\n[1](1234) \"S1\"[1]\n\nCa 1 \"H2\"\n[1] \"S2\"[2]\n";
	struct ibr_error err;
	struct ibr_fabric *f;
	long made;

	(void)state;
	failing_alloc_arm(-1);
	f = read_text("mem.net", text, &err);
	made = failing_alloc_disarm();
	assert_non_null(f);
	ibr_fabric_free(f);
	assert_true(made > 3);
	for (long i = 0; i < made; i++) {
		failing_alloc_arm(i);
		f = read_text("mem.net", text, &err);
		failing_alloc_disarm();
		if (f)
			fail_msg("allocation %ld of %ld refused, yet a fabric was "
				 "read", i, made);
		if (strncmp(err.msg, "mem.net:", 8) != 0 ||
		    !strstr(err.msg, "out of memory"))
			fail_msg("allocation %ld: \"%s\" names no file:line or no "
				 "lack of memory", i, err.msg);
	}
}

/* A line longer than IBR_MAX_LINE_BYTES stops there, at its number. */
static void test_line_limit(void **state)
{
	size_t len = IBR_MAX_LINE_BYTES + 100;
	char *text = malloc(len + 32);
	struct ibr_error err;

	(void)state;
	assert_non_null(text);
	strcpy(text, "# one\n# ");
	memset(text + 8, 'c', len - 8);
	text[len] = '\0';
	assert_null(read_text("long.net", text, &err));
	assert_string_equal(err.msg, "long.net:2: line longer than 65536 bytes, "
			    "the limit of ibrouting's readers");
	/* just under the limit: read, and the next line keeps its number */
	memset(text + 2, 'c', IBR_MAX_LINE_BYTES - 2);
	strcpy(text + IBR_MAX_LINE_BYTES, "\n\nSwitch x \"S\"\n");
	assert_null(read_text("long.net", text, &err));
	assert_true(strncmp(err.msg, "long.net:3: expected the number of ports",
			    40) == 0);
	free(text);
}

/* The file limit, lowered here: an endless stream stops at it. */
static void test_file_limit(void **state)
{
	static const char text[] = "#\n#\n#\n#\n#\n#\n";
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct ibr_error err = { "" };
	struct ibr_lines l;
	int rc;

	(void)state;
	ibr_lines_init(&l, in, "endless");
	l.max_bytes = 7;
	while ((rc = ibr_lines_next(&l, &err)) > 0)
		;
	assert_int_equal(rc, -1);
	assert_string_equal(err.msg, "endless:4: file larger than 7 bytes, the "
			    "limit of ibrouting's readers");
	ibr_lines_free(&l);
	fclose(in);
}

static void test_zero_guids_refused(void **state)
{
	(void)state;
	expect_error("switchguid=0\nSwitch 2 \"S\"\n", "x.net:1: GUID 0 is no "
		     "GUID", "switchguid");
	expect_error("caguid=0x0\n", "x.net:1: GUID 0 is no GUID", "caguid");
	expect_error("switchguid=0x5(0)\n", "x.net:1: GUID 0 is no GUID", "");
	expect_error("Switch 2 \"S\"\n[1](0) \"H\"[1]\n", "x.net:2: port GUID "
		     "(0) is no GUID", "");
	expect_error("Ca 1 \"H\"\n[1] \"S\"[1](0)\n", "x.net:2: peer port GUID "
		     "(0) is no GUID", "");
}

/* Routers are end ports (CAs), as the plugin takes OpenSM's; their GUIDs
 * count as ibsim counts them, from the last rtguid=. */
static void test_router_is_an_end_port(void **state)
{
	struct ibr_fabric *f;
	uint32_t r;

	(void)state;
	f = read_ok("Switch 2 \"S\"\n[1] \"R\"[1]\n[2] \"R2\"[1]\n\n"
		    "rtguid=0x40\nRt 1 \"R\"\n[1] \"S\"[1]\n\n"
		    "Rt 1 \"R2\"\n[1] \"S\"[2]\n");
	finalize_ok(f, 0);
	assert_int_equal(f->num_end_ports, 2);
	r = ibr_fabric_find_guid(f, 0x40);
	assert_int_not_equal(r, IBR_NONE);
	assert_int_equal(f->nodes[r].type, IBR_NODE_CA);
	assert_int_equal(ibr_port(f, r, 1)->guid, 0x41);
	assert_int_not_equal(ibr_fabric_find_guid(f, 0x42), IBR_NONE);
	ibr_fabric_free(f);
}

/* A disconnected file cut to one part, as OpenSM sees it: the SM's
 * (or --component's) switches, the CAs linked to them, in file order;
 * an unlinked CA and the other part are reported. */
static void test_keep_component(void **state)
{
	static const char text[] =
		"switchguid=0x10\nSwitch 2 \"A\"\n[1] \"H1\"[1]\n\n"
		"switchguid=0x20\nSwitch 3 \"B\"\n[1] \"H2\"[1]\n[2] \"C\"[1]\n"
		"[3] \"H1\"[2]\n\n"
		"switchguid=0x30\nSwitch 2 \"C\"\n\n"
		"caguid=0x100\nCa 2 \"H1\"\n\ncaguid=0x200\nCa 1 \"H2\"\n\n"
		"caguid=0x300\nCa 1 \"alone\"\n";
	struct ibr_left_out left;
	struct ibr_error err = { "" };
	struct ibr_fabric *f;

	(void)state;
	/* the first switch's part: A and H1 (whose port 2 leads to B's part:
	 * left unconnected, CAs are not walked through) */
	f = read_ok(text);
	assert_int_equal(ibr_fabric_keep_component(&f, 0, &left, &err), 0);
	assert_int_equal(f->num_nodes, 2);
	assert_int_equal(left.switches, 2);
	assert_int_equal(left.cas, 2);
	assert_int_equal(left.shown, 3);
	assert_int_equal(left.first[0], 0x20);
	assert_int_equal(left.first[2], 0x200);
	assert_int_equal(left.seed_guid, 0x10);
	assert_int_equal(ibr_port(f, 1, 2)->remote_node, IBR_NONE);
	finalize_ok(f, 0);
	assert_int_equal(f->num_end_ports, 1);
	ibr_fabric_free(f);

	/* the SM on H2: B, C, H1 and H2, in file order, the SM kept */
	f = read_ok(text);
	assert_int_equal(ibr_fabric_set_sm(f, 0x201, &err), 0);
	assert_int_equal(ibr_fabric_keep_component(&f, 0, &left, &err), 0);
	assert_int_equal(f->num_nodes, 4);
	assert_int_equal(f->nodes[0].guid, 0x20);
	assert_int_equal(f->nodes[3].guid, 0x200);
	assert_int_equal(f->sm_node, 3);
	assert_int_equal(left.switches + left.cas, 2);
	assert_string_equal(f->nodes[0].origin, "ok.net:6");
	finalize_ok(f, 0);
	assert_int_equal(f->num_switches, 2);
	assert_int_equal(f->num_end_ports, 2);
	ibr_fabric_free(f);

	/* --component of an unlinked CA, or of nothing */
	f = read_ok(text);
	assert_int_equal(ibr_fabric_keep_component(&f, 0x300, &left, &err), -1);
	assert_string_equal(err.msg, "ok.net:21: node 0x0000000000000300 "
			    "\"alone\" is linked to no switch: it has no part of "
			    "the fabric to route");
	memset(&err, 0, sizeof(err));
	assert_int_equal(ibr_fabric_keep_component(&f, 0x999, &left, &err), -1);
	assert_string_equal(err.msg, "0x0000000000000999: no such node or port "
			    "GUID in the fabric");
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_rates),
		cmocka_unit_test(test_keep_component),
		cmocka_unit_test(test_alloc_failure_is_an_error),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_file_limit),
		cmocka_unit_test(test_zero_guids_refused),
		cmocka_unit_test(test_router_is_an_end_port),
		cmocka_unit_test(test_find_guid),
		cmocka_unit_test(test_record_order_changes_no_index),
		cmocka_unit_test(test_reserve_moves_nothing),
		cmocka_unit_test(test_ibsim_guid_numbering),
		cmocka_unit_test(test_guid_directives),
		cmocka_unit_test(test_ids_are_not_guids),
		cmocka_unit_test(test_one_sided_links),
		cmocka_unit_test(test_tolerated_syntax),
		cmocka_unit_test(test_ibnetdiscover_output),
		cmocka_unit_test(test_capture_around_records),
		cmocka_unit_test(test_err_text_inside_records),
		cmocka_unit_test(test_lid_65535_is_no_lid),
		cmocka_unit_test(test_ibsim_blanks),
		cmocka_unit_test(test_tabs_lost),
		cmocka_unit_test(test_peer_port_guid),
		cmocka_unit_test(test_example_two_switch),
		cmocka_unit_test(test_example_ring6),
		cmocka_unit_test(test_write_format),
		cmocka_unit_test(test_write_rejects),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_round_trip_ibnetdiscover),
		cmocka_unit_test(test_err_port_range),
		cmocka_unit_test(test_err_unknown_peer),
		cmocka_unit_test(test_err_bad_port_line),
		cmocka_unit_test(test_err_truncated),
		cmocka_unit_test(test_err_duplicate_id),
		cmocka_unit_test(test_err_duplicate_guid),
		cmocka_unit_test(test_err_num_ports),
		cmocka_unit_test(test_err_lid_range),
		cmocka_unit_test(test_err_lid_ibsim_drops),
		cmocka_unit_test(test_err_port_twice),
		cmocka_unit_test(test_err_inconsistent_link),
		cmocka_unit_test(test_loopback_left_out),
		cmocka_unit_test(test_err_garbage_after_header),
		cmocka_unit_test(test_err_not_supported),
		cmocka_unit_test(test_err_ibsim_pitfalls),
		cmocka_unit_test(test_err_directives),
		cmocka_unit_test(test_err_nul_byte),
		cmocka_unit_test(test_err_missing_file),
		cmocka_unit_test(test_origin_in_finalize_errors),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
