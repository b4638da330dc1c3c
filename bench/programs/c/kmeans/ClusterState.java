package kmeans;

import java.util.concurrent.locks.ReentrantLock;

/** Shared centroids and reduction accumulators, all guarded by one ReentrantLock. */
final class ClusterState {
    private final ReentrantLock lock = new ReentrantLock();
    private final double[][] centroids;
    private final double[][] sums;
    private final int[] counts;
    private int changed;             // guarded by lock
    private final int maxIterations;
    private int iterations;          // guarded by lock
    private volatile boolean converged;

    ClusterState(double[][] initial, int maxIterations) {
        int k = initial.length;
        int dim = initial[0].length;
        this.centroids = new double[k][];
        for (int c = 0; c < k; c++) {
            centroids[c] = initial[c].clone();
        }
        this.sums = new double[k][dim];
        this.counts = new int[k];
        this.maxIterations = maxIterations;
    }

    /** Consistent copy of all centroids. */
    double[][] snapshot() {
        lock.lock();
        try {
            double[][] copy = new double[centroids.length][];
            for (int c = 0; c < centroids.length; c++) {
                copy[c] = centroids[c].clone();
            }
            return copy;
        } finally {
            lock.unlock();
        }
    }

    /** Reduction step: add a worker's partial sums and counts in one critical section. */
    void merge(double[][] localSums, int[] localCounts, int localChanged) {
        lock.lock();
        try {
            for (int c = 0; c < counts.length; c++) {
                counts[c] += localCounts[c];
                for (int d = 0; d < sums[c].length; d++) {
                    sums[c][d] += localSums[c][d];
                }
            }
            changed += localChanged;
        } finally {
            lock.unlock();
        }
    }

    /** Barrier action: compute new centroids, reset accumulators and decide convergence. */
    void recompute() {
        lock.lock();
        try {
            int moved = changed;
            changed = 0;
            for (int c = 0; c < counts.length; c++) {
                if (counts[c] > 0) {
                    for (int d = 0; d < sums[c].length; d++) {
                        centroids[c][d] = sums[c][d] / counts[c];
                        sums[c][d] = 0.0;
                    }
                }
                counts[c] = 0;
            }
            iterations++;
            if (moved == 0 || iterations >= maxIterations) {
                converged = true;
            }
        } finally {
            lock.unlock();
        }
    }

    boolean isConverged() {
        return converged;
    }

    int iterations() {
        lock.lock();
        try {
            return iterations;
        } finally {
            lock.unlock();
        }
    }
}
