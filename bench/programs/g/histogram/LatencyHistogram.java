package histogram;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Request latency histogram with power-of-two buckets. Invariant: the bucket counts add up
 * to {@code count}, and {@code totalMicros} is the sum of all recorded samples.
 */
final class LatencyHistogram {
    static final int BUCKETS = 16;

    private final ReentrantLock lock = new ReentrantLock();
    private final long[] buckets = new long[BUCKETS];  // guarded by lock
    private long count;                                // guarded by lock
    private long totalMicros;                          // guarded by lock

    static int bucketFor(long micros) {
        int b = 63 - Long.numberOfLeadingZeros(Math.max(1, micros));
        return Math.min(b, BUCKETS - 1);
    }

    /** Records one sample; the summary fields and the bucket are updated in one critical section. */
    void record(long micros) {
        int bucket = bucketFor(micros);
        lock.lock();
        try {
            count++;
            totalMicros += micros;
            buckets[bucket]++;
        } finally {
            lock.unlock();
        }
    }

    /** A consistent view of all fields, taken under the lock. */
    Snapshot snapshot() {
        lock.lock();
        try {
            long bucketed = 0;
            for (long n : buckets) bucketed += n;
            return new Snapshot(count, bucketed, totalMicros);
        } finally {
            lock.unlock();
        }
    }

    static final class Snapshot {
        final long count, bucketed, totalMicros;

        Snapshot(long count, long bucketed, long totalMicros) {
            this.count = count;
            this.bucketed = bucketed;
            this.totalMicros = totalMicros;
        }

        boolean consistent() { return count == bucketed; }

        double meanMicros() { return count == 0 ? 0 : (double) totalMicros / count; }
    }
}
