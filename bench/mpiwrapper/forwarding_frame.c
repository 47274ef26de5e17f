/* forwarding_frame.c: a pwrite (and pwrite64) that only calls the next
 * definition, preloaded to put one more frame between a program and the
 * kernel. Built as three libraries (bench_forward_a, _b, _c), so that
 * preloading one, two or three stacks as many frames; and as
 * bench_forward_tail, which jumps to the next definition instead and adds
 * no frame. The shared harness's fwrite case, run untraced with each
 * stack, shows what a frame costs (docs/dev/performance.md, "A frame less
 * beneath the kernel"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pwrite_function)(int, const void *, size_t, off_t);

static pwrite_function next_pwrite;
/* Counted after the call returns, so that the call is not a jump. */
static volatile unsigned long forwarded;

__attribute__((constructor)) static void find_next(void) {
    next_pwrite = (pwrite_function)dlsym(RTLD_NEXT, "pwrite");
}

static ssize_t forward(int fd, const void *data, size_t size, off_t offset) {
#ifdef FORWARD_AS_TAIL_CALL
    return next_pwrite(fd, data, size, offset);
#else
    const ssize_t result = next_pwrite(fd, data, size, offset);
    forwarded = forwarded + 1;
    return result;
#endif
}

ssize_t pwrite(int fd, const void *data, size_t size, off_t offset) {
    return forward(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void *data, size_t size, off_t offset) {
    return forward(fd, data, size, offset);
}
