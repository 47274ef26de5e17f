/* posix_behaviour.c: what the C library returns is what the program gets,
 * traced or not. One rank prints each result as "r0 <what> <values>":
 * errno of failed calls, a short read, a read interrupted by a signal
 * (EINTR, on a FIFO), the mode open() takes as its variadic argument, and
 * children made by fork() (writing a file) and by fork() and exec(), which
 * are not traced, a thread whose cancellation is pending when it calls
 * pwrite or pread (both are cancellation points, so it ends there), the
 * errno of a failing call in a thread of its own, and the vector forms. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

static void on_alarm(int signal_number) {
    (void)signal_number;
}

/* A thread that calls pwrite (or pread) once its cancellation is pending:
 * main cancels it while cancellation is disabled, then lets it go on. */
struct cancelled_transfer {
    int fd;
    int write;
    sem_t ready, cancelled;
    char buffer[16];
};

static void *transfer_when_cancelled(void *argument) {
    struct cancelled_transfer *transfer = argument;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    sem_post(&transfer->ready);
    sem_wait(&transfer->cancelled);
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    ssize_t done = transfer->write ? pwrite(transfer->fd, "cancelled", 9, 0)
                                   : pread(transfer->fd, transfer->buffer, 9, 0);
    return (void *)(intptr_t)done;
}

/* A thread's failing pwrite: errno is the thread's own, set in that
 * thread and not in the one that made the program's earlier calls. */
struct failing_transfer {
    int fd;
    int error;
};

static void *transfer_that_fails(void *argument) {
    struct failing_transfer *transfer = argument;
    errno = 0;
    if (pwrite(transfer->fd, "x", 1, 0) < 0) transfer->error = errno;
    return NULL;
}

/* Whether the thread ended in the call (1) or returned from it (0). */
static int ended_by_cancellation(int fd, int write) {
    struct cancelled_transfer transfer = {.fd = fd, .write = write};
    sem_init(&transfer.ready, 0, 0);
    sem_init(&transfer.cancelled, 0, 0);
    pthread_t thread;
    pthread_create(&thread, NULL, transfer_when_cancelled, &transfer);
    sem_wait(&transfer.ready);
    pthread_cancel(thread);
    sem_post(&transfer.cancelled);
    void *result = NULL;
    pthread_join(thread, &result);
    sem_destroy(&transfer.ready);
    sem_destroy(&transfer.cancelled);
    return result == PTHREAD_CANCELED;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    char buffer[1000];
    memset(buffer, 'b', sizeof buffer);

    errno = 0;
    int fd = open("no-such-dir/missing.dat", O_RDONLY);
    printf("r0 open-missing %d %d\n", fd, errno);

    fd = open("short.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
    long long done = write(fd, buffer, 100);
    errno = 0;
    long long failed = read(fd, buffer, 10); /* opened for writing only */
    printf("r0 read-writeonly %lld %lld %d\n", done, failed, errno);
    close(fd);
    fd = open("short.dat", O_RDONLY);
    errno = 0;
    done = read(fd, buffer, sizeof buffer);
    printf("r0 short-read %lld %d\n", done, errno);
    errno = 0;
    failed = pwrite(fd, buffer, 10, 0); /* opened for reading only */
    printf("r0 pwrite-readonly %lld %d\n", failed, errno);
    close(fd);

    fd = open("cancelled.dat", O_CREAT | O_TRUNC | O_RDWR, 0644);
    int write_ended = ended_by_cancellation(fd, 1);
    struct stat after_cancel;
    fstat(fd, &after_cancel);
    printf("r0 pwrite-cancelled %d %lld\n", write_ended, (long long)after_cancel.st_size);
    int read_ended = ended_by_cancellation(fd, 0);
    printf("r0 pread-cancelled %d\n", read_ended);
    close(fd);

    fd = open("short.dat", O_RDONLY);
    struct failing_transfer failing = {.fd = fd, .error = 0};
    pthread_t failing_thread;
    pthread_create(&failing_thread, NULL, transfer_that_fails, &failing);
    errno = 0;
    pthread_join(failing_thread, NULL);
    const int main_errno = errno;
    printf("r0 thread-errno %d %d\n", failing.error, main_errno);
    close(fd);

    /* The vector forms, two pieces each, and one that fails. */
    fd = open("vector.dat", O_CREAT | O_TRUNC | O_RDWR, 0644);
    struct iovec pieces[2] = {{buffer, 30}, {buffer + 30, 70}};
    long long by_writev = writev(fd, pieces, 2);
    long long by_pwritev = pwritev(fd, pieces, 2, 200);
    lseek(fd, 50, SEEK_SET);
    long long by_readv = readv(fd, pieces, 2);
    long long by_preadv = preadv(fd, pieces, 2, 250); /* 50 bytes are there */
    printf("r0 vectors %lld %lld %lld %lld\n", by_writev, by_pwritev, by_readv, by_preadv);
    close(fd);
    fd = open("vector.dat", O_WRONLY);
    errno = 0;
    failed = preadv(fd, pieces, 2, 0); /* opened for writing only */
    printf("r0 preadv-writeonly %lld %d\n", failed, errno);
    close(fd);

    /* EINTR: a read on an empty FIFO, interrupted by SIGALRM (no SA_RESTART). */
    unlink("interrupted.fifo");
    mkfifo("interrupted.fifo", 0600);
    fd = open("interrupted.fifo", O_RDWR);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
    struct itimerval timer = {{0, 0}, {0, 50000}};
    setitimer(ITIMER_REAL, &timer, NULL);
    errno = 0;
    failed = read(fd, buffer, 10);
    printf("r0 fifo-read %lld %d\n", failed, errno);
    close(fd);
    unlink("interrupted.fifo");

    /* open's third argument, taken only with O_CREAT */
    umask(0);
    unlink("mode.dat");
    fd = open("mode.dat", O_CREAT | O_WRONLY, 0640);
    struct stat status;
    fstat(fd, &status);
    printf("r0 open-mode %o\n", (unsigned)(status.st_mode & 0777));
    close(fd);
    errno = 0;
    FILE *stream = fopen("no-such-dir/missing.txt", "r");
    printf("r0 fopen-missing %d %d\n", stream == NULL, errno);

    /* A child of fork() writes a file and ends; another runs a program. */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        int out = open("child.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
        ssize_t written = write(out, buffer, 5);
        close(out);
        _exit(written == 5 ? 0 : 1);
    }
    int child_status = -1;
    waitpid(child, &child_status, 0);
    stat("child.dat", &status);
    printf("r0 fork-child %d %lld\n", WEXITSTATUS(child_status), (long long)status.st_size);
    fflush(stdout);
    child = fork();
    if (child == 0) {
        execl("/bin/sh", "sh", "-c", "printf 12345 > exec.dat", (char *)NULL);
        _exit(127);
    }
    waitpid(child, &child_status, 0);
    stat("exec.dat", &status);
    printf("r0 exec-child %d %lld\n", WEXITSTATUS(child_status), (long long)status.st_size);
    MPI_Finalize();
    return 0;
}
