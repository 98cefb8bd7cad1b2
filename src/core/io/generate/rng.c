/*
 * rng.c - the generator's private RNG: xorshift64* seeded by splitmix64, so a
 * spec always yields the same fabric, with no global state and no clock.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

void gen_rng_seed(struct rng *r, uint64_t seed)
{
	/* splitmix64: neighbouring seeds give unrelated streams, never 0 */
	uint64_t z = seed + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	r->s = z ? z : 1;
}

uint64_t gen_rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* In [0, n): n < 2^32, so the modulo bias is below 2^-32. */
uint32_t gen_rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(gen_rng_next(r) % n);
}

void gen_shuffle(uint32_t *a, uint32_t n, struct rng *r)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = gen_rng_below(r, i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* 0..n-1 in random order; NULL when out of memory. */
uint32_t *gen_permutation(uint32_t n, struct rng *r)
{
	uint32_t *a = malloc((n ? n : 1) * sizeof(*a));

	if (!a)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	gen_shuffle(a, n, r);
	return a;
}
