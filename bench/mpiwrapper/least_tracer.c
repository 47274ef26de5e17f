/* least_tracer.c: the least a tracer of a file write can do, preloaded in
 * place of the tracer: MPI_File_write_at and the pwrite beneath it each read
 * the processor's time stamp counter before and after and keep the two
 * counts with their arguments in a ring of the thread's own, which nothing
 * reads and which is never written out. No lookup of the file, no
 * conversion of times, no coding, no file. The pwrite makes its system call
 * itself (no frame of its own beneath the kernel, as the tracer's), without
 * the cancellation point's handling, which the tracer keeps.
 *
 * Built as bench_least_tracer (both calls) and bench_least_tracer_mpi (the
 * MPI call alone; the C library's pwrite untouched), and as
 * bench_least_tracer_mpi_jumps32 and _jumps128, whose MPI call takes that
 * many jumps once PMPI returned, and _tests128, 128 tests whose jump is
 * taken: what each branch a tracer takes after the kernel costs. The shared harness's
 * fwrite case, run with each, gives the floor a real tracer's two states
 * stand on, on the machine at hand (docs/dev/performance.md, "What the
 * kernel takes from a traced call"). x86-64 Linux only. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <x86intrin.h>

#include <mpi.h>

#define LEAST_TRACER_TEXT(x) #x
#define LEAST_TRACER_REPEAT(x) LEAST_TRACER_TEXT(x)

/* What a tracer must keep of a state at the least: which call, its two
 * times and three arguments. */
struct kept_state {
    uint64_t call;
    uint64_t start;
    uint64_t end;
    int64_t arguments[3];
};

/* 64 KiB a thread: what a tracer's buffer of the states not yet written
 * takes in the caches, at the least. */
#define KEPT_STATES 1024

/* Visible, so that the compiler keeps the stores nothing here reads; in
 * the initial-exec model, as the tracer's thread-local variables are. */
__attribute__((
    tls_model("initial-exec"))) __thread struct kept_state least_tracer_kept[KEPT_STATES];
__attribute__((tls_model("initial-exec"))) __thread uint32_t least_tracer_next;

static inline void keep(uint64_t call, uint64_t start, uint64_t end, int64_t first, int64_t second,
                        int64_t third) {
    struct kept_state *state = &least_tracer_kept[least_tracer_next++ % KEPT_STATES];
    state->call = call;
    state->start = start;
    state->end = end;
    state->arguments[0] = first;
    state->arguments[1] = second;
    state->arguments[2] = third;
}

int MPI_File_write_at(MPI_File file, MPI_Offset offset, const void *data, int count,
                      MPI_Datatype type, MPI_Status *status) {
    const uint64_t start = __rdtsc();
    const int result = PMPI_File_write_at(file, offset, data, count, type, status);
#ifdef LEAST_TRACER_JUMPS
    /* Taken jumps, 16 bytes apart, as a tracer's path takes branches. */
    __asm__ volatile(
        ".rept " LEAST_TRACER_REPEAT(LEAST_TRACER_JUMPS) "\njmp 7f\n.balign 16\n7:\n.endr\n" ::
            : "memory");
#endif
#ifdef LEAST_TRACER_TAKEN_TESTS
    /* Tests whose jump is always taken, as a tracer's tests mostly are
     * one way; the value tested is not known to the compiler. */
    const int nonzero = count != 0 || offset != 0 || file != MPI_FILE_NULL;
    __asm__ volatile(
        ".rept " LEAST_TRACER_REPEAT(
            LEAST_TRACER_TAKEN_TESTS) "\ntest %0, %0\njnz 8f\nnop\n.balign 16\n8:\n.endr\n" ::
            "r"(nonzero)
        : "memory", "cc");
#endif
    keep(1, start, __rdtsc(), (int64_t)(intptr_t)file, offset, count);
    return result;
}

#ifdef LEAST_TRACER_WITH_PWRITE
static ssize_t kept_pwrite(int fd, const void *data, size_t size, off_t offset) {
    const uint64_t start = __rdtsc();
    long result;
    register long offset_register asm("r10") = offset;
    asm volatile("syscall"
                 : "=a"(result)
                 : "0"((long)SYS_pwrite64), "D"((long)fd), "S"(data), "d"(size),
                   "r"(offset_register)
                 : "rcx", "r11", "memory");
    keep(2, start, __rdtsc(), fd, offset, result);
    if (result < 0 && result > -4096) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

ssize_t pwrite(int fd, const void *data, size_t size, off_t offset) {
    return kept_pwrite(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void *data, size_t size, off_t offset) {
    return kept_pwrite(fd, data, size, offset);
}
#endif
