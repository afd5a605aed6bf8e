/* Small language helpers shared by every folder: attributes, sizes, min/max.
 * Foundation code lives in model/ because it is the one folder all may use. */
#ifndef ASYNCTOP_MODEL_BASE_H
#define ASYNCTOP_MODEL_BASE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define MUST_CHECK   __attribute__((warn_unused_result))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#define UNUSED       __attribute__((unused))
#else
#define MUST_CHECK
#define PRINTF(f, a)
#define UNUSED
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline size_t size_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

static inline size_t size_max(size_t a, size_t b)
{
	return a > b ? a : b;
}

static inline uint64_t u64_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline size_t size_add_sat(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Saturating addition: counters never wrap, they stick at UINT64_MAX. */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A hint to fetch the cache line of p, to overlap memory misses. */
static inline void model_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

#endif
