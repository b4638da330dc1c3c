package sparsemm;

import java.util.Random;
import java.util.concurrent.CountDownLatch;

/**
 * Sparse matrix-vector multiply in the style of the JGF SparseMatmult
 * benchmark. Non-zeros are stored in coordinate form sorted by row; each
 * thread is given a contiguous range of non-zeros whose rows do not overlap
 * with any other thread's range, so y[row] is only written by its owner.
 * Completion is signalled through a CountDownLatch.
 */
public class SparseMatmult {
    static final int N = 2000;
    static final int NZ = 20000;
    static final int ITERATIONS = 50;
    static final int THREADS = 4;

    public static void main(String[] args) throws InterruptedException {
        Random rnd = new Random(1010);
        double[] x = new double[N];
        for (int i = 0; i < N; i++) {
            x[i] = rnd.nextDouble();
        }
        SparseMatrix m = SparseMatrix.random(N, NZ, rnd);
        double[] y = new double[N];

        int[] lowsum = new int[THREADS];
        int[] highsum = new int[THREADS];
        m.partitionByRows(THREADS, lowsum, highsum);

        CountDownLatch done = new CountDownLatch(THREADS);
        double[] partialNorm = new double[THREADS];
        for (int t = 0; t < THREADS; t++) {
            Runnable r = new SpmvTask(t, m, x, y, lowsum[t], highsum[t], ITERATIONS, partialNorm, done);
            new Thread(r, "spmv-" + t).start();
        }
        done.await();

        double norm = 0.0;
        for (int t = 0; t < THREADS; t++) {
            norm += partialNorm[t];
        }

        // sequential reference
        double[] yref = new double[N];
        for (int it = 0; it < ITERATIONS; it++) {
            for (int k = 0; k < m.nz; k++) {
                yref[m.row[k]] += x[m.col[k]] * m.val[k];
            }
        }
        double refNorm = 0.0, diff = 0.0;
        for (int i = 0; i < N; i++) {
            refNorm += yref[i] * yref[i];
            diff = Math.max(diff, Math.abs(yref[i] - y[i]));
        }
        System.out.printf("ytotal^2=%.6f reference=%.6f maxdiff=%.3e %s%n", norm, refNorm, diff,
                diff < 1e-9 ? "VALID" : "INVALID");
    }
}
