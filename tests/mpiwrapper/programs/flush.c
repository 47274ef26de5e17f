/* flush.c: after each of 6 Barriers, print how many <Barrier elements this
 * rank's .trc holds on disk; with the argument "kill" the program kills
 * itself with SIGKILL after the fourth Barrier. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

static int barriers_on_disk(void) {
    const char *dir = getenv("HDTRACE_DIR");
    char suffix[64], path[4096];
    snprintf(suffix, sizeof suffix, "_%d_0.trc", tc_rank());
    DIR *listing = opendir(dir ? dir : ".");
    if (!listing) return -1;
    int count = -1;
    for (struct dirent *entry; (entry = readdir(listing));) {
        size_t n = strlen(entry->d_name), m = strlen(suffix);
        if (n < m || strcmp(entry->d_name + n - m, suffix) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", entry->d_name);
        FILE *trace = fopen(path, "r");
        if (!trace) break;
        static char text[1 << 20];
        size_t len = fread(text, 1, sizeof text - 1, trace);
        text[len] = '\0';
        fclose(trace);
        count = 0;
        for (char *p = text; (p = strstr(p, "<Barrier")); ++p)
            ++count;
    }
    closedir(listing);
    return count;
}

int main(int argc, char **argv) {
    tc_init(&argc, &argv);
    int kill_after = argc > 1 && strcmp(argv[1], "kill") == 0 ? 4 : -1;
    for (int i = 1; i <= 6; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        ex_begin("Barrier");
        ex_comm("cid", MPI_COMM_WORLD);
        ex_end();
        tc_say("after barrier %d: %d on disk", i, barriers_on_disk());
        if (i == kill_after) raise(SIGKILL);
    }
    tc_finalize();
    return 0;
}
