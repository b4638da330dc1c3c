package phaser;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Phaser;

/**
 * Jacobi relaxation of the pressure along a pipe, one worker per block of
 * cells. Two buffers alternate by phase parity: in phase p every worker reads
 * grid[p % 2] (its own cells and its neighbours' boundary cells) and writes
 * only its own cells of grid[(p + 1) % 2]. The Phaser separates the phases.
 * Each worker offers its largest local change to a synchronized Residual; the
 * Phaser's onAdvance (run once, after all workers arrived) closes the round
 * and terminates the phaser when the relaxation has converged.
 */
public class PipeRelaxation {

    static final int CELLS = 24;
    static final int WORKERS = 4;
    static final int MAX_PHASES = 5000;
    static final double EPSILON = 1e-3;

    /** Global reduction of the per-round maximum change. */
    static final class Residual {
        private double roundMax;
        private final List<Double> history = new ArrayList<>();

        synchronized void offer(double localMax) {
            if (localMax > roundMax) {
                roundMax = localMax;
            }
        }

        /** Ends the round: records and resets the maximum, returns it. */
        synchronized double closeRound() {
            double m = roundMax;
            history.add(m);
            roundMax = 0.0;
            return m;
        }

        synchronized int rounds() {
            return history.size();
        }
    }

    private final double[][] grid = new double[2][CELLS];
    private final Residual residual = new Residual();
    private final Phaser phaser = new Phaser(WORKERS) {
        @Override
        protected boolean onAdvance(int phase, int registeredParties) {
            double r = residual.closeRound();
            return r < EPSILON || phase + 1 >= MAX_PHASES;
        }
    };

    PipeRelaxation() {
        grid[0][0] = grid[1][0] = 100.0;                 // inlet pressure, fixed
        grid[0][CELLS - 1] = grid[1][CELLS - 1] = 20.0;  // outlet pressure, fixed
    }

    void relaxBlock(int lo, int hi) {
        int phase = phaser.getPhase();
        while (phase >= 0) {
            double[] src = grid[phase % 2];
            double[] dst = grid[(phase + 1) % 2];
            double localMax = 0.0;
            for (int i = lo; i < hi; i++) {
                if (i == 0 || i == CELLS - 1) {
                    dst[i] = src[i];
                    continue;
                }
                double next = 0.5 * (src[i - 1] + src[i + 1]);
                localMax = Math.max(localMax, Math.abs(next - src[i]));
                dst[i] = next;
            }
            residual.offer(localMax);
            phase = phaser.arriveAndAwaitAdvance();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        PipeRelaxation sim = new PipeRelaxation();
        Thread[] workers = new Thread[WORKERS];
        int block = CELLS / WORKERS;
        for (int w = 0; w < WORKERS; w++) {
            final int lo = w * block;
            final int hi = (w == WORKERS - 1) ? CELLS : lo + block;
            workers[w] = new Thread(() -> sim.relaxBlock(lo, hi), "relax-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        int rounds = sim.residual.rounds();
        double[] fin = sim.grid[rounds % 2];
        System.out.printf("rounds=%d p[6]=%.3f p[12]=%.3f p[18]=%.3f%n",
                rounds, fin[6], fin[12], fin[18]);
    }
}
