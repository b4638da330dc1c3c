package circuitbreakerbug;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;

/**
 * A circuit breaker: after {@code threshold} consecutive failures it opens and rejects calls;
 * after {@code openMillis} it lets one trial call through (half-open) and closes again if that
 * call succeeds.
 *
 * <p>This class is thread-safe. The mode, the failure count, the opening time and the trial
 * flag are guarded by a {@link StampedLock}. The common path (breaker closed, nothing to record)
 * reads under an optimistic stamp and validates it, falling back to the locked path if a writer
 * intervened. Transitions are made under the write lock.
 */
public final class CircuitBreaker {
    public enum Mode { CLOSED, OPEN, HALF_OPEN }

    private final StampedLock lock = new StampedLock();
    private final int threshold;
    private final long openNanos;
    private final LongSupplier clock;
    private Mode mode = Mode.CLOSED; // guarded by lock
    private int failures; // guarded by lock
    private long openedAt; // guarded by lock
    private boolean trialInFlight; // guarded by lock

    public CircuitBreaker(int threshold, long openMillis, LongSupplier nanoClock) {
        if (threshold <= 0) throw new IllegalArgumentException("threshold " + threshold);
        this.threshold = threshold;
        this.openNanos = TimeUnit.MILLISECONDS.toNanos(openMillis);
        this.clock = nanoClock;
    }

    /** Whether a call may proceed now; a true answer must be followed by onSuccess or onFailure. */
    public boolean tryAcquire() {
        long stamp = lock.tryOptimisticRead();
        Mode m = mode;
        if (lock.validate(stamp) && m == Mode.CLOSED) return true; // lock-free fast path
        stamp = lock.writeLock();
        try {
            if (mode == Mode.CLOSED) return true;
            if (mode == Mode.OPEN) {
                if (clock.getAsLong() - openedAt < openNanos) return false;
                mode = Mode.HALF_OPEN; // open period over: this caller makes the trial call
                trialInFlight = true;
                return true;
            }
            if (trialInFlight) return false; // half-open: only one trial at a time
            trialInFlight = true;
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    public void onSuccess() {
        long stamp = lock.tryOptimisticRead();
        boolean clean = mode == Mode.CLOSED && failures == 0;
        if (lock.validate(stamp) && clean) return; // nothing to change
        stamp = lock.writeLock();
        try {
            failures = 0;
            if (mode == Mode.HALF_OPEN) {
                mode = Mode.CLOSED;
                trialInFlight = false;
            }
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    public void onFailure() {
        long now = clock.getAsLong();
        int seen;
        long stamp = lock.readLock();
        try {
            seen = failures;
        } finally {
            lock.unlockRead(stamp);
        }
        stamp = lock.writeLock();
        try {
            if (mode == Mode.HALF_OPEN) { // the trial failed: open again
                trip(now);
                return;
            }
            if (mode == Mode.OPEN) return;
            failures = seen + 1; // BUG: read-modify-write split: failures read under the read lock, written back under a separate write lock, so concurrent failures overwrite each other and the breaker trips late
            if (failures >= threshold) trip(now);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    private void trip(long now) { // caller holds the write lock
        mode = Mode.OPEN;
        openedAt = now;
        failures = 0;
        trialInFlight = false;
    }

    public Mode mode() {
        long stamp = lock.tryOptimisticRead();
        Mode m = mode;
        if (lock.validate(stamp)) return m;
        stamp = lock.readLock();
        try {
            return mode;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Consecutive failures counted while closed. */
    public int failures() {
        long stamp = lock.readLock();
        try {
            return failures;
        } finally {
            lock.unlockRead(stamp);
        }
    }
}
