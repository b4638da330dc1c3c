package stats;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** Aggregates request latencies (count, sum, min, max, avg) reported by several worker threads. */
public class StatsAggregator {

    static final class Snapshot {
        final long count;
        final long min;
        final long max;
        final double avg;

        Snapshot(long count, long min, long max, double avg) {
            this.count = count;
            this.min = min;
            this.max = max;
            this.avg = avg;
        }

        boolean consistent() {
            return count == 0 || (avg >= min && avg <= max);
        }

        @Override
        public String toString() {
            return "count=" + count + " min=" + min + " max=" + max + String.format(" avg=%.2f", avg);
        }
    }

    private final Object lock = new Object();
    private long count;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    void record(long latencyMs) {
        synchronized (lock) {
            sum += latencyMs;
            count++;
            if (latencyMs < min) {
                min = latencyMs;
            }
            if (latencyMs > max) {
                max = latencyMs;
            }
        }
    }

    Snapshot snapshot() {
        synchronized (lock) {
            double avg = count == 0 ? 0.0 : (double) sum / count;
            return new Snapshot(count, min, max, avg);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final StatsAggregator stats = new StatsAggregator();
        final AtomicBoolean done = new AtomicBoolean(false);
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            final int base = 100 + w;
            Thread t = new Thread(() -> {
                for (int i = 0; i < 100_000; i++) {
                    stats.record(base + (i % 2));
                }
            }, "worker-" + w);
            workers.add(t);
        }
        final long[] inconsistent = new long[1];
        Thread monitor = new Thread(() -> {
            while (!done.get()) {
                if (!stats.snapshot().consistent()) {
                    inconsistent[0]++;
                }
            }
        }, "monitor");
        monitor.start();
        for (Thread t : workers) {
            t.start();
        }
        for (Thread t : workers) {
            t.join();
        }
        done.set(true);
        monitor.join();
        System.out.println("final " + stats.snapshot() + " inconsistent snapshots=" + inconsistent[0]);
    }
}
