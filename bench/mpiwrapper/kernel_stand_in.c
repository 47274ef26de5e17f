/* kernel_stand_in.c: a pwrite (and pwrite64) that makes no system call and
 * stands in for what the kernel's write path leaves behind, one part at a
 * time, so that what a tracer loses to the kernel can be told apart.
 *
 * Preloaded after the tracer (LD_PRELOAD=libhdtracempi.so:this), it is the
 * pwrite the tracer's wrapper calls; preloaded alone, the untraced
 * program's. It returns the size asked for, having written nothing, after
 * running what BENCH_STAND_IN names (any of these words; none: nothing):
 *
 *   lines     32 KiB of code, one jump in each 64-byte line: the
 *             first-level code cache and 512 branches of the predictor
 *   straight  32 KiB of code without a branch: the code cache alone
 *   branches  4,096 jumps in 8 KiB of code: the branch predictor, a
 *             quarter of the code cache
 *   data      a read of each line of 32 KiB of data: the first-level data
 *             cache
 *   entry     the shortest system call there is (getppid): the kernel's
 *             entry and exit, and what they clear, with almost no work
 *
 * The shared harness's fwrite case, untraced and traced with each, gives
 * what tracing adds after each (docs/dev/performance.md, "What the kernel
 * takes from a traced call"). x86-64 only. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int lines_on, straight_on, branches_on, data_on, entry_on;
static char displacing_data[32768] __attribute__((aligned(64)));
static volatile long data_sink;

__attribute__((constructor)) static void choose(void) {
    const char *chosen = getenv("BENCH_STAND_IN");
    if (!chosen) return;
    lines_on = strstr(chosen, "lines") != NULL;
    straight_on = strstr(chosen, "straight") != NULL;
    branches_on = strstr(chosen, "branches") != NULL;
    data_on = strstr(chosen, "data") != NULL;
    entry_on = strstr(chosen, "entry") != NULL;
}

__attribute__((noinline)) static void run_lines(void) {
    __asm__ volatile(
        "jmp 1f\n.balign 64\n1:\n"
        ".rept 511\njmp 2f\n.balign 64\n2:\n.endr\n" ::
            : "memory");
}

__attribute__((noinline)) static void run_straight(void) {
    __asm__ volatile(".rept 8192\nnopl 0x0(%%rax)\n.endr\n" ::: "memory");
}

__attribute__((noinline)) static void run_branches(void) {
    __asm__ volatile(".rept 4096\njmp 3f\n3:\n.endr\n" ::: "memory");
}

static void read_data(void) {
    long sum = 0;
    for (size_t at = 0; at < sizeof displacing_data; at += 64)
        sum += ((volatile char *)displacing_data)[at];
    data_sink = sum;
}

static ssize_t stand_in(size_t size) {
    if (lines_on) run_lines();
    if (straight_on) run_straight();
    if (branches_on) run_branches();
    if (data_on) read_data();
    if (entry_on) syscall(SYS_getppid);
    return (ssize_t)size;
}

ssize_t pwrite(int fd, const void *data, size_t size, off_t offset) {
    (void)fd, (void)data, (void)offset;
    return stand_in(size);
}

ssize_t pwrite64(int fd, const void *data, size_t size, off_t offset) {
    (void)fd, (void)data, (void)offset;
    return stand_in(size);
}
