package kmeans;

import java.util.Random;
import java.util.concurrent.CyclicBarrier;

/**
 * Parallel k-means clustering. Each iteration every worker assigns its block
 * of points to the nearest centroid and accumulates per-cluster sums locally;
 * the local results are then merged into the shared accumulators in a single
 * ReentrantLock-protected reduction step. The barrier action (executed once
 * per iteration by the last thread to arrive) recomputes the centroids and
 * decides convergence.
 */
public class KMeans {
    static final int N = 4000;
    static final int K = 5;
    static final int DIM = 2;
    static final int THREADS = 4;
    static final int MAX_ITERATIONS = 50;

    public static void main(String[] args) throws InterruptedException {
        Random rnd = new Random(5);
        double[][] centres = new double[K][DIM];
        for (int c = 0; c < K; c++) {
            for (int d = 0; d < DIM; d++) {
                centres[c][d] = rnd.nextDouble() * 100.0;
            }
        }
        double[][] points = new double[N][DIM];
        for (int i = 0; i < N; i++) {
            int c = i % K;
            for (int d = 0; d < DIM; d++) {
                points[i][d] = centres[c][d] + rnd.nextGaussian() * 3.0;
            }
        }
        double[][] initial = new double[K][];
        for (int c = 0; c < K; c++) {
            initial[c] = points[c * 7].clone();
        }

        ClusterState state = new ClusterState(initial, MAX_ITERATIONS);
        CyclicBarrier barrier = new CyclicBarrier(THREADS, state::recompute);
        int[] membership = new int[N];
        java.util.Arrays.fill(membership, -1);

        Thread[] workers = new Thread[THREADS];
        int chunk = (N + THREADS - 1) / THREADS;
        for (int t = 0; t < THREADS; t++) {
            int lo = Math.min(N, t * chunk);
            int hi = Math.min(N, lo + chunk);
            workers[t] = new Thread(new KMeansWorker(points, membership, lo, hi, state, barrier), "kmeans-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }

        double[][] result = state.snapshot();
        int[] sizes = new int[K];
        for (int m : membership) {
            sizes[m]++;
        }
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < K; c++) {
            sb.append(String.format("(%.2f,%.2f)x%d ", result[c][0], result[c][1], sizes[c]));
        }
        System.out.println("iterations=" + state.iterations() + " centroids=" + sb.toString().trim());
    }
}
