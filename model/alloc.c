/* Allocation wrappers and the failure-injection hook of the torture tests. */
#include "model/alloc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/status.h"

static atomic_ulong alloc_count;
static atomic_ulong fail_at; /* 0: off; else the count that fails */

static int injected_failure(void)
{
	unsigned long n = atomic_fetch_add(&alloc_count, 1) + 1;
	unsigned long f = atomic_load(&fail_at);
	return f != 0 && n == f;
}

void *mem_alloc(size_t size)
{
	if (injected_failure())
		return NULL;
	return malloc(size ? size : 1);
}

void *mem_calloc(size_t n, size_t size)
{
	if (injected_failure())
		return NULL;
	if (n == 0 || size == 0)
		n = size = 1;
	return calloc(n, size);
}

void *mem_realloc(void *p, size_t size)
{
	if (injected_failure())
		return NULL;
	return realloc(p, size ? size : 1);
}

void *mem_realloc_array(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	return mem_realloc(p, n * size);
}

char *mem_strndup(const char *s, size_t len)
{
	char *d;

	if (len == SIZE_MAX)
		return NULL;
	d = mem_alloc(len + 1);
	if (!d)
		return NULL;
	if (len)
		memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

void mem_free(void *p)
{
	free(p);
}

/* The capacity that holds need elements of elem bytes, doubling cap
 * from a minimum of 8, into *out; false when it would overflow. */
static bool grown_cap(size_t cap, size_t need, size_t elem, size_t *out)
{
	size_t ncap = cap ? cap : 8;

	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return false;
		ncap *= 2;
	}
	*out = ncap;
	return elem == 0 || ncap <= SIZE_MAX / elem;
}

enum status mem_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **slot = arr;
	size_t ncap;
	void *np;

	if (need <= *cap)
		return STATUS_OK;
	if (!grown_cap(*cap, need, elem, &ncap))
		return STATUS_NOMEM;
	np = mem_realloc_array(*slot, ncap, elem);
	if (!np)
		return STATUS_NOMEM;
	*slot = np;
	*cap = ncap;
	return STATUS_OK;
}

enum status mem_fresh(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **slot = arr;
	size_t ncap;
	void *np;

	if (need <= *cap)
		return STATUS_OK;
	if (!grown_cap(*cap, need, elem, &ncap))
		return STATUS_NOMEM;
	np = mem_alloc(ncap * elem);
	if (!np)
		return STATUS_NOMEM;
	mem_free(*slot);
	*slot = np;
	*cap = ncap;
	return STATUS_OK;
}

void mem_fail_at(unsigned long nth)
{
	atomic_store(&fail_at, nth ? atomic_load(&alloc_count) + nth : 0);
}

unsigned long mem_count(void)
{
	return atomic_load(&alloc_count);
}

void mem_count_reset(void)
{
	atomic_store(&alloc_count, 0);
	atomic_store(&fail_at, 0);
}
