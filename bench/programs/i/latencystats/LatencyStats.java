package latencystats;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Latency metrics of one operation: count, total, maximum, errors and a power-of-two histogram.
 *
 * <p>This class is thread-safe and lock-free. Counts and sums are striped {@link LongAdder}s so
 * that recording threads do not contend; the maximum is kept with
 * {@link AtomicLong#accumulateAndGet}, an atomic read-modify-write. A {@link Snapshot} sums the
 * stripes one after another while recording goes on, so it is approximate by design: count,
 * total and maximum may belong to slightly different moments. Snapshots are for monitoring, not
 * for accounting.
 */
public final class LatencyStats {
    private static final int BUCKETS = 40;

    private final LongAdder count = new LongAdder();
    private final LongAdder totalNanos = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicLong maxNanos = new AtomicLong();
    private final LongAdder[] histogram = new LongAdder[BUCKETS];

    public LatencyStats() {
        for (int i = 0; i < BUCKETS; i++) histogram[i] = new LongAdder();
    }

    /** Records one completed call that took {@code nanos}. */
    public void record(long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative latency " + nanos);
        count.increment();
        totalNanos.add(nanos);
        maxNanos.accumulateAndGet(nanos, Math::max);
        histogram[bucketOf(nanos)].increment();
    }

    public void recordError() {
        errors.increment();
    }

    /** Runs {@code call}, recording its latency, or an error if it throws. */
    public <T> T time(Supplier<T> call) {
        long start = System.nanoTime();
        try {
            T result = call.get();
            record(System.nanoTime() - start);
            return result;
        } catch (RuntimeException e) {
            recordError();
            throw e;
        }
    }

    /** An approximate view of the metrics (see the class comment). */
    public Snapshot snapshot() {
        long[] buckets = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) buckets[i] = histogram[i].sum();
        return new Snapshot(count.sum(), totalNanos.sum(), maxNanos.get(), errors.sum(), buckets);
    }

    /**
     * Like {@link #snapshot()}, and starts a new interval. Every stripe is taken with an atomic
     * get-and-zero, so no update is lost or counted twice, but a call recorded meanwhile may have
     * its count in one interval and its latency in the next (approximate, as documented).
     */
    public Snapshot snapshotAndReset() {
        long[] buckets = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) buckets[i] = histogram[i].sumThenReset();
        return new Snapshot(count.sumThenReset(), totalNanos.sumThenReset(), maxNanos.getAndSet(0),
                errors.sumThenReset(), buckets);
    }

    private static int bucketOf(long nanos) {
        return Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(nanos));
    }

    /** Immutable metric values. */
    public static final class Snapshot {
        public final long count;
        public final long totalNanos;
        public final long maxNanos;
        public final long errors;
        private final long[] histogram;

        Snapshot(long count, long totalNanos, long maxNanos, long errors, long[] histogram) {
            this.count = count;
            this.totalNanos = totalNanos;
            this.maxNanos = maxNanos;
            this.errors = errors;
            this.histogram = histogram;
        }

        public double meanNanos() {
            return count == 0 ? 0 : (double) totalNanos / count;
        }

        /** Calls whose latency was below 2^i nanoseconds and at least 2^(i-1). */
        public long bucket(int i) {
            return histogram[i];
        }
    }
}
