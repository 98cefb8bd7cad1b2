/*
 * test_generate.c - the fabric generator: shape, counts, determinism and
 * spec errors for the random, clos, torus, fattree, kary and dfplus kinds,
 * the damage keys (broken, cut, down, isolate): exact counts, still
 * connected (finalize refuses a disconnected fabric), a function of the
 * seed; and the extras of the tree kinds (agg, spinehosts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibrouting/generate.h"
#include "ibrouting/topo_io.h"

/* Generates and finalizes (LMC 0): finalize checks connectivity. */
static struct ibr_fabric *gen_ok(const char *spec)
{
	struct ibr_error err = { { 0 } };
	struct ibr_fabric *f = ibr_generate(spec, &err);

	if (!f)
		fail_msg("%s: %s", spec, err.msg);
	if (ibr_fabric_finalize(f, 0, &err))
		fail_msg("%s: finalize: %s", spec, err.msg);
	return f;
}

static uint32_t count_type(const struct ibr_fabric *f, enum ibr_node_type t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		n += f->nodes[i].type == t;
	return n;
}

/* Inter-switch links, each counted once. */
static uint32_t sw_links(const struct ibr_fabric *f)
{
	return f->sw_adj_start[f->num_switches] / 2;
}

/* Links of switch s to switch t. */
static uint32_t links_between(const struct ibr_fabric *f, uint32_t s,
			      uint32_t t)
{
	uint32_t n = 0;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
		n += f->sw_adj[i].peer == t;
	return n;
}

static uint32_t parallel_links(const struct ibr_fabric *f)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			n += links_between(f, s, f->sw_adj[i].peer) > 1;
	return n / 2;
}

/* Every node within the ibsim port limit and of the expected radix; CA
 * ports spread evenly over the switches that have CAs at all. */
static void check_ports(const struct ibr_fabric *f, unsigned sw_ports,
			unsigned ca_ports)
{
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct ibr_node *n = &f->nodes[i];
		assert_true(n->num_ports >= 1 && n->num_ports <= IBR_MAX_PORTS);
		if (n->type == IBR_NODE_CA)
			assert_int_equal(n->num_ports, ca_ports);
		else if (sw_ports)
			assert_int_equal(n->num_ports, sw_ports);
	}
}

static void check_even_cas(const struct ibr_fabric *f, uint32_t first,
			   uint32_t count)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	for (uint32_t s = first; s < first + count; s++) {
		uint32_t n = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	assert_true(hi - lo <= 1);
}

/* 2-port CAs have their ports on two different switches. */
static void check_dual_homed(const struct ibr_fabric *f)
{
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		if (f->nodes[i].type != IBR_NODE_CA || f->nodes[i].num_ports != 2)
			continue;
		assert_int_not_equal(ibr_port(f, i, 1)->remote_node,
				     ibr_port(f, i, 2)->remote_node);
	}
}

/* ---- random --------------------------------------------------------- */

struct random_case {
	const char *spec;
	uint32_t sw, ca;
	unsigned deg, ports, caports;
	bool simple;              /* expect no parallel links */
};

static void test_random_shapes(void **state)
{
	static const struct random_case cases[] = {
		{ "random:sw=16,ca=128", 16, 128, 8, 36, 1, true },
		{ "random:sw=32,ca=256,seed=7", 32, 256, 8, 36, 1, true },
		{ "random:sw=64,ca=1024", 64, 1024, 8, 36, 1, true },
		{ "random:sw=17,ca=100,deg=5,ports=12", 17, 100, 5, 12, 1, true },
		{ "random:sw=64,ca=512,caports=2", 64, 512, 8, 36, 2, true },
		{ "random:sw=16,ca=160,deg=8,ports=18", 16, 160, 8, 18, 1, true },
		{ "random:sw=5,ca=10,deg=8", 5, 10, 8, 36, 1, false },
		{ "random:sw=2,deg=3", 2, 0, 3, 36, 1, false },
		{ "random:sw=3,deg=2,ports=2", 3, 0, 2, 2, 1, true },
		{ "random:sw=1,ca=3,deg=0", 1, 3, 0, 36, 1, true },
		{ "random:sw=9,ca=9,deg=3,ports=6,caports=2", 9, 9, 3, 6, 2, false },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct random_case *k = &cases[c];
		struct ibr_fabric *f = gen_ok(k->spec);
		double avg;
		assert_int_equal(count_type(f, IBR_NODE_SWITCH), k->sw);
		assert_int_equal(count_type(f, IBR_NODE_CA), k->ca);
		assert_int_equal(f->num_end_ports, k->ca * k->caports);
		avg = 2.0 * sw_links(f) / k->sw;
		if (avg < k->deg - 0.5 || avg > k->deg + 0.5)
			fail_msg("%s: average degree %.2f", k->spec, avg);
		check_ports(f, k->ports, k->caports);
		check_even_cas(f, 0, k->sw);
		check_dual_homed(f);
		if (k->simple && parallel_links(f))
			fail_msg("%s: %u parallel links", k->spec,
				 parallel_links(f));
		ibr_fabric_free(f);
	}
}

/* ibsim's numbering: switches 0x200000+i, CA i 0x100000+i*(ports+1). */
static void test_random_guids(void **state)
{
	struct ibr_fabric *f = gen_ok("random:sw=4,ca=6,caports=2");
	(void)state;

	assert_int_equal(f->nodes[0].guid, 0x200000);
	assert_int_equal(f->nodes[3].guid, 0x200003);
	assert_string_equal(f->nodes[3].desc, "sw3");
	assert_int_equal(f->nodes[4].guid, 0x100000);
	assert_int_equal(f->nodes[5].guid, 0x100003);
	assert_int_equal(ibr_port(f, 5, 2)->guid, 0x100005);
	assert_string_equal(f->nodes[9].desc, "ca5");
	ibr_fabric_free(f);
}

/* The biggest paper size, to keep an eye on cost (finalize not needed). */
static void test_random_large(void **state)
{
	struct ibr_error err = { { 0 } };
	struct ibr_fabric *f = ibr_generate("random:sw=1024,ca=16384", &err);
	uint32_t ends = 0;
	(void)state;

	if (!f)
		fail_msg("%s", err.msg);
	assert_int_equal(f->num_nodes, 1024 + 16384);
	for (uint32_t s = 0; s < 1024; s++)
		for (unsigned p = 1; p <= f->nodes[s].num_ports; p++) {
			uint32_t r = ibr_port(f, s, p)->remote_node;
			ends += r != IBR_NONE && f->nodes[r].type == IBR_NODE_SWITCH;
		}
	assert_int_equal(ends, 8 * 1024);
	ibr_fabric_free(f);
}

/* ---- clos ----------------------------------------------------------- */

struct clos_case {
	const char *spec;
	uint32_t leaf, spine, ca, uplinks, caports;
};

static void check_clos(const struct ibr_fabric *f, const struct clos_case *k)
{
	for (uint32_t s = 0; s < k->leaf + k->spine; s++) {
		const char *want = s < k->leaf ? "leaf" : "spine";
		assert_memory_equal(ibr_switch(f, s)->desc, want, strlen(want));
	}
	for (uint32_t l = 0; l < k->leaf; l++) {
		for (uint32_t t = 0; t < k->leaf; t++)
			assert_int_equal(links_between(f, l, t), 0);
		for (uint32_t p = 0; p < k->spine; p++)
			assert_int_equal(links_between(f, l, k->leaf + p),
					 k->uplinks);
	}
	for (uint32_t p = k->leaf; p < k->leaf + k->spine; p++) {
		assert_int_equal(f->sw_ca_start[p + 1] - f->sw_ca_start[p], 0);
		for (uint32_t t = k->leaf; t < k->leaf + k->spine; t++)
			assert_int_equal(links_between(f, p, t), 0);
	}
}

static void test_clos_shapes(void **state)
{
	static const struct clos_case cases[] = {
		{ "clos:leaf=4,spine=2,ca=16", 4, 2, 16, 1, 1 },
		{ "clos:leaf=16,spine=8,ca=256,uplinks=2", 16, 8, 256, 2, 1 },
		{ "clos:leaf=3,spine=5,ca=7,caports=2,seed=9", 3, 5, 7, 1, 2 },
		{ "clos:leaf=1,spine=1", 1, 1, 0, 1, 1 },
		{ "clos:spine=18,leaf=36,ca=648", 36, 18, 648, 1, 1 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct clos_case *k = &cases[c];
		struct ibr_fabric *f = gen_ok(k->spec);
		assert_int_equal(f->num_switches, k->leaf + k->spine);
		assert_int_equal(count_type(f, IBR_NODE_CA), k->ca);
		assert_int_equal(sw_links(f), k->leaf * k->spine * k->uplinks);
		check_ports(f, 0, k->caports);
		check_clos(f, k);
		check_even_cas(f, 0, k->leaf);
		check_dual_homed(f);
		ibr_fabric_free(f);
	}
}

/* ---- torus ---------------------------------------------------------- */

struct torus_case {
	const char *spec;
	unsigned dims[3], ndims, ca, broken, caports;
};

/* A ring of n > 2 has n links per line, a ring of 2 a single one. */
static uint32_t full_torus_links(const struct torus_case *k)
{
	uint32_t sw = 1, links = 0;

	for (unsigned d = 0; d < k->ndims; d++)
		sw *= k->dims[d];
	for (unsigned d = 0; d < k->ndims; d++)
		links += k->dims[d] > 2 ? sw : sw / 2;
	return links;
}

static void test_torus_shapes(void **state)
{
	static const struct torus_case cases[] = {
		{ "torus:dims=4x4", { 4, 4 }, 2, 1, 0, 1 },
		{ "torus:dims=2x3x4,ca=2", { 2, 3, 4 }, 3, 2, 0, 1 },
		{ "torus:dims=4x4x4,broken=10,seed=3", { 4, 4, 4 }, 3, 1, 10, 1 },
		{ "torus:dims=2x2,broken=1,ca=0", { 2, 2 }, 2, 0, 1, 1 },
		{ "torus:dims=8x8,broken=65", { 8, 8 }, 2, 1, 65, 1 },
		{ "torus:dims=3x5,ca=3,caports=2,broken=4", { 3, 5 }, 2, 3, 4, 2 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct torus_case *k = &cases[c];
		struct ibr_fabric *f = gen_ok(k->spec);
		uint32_t sw = 1;
		for (unsigned d = 0; d < k->ndims; d++)
			sw *= k->dims[d];
		assert_int_equal(f->num_switches, sw);
		assert_int_equal(count_type(f, IBR_NODE_CA), sw * k->ca);
		assert_int_equal(sw_links(f), full_torus_links(k) - k->broken);
		check_ports(f, 2 * k->ndims + k->ca * k->caports, k->caports);
		check_even_cas(f, 0, sw);
		check_dual_homed(f);
		if (!k->broken)
			assert_int_equal(parallel_links(f), 0);
		ibr_fabric_free(f);
	}
}

/* Switch (x,y,z) is node x+X*(y+Y*z); +x leaves on port 1, -x on port 2. */
static void test_torus_layout(void **state)
{
	struct ibr_fabric *f = gen_ok("torus:dims=3x2x2");
	(void)state;

	assert_string_equal(f->nodes[1].desc, "sw(1,0,0)");
	assert_string_equal(f->nodes[11].desc, "sw(2,1,1)");
	assert_int_equal(ibr_port(f, 0, 1)->remote_node, 1);
	assert_int_equal(ibr_port(f, 0, 1)->remote_port, 2);
	assert_int_equal(ibr_port(f, 0, 2)->remote_node, 2);
	assert_int_equal(ibr_port(f, 0, 3)->remote_node, 3);
	assert_int_equal(ibr_port(f, 0, 4)->remote_node, IBR_NONE);
	assert_int_equal(ibr_port(f, 3, 4)->remote_node, 0);
	assert_int_equal(ibr_port(f, 0, 5)->remote_node, 6);
	assert_int_equal(f->nodes[ibr_port(f, 0, 7)->remote_node].type,
			 IBR_NODE_CA);
	ibr_fabric_free(f);
}

/* ---- determinism ---------------------------------------------------- */

static bool same_fabric(const struct ibr_fabric *a, const struct ibr_fabric *b)
{
	if (a->num_nodes != b->num_nodes || a->num_ports != b->num_ports)
		return false;
	for (uint32_t i = 0; i < a->num_nodes; i++)
		if (a->nodes[i].guid != b->nodes[i].guid ||
		    a->nodes[i].num_ports != b->nodes[i].num_ports ||
		    strcmp(a->nodes[i].desc, b->nodes[i].desc) != 0)
			return false;
	for (uint32_t p = 0; p < a->num_ports; p++)
		if (a->ports[p].guid != b->ports[p].guid ||
		    a->ports[p].remote_node != b->ports[p].remote_node ||
		    a->ports[p].remote_port != b->ports[p].remote_port)
			return false;
	return true;
}

/* m-port n-trees: (2n-1) (m/2)^(n-1) switches of m ports, 2 (m/2)^n
 * machines, one per leaf down port, (n-1) m (m/2)^(n-1) links less the
 * broken ones; every level but the roots links up to m/2 parents; an
 * 8-port 3-tree is the LID paper's: 80 switches, 128 machines. */
static void test_fattree_shapes(void **state)
{
	static const struct { const char *spec; unsigned m, n, broken; } cases[] = {
		{ "fattree:ports=8,levels=3", 8, 3, 0 },
		{ "fattree:ports=4,levels=2", 4, 2, 0 },
		{ "fattree:ports=6,levels=4,broken=5,seed=2", 6, 4, 5 },
		{ "fattree:ports=8,levels=3,broken=4,seed=7", 8, 3, 4 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		unsigned h = cases[c].m / 2, n = cases[c].n;
		uint32_t hp = 1, roots, leaves_from;
		for (unsigned i = 0; i + 1 < n; i++)
			hp *= h;
		roots = hp;
		leaves_from = roots + (n - 2) * hp * 2;
		assert_int_equal(f->num_switches, (2 * n - 1) * hp);
		assert_int_equal(count_type(f, IBR_NODE_CA), 2 * hp * h);
		assert_int_equal(sw_links(f), (n - 1) * 2 * hp * h - cases[c].broken);
		check_ports(f, cases[c].m, 1);
		/* machines only on leaves, m/2 each */
		for (uint32_t s = 0; s < f->num_switches; s++)
			assert_int_equal(f->sw_ca_start[s + 1] - f->sw_ca_start[s],
					 s >= leaves_from ? h : 0);
		if (!cases[c].broken)
			assert_int_equal(parallel_links(f), 0);
		ibr_fabric_free(f);
	}
	{
		struct ibr_fabric *f = gen_ok("fattree:ports=8,levels=3");
		assert_int_equal(f->num_switches, 80);
		assert_int_equal(count_type(f, IBR_NODE_CA), 128);
		ibr_fabric_free(f);
	}
}

static void test_determinism(void **state)
{
	static const char *const specs[][2] = {
		{ "random:sw=64,ca=512,seed=5", "random:sw=64,ca=512,seed=6" },
		{ "random:sw=5,ca=10,deg=8,seed=5", "random:sw=5,ca=10,deg=8" },
		{ "clos:leaf=8,spine=4,ca=60,seed=5", "clos:leaf=8,spine=4,ca=60" },
		{ "torus:dims=4x4x4,broken=5,seed=5", "torus:dims=4x4x4,broken=5" },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(specs) / sizeof(specs[0]); c++) {
		struct ibr_fabric *a = gen_ok(specs[c][0]);
		struct ibr_fabric *b = gen_ok(specs[c][0]);
		struct ibr_fabric *other = gen_ok(specs[c][1]);
		if (!same_fabric(a, b))
			fail_msg("%s: two generations differ", specs[c][0]);
		if (same_fabric(a, other))
			fail_msg("%s and %s are identical", specs[c][0],
				 specs[c][1]);
		ibr_fabric_free(a);
		ibr_fabric_free(b);
		ibr_fabric_free(other);
	}
}

/* ---- net files: the generated fabric as the CLI writes it ------------ */

/* The fabric as `ibrouting generate SPEC` prints it, after checking that
 * reading that text back and writing it again gives the same bytes. */
static char *net_text(const char *spec)
{
	struct ibr_error err = { { 0 } };
	struct ibr_fabric *f = gen_ok(spec), *back;
	char *text = NULL, *again = NULL;
	size_t len = 0, len2 = 0;
	FILE *out = open_memstream(&text, &len), *in;

	assert_non_null(out);
	if (ibr_fabric_write_net(f, out, &err))
		fail_msg("%s: write: %s", spec, err.msg);
	fclose(out);
	ibr_fabric_free(f);
	in = fmemopen(text, len, "r");
	assert_non_null(in);
	back = ibr_fabric_read_stream(in, spec, &err);
	fclose(in);
	if (!back || ibr_fabric_finalize(back, 0, &err))
		fail_msg("%s: read back: %s", spec, err.msg);
	out = open_memstream(&again, &len2);
	assert_non_null(out);
	assert_int_equal(ibr_fabric_write_net(back, out, &err), 0);
	fclose(out);
	ibr_fabric_free(back);
	if (len != len2 || memcmp(text, again, len) != 0)
		fail_msg("%s: the written file does not round-trip", spec);
	free(again);
	return text;
}

/* Same spec: byte-identical files; `other` (another seed): different. */
static void check_seeded(const char *spec, const char *other)
{
	char *a = net_text(spec), *b = net_text(spec), *c = net_text(other);

	if (strcmp(a, b) != 0)
		fail_msg("%s: two generations differ", spec);
	if (strcmp(a, c) == 0)
		fail_msg("%s and %s are identical", spec, other);
	free(a);
	free(b);
	free(c);
}

/* ---- kary ----------------------------------------------------------- */

static uint32_t ipow(uint32_t b, unsigned e)
{
	uint32_t r = 1;

	while (e--)
		r *= b;
	return r;
}

static uint32_t count_desc(const struct ibr_fabric *f, const char *prefix)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		n += strncmp(f->nodes[i].desc, prefix, strlen(prefix)) == 0;
	return n;
}

/* "kary L<l> S<pos>" of switch s. */
static void kary_label(const struct ibr_fabric *f, uint32_t s, unsigned *l,
		       unsigned *pos)
{
	if (sscanf(ibr_switch(f, s)->desc, "kary L%u S%u", l, pos) != 2)
		fail_msg("switch %u: description \"%s\"", s,
			 ibr_switch(f, s)->desc);
}

/* Digit d of position pos in base k. */
static unsigned digit(unsigned pos, unsigned k, unsigned d)
{
	return pos / ipow(k, d) % k;
}

/* Every port of every switch against the k-ary n-tree's rules: down ports
 * 1..k to level l+1 (CAs on the leaves), up ports k+1..2k to level l-1 and
 * dark on the top, each link joining labels that differ in the upper
 * level's digit only, on the ports those digits name.  Returns the dark
 * switch ports other than the top's up ports (2 per cut link). */
static uint32_t check_kary_ports(const struct ibr_fabric *f, unsigned k,
				 unsigned n)
{
	uint32_t dark = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		unsigned l, pos;
		kary_label(f, s, &l, &pos);
		assert_int_equal(ibr_switch(f, s)->num_ports, 2 * k);
		assert_int_equal(f->sw_ca_start[s + 1] - f->sw_ca_start[s],
				 l == n - 1 ? k : 0);
		for (unsigned p = 1; p <= 2 * k; p++) {
			const struct ibr_port *pt = ibr_port(f, s, p);
			unsigned pl, ppos, up = p > k, x = (p - 1) % k;
			if (up && l == 0) {
				assert_int_equal(pt->remote_node, IBR_NONE);
				continue;
			}
			if (pt->remote_node == IBR_NONE) {
				dark++;
				continue;
			}
			if (!up && l == n - 1) {
				assert_int_equal(f->nodes[pt->remote_node].type,
						 IBR_NODE_CA);
				continue;
			}
			kary_label(f, pt->remote_node, &pl, &ppos);
			assert_int_equal(pl, up ? l - 1 : l + 1);
			/* the digit of the upper level's own index differs */
			for (unsigned d = 0; d + 1 < n; d++)
				if (d != (up ? pl : l))
					assert_int_equal(digit(pos, k, d),
							 digit(ppos, k, d));
			assert_int_equal(digit(ppos, k, up ? pl : l), x);
			assert_int_equal(pt->remote_port,
					 (up ? 1 : k + 1) + digit(pos, k, up ? pl : l));
		}
	}
	return dark;
}

/* n levels of k^(n-1) switches, k^n CAs, (n-1) k^n links. */
static void test_kary_shapes(void **state)
{
	static const struct { const char *spec; unsigned k, n, sw, ca; } cases[] = {
		{ "kary:k=4,n=3", 4, 3, 48, 64 },
		{ "kary:k=8,n=3", 8, 3, 192, 512 },
		{ "kary:k=4,n=2", 4, 2, 8, 16 },
		{ "kary:n=4,k=3", 3, 4, 108, 81 },
		{ "kary:k=2,n=6", 2, 6, 192, 64 },
		{ "kary:k=127,n=2", 127, 2, 254, 16129 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned k = cases[c].k, n = cases[c].n;
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		uint32_t per = ipow(k, n - 1);
		assert_int_equal(f->num_switches, cases[c].sw);
		assert_int_equal(f->num_switches, n * per);
		assert_int_equal(count_type(f, IBR_NODE_CA), cases[c].ca);
		assert_int_equal(sw_links(f), (n - 1) * per * k);
		check_ports(f, 2 * k, 1);
		assert_int_equal(parallel_links(f), 0);
		assert_int_equal(check_kary_ports(f, k, n), 0);
		/* the top level first, by position */
		for (uint32_t s = 0; s < f->num_switches; s++) {
			unsigned l, pos;
			kary_label(f, s, &l, &pos);
			assert_int_equal(l, s / per);
			assert_int_equal(pos, s % per);
		}
		ibr_fabric_free(f);
	}
}

/* ibsim's numbering, as the other kinds: switches by level, then CAs. */
static void test_kary_guids(void **state)
{
	struct ibr_fabric *f = gen_ok("kary:k=4,n=2");
	(void)state;

	assert_int_equal(f->nodes[0].guid, 0x200000);
	assert_string_equal(f->nodes[0].desc, "kary L0 S0");
	assert_string_equal(f->nodes[3].desc, "kary L0 S3");
	assert_string_equal(f->nodes[4].desc, "kary L1 S0");
	assert_int_equal(f->nodes[7].guid, 0x200007);
	assert_int_equal(f->nodes[8].guid, 0x100000);
	assert_string_equal(f->nodes[8].desc, "ca0");
	assert_int_equal(f->nodes[9].guid, 0x100002);
	/* CA i on leaf i mod 4, port i / 4 + 1 */
	assert_int_equal(ibr_port(f, 9, 1)->remote_node, 5);
	assert_int_equal(ibr_port(f, 9, 1)->remote_port, 1);
	assert_int_equal(ibr_port(f, 8 + 15, 1)->remote_node, 7);
	assert_int_equal(ibr_port(f, 8 + 15, 1)->remote_port, 4);
	ibr_fabric_free(f);
}

/* cut=N: N links fewer, both ends of each dark, still connected; the
 * seed picks which. */
static void test_kary_cut(void **state)
{
	static const struct { const char *spec; unsigned k, n, cut; } cases[] = {
		{ "kary:k=4,n=3,cut=2,seed=1", 4, 3, 2 },
		{ "kary:k=4,n=3,cut=2,seed=2", 4, 3, 2 },
		{ "kary:k=8,n=3,cut=100,seed=5", 8, 3, 100 },
		{ "kary:k=2,n=2,cut=1", 2, 2, 1 },
		/* 48 switches, 128 links: a spanning tree keeps 47 */
		{ "kary:k=4,n=3,cut=81", 4, 3, 81 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned k = cases[c].k, n = cases[c].n;
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		uint32_t per = ipow(k, n - 1);
		assert_int_equal(f->num_switches, n * per);
		assert_int_equal(count_type(f, IBR_NODE_CA), per * k);
		assert_int_equal(sw_links(f), (n - 1) * per * k - cases[c].cut);
		assert_int_equal(check_kary_ports(f, k, n), 2 * cases[c].cut);
		ibr_fabric_free(f);
	}
	check_seeded("kary:k=4,n=3,cut=2,seed=1", "kary:k=4,n=3,cut=2,seed=2");
	check_seeded("kary:k=8,n=3,cut=7,seed=9", "kary:k=8,n=3,cut=7");
	/* no damage, no dependence on the seed */
	{
		char *a = net_text("kary:k=4,n=3"), *b = net_text("kary:k=4,n=3,seed=8");
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/* down=N: N top-level switches gone with their k links each; the others
 * keep their names and order, the leaves all their CAs. */
static void test_kary_down(void **state)
{
	static const struct { const char *spec; unsigned k, n, down, cut; } cases[] = {
		{ "kary:k=4,n=3,down=1", 4, 3, 1, 0 },
		{ "kary:k=4,n=3,down=1,seed=4", 4, 3, 1, 0 },
		{ "kary:k=4,n=3,down=15", 4, 3, 15, 0 },
		{ "kary:k=8,n=3,down=10,cut=20,seed=3", 8, 3, 10, 20 },
		{ "kary:k=4,n=2,down=3", 4, 2, 3, 0 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned k = cases[c].k, n = cases[c].n, down = cases[c].down;
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		uint32_t per = ipow(k, n - 1), top = per - down;
		int last = -1;
		assert_int_equal(f->num_switches, n * per - down);
		assert_int_equal(count_desc(f, "kary L0 "), top);
		assert_int_equal(count_type(f, IBR_NODE_CA), per * k);
		assert_int_equal(sw_links(f),
				 (n - 1) * per * k - down * k - cases[c].cut);
		/* down ports of the dead switches' children are dark too */
		assert_int_equal(check_kary_ports(f, k, n),
				 down * k + 2 * cases[c].cut);
		for (uint32_t s = 0; s < top; s++) {
			unsigned l, pos;
			kary_label(f, s, &l, &pos);
			assert_int_equal(l, 0);
			assert_true((int)pos > last);
			last = (int)pos;
			if (!cases[c].cut)
				assert_int_equal(f->sw_adj_start[s + 1] -
						 f->sw_adj_start[s], k);
		}
		ibr_fabric_free(f);
	}
	check_seeded("kary:k=4,n=3,down=1", "kary:k=4,n=3,down=1,seed=4");
}

/* ---- clos: oversubscription and damage -------------------------------- */

/* oversub=R: R * spine * uplinks CA ports on every leaf, whose radix is
 * exactly its uplinks plus those. */
static void test_clos_oversub(void **state)
{
	static const struct {
		const char *spec;
		unsigned leaf, spine, up, r, caports;
	} cases[] = {
		{ "clos:leaf=8,spine=4,oversub=1", 8, 4, 1, 1, 1 },
		{ "clos:leaf=8,spine=4,oversub=2", 8, 4, 1, 2, 1 },
		{ "clos:leaf=4,spine=3,uplinks=2,oversub=3,seed=4", 4, 3, 2, 3, 1 },
		{ "clos:leaf=4,spine=2,oversub=2,caports=2", 4, 2, 1, 2, 2 },
		{ "clos:leaf=36,spine=18,oversub=1", 36, 18, 1, 1, 1 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		unsigned leaf = cases[c].leaf, up = cases[c].spine * cases[c].up;
		unsigned hosts = cases[c].r * up;
		assert_int_equal(f->num_switches, leaf + cases[c].spine);
		assert_int_equal(count_type(f, IBR_NODE_CA),
				 leaf * hosts / cases[c].caports);
		assert_int_equal(sw_links(f), leaf * up);
		for (uint32_t s = 0; s < leaf; s++) {
			assert_int_equal(f->sw_ca_start[s + 1] - f->sw_ca_start[s],
					 hosts);
			assert_int_equal(ibr_switch(f, s)->num_ports, up + hosts);
		}
		check_dual_homed(f);
		ibr_fabric_free(f);
	}
}

/* down removes spines (the others keep their names), cut links; the
 * leaves keep their ports, dark where a cable went. */
static void test_clos_damage(void **state)
{
	static const struct {
		const char *spec;
		unsigned leaf, spine, up, down, cut;
	} cases[] = {
		{ "clos:leaf=4,spine=4,oversub=1,down=2", 4, 4, 1, 2, 0 },
		{ "clos:leaf=8,spine=4,ca=60,cut=5,seed=2", 8, 4, 1, 0, 5 },
		{ "clos:leaf=6,spine=3,uplinks=2,oversub=2,down=1,cut=4", 6, 3, 2,
		  1, 4 },
		{ "clos:leaf=2,spine=2,cut=1", 2, 2, 1, 0, 1 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		unsigned leaf = cases[c].leaf, spine = cases[c].spine;
		unsigned up = spine * cases[c].up, down = cases[c].down;
		int last = -1;
		assert_int_equal(f->num_switches, leaf + spine - down);
		assert_int_equal(count_desc(f, "spine"), spine - down);
		assert_int_equal(sw_links(f), leaf * up -
				 down * leaf * cases[c].up - cases[c].cut);
		for (uint32_t s = leaf; s < f->num_switches; s++) {
			unsigned pos;
			assert_int_equal(sscanf(ibr_switch(f, s)->desc, "spine%u",
						&pos), 1);
			assert_true((int)pos > last && pos < spine);
			last = (int)pos;
		}
		for (uint32_t s = 0; s < leaf; s++)
			assert_true(ibr_switch(f, s)->num_ports >= up);
		ibr_fabric_free(f);
	}
	check_seeded("clos:leaf=8,spine=4,oversub=1,cut=3,down=1,seed=1",
		     "clos:leaf=8,spine=4,oversub=1,cut=3,down=1,seed=2");
	/* damage drawn after the CA placement: undamaged specs unchanged */
	{
		struct ibr_fabric *a = gen_ok("clos:leaf=8,spine=4,ca=60,seed=5");
		struct ibr_fabric *b = gen_ok("clos:leaf=8,spine=4,ca=60,seed=5,"
					      "cut=0,down=0");
		assert_true(same_fabric(a, b));
		ibr_fabric_free(a);
		ibr_fabric_free(b);
	}
}

/* ---- extras: aggregation nodes, spine hosts ------------------------- */

#define AGG_DESC "Mellanox Technologies Aggregation Node"

/* agg=1: every switch has exactly one aggregation node, on its last port,
 * and those are the CAs from node `first` on, a 1-port CA each. */
static void check_agg(const struct ibr_fabric *f, uint32_t first)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct ibr_node *sw = ibr_switch(f, s);
		uint32_t aggs = 0;
		for (unsigned p = 1; p <= sw->num_ports; p++) {
			uint32_t r = ibr_port(f, f->sw_node[s], p)->remote_node;
			if (r == IBR_NONE || strcmp(f->nodes[r].desc, AGG_DESC))
				continue;
			aggs++;
			assert_int_equal(p, sw->num_ports);
			assert_int_equal(f->nodes[r].type, IBR_NODE_CA);
			assert_int_equal(f->nodes[r].num_ports, 1);
			assert_true(r >= first);
		}
		assert_int_equal(aggs, 1);
	}
	assert_int_equal(count_desc(f, AGG_DESC), f->num_switches);
	assert_int_equal(f->num_nodes - first, f->num_switches);
}

/* CA nodes [first, first + n): on switches described `top`..., round
 * robin: the i-th on the (i mod tops)-th of them in node order, on a
 * port above `after`. */
static void check_spinehosts(const struct ibr_fabric *f, uint32_t first,
			     uint32_t n, const char *top, unsigned after)
{
	uint32_t tops = 0, top0 = IBR_NONE;

	for (uint32_t s = 0; s < f->num_switches; s++)
		if (strncmp(ibr_switch(f, s)->desc, top, strlen(top)) == 0) {
			top0 = top0 == IBR_NONE ? f->sw_node[s] : top0;
			tops++;
		}
	assert_true(tops > 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct ibr_node *ca = &f->nodes[first + i];
		const struct ibr_port *pt = ibr_port(f, first + i, 1);
		assert_int_equal(ca->type, IBR_NODE_CA);
		assert_memory_equal(ca->desc, "ca", 2);
		assert_int_equal(pt->remote_node, top0 + i % tops);
		assert_true(pt->remote_port > after);
	}
}

static void test_agg(void **state)
{
	static const struct { const char *spec, *plain; uint32_t hosts; } cases[] = {
		{ "clos:leaf=4,spine=2,ca=16,agg=1", "clos:leaf=4,spine=2,ca=16",
		  16 },
		{ "clos:leaf=6,spine=3,oversub=1,down=1,cut=2,agg=1",
		  "clos:leaf=6,spine=3,oversub=1,down=1,cut=2", 18 },
		{ "clos:leaf=4,spine=2,ca=6,caports=2,agg=1",
		  "clos:leaf=4,spine=2,ca=6,caports=2", 6 },
		{ "kary:k=4,n=3,agg=1", "kary:k=4,n=3", 64 },
		{ "kary:k=4,n=3,down=3,agg=1", "kary:k=4,n=3,down=3", 64 },
		{ "fattree:agg=1", "fattree", 128 },
		{ "clos:leaf=4,spine=2,ca=8,spinehosts=3,agg=1",
		  "clos:leaf=4,spine=2,ca=8,spinehosts=3", 11 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		struct ibr_fabric *p = gen_ok(cases[c].plain);
		uint32_t first = f->num_switches + cases[c].hosts;
		assert_int_equal(count_type(f, IBR_NODE_CA),
				 cases[c].hosts + f->num_switches);
		assert_int_equal(f->num_switches, p->num_switches);
		check_agg(f, first);
		/* the rest as without agg, every switch one port more */
		for (uint32_t i = 0; i < p->num_nodes; i++) {
			assert_int_equal(f->nodes[i].guid, p->nodes[i].guid);
			assert_int_equal(f->nodes[i].num_ports,
					 p->nodes[i].num_ports +
					 (i < p->num_switches));
			for (unsigned q = 1; q <= p->nodes[i].num_ports; q++)
				assert_int_equal(ibr_port(f, i, q)->remote_node,
						 ibr_port(p, i, q)->remote_node);
		}
		ibr_fabric_free(f);
		ibr_fabric_free(p);
	}
	/* GUIDs on from the hosts' */
	{
		struct ibr_fabric *f = gen_ok("kary:k=2,n=2,agg=1");
		assert_int_equal(f->nodes[4 + 4].guid, 0x100008);
		assert_string_equal(f->nodes[4 + 4].desc, AGG_DESC);
		assert_int_equal(ibr_port(f, 4 + 4, 1)->remote_node, 0);
		assert_int_equal(ibr_port(f, 4 + 4, 1)->remote_port, 5);
		ibr_fabric_free(f);
	}
}

static void test_spinehosts(void **state)
{
	(void)state;
	{	/* spines: ports 1..leaf*uplinks to the leaves, hosts after */
		struct ibr_fabric *f = gen_ok("clos:leaf=4,spine=3,ca=8,"
					      "uplinks=2,spinehosts=7");
		assert_int_equal(count_type(f, IBR_NODE_CA), 15);
		check_spinehosts(f, 7 + 8, 7, "spine", 8);
		assert_int_equal(ibr_switch(f, 4)->num_ports, 8 + 3);
		assert_string_equal(f->nodes[7 + 8].desc, "ca8");
		assert_int_equal(f->nodes[7 + 8].guid, 0x100000 + 8 * 2);
		ibr_fabric_free(f);
	}
	{	/* the spines left after down */
		struct ibr_fabric *f = gen_ok("clos:leaf=4,spine=4,oversub=1,"
					      "down=2,spinehosts=5,seed=3");
		check_spinehosts(f, 6 + 16, 5, "spine", 4);
		ibr_fabric_free(f);
	}
	{	/* 2-port storage on two spines */
		struct ibr_fabric *f = gen_ok("clos:leaf=2,spine=2,ca=2,caports=2,"
					      "spinehosts=2");
		check_dual_homed(f);
		ibr_fabric_free(f);
	}
	{	/* kary: the dark up ports k+1..2k first */
		struct ibr_fabric *f = gen_ok("kary:k=4,n=3,spinehosts=32");
		check_spinehosts(f, 48 + 64, 32, "kary L0 ", 4);
		for (uint32_t s = 0; s < f->num_switches; s++)
			assert_int_equal(ibr_switch(f, s)->num_ports, 8);
		ibr_fabric_free(f);
	}
	{	/* ... then beyond 2k */
		struct ibr_fabric *f = gen_ok("kary:k=2,n=3,spinehosts=9,down=1");
		check_spinehosts(f, 11 + 8, 9, "kary L0 ", 2);
		assert_int_equal(ibr_switch(f, 0)->num_ports, 2 + 3);
		assert_int_equal(ibr_switch(f, 3)->num_ports, 4);
		ibr_fabric_free(f);
	}
	{	/* fattree: roots' ports m+1.. */
		struct ibr_fabric *f = gen_ok("fattree:ports=4,levels=3,"
					      "spinehosts=6");
		check_spinehosts(f, 20 + 16, 6, "level0-", 4);
		ibr_fabric_free(f);
	}
	check_seeded("clos:leaf=4,spine=4,oversub=1,down=1,spinehosts=3,agg=1",
		     "clos:leaf=4,spine=4,oversub=1,down=1,spinehosts=3,agg=1,"
		     "seed=2");
}

/* ---- dfplus --------------------------------------------------------- */

struct df_switch {
	unsigned group, index;
	bool spine;
};

/* "dfplus g<group> leaf|spine <index>" of node n. */
static struct df_switch df_label(const struct ibr_fabric *f, uint32_t n)
{
	struct df_switch d = { 0, 0, false };
	char role[8];

	if (sscanf(f->nodes[n].desc, "dfplus g%u %7s %u", &d.group, role,
		   &d.index) != 3 || (strcmp(role, "leaf") && strcmp(role, "spine")))
		fail_msg("node %u: description \"%s\"", n, f->nodes[n].desc);
	d.spine = role[0] == 's';
	return d;
}

struct df_shape {
	uint32_t globals;          /* inter-group links */
	uint32_t pair_links[32][32];
	uint32_t spine_globals[32][16]; /* per group and spine index */
	bool spine_up[32][16];
};

/* Every link of every switch against the Dragonfly+ rules: a leaf links to
 * spines of its group only, on port (spine index + 1), exactly once each,
 * and its hosts follow on ports S+1..; a spine links to its group's
 * leaves on port (leaf index + 1) and to spines of other groups above port
 * L.  Counts the global links per group pair and per spine. */
static void check_dfplus(const struct ibr_fabric *f, unsigned groups,
			 unsigned leaves, unsigned spines, unsigned hosts,
			 struct df_shape *sh)
{
	memset(sh, 0, sizeof(*sh));
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t node = f->sw_node[s];
		struct df_switch d = df_label(f, node);
		uint32_t cas = 0;
		assert_true(d.group < groups);
		assert_true(d.index < (d.spine ? spines : leaves));
		if (d.spine)
			sh->spine_up[d.group][d.index] = true;
		else
			assert_true(s < groups * leaves);  /* leaves first */
		for (unsigned p = 1; p <= f->nodes[node].num_ports; p++) {
			const struct ibr_port *pt = ibr_port(f, node, p);
			struct df_switch r;
			if (pt->remote_node == IBR_NONE)
				continue;
			if (f->nodes[pt->remote_node].type == IBR_NODE_CA) {
				if (strcmp(f->nodes[pt->remote_node].desc, AGG_DESC))
					assert_false(d.spine);
				cas += !d.spine;
				continue;
			}
			r = df_label(f, pt->remote_node);
			if (!d.spine) {
				assert_true(r.spine);
				assert_int_equal(r.group, d.group);
				assert_int_equal(p, r.index + 1);
				assert_int_equal(pt->remote_port, d.index + 1);
				continue;
			}
			if (!r.spine) {
				assert_int_equal(r.group, d.group);
				assert_int_equal(p, r.index + 1);
				continue;
			}
			assert_int_not_equal(r.group, d.group);
			assert_true(p > leaves);
			sh->spine_globals[d.group][d.index]++;
			if (d.group < r.group) {
				sh->pair_links[d.group][r.group]++;
				sh->globals++;
			}
		}
		/* hosts, perhaps an aggregation node */
		if (!d.spine)
			assert_true(cas == hosts || cas == hosts + 1);
	}
	/* every leaf linked to every spine left in its group */
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct df_switch d = df_label(f, f->sw_node[s]);
		uint32_t up = 0;
		if (d.spine)
			continue;
		for (unsigned j = 0; j < spines; j++)
			up += sh->spine_up[d.group][j];
		assert_int_equal(f->sw_adj_start[s + 1] - f->sw_adj_start[s], up);
	}
}

static void test_dfplus_shapes(void **state)
{
	static const struct {
		const char *spec;
		unsigned g, l, s, h, n, agg;
	} cases[] = {
		{ "dfplus:groups=9,leaves=4,spines=4,global=2", 9, 4, 4, 4, 2, 0 },
		{ "dfplus:groups=16,leaves=6,spines=6", 16, 6, 6, 6, 1, 0 },
		{ "dfplus:groups=5,leaves=2,spines=3,hosts=5", 5, 2, 3, 5, 1, 0 },
		{ "dfplus:groups=2,leaves=1,spines=1,hosts=0", 2, 1, 1, 0, 1, 0 },
		{ "dfplus:groups=3,leaves=3,spines=2,global=5", 3, 3, 2, 2, 5, 0 },
		{ "dfplus:groups=4,leaves=3,spines=2,agg=1", 4, 3, 2, 2, 1, 1 },
		{ "dfplus:groups=17,leaves=1,spines=2,global=3", 17, 1, 2, 2, 3, 0 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned G = cases[c].g, L = cases[c].l, S = cases[c].s;
		unsigned H = cases[c].h, N = cases[c].n, agg = cases[c].agg;
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		uint32_t sw = G * (L + S), most = (G - 1) * N / S;
		struct df_shape *sh = malloc(sizeof(*sh));
		assert_non_null(sh);
		assert_int_equal(f->num_switches, sw);
		assert_int_equal(count_type(f, IBR_NODE_CA), G * L * H + agg * sw);
		assert_int_equal(sw_links(f), G * L * S + G * (G - 1) / 2 * N);
		check_dfplus(f, G, L, S, H, sh);
		assert_int_equal(sh->globals, G * (G - 1) / 2 * N);
		for (unsigned a = 0; a < G; a++)
			for (unsigned b = a + 1; b < G; b++)
				assert_int_equal(sh->pair_links[a][b], N);
		/* every spine of a group carries (G-1)N/S global links, +-1 */
		for (unsigned a = 0; a < G; a++)
			for (unsigned j = 0; j < S; j++) {
				uint32_t k = sh->spine_globals[a][j];
				assert_true(k == most || k == most + 1);
			}
		for (uint32_t s = 0; s < sw; s++) {
			struct df_switch d = df_label(f, s);
			unsigned need = (G - 1) * N / S + ((G - 1) * N % S != 0);
			assert_int_equal(f->nodes[s].num_ports,
					 (d.spine ? L + need : S + H) + agg);
		}
		if (agg)
			check_agg(f, sw + G * L * H);
		free(sh);
		ibr_fabric_free(f);
	}
	/* names and node order: leaves by group, then spines by group */
	{
		struct ibr_fabric *f = gen_ok("dfplus:groups=3,leaves=2,spines=2");
		assert_string_equal(f->nodes[0].desc, "dfplus g0 leaf 0");
		assert_string_equal(f->nodes[3].desc, "dfplus g1 leaf 1");
		assert_string_equal(f->nodes[6].desc, "dfplus g0 spine 0");
		assert_string_equal(f->nodes[11].desc, "dfplus g2 spine 1");
		assert_int_equal(f->nodes[11].guid, 0x20000b);
		assert_string_equal(f->nodes[12].desc, "ca0");
		assert_int_equal(f->nodes[12].guid, 0x100000);
		/* CA c on leaf c mod 6, port 3 + c / 6 */
		assert_int_equal(ibr_port(f, 12 + 7, 1)->remote_node, 1);
		assert_int_equal(ibr_port(f, 12 + 7, 1)->remote_port, 4);
		ibr_fabric_free(f);
	}
}

static void test_dfplus_damage(void **state)
{
	static const struct {
		const char *spec;
		unsigned g, l, s, n, cut, down, isolate;
	} cases[] = {
		{ "dfplus:groups=9,leaves=4,spines=4,global=2,cut=10", 9, 4, 4, 2,
		  10, 0, 0 },
		{ "dfplus:groups=9,leaves=4,spines=4,isolate=20,seed=4", 9, 4, 4, 1,
		  0, 0, 20 },
		{ "dfplus:groups=6,leaves=2,spines=2,global=2,isolate=10", 6, 2, 2,
		  2, 0, 0, 10 },
		{ "dfplus:groups=8,leaves=3,spines=3,down=12", 8, 3, 3, 1, 0, 12, 0 },
		{ "dfplus:groups=3,leaves=1,spines=2,down=1", 3, 1, 2, 1, 0, 1, 0 },
		{ "dfplus:groups=9,leaves=4,spines=4,global=2,cut=5,down=3,"
		  "isolate=4,agg=1,seed=3", 9, 4, 4, 2, 5, 3, 4 },
		{ "dfplus:groups=4,leaves=1,spines=1,global=3,cut=9", 4, 1, 1, 3, 9,
		  0, 0 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned G = cases[c].g, L = cases[c].l, S = cases[c].s;
		unsigned N = cases[c].n, P = G * (G - 1) / 2;
		struct ibr_fabric *f = gen_ok(cases[c].spec);
		struct df_shape *sh = malloc(sizeof(*sh));
		uint32_t lone = 0, up = 0;
		assert_non_null(sh);
		assert_int_equal(f->num_switches, G * (L + S) - cases[c].down);
		assert_int_equal(count_desc(f, "dfplus g"), f->num_switches);
		check_dfplus(f, G, L, S, S, sh);
		for (unsigned a = 0; a < G; a++) {
			uint32_t left = 0;
			for (unsigned j = 0; j < S; j++)
				left += sh->spine_up[a][j];
			assert_true(left >= 1);
			up += left;
			for (unsigned b = a + 1; b < G; b++)
				lone += sh->pair_links[a][b] == 0;
		}
		assert_int_equal(up, G * S - cases[c].down);
		assert_int_equal(sw_links(f), up * L + sh->globals);
		if (!cases[c].down && !cases[c].isolate)
			assert_int_equal(sh->globals, P * N - cases[c].cut);
		if (!cases[c].down && !cases[c].cut) {
			/* exactly the isolated pairs lost all, the rest none */
			assert_int_equal(lone, cases[c].isolate);
			assert_int_equal(sh->globals, (P - cases[c].isolate) * N);
		}
		assert_true(lone >= cases[c].isolate);
		free(sh);
		ibr_fabric_free(f);
	}
	check_seeded("dfplus:groups=9,leaves=4,spines=4,global=2,isolate=4",
		     "dfplus:groups=9,leaves=4,spines=4,global=2,isolate=4,seed=2");
	check_seeded("dfplus:groups=6,leaves=2,spines=3,cut=3,down=2,agg=1",
		     "dfplus:groups=6,leaves=2,spines=3,cut=3,down=2,agg=1,seed=7");
	/* no damage, no dependence on the seed */
	{
		char *a = net_text("dfplus:groups=5,leaves=2,spines=2,global=2");
		char *b = net_text("dfplus:groups=5,leaves=2,spines=2,global=2,"
				   "seed=9");
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/* ---- errors --------------------------------------------------------- */

struct bad_case {
	const char *spec;
	const char *words[3];     /* each must appear in the message */
};

static void test_bad_specs(void **state)
{
	static const struct bad_case cases[] = {
		{ "", { "empty spec" } },
		{ NULL, { "empty spec" } },
		{ "mesh:sw=4", { "unknown kind", "\"mesh\"" } },
		{ "random:foo=1", { "unknown key \"foo\"", "\"random:foo=1\"",
				    "sw, ca, deg" } },
		{ "clos:leaf=2,spine=2,deg=3", { "unknown key \"deg\"" } },
		{ "random:sw", { "\"sw\"", "no value" } },
		{ "random:sw=", { "\"sw\"", "no value" } },
		{ "random:sw=abc", { "sw=abc", "not a number" } },
		{ "random:sw=-3", { "sw=-3", "not a number" } },
		{ "random:sw=0", { "sw=0", "out of range", "1..65536" } },
		{ "random:sw=99999999999999999999", { "sw=9", "out of range" } },
		{ "random:ca=4", { "missing", "\"sw\"" } },
		{ "clos:leaf=4", { "missing", "\"spine\"" } },
		{ "torus:ca=1", { "missing", "\"dims\"" } },
		{ "random:sw=4,sw=5", { "\"sw\"", "twice" } },
		{ "random:sw=4,,ca=1", { "empty" } },
		{ "random:sw=4,", { "empty" } },
		{ "random:sw=4,caports=3", { "caports=3", "out of range" } },
		{ "random:sw=16,deg=9,ports=8", { "deg=9", "needs ports >= 9",
						  "ports=8" } },
		{ "random:sw=16,ca=64,ports=11", { "deg=8", "needs ports >= 12" } },
		{ "random:sw=16,deg=1", { "deg=1", "cannot connect" } },
		{ "random:sw=1,ca=1", { "deg=8", "sw >= 2" } },
		{ "random:sw=65536,ca=400000,caports=2", { "CA GUID range" } },
		{ "torus:dims=4", { "dims=4", "AxB" } },
		{ "torus:dims=1x4", { "dims=1x4" } },
		{ "torus:dims=4x4x4x4", { "dims=4x4x4x4" } },
		{ "torus:dims=4xx4", { "dims=4xx4" } },
		{ "torus:dims=256x256x2", { "dims=256x256x2", "65536" } },
		{ "torus:dims=3x3,broken=100", { "broken=100", "at most 10" } },
		{ "torus:dims=3x3x3,ca=125,caports=2", { "needs 256" } },
		{ "clos:leaf=200,spine=2,uplinks=2", { "leaf=200", "needs 400" } },
		{ "clos:leaf=2,spine=200,ca=200", { "spine=200", "needs 300" } },
		{ "fattree:broken=200", { "broken=200", "at most 177" } },
		{ "kary:k=1,n=3", { "k=1", "out of range", "2..127" } },
		{ "kary:k=128,n=2", { "k=128", "out of range", "2..127" } },
		{ "kary:k=4,n=1", { "n=1", "out of range", "2..6" } },
		{ "kary:k=4,n=7", { "n=7", "out of range", "2..6" } },
		{ "kary:k=4", { "missing", "\"n\"" } },
		{ "kary:n=3", { "missing", "\"k\"" } },
		{ "kary", { "missing", "\"k\"" } },
		{ "kary:k=32,n=4", { "k=32 n=4", "131072 switches", "65536" } },
		{ "kary:k=127,n=3", { "CA GUID range" } },
		{ "kary:k=4,n=3,broken=1", { "unknown key \"broken\"",
					    "k, n, cut, down, spinehosts, agg, "
					    "seed" } },
		{ "kary:k=4,n=3,cut=x", { "cut=x", "not a number" } },
		{ "kary:k=2,n=2,cut=2", { "cut=2", "at most 1 of its 4" } },
		{ "kary:k=4,n=3,cut=82", { "cut=82", "at most 81" } },
		{ "kary:k=4,n=3,down=15,cut=37", { "cut=37", "at most 36 of its 68" } },
		{ "kary:k=4,n=3,down=16", { "down=16", "all 16 top-level",
					   "at most 15" } },
		{ "kary:k=4,n=3,down=99", { "down=99", "16 top-level" } },
		{ "kary:k=4,n=3,down=1,down=2", { "\"down\"", "twice" } },
		{ "clos:leaf=4,spine=2,ca=8,oversub=2", { "oversub=2", "ca=8",
							  "both set" } },
		{ "clos:leaf=4,spine=2,oversub=2,ca=8", { "oversub=2", "ca=8",
							  "both set" } },
		{ "clos:leaf=4,spine=2,oversub=0", { "oversub=0", "out of range",
						     "1..254" } },
		{ "clos:leaf=2,spine=8,oversub=40", { "oversub=40",
						      "needs 328 ports per leaf" } },
		{ "clos:leaf=3,spine=1,oversub=1,caports=2", { "oversub=1",
							       "caports=2" } },
		{ "clos:leaf=4,spine=2,down=2", { "down=2", "all 2 spines" } },
		{ "clos:leaf=2,spine=2,cut=2", { "cut=2", "at most 1" } },
		{ "torus:dims=4x4,cut=1", { "unknown key \"cut\"" } },
		{ "clos:leaf=2,spine=2,agg=2", { "agg=2", "out of range", "0..1" } },
		{ "clos:leaf=254,spine=2,agg=1", { "leaf=254", "agg=1",
						   "needs 255 ports per spine" } },
		{ "clos:leaf=250,spine=2,spinehosts=10", { "spinehosts=10",
							   "needs 255" } },
		{ "clos:leaf=2,spine=253,ca=2,agg=1", { "agg=1",
							"needs 255 ports per leaf" } },
		{ "kary:k=127,n=2,agg=1", { "k=127 agg=1", "needs 255" } },
		{ "kary:k=4,n=2,spinehosts=1001", { "spinehosts=1001",
						    "needs 255 ports per top" } },
		{ "fattree:ports=254,levels=2,agg=1", { "ports=254 agg=1",
							"needs 255 ports per root" } },
		{ "torus:dims=4x4,agg=1", { "unknown key \"agg\"" } },
		{ "random:sw=4,spinehosts=1", { "unknown key \"spinehosts\"" } },
		{ "dfplus:groups=4,leaves=2", { "missing", "\"spines\"" } },
		{ "dfplus:leaves=2,spines=2", { "missing", "\"groups\"" } },
		{ "dfplus:groups=1,leaves=2,spines=2", { "groups=1", "out of range",
							 "2..65536" } },
		{ "dfplus:groups=4,leaves=2,spines=2,global=0", { "global=0",
								  "out of range" } },
		{ "dfplus:groups=4,leaves=2,spines=2,hosts=254", { "hosts=254",
								   "0..253" } },
		{ "dfplus:groups=2,leaves=2,spines=200,hosts=60", { "spines=200 "
			"hosts=60", "needs 260 ports per leaf", "254" } },
		{ "dfplus:groups=2,leaves=2,spines=127,agg=1", { "spines=127 "
			"hosts=127 agg=1", "needs 255 ports per leaf" } },
		{ "dfplus:groups=300,leaves=4,spines=1,hosts=1", { "groups=300",
			"leaves=4", "needs 303 ports per spine" } },
		{ "dfplus:groups=3,leaves=250,spines=1,global=3,hosts=0", {
			"global=3", "needs 256 ports per spine" } },
		{ "dfplus:groups=1000,leaves=100,spines=10,hosts=0", {
			"groups=1000", "110000 switches", "65536" } },
		{ "dfplus:groups=4,leaves=1,spines=1,isolate=4", { "isolate=4",
			"at most 3 of the 6 group pairs" } },
		{ "dfplus:groups=3,leaves=1,spines=1,cut=2", { "cut=2",
							       "at most 1 of its 3" } },
		{ "dfplus:groups=4,leaves=1,spines=1,global=2,isolate=3,cut=4", {
			"cut=4", "at most 3 of its 6" } },
		{ "dfplus:groups=2,leaves=2,spines=2,down=3", { "down=3",
			"without spines", "at most 2 of the 4" } },
		{ "dfplus:groups=3,leaves=1,spines=2,down=3", { "down=3",
			"disconnect the switches" } },
		{ "dfplus:groups=3,leaves=1,spines=1,down=1", { "down=1",
							       "at most 0" } },
		{ "dfplus:groups=4,leaves=1,spines=1,oversub=1", {
			"unknown key \"oversub\"", "groups, leaves, spines, "
			"hosts, global, cut, down, isolate, agg, seed" } },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct bad_case *k = &cases[c];
		struct ibr_error err = { { 0 } };
		struct ibr_fabric *f = ibr_generate(k->spec, &err);
		if (f)
			fail_msg("%s: accepted", k->spec);
		if (strncmp(err.msg, "generate: ", 10) != 0)
			fail_msg("%s: message \"%s\"", k->spec, err.msg);
		for (int w = 0; w < 3 && k->words[w]; w++)
			if (!strstr(err.msg, k->words[w]))
				fail_msg("%s: \"%s\" lacks \"%s\"", k->spec,
					 err.msg, k->words[w]);
	}
	/* err may be NULL */
	assert_null(ibr_generate("mesh", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_shapes),
		cmocka_unit_test(test_random_guids),
		cmocka_unit_test(test_random_large),
		cmocka_unit_test(test_clos_shapes),
		cmocka_unit_test(test_torus_shapes),
		cmocka_unit_test(test_torus_layout),
		cmocka_unit_test(test_fattree_shapes),
		cmocka_unit_test(test_kary_shapes),
		cmocka_unit_test(test_kary_guids),
		cmocka_unit_test(test_kary_cut),
		cmocka_unit_test(test_kary_down),
		cmocka_unit_test(test_clos_oversub),
		cmocka_unit_test(test_clos_damage),
		cmocka_unit_test(test_dfplus_shapes),
		cmocka_unit_test(test_dfplus_damage),
		cmocka_unit_test(test_agg),
		cmocka_unit_test(test_spinehosts),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_bad_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
