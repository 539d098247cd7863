// SPDX-License-Identifier: GPL-2.0
/*
 * alloc.so - PyTorch pluggable allocators for bench/ab's torch and GNN
 * workloads (torch.cuda.memory.CUDAPluggableAllocator(SO, MALLOC, FREE)):
 *
 *   managed_malloc / managed_free    cudaMallocManaged, no caching: every
 *                                    tensor a fresh allocation (the churn)
 *   device_malloc / device_free      its device-memory twin (cudaMalloc)
 *   cmanaged_malloc / cmanaged_free  a caching pool over cudaMallocManaged:
 *                                    freed blocks are kept by rounded size
 *                                    and handed out again, never returned
 *   cdevice_malloc / cdevice_free    its device-memory twin
 *
 * The caching pools assume one stream (the workloads use the default one):
 * a block freed on it is reused on it in order.  A failed allocation empties
 * the pool and tries once more.
 * Build: nvcc -O2 -shared -Xcompiler -fPIC -o alloc.so alloc.cu
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/types.h>

static void *raw_alloc(ssize_t size, int managed)
{
	void *p = NULL;
	cudaError_t e = managed ? cudaMallocManaged(&p, size ? size : 1, cudaMemAttachGlobal)
				: cudaMalloc(&p, size ? size : 1);

	return e == cudaSuccess ? p : NULL;
}

extern "C" void *managed_malloc(ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	return raw_alloc(size, 1);
}

extern "C" void managed_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)size;
	(void)device;
	(void)stream;
	cudaFree(p);
}

extern "C" void *device_malloc(ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	return raw_alloc(size, 0);
}

extern "C" void device_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	managed_free(p, size, device, stream);
}

/* --- the caching pools: free lists by rounded size, an open hash table ---- */
#define NBUCKETS 8192

struct node {
	void *p;
	struct node *next;
};

struct bucket {
	size_t size;		/* 0: unused */
	struct node *free;
};

struct pool {
	pthread_mutex_t mu;
	struct bucket b[NBUCKETS];
	int managed;
};

static struct pool pools[2] = {
	{ PTHREAD_MUTEX_INITIALIZER, {}, 1 },
	{ PTHREAD_MUTEX_INITIALIZER, {}, 0 },
};

static size_t round_size(size_t s)
{
	if (s <= (1ul << 20))
		return (s + 511) & ~511ul;
	return (s + (2ul << 20) - 1) & ~((2ul << 20) - 1);
}

/* The bucket of size s (created when missing); NULL when the table is full. */
static struct bucket *bucket_of(struct pool *pl, size_t s)
{
	size_t h = (s >> 9) * 0x9E3779B97F4A7C15ull;

	for (size_t i = 0; i < NBUCKETS; i++) {
		struct bucket *b = &pl->b[(h + i) % NBUCKETS];

		if (b->size == s)
			return b;
		if (!b->size) {
			b->size = s;
			return b;
		}
	}
	return NULL;
}

/* Gives every cached block back to CUDA (pl->mu held). */
static void drain(struct pool *pl)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		struct node *n = pl->b[i].free, *next;

		for (; n; n = next) {
			next = n->next;
			cudaFree(n->p);
			free(n);
		}
		pl->b[i].free = NULL;
	}
}

static void *pool_alloc(struct pool *pl, ssize_t size)
{
	size_t s = round_size(size > 0 ? (size_t)size : 1);
	struct bucket *b;
	struct node *n = NULL;
	void *p;

	pthread_mutex_lock(&pl->mu);
	b = bucket_of(pl, s);
	if (b && b->free) {
		n = b->free;
		b->free = n->next;
	}
	pthread_mutex_unlock(&pl->mu);
	if (n) {
		p = n->p;
		free(n);
		return p;
	}
	p = raw_alloc(s, pl->managed);
	if (!p) {
		pthread_mutex_lock(&pl->mu);
		drain(pl);
		pthread_mutex_unlock(&pl->mu);
		cudaGetLastError();	/* clear the failure */
		p = raw_alloc(s, pl->managed);
	}
	return p;
}

static void pool_free(struct pool *pl, void *p, ssize_t size)
{
	size_t s = round_size(size > 0 ? (size_t)size : 1);
	struct node *n = (struct node *)malloc(sizeof(*n));
	struct bucket *b;

	pthread_mutex_lock(&pl->mu);
	b = bucket_of(pl, s);
	if (b && n) {
		n->p = p;
		n->next = b->free;
		b->free = n;
		n = NULL;
		p = NULL;
	}
	pthread_mutex_unlock(&pl->mu);
	free(n);
	if (p)
		cudaFree(p);	/* no room to keep it */
}

extern "C" void *cmanaged_malloc(ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	return pool_alloc(&pools[0], size);
}

extern "C" void cmanaged_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	pool_free(&pools[0], p, size);
}

extern "C" void *cdevice_malloc(ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	return pool_alloc(&pools[1], size);
}

extern "C" void cdevice_free(void *p, ssize_t size, int device, cudaStream_t stream)
{
	(void)device;
	(void)stream;
	pool_free(&pools[1], p, size);
}
