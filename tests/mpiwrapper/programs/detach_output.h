/* detach_output.h: a rank that ends without MPI_Finalize gives the launcher
 * its own exit status, whatever the launcher's timing.
 *
 * Hydra 4.0.2 (MPICH's mpiexec) watches each rank's stdout and stderr pipes
 * and its PMI socket. While a pipe is open it reaps ranks without waiting;
 * when it then sees the PMI socket closed without finalize, it stores 1 as
 * the rank's status over the one it reaped (reported as "Hangup (signal
 * 1)"). Which comes first is a race: a 3 ms delay on Hydra's wait4 makes the
 * plain program fail 17 times in 20. A rank that closes its ends of both
 * pipes, then lingers, is reaped only after Hydra stopped watching them, by
 * a blocking wait that keeps the status the rank exited with.
 *
 * Hydra leaves copies of the pipes' write ends open in the rank beside
 * stdout and stderr, so every descriptor on those pipes is closed.
 * Async-signal-safe: a signal handler may call it before _exit. */
#ifndef HDTRACE_TEST_DETACH_OUTPUT_H
#define HDTRACE_TEST_DETACH_OUTPUT_H

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static inline int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static inline void detach_output_before_ending(void) {
    struct stat output, errors;
    const int have_output = fstat(STDOUT_FILENO, &output) == 0 && S_ISFIFO(output.st_mode);
    const int have_errors = fstat(STDERR_FILENO, &errors) == 0 && S_ISFIFO(errors.st_mode);
    const int null_device = open("/dev/null", O_WRONLY);
    if (null_device < 0) return;
    dup2(null_device, STDOUT_FILENO);
    dup2(null_device, STDERR_FILENO);
    close(null_device);
    for (int descriptor = STDERR_FILENO + 1; descriptor < 1024; ++descriptor) {
        struct stat other;
        if (fstat(descriptor, &other) != 0) continue;
        if ((have_output && same_file(&other, &output)) ||
            (have_errors && same_file(&other, &errors)))
            close(descriptor);
    }
    /* Long beside Hydra's step from a closed pipe to its next reap (~0.1 ms). */
    const struct timespec linger = {0, 200 * 1000 * 1000};
    nanosleep(&linger, NULL);
}

#endif
