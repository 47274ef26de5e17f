/* crashes.c: MPI_Allreduce calls (three, or as many as the second argument
 * says: enough to fill several halves of the trace buffer, so that the end
 * finds some still queued for the background writer), then the end given
 * as first argument:
 *   segv, bus, abrt, fpe, term   raise that signal;
 *   segv-fault, fpe-fault        a real fault (null store, division by zero);
 *   own-<signal>                 the program's own handler, installed before
 *                                MPI_Init, prints and _exits with 40 + signal;
 *   fork-exit, fork-crash        a child of fork() exits, or dies of SIGSEGV,
 *                                then the parent goes on to MPI_Finalize.
 * Built traced and plain, so that the test can compare how both end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "detach_output.h"

static int signalOf(const char *name) {
    if (strcmp(name, "segv") == 0) return SIGSEGV;
    if (strcmp(name, "bus") == 0) return SIGBUS;
    if (strcmp(name, "abrt") == 0) return SIGABRT;
    if (strcmp(name, "fpe") == 0) return SIGFPE;
    if (strcmp(name, "term") == 0) return SIGTERM;
    return 0;
}

static void ownHandler(int signal) {
    char text[64];
    const int length = snprintf(text, sizeof text, "own handler ran for signal %d\n", signal);
    ssize_t ignored = write(STDOUT_FILENO, text, (size_t)length);
    (void)ignored;
    detach_output_before_ending();
    _exit(40 + signal);
}

int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "";
    if (strncmp(how, "own-", 4) == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = ownHandler;
        sigaction(signalOf(how + 4), &action, NULL);
    }
    MPI_Init(&argc, &argv);
    double value = 1.0, sum = 0.0;
    const int calls = argc > 2 ? atoi(argv[2]) : 3;
    for (int i = 0; i < calls; ++i)
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("ending by %s\n", how);
    fflush(stdout);
    if (signalOf(how)) raise(signalOf(how));
    if (strncmp(how, "own-", 4) == 0) raise(signalOf(how + 4));
    if (strcmp(how, "segv-fault") == 0) *(volatile int *)(argc > 1000 ? &argc : NULL) = 1;
    if (strcmp(how, "fpe-fault") == 0) {
        volatile int zero = argc > 1000 ? 1 : 0;
        printf("%d\n", argc / zero);
    }
    if (strncmp(how, "fork-", 5) == 0) {
        const pid_t child = fork();
        if (child == 0) {
            if (strcmp(how, "fork-crash") == 0) raise(SIGSEGV);
            exit(0); /* runs the atexit handlers of the copied process */
        }
        int status = 0;
        waitpid(child, &status, 0);
        printf("child status %d\n", status);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    MPI_Finalize();
    return 0;
}
