/*
 * distgraph.c: distributed graph topologies of several shapes, the pattern
 * of MPICH's topo/distgraph1 that hung traced under the default writer
 * thread choice. Every shape is made with reorder 0 and 1, its
 * neighbour counts are checked, and it is freed.
 * Prints "r<rank> <shape> reorder=<r> in=<indegree> out=<outdegree> weighted=<w>".
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static int rank, size;

static void report(const char *shape, int reorder, MPI_Comm graph, int in_expected,
                   int out_expected) {
    int in, out, weighted;
    MPI_Dist_graph_neighbors_count(graph, &in, &out, &weighted);
    if (in != in_expected || out != out_expected) {
        fprintf(stderr, "r%d %s: in %d out %d, expected %d %d\n", rank, shape, in, out, in_expected,
                out_expected);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("r%d %s reorder=%d in=%d out=%d weighted=%d\n", rank, shape, reorder, in, out, weighted);
    MPI_Comm_free(&graph);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    int *all = malloc(sizeof(int) * (size_t)size * (size_t)size);
    int *degrees = malloc(sizeof(int) * (size_t)size);
    int *sources = malloc(sizeof(int) * (size_t)size);
    int *weights = malloc(sizeof(int) * (size_t)size * (size_t)size);

    for (int reorder = 0; reorder <= 1; ++reorder) {
        MPI_Comm graph;
        /* a ring, each rank naming its own out-edge, weighted */
        int self[1] = {rank}, one[1] = {1}, to[1] = {next}, weight[1] = {rank + 1};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, self, one, to, weight, MPI_INFO_NULL, reorder,
                              &graph);
        report("ring", reorder, graph, 1, 1);

        /* the reverse ring, unweighted, each rank naming another's edge */
        int from[1] = {next}, back[1] = {rank};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, from, one, back, MPI_UNWEIGHTED, MPI_INFO_NULL,
                              reorder, &graph);
        report("reverse-ring", reorder, graph, 1, 1);

        /* the complete graph, all edges named by rank 0 alone */
        int n = 0, edges = 0;
        if (rank == 0) {
            n = size;
            for (int s = 0; s < size; ++s) {
                sources[s] = s;
                degrees[s] = size - 1;
                for (int d = 0; d < size; ++d)
                    if (d != s) {
                        all[edges] = d;
                        weights[edges++] = s * size + d;
                    }
            }
        }
        MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, all, weights, MPI_INFO_NULL,
                              reorder, &graph);
        report("complete", reorder, graph, size - 1, size - 1);

        /* no edges at all */
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, sources, degrees, all, MPI_WEIGHTS_EMPTY,
                              MPI_INFO_NULL, reorder, &graph);
        report("empty", reorder, graph, 0, 0);

        /* adjacent forms: the ring, weighted and unweighted, and a star */
        int in[1] = {previous}, out[1] = {next}, inWeight[1] = {1}, outWeight[1] = {2};
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in, inWeight, 1, out, outWeight,
                                       MPI_INFO_NULL, reorder, &graph);
        report("adjacent-ring", reorder, graph, 1, 1);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in, MPI_UNWEIGHTED, 1, out,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &graph);
        report("adjacent-ring-unweighted", reorder, graph, 1, 1);
        int leaves = 0;
        for (int r = 1; r < size; ++r)
            all[leaves++] = r;
        int hub[1] = {0};
        if (rank == 0)
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, leaves, all, MPI_UNWEIGHTED, leaves, all,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &graph);
        else
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, hub, MPI_UNWEIGHTED, 1, hub,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &graph);
        report("adjacent-star", reorder, graph, rank == 0 ? size - 1 : 1, rank == 0 ? size - 1 : 1);
    }
    free(all);
    free(degrees);
    free(sources);
    free(weights);
    MPI_Finalize();
    return 0;
}
