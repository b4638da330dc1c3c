package sor;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/** Jacobi relaxation: each worker owns a band of rows; a barrier separates the iterations. */
public class Sor {
    static final int N = 64;
    static final int ITER = 50;

    private double[][] cur = new double[N][N];
    private double[][] next = new double[N][N];
    private final CyclicBarrier barrier;
    private double residual;          // written only by the barrier action
    private double maxDelta;          // per-iteration maximum, merged under the lock

    Sor(int workers) {
        for (int j = 0; j < N; j++) cur[0][j] = next[0][j] = 100.0;
        barrier = new CyclicBarrier(workers, this::swap);
    }

    /** Barrier action: runs in one thread while all workers wait. */
    private void swap() {
        double[][] t = cur;
        cur = next;
        next = t;
        synchronized (this) {
            residual = maxDelta;
            maxDelta = 0;
        }
    }

    private synchronized void reportDelta(double d) {
        if (d > maxDelta) maxDelta = d;
    }

    synchronized double residual() { return residual; }

    void work(int lo, int hi) throws InterruptedException, BrokenBarrierException {
        for (int it = 0; it < ITER; it++) {
            double[][] a = cur;
            double[][] b = next;
            double local = 0;
            for (int i = Math.max(lo, 1); i < Math.min(hi, N - 1); i++) {
                for (int j = 1; j < N - 1; j++) {
                    b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
                    local = Math.max(local, Math.abs(b[i][j] - a[i][j]));
                }
            }
            reportDelta(local);
            barrier.await();
        }
    }

    public static void main(String[] args) throws Exception {
        int workers = 4;
        Sor sor = new Sor(workers);
        Thread[] ts = new Thread[workers];
        int band = N / workers;
        for (int w = 0; w < workers; w++) {
            final int lo = w * band, hi = (w + 1) * band;
            ts[w] = new Thread(() -> {
                try {
                    sor.work(lo, hi);
                } catch (InterruptedException | BrokenBarrierException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ts[w].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("residual " + sor.residual() + " center " + sor.cur[N / 2][N / 2]);
    }
}
