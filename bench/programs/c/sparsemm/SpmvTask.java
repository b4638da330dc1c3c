package sparsemm;

import java.util.concurrent.CountDownLatch;

final class SpmvTask implements Runnable {
    private final int id;
    private final SparseMatrix m;
    private final double[] x;
    private final double[] y;
    private final int lo;
    private final int hi;
    private final int iterations;
    private final double[] partialNorm;
    private final CountDownLatch done;

    SpmvTask(int id, SparseMatrix m, double[] x, double[] y, int lo, int hi, int iterations,
             double[] partialNorm, CountDownLatch done) {
        this.id = id;
        this.m = m;
        this.x = x;
        this.y = y;
        this.lo = lo;
        this.hi = hi;
        this.iterations = iterations;
        this.partialNorm = partialNorm;
        this.done = done;
    }

    @Override
    public void run() {
        try {
            int[] row = m.row;
            int[] col = m.col;
            double[] val = m.val;
            for (int it = 0; it < iterations; it++) {
                for (int k = lo; k < hi; k++) {
                    y[row[k]] += x[col[k]] * val[k];
                }
            }
            // norm contribution of the rows owned by this thread
            double s = 0.0;
            int lastRow = -1;
            for (int k = lo; k < hi; k++) {
                int r = row[k];
                if (r != lastRow) {
                    s += y[r] * y[r];
                    lastRow = r;
                }
            }
            partialNorm[id] = s;
        } finally {
            done.countDown();
        }
    }
}
