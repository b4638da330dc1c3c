package lufact;

/** Shared matrix being factorised plus the pivot vector; phases are ordered by the barrier. */
final class Factorisation {
    final double[][] a;
    final int[] ipvt;
    final int n;
    final SimpleBarrier barrier;
    final int threads;

    Factorisation(double[][] a, int threads) {
        this.a = a;
        this.n = a.length;
        this.ipvt = new int[n];
        this.threads = threads;
        this.barrier = new SimpleBarrier(threads);
    }

    /** Executed by thread 0 only while the other threads wait at the barrier. */
    void pivotAndScale(int k) {
        int p = k;
        double max = Math.abs(a[k][k]);
        for (int i = k + 1; i < n; i++) {
            double v = Math.abs(a[i][k]);
            if (v > max) {
                max = v;
                p = i;
            }
        }
        ipvt[k] = p;
        if (p != k) {
            double[] tmp = a[k];
            a[k] = a[p];
            a[p] = tmp;
        }
        double inv = 1.0 / a[k][k];
        for (int i = k + 1; i < n; i++) {
            a[i][k] *= inv;
        }
    }

    /** Rank-one update of the columns owned (cyclically) by thread id. */
    void updateColumns(int k, int id) {
        double[] pivotRow = a[k];
        for (int j = k + 1; j < n; j++) {
            if (j % threads != id) {
                continue;
            }
            double akj = pivotRow[j];
            if (akj == 0.0) {
                continue;
            }
            for (int i = k + 1; i < n; i++) {
                a[i][j] -= a[i][k] * akj;
            }
        }
    }

    /** Sequential forward/back substitution after all workers have joined. */
    double[] solve(double[] rhs) {
        double[] x = rhs.clone();
        ipvt[n - 1] = n - 1;
        for (int k = 0; k < n; k++) {
            int p = ipvt[k];
            if (p != k) {
                double t = x[k];
                x[k] = x[p];
                x[p] = t;
            }
        }
        for (int i = 0; i < n; i++) {
            double s = x[i];
            for (int j = 0; j < i; j++) {
                s -= a[i][j] * x[j];
            }
            x[i] = s;
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = x[i];
            for (int j = i + 1; j < n; j++) {
                s -= a[i][j] * x[j];
            }
            x[i] = s / a[i][i];
        }
        return x;
    }
}
