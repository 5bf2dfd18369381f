#ifndef CNGHTTP2_SALVO_POOL_ALLOCATOR_H
#define CNGHTTP2_SALVO_POOL_ALLOCATOR_H
// A pooling allocator for one nghttp2 session, installed as its nghttp2_mem (SalvoHTTP2's
// NGHTTP2Allocator owns the pool and hands these functions to nghttp2).
//
// Why: nghttp2 makes about twenty small allocations per request (streams, queue items, header
// copies, HPACK buffers) and frees them a moment later; glibc's malloc serves those at ~3,000
// instructions per request, and recycling blocks per size class makes most of them a pointer
// move. Why C: nghttp2 calls these through function pointers, ~24 times per request; written in
// Swift, each call also went through a C-to-Swift thunk into checked arithmetic: ~414
// instructions per campaign notification, ~270 in C (make bench-instructions).
//
// Not thread-safe, and it need not be: nghttp2 only allocates inside calls made on the
// session's event loop, and in nghttp2_session_del.
//
// Layout: every block starts with a 16-byte header whose first byte is its size class
// (keeping malloc's 16-byte alignment); a free block's first payload word links it into its
// class's free list. Blocks of 64 ... 4096 bytes (payloads of 48 ... 4080) are pooled, larger
// ones go to malloc and back to free.

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    SALVO_POOL_CLASS_COUNT = 7,
    SALVO_POOL_SMALLEST_SHIFT = 6,
    SALVO_POOL_HEADER_SIZE = 16,
    /// Blocks kept per class beyond which freed blocks return to malloc.
    SALVO_POOL_MAX_PER_CLASS = 4096,
    SALVO_POOL_UNPOOLED = 0xFF,
};

typedef struct salvo_pool {
    void *heads[SALVO_POOL_CLASS_COUNT];
    size_t counts[SALVO_POOL_CLASS_COUNT];
} salvo_pool;

/// The class whose blocks fit `size` payload bytes, or -1 when it is too large to pool.
static inline int salvo_pool_class(size_t size) {
    if (size > (1u << (SALVO_POOL_SMALLEST_SHIFT + SALVO_POOL_CLASS_COUNT - 1)) - SALVO_POOL_HEADER_SIZE) {
        return -1;
    }
    size_t needed = size + SALVO_POOL_HEADER_SIZE;
    if (needed <= (1u << SALVO_POOL_SMALLEST_SHIFT)) return 0;
    // The smallest power of two holding `needed` is 2^(bit width of needed - 1).
    return (64 - __builtin_clzll((unsigned long long)(needed - 1))) - SALVO_POOL_SMALLEST_SHIFT;
}

static inline void *salvo_pool_malloc(size_t size, void *user_data) {
    salvo_pool *pool = (salvo_pool *)user_data;
    int index = salvo_pool_class(size);
    unsigned char *block;
    if (index < 0) {
        if (size > SIZE_MAX - SALVO_POOL_HEADER_SIZE) return NULL;
        block = (unsigned char *)malloc(size + SALVO_POOL_HEADER_SIZE);
        if (block == NULL) return NULL;
        block[0] = SALVO_POOL_UNPOOLED;
        return block + SALVO_POOL_HEADER_SIZE;
    }
    block = (unsigned char *)pool->heads[index];
    if (block != NULL) {
        memcpy(&pool->heads[index], block + SALVO_POOL_HEADER_SIZE, sizeof(void *));
        pool->counts[index] -= 1;
    } else {
        block = (unsigned char *)malloc((size_t)1 << (SALVO_POOL_SMALLEST_SHIFT + index));
        if (block == NULL) return NULL;
    }
    block[0] = (unsigned char)index;
    return block + SALVO_POOL_HEADER_SIZE;
}

static inline void salvo_pool_free(void *pointer, void *user_data) {
    if (pointer == NULL) return;
    salvo_pool *pool = (salvo_pool *)user_data;
    unsigned char *block = (unsigned char *)pointer - SALVO_POOL_HEADER_SIZE;
    int index = block[0];
    if (index == SALVO_POOL_UNPOOLED || pool->counts[index] >= SALVO_POOL_MAX_PER_CLASS) {
        free(block);
        return;
    }
    memcpy(pointer, &pool->heads[index], sizeof(void *));
    pool->heads[index] = block;
    pool->counts[index] += 1;
}

static inline void *salvo_pool_calloc(size_t count, size_t size, void *user_data) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = salvo_pool_malloc(count * size, user_data);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

static inline void *salvo_pool_realloc(void *pointer, size_t size, void *user_data) {
    if (pointer == NULL) return salvo_pool_malloc(size, user_data);
    unsigned char *block = (unsigned char *)pointer - SALVO_POOL_HEADER_SIZE;
    int index = block[0];
    if (index == SALVO_POOL_UNPOOLED) {
        // Unpooled blocks stay unpooled: malloc may resize them in place.
        if (size > SIZE_MAX - SALVO_POOL_HEADER_SIZE) return NULL;
        unsigned char *grown = (unsigned char *)realloc(block, size + SALVO_POOL_HEADER_SIZE);
        return grown == NULL ? NULL : grown + SALVO_POOL_HEADER_SIZE;
    }
    size_t capacity = ((size_t)1 << (SALVO_POOL_SMALLEST_SHIFT + index)) - SALVO_POOL_HEADER_SIZE;
    if (size <= capacity) return pointer;
    void *moved = salvo_pool_malloc(size, user_data);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, capacity);
    salvo_pool_free(pointer, user_data);
    return moved;
}

/// Returns every pooled block to malloc (the session is gone).
static inline void salvo_pool_drain(salvo_pool *pool) {
    for (int index = 0; index < SALVO_POOL_CLASS_COUNT; index++) {
        unsigned char *block = (unsigned char *)pool->heads[index];
        while (block != NULL) {
            unsigned char *next;
            memcpy(&next, block + SALVO_POOL_HEADER_SIZE, sizeof(void *));
            free(block);
            block = next;
        }
        pool->heads[index] = NULL;
        pool->counts[index] = 0;
    }
}

#endif
