package prefixsum;

import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two-pass block parallel inclusive prefix sum. Phase 1: each thread scans
 * its own block and publishes the block total in its own slot of blockSums.
 * A CyclicBarrier separates the phases. Phase 2: each thread reads the
 * (now immutable) totals of the preceding blocks and adds that offset to
 * its own block. The computation is repeated for several rounds on fresh
 * input, reusing the barrier.
 */
public class PrefixSum {
    static final int N = 100_000;
    static final int THREADS = 4;
    static final int ROUNDS = 5;

    static final long[] data = new long[N];
    static final long[] blockSums = new long[THREADS];
    static final long[] checksums = new long[THREADS];

    public static void main(String[] args) throws InterruptedException {
        Random rnd = new Random(99);
        long[][] inputs = new long[ROUNDS][N];
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < N; i++) {
                inputs[r][i] = rnd.nextInt(1000);
            }
        }
        // the barrier action runs in the last arriving thread before any waiter is released
        final AtomicInteger round = new AtomicInteger();
        CyclicBarrier loadBarrier = new CyclicBarrier(THREADS, () -> {
            System.arraycopy(inputs[round.getAndIncrement()], 0, data, 0, N);
        });
        CyclicBarrier phaseBarrier = new CyclicBarrier(THREADS);

        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            workers[t] = new Thread(() -> work(id, loadBarrier, phaseBarrier), "scan-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }

        // verify the last round sequentially
        long[] last = inputs[ROUNDS - 1];
        long running = 0;
        boolean ok = true;
        for (int i = 0; i < N; i++) {
            running += last[i];
            if (data[i] != running) {
                ok = false;
                break;
            }
        }
        long checksum = 0;
        for (long c : checksums) {
            checksum += c;
        }
        System.out.println("total=" + data[N - 1] + " checksum=" + checksum + (ok ? " VALID" : " INVALID"));
    }

    static void work(int id, CyclicBarrier loadBarrier, CyclicBarrier phaseBarrier) {
        int chunk = (N + THREADS - 1) / THREADS;
        int lo = Math.min(N, id * chunk);
        int hi = Math.min(N, lo + chunk);
        try {
            for (int r = 0; r < ROUNDS; r++) {
                loadBarrier.await();
                // phase 1: local inclusive scan of this thread's block
                long s = 0;
                for (int i = lo; i < hi; i++) {
                    s += data[i];
                    data[i] = s;
                }
                blockSums[id] = s;
                phaseBarrier.await();
                // phase 2: add the sum of all preceding blocks
                long offset = 0;
                for (int t = 0; t < id; t++) {
                    offset += blockSums[t];
                }
                long local = 0;
                for (int i = lo; i < hi; i++) {
                    data[i] += offset;
                    local ^= data[i];
                }
                checksums[id] += local;
                // nobody may overwrite blockSums for the next round before everyone has read them
                phaseBarrier.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BrokenBarrierException e) {
            throw new IllegalStateException(e);
        }
    }
}
