/*
 * libbench_lines_after_kernel: what a traced file write touches after the
 * kernel, made countable by callgrind's cache model.
 *
 * Preloaded after the tracer (LD_PRELOAD=libhdtracempi.so:this), its
 * pwrite and pwrite64 are what the tracer's wrappers find as the C
 * library's: each calls the next one, then runs 64 KiB of code and writes
 * and reads 1 MiB of data, as a kernel's write path leaves the caches.
 * Every line of code or data the rest of the call touches is then a miss
 * of the model's first-level caches (and of a second level of 512 KiB),
 * whatever the machine's noise. bench/mpiwrapper/call_lines.py uses it.
 * Being another library's pwrite, it is called by the tracer's wrapper,
 * which otherwise makes the system call itself (DirectTransfers.hpp): the
 * model counts the wrapper's call of it, a few instructions, in place of
 * the system call's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

static char displacingData[1 << 20];

typedef ssize_t (*Pwrite)(int, const void *, size_t, off_t);

static void displaceCaches(void) {
    volatile char sink = 0;
    for (size_t at = 0; at < sizeof displacingData; at += 64) {
        displacingData[at] = (char)at;
        sink += displacingData[at ^ 4096];
    }
    (void)sink;
    __asm__ volatile(".rept 65536\n nop\n .endr");
}

static ssize_t writeThenDisplace(Pwrite *next, const char *name, int fd, const void *data,
                                 size_t size, off_t offset) {
    if (!*next) *next = (Pwrite)dlsym(RTLD_NEXT, name);
    const ssize_t result = *next ? (*next)(fd, data, size, offset) : -1;
    displaceCaches();
    return result;
}

ssize_t pwrite(int fd, const void *data, size_t size, off_t offset) {
    static Pwrite next;
    return writeThenDisplace(&next, "pwrite", fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void *data, size_t size, off_t offset) {
    static Pwrite next;
    return writeThenDisplace(&next, "pwrite64", fd, data, size, offset);
}
