/*
 * Peer benchmark for `clab`'s cpu backend: MPI_Allreduce, float32 sum, nccl-tests method.
 *
 *   mpicc -O2 -o mpi_allreduce mpi_allreduce.c
 *   mpirun -np 2 ./mpi_allreduce [-b BYTES] [-w WARMUP] [-n ITERS]
 *
 * Defaults: 64 MiB (67108864 bytes), 5 warm-up iterations, 20 timed iterations.
 *
 * Method (as nccl-tests' default, -a 1 / "average"): every rank times its own loop of ITERS
 * in-place all-reduces after an MPI_Barrier (MPI_Wtime around the whole loop, divided by ITERS),
 * then the per-rank means are averaged with MPI_Allreduce(SUM)/nranks.  The max across ranks of
 * the mean is printed too (time_max_us); with a barrier before timing and a synchronising
 * collective the two differ by only a few µs.
 *   algbw = bytes / time  (GB/s, GB = 1e9 B)
 *   busbw = algbw * 2 (n-1) / n
 *
 * Correctness: rank r fills element i with (float)((i % 64) + r) — small integers, so every
 * partial sum is exact in float32 whatever the reduction order.  One out-of-place all-reduce,
 * outside the timing, is checked against (i % 64) * n + n(n-1)/2 (like nccl-tests' -c 1: check
 * once, time separately).  The timed loop then runs in place on that result, as nccl-tests'
 * in-place column and torch's all_reduce do (values grow by ×n per call; still finite).
 * The number of wrong elements, summed over ranks, is printed as `wrong=`.
 *
 * Output: one machine-readable line on rank 0:
 *   RESULT ranks=2 bytes=67108864 warmup=5 iters=20 time_us=... time_max_us=... algbw=... busbw=... wrong=0
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *prog) {
  fprintf(stderr, "usage: %s [-b BYTES] [-w WARMUP] [-n ITERS]\n", prog);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  long long bytes = 64LL * 1024 * 1024;
  int warmup = 5, iters = 20;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-b") && a + 1 < argc) bytes = atoll(argv[++a]);
    else if (!strcmp(argv[a], "-w") && a + 1 < argc) warmup = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-n") && a + 1 < argc) iters = atoi(argv[++a]);
    else {
      if (rank == 0) usage(argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (bytes <= 0 || bytes % (long long)sizeof(float) != 0 || iters < 1 || warmup < 0) {
    if (rank == 0) fprintf(stderr, "bad arguments: bytes must be a positive multiple of 4, iters >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long long count = bytes / (long long)sizeof(float);
  if (count > 0x7fffffffLL) {
    if (rank == 0) fprintf(stderr, "too many elements for an int count\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  float *send = (float *)malloc((size_t)bytes);
  float *recv = (float *)malloc((size_t)bytes);
  if (!send || !recv) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long long i = 0; i < count; i++) {
    send[i] = (float)((i % 64) + rank);
    recv[i] = 0.0f;
  }

  /* Correctness check (out of place, untimed). */
  MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  const float base = (float)((long long)nranks * (nranks - 1) / 2);
  long long wrong = 0;
  for (long long i = 0; i < count; i++) {
    const float expect = (float)(i % 64) * (float)nranks + base;
    if (recv[i] != expect) wrong++;
  }
  long long wrong_all = 0;
  MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

  /* Warm-up, then timed in-place iterations (nccl-tests default is in place). */
  for (int it = 0; it < warmup; it++)
    MPI_Allreduce(MPI_IN_PLACE, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++)
    MPI_Allreduce(MPI_IN_PLACE, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  const double t1 = MPI_Wtime();
  const double mean = (t1 - t0) / iters; /* seconds per iteration, this rank */

  double sum_mean = 0.0, max_mean = 0.0;
  MPI_Allreduce(&mean, &sum_mean, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&mean, &max_mean, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double avg = sum_mean / nranks;

  if (rank == 0) {
    const double algbw = (double)bytes / avg / 1e9;
    const double busbw = algbw * 2.0 * (nranks - 1) / nranks;
    printf("RESULT ranks=%d bytes=%lld warmup=%d iters=%d time_us=%.1f time_max_us=%.1f algbw=%.3f busbw=%.3f wrong=%lld\n",
           nranks, bytes, warmup, iters, avg * 1e6, max_mean * 1e6, algbw, busbw, wrong_all);
    fflush(stdout);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return wrong_all == 0 ? 0 : 1;
}
