package versioncache;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A latency dashboard computes percentiles over recorded samples. Sorting is
 * expensive, so it is done outside the lock on a private snapshot. The result
 * is only installed as the cached summary if the version stamp has not moved
 * since the snapshot was taken (checked in a second synchronized block).
 */
public class LatencyDashboard {

    static final class Summary {
        final long version;
        final int count;
        final long p50;
        final long p99;

        Summary(long version, int count, long p50, long p99) {
            this.version = version;
            this.count = count;
            this.p50 = p50;
            this.p99 = p99;
        }
    }

    private long[] samples = new long[64];
    private int size;
    private long version;
    private Summary cached;
    private int installs;
    private int discarded;

    synchronized void record(long micros) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = micros;
        version++;
    }

    Summary summary() {
        long[] snapshot;
        long v;
        synchronized (this) {
            if (cached != null && cached.version == version) {
                return cached;
            }
            snapshot = Arrays.copyOf(samples, size);
            v = version;
        }
        // Expensive work on a thread-private copy, no lock held.
        Arrays.sort(snapshot);
        Summary s = snapshot.length == 0
                ? new Summary(v, 0, 0, 0)
                : new Summary(v, snapshot.length,
                        snapshot[snapshot.length / 2],
                        snapshot[Math.min(snapshot.length - 1, (int) (snapshot.length * 0.99))]);
        synchronized (this) {
            if (version == v) {
                cached = s;
                installs++;
            } else {
                discarded++;
            }
        }
        // s is a consistent summary of the data as of version v.
        return s;
    }

    synchronized String counters() {
        return "installs=" + installs + " discarded=" + discarded;
    }

    public static void main(String[] args) throws InterruptedException {
        LatencyDashboard dash = new LatencyDashboard();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int p = 0; p < 2; p++) {
            final int base = p * 1000;
            pool.execute(() -> {
                for (int i = 0; i < 3000; i++) {
                    dash.record(base + (i * 37L) % 900);
                }
            });
        }
        for (int r = 0; r < 2; r++) {
            pool.execute(() -> {
                for (int i = 0; i < 200; i++) {
                    Summary s = dash.summary();
                    if (s.count > 0 && s.p50 > s.p99) {
                        throw new AssertionError("inconsistent summary");
                    }
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            System.out.println("timeout");
        }
        Summary fin = dash.summary();
        System.out.println("count=" + fin.count + " p50=" + fin.p50 + " p99=" + fin.p99
                + " " + dash.counters());
    }
}
