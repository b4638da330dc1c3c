package heatgrid;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Heat diffusion along a rod split into segments, one thread per segment.
 * Two buffers alternate by step parity: in step p each thread reads buf[p%2]
 * (all slots) and writes only its own slot of buf[(p+1)%2]. A CyclicBarrier
 * separates the steps, so no slot is read while it is being written.
 * Each SegmentThread keeps its own statistics in its own fields; main reads
 * them only after join().
 */
public class RodSimulation {

    static final int SEGMENTS = 6;
    static final int STEPS = 400;

    static final double[][] buf = new double[2][SEGMENTS];

    static final class SegmentThread extends Thread {
        private final int idx;
        private final CyclicBarrier barrier;
        // confined to this thread until join()
        private int stepsDone;
        private double maxChange;
        private double lastValue;

        SegmentThread(int idx, CyclicBarrier barrier) {
            super("segment-" + idx);
            this.idx = idx;
            this.barrier = barrier;
        }

        @Override
        public void run() {
            try {
                for (int p = 0; p < STEPS; p++) {
                    double[] src = buf[p % 2];
                    double[] dst = buf[(p + 1) % 2];
                    double left = idx == 0 ? 100.0 : src[idx - 1];   // hot end
                    double right = idx == SEGMENTS - 1 ? 0.0 : src[idx + 1]; // cold end
                    double me = src[idx];
                    double next = me + 0.25 * (left - 2 * me + right);
                    dst[idx] = next;
                    maxChange = Math.max(maxChange, Math.abs(next - me));
                    lastValue = next;
                    stepsDone++;
                    barrier.await();
                }
            } catch (InterruptedException | BrokenBarrierException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        CyclicBarrier barrier = new CyclicBarrier(SEGMENTS);
        SegmentThread[] threads = new SegmentThread[SEGMENTS];
        for (int i = 0; i < SEGMENTS; i++) {
            threads[i] = new SegmentThread(i, barrier);
        }
        for (SegmentThread t : threads) {
            t.start();
        }
        for (SegmentThread t : threads) {
            t.join();
        }
        double[] fin = buf[STEPS % 2];
        StringBuilder sb = new StringBuilder("profile:");
        int totalSteps = 0;
        double worstChange = 0;
        boolean agrees = true;
        for (int i = 0; i < SEGMENTS; i++) {
            sb.append(String.format(" %.2f", fin[i]));
            totalSteps += threads[i].stepsDone;
            worstChange = Math.max(worstChange, threads[i].maxChange);
            agrees &= threads[i].lastValue == fin[i];
        }
        System.out.println(sb + " steps=" + totalSteps
                + String.format(" maxChange=%.2f", worstChange) + " agrees=" + agrees);
    }
}
