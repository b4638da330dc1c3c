package gauge;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A request-latency gauge: request threads record samples, a dashboard reads the
 * mean of the current window, and a reporter rotates the window every so often.
 */
public class LatencyGauge {

    static final class Snapshot {
        final long count, sum, min, max;

        Snapshot(long count, long sum, long min, long max) {
            this.count = count;
            this.sum = sum;
            this.min = min;
            this.max = max;
        }

        double mean() {
            return count == 0 ? 0.0 : (double) sum / count;
        }
    }

    /** One reporting window; its four statistics change together under its monitor. */
    static final class Window {
        private long count, sum;
        private long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        private boolean closed;

        /** Returns false if the window was already rotated out. */
        synchronized boolean record(long v) {
            if (closed) {
                return false;
            }
            count++;
            sum += v;
            if (v < min) {
                min = v;
            }
            if (v > max) {
                max = v;
            }
            return true;
        }

        synchronized Snapshot snapshot() {
            return new Snapshot(count, sum, min, max);
        }

        /** Closes the window; no sample can be added after the returned snapshot. */
        synchronized Snapshot close() {
            closed = true;
            return snapshot();
        }
    }

    private final AtomicReference<Window> current = new AtomicReference<>(new Window());

    void record(long latency) {
        while (!current.get().record(latency)) {
            // the window was closed by reset(); current already holds its successor
        }
    }

    Snapshot snapshot() {
        return current.get().snapshot();
    }

    double mean() {
        return snapshot().mean();
    }

    /** Starts a new window and returns the statistics of the old one. */
    Snapshot reset() {
        Window old = current.getAndSet(new Window());
        return old.close();
    }

    public static void main(String[] args) throws InterruptedException {
        final LatencyGauge gauge = new LatencyGauge();
        final AtomicLong reported = new AtomicLong();
        final AtomicInteger oddMeans = new AtomicInteger();
        final int requests = 4, samples = 20_000;
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < requests; r++) {
            final int seed = r;
            threads.add(new Thread(() -> {
                for (int i = 0; i < samples; i++) {
                    gauge.record(10 + (i * 31 + seed) % 90); // latencies in [10, 99] ms
                }
            }, "request-" + r));
        }
        Thread dashboard = new Thread(() -> {
            for (int i = 0; i < 2000; i++) {
                double m = gauge.mean();
                if (m != 0.0 && (m < 10 || m > 99)) {
                    oddMeans.incrementAndGet();
                }
            }
        }, "dashboard");
        Thread reporter = new Thread(() -> {
            for (int i = 0; i < 50; i++) {
                reported.addAndGet(gauge.reset().count);
                Thread.yield();
            }
        }, "reporter");
        threads.add(dashboard);
        threads.add(reporter);
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long total = reported.get() + gauge.reset().count;
        System.out.println("samples=" + total + " expected=" + (long) requests * samples
                + " oddMeans=" + oddMeans.get());
    }
}
