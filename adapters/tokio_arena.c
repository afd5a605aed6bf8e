/* The tokio adapter's arena: the allocator protobuf-c decodes one Update
 * with, blocks mapped from the kernel and unmapped once it is applied. */
#include "adapters/tokio_int.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

struct tokio_arena_block {
	struct tokio_arena_block *next;
	size_t used, size; /* bytes, the header included */
};

#define ALIGN 16

void *tokio_arena_alloc(void *arena, size_t size)
{
	struct tokio_arena *a = arena;
	struct tokio_arena_block *b = a->head;
	size_t hdr = (sizeof(*b) + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (size > SIZE_MAX / 2) {
		a->nomem = true;
		return NULL;
	}
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!b || b->size - b->used < size) {
		size_t len = size_max(TOKIO_ARENA_BLOCK, hdr + size);
		/* /dev/zero: MAP_ANONYMOUS is not in our POSIX level */
		int fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
		void *m = fd < 0 ? MAP_FAILED
		                 : mmap(NULL, len, PROT_READ | PROT_WRITE,
		                        MAP_PRIVATE, fd, 0);

		if (fd >= 0)
			close(fd);
		if (m == MAP_FAILED) {
			a->nomem = true;
			return NULL;
		}
		b = m;
		b->next = a->head;
		b->used = hdr;
		b->size = len;
		a->head = b;
	}
	b->used += size;
	return (char *)b + b->used - size;
}

void tokio_arena_free(void *arena, void *p)
{
	(void)arena; /* unmapped with the arena, once per Update */
	(void)p;
}

void tokio_arena_release(struct tokio_arena *a)
{
	while (a->head) {
		struct tokio_arena_block *next = a->head->next;

		munmap(a->head, a->head->size);
		a->head = next;
	}
	a->nomem = false;
}
