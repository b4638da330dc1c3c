package ratelimiterbug;

import java.util.concurrent.TimeUnit;

/**
 * A token-bucket rate limiter handing out permits at a configurable steady rate,
 * with bursts of up to {@code maxBurstSeconds} worth of unused permits.
 *
 * <p>Callers that cannot be served immediately reserve their permits up front
 * and then wait outside the lock, so the stored permit count may temporarily
 * become negative (permits promised to sleeping callers). Later callers queue
 * behind that debt, which keeps the long-term rate exact.
 *
 * <p>This class is thread-safe: all state is guarded by a private monitor and
 * every read-modify-write of the bucket happens inside a single critical section.
 */
public final class TokenBucketRateLimiter {

    private static final double NANOS_PER_SECOND = 1_000_000_000.0;

    private final Object mutex = new Object();
    private final double maxBurstSeconds;
    private double permitsPerSecond; // guarded by mutex
    private double maxPermits; // guarded by mutex
    private double storedPermits; // guarded by mutex; negative = debt of reserved permits
    private long lastResyncNanos; // guarded by mutex

    public TokenBucketRateLimiter(double permitsPerSecond, double maxBurstSeconds) {
        checkRate(permitsPerSecond);
        if (!(maxBurstSeconds > 0.0)) {
            throw new IllegalArgumentException("maxBurstSeconds must be positive: " + maxBurstSeconds);
        }
        this.maxBurstSeconds = maxBurstSeconds;
        synchronized (mutex) {
            this.permitsPerSecond = permitsPerSecond;
            this.maxPermits = permitsPerSecond * maxBurstSeconds;
            this.storedPermits = maxPermits;
            this.lastResyncNanos = System.nanoTime();
        }
    }

    /** Acquires permits if they are available right now, without waiting. */
    public boolean tryAcquire(int permits) {
        checkPermits(permits);
        synchronized (mutex) {
            resync(System.nanoTime());
            if (storedPermits < permits) {
                return false;
            }
            storedPermits -= permits;
            return true;
        }
    }

    /**
     * Acquires permits if they can be granted within {@code timeout}; the caller
     * sleeps (outside the lock) until its reserved permits become due.
     */
    public boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException {
        checkPermits(permits);
        long waitNanos;
        synchronized (mutex) {
            resync(System.nanoTime());
            waitNanos = nanosUntilAvailable(permits);
            if (waitNanos > Math.max(0L, unit.toNanos(timeout))) {
                return false;
            }
            storedPermits -= permits;
        }
        TimeUnit.NANOSECONDS.sleep(waitNanos);
        return true;
    }

    /** Blocks until the permits are granted. */
    public void acquire(int permits) throws InterruptedException {
        tryAcquire(permits, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    /**
     * Changes the steady rate. The bucket keeps its fill ratio: a half-full
     * bucket stays half-full at the new capacity, and outstanding debt is
     * rescaled the same way.
     */
    public void setRate(double newPermitsPerSecond) {
        checkRate(newPermitsPerSecond);
        double newMaxPermits = newPermitsPerSecond * maxBurstSeconds;
        double fillRatio;
        synchronized (mutex) {
            resync(System.nanoTime()); // credit the time elapsed so far at the old rate
            fillRatio = storedPermits / maxPermits; // BUG: value read here is written back (scaled) in the next critical section
        }
        synchronized (mutex) {
            storedPermits = fillRatio * newMaxPermits; // BUG: fillRatio was read in the previous critical section; permits taken (or reserved as debt) by other threads in between are given back, allowing a burst above the configured rate
            maxPermits = newMaxPermits;
            permitsPerSecond = newPermitsPerSecond;
        }
    }

    public double getRate() {
        synchronized (mutex) {
            return permitsPerSecond;
        }
    }

    /** Number of permits that {@link #tryAcquire(int)} could take right now. */
    public long availablePermits() {
        synchronized (mutex) {
            resync(System.nanoTime());
            return storedPermits <= 0.0 ? 0L : (long) storedPermits;
        }
    }

    // Called with mutex held.
    private void resync(long nowNanos) {
        if (nowNanos > lastResyncNanos) {
            double refill = (nowNanos - lastResyncNanos) * permitsPerSecond / NANOS_PER_SECOND;
            storedPermits = Math.min(maxPermits, storedPermits + refill);
            lastResyncNanos = nowNanos;
        }
    }

    // Called with mutex held, after resync.
    private long nanosUntilAvailable(int permits) {
        double deficit = permits - storedPermits;
        return deficit <= 0.0 ? 0L : (long) Math.ceil(deficit * NANOS_PER_SECOND / permitsPerSecond);
    }

    private static void checkRate(double permitsPerSecond) {
        if (!(permitsPerSecond > 0.0) || Double.isInfinite(permitsPerSecond)) {
            throw new IllegalArgumentException("rate must be positive and finite: " + permitsPerSecond);
        }
    }

    private static void checkPermits(int permits) {
        if (permits <= 0) {
            throw new IllegalArgumentException("permits must be positive: " + permits);
        }
    }
}
