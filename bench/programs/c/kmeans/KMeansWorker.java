package kmeans;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

final class KMeansWorker implements Runnable {
    private final double[][] points;
    private final int[] membership; // slots [lo,hi) owned by this worker
    private final int lo;
    private final int hi;
    private final ClusterState state;
    private final CyclicBarrier barrier;

    KMeansWorker(double[][] points, int[] membership, int lo, int hi, ClusterState state, CyclicBarrier barrier) {
        this.points = points;
        this.membership = membership;
        this.lo = lo;
        this.hi = hi;
        this.state = state;
        this.barrier = barrier;
    }

    @Override
    public void run() {
        try {
            while (true) {
                double[][] centroids = state.snapshot();
                int k = centroids.length;
                int dim = centroids[0].length;
                double[][] localSums = new double[k][dim];
                int[] localCounts = new int[k];
                int localChanged = 0;
                for (int i = lo; i < hi; i++) {
                    int best = nearest(points[i], centroids);
                    if (membership[i] != best) {
                        membership[i] = best;
                        localChanged++;
                    }
                    localCounts[best]++;
                    for (int d = 0; d < dim; d++) {
                        localSums[best][d] += points[i][d];
                    }
                }
                state.merge(localSums, localCounts, localChanged);
                barrier.await();
                if (state.isConverged()) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BrokenBarrierException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int nearest(double[] p, double[][] centroids) {
        int best = 0;
        double bestDist = Double.MAX_VALUE;
        for (int c = 0; c < centroids.length; c++) {
            double dist = 0.0;
            for (int d = 0; d < p.length; d++) {
                double diff = p[d] - centroids[c][d];
                dist += diff * diff;
            }
            if (dist < bestDist) {
                bestDist = dist;
                best = c;
            }
        }
        return best;
    }
}
