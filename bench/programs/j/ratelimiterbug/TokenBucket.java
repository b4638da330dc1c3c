package ratelimiterbug;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A token bucket: a periodic refill job adds tokens up to {@code capacity}, and every admitted
 * request takes one.
 */
class TokenBucket {
    private final int capacity;
    private final int refillAmount;
    private final AtomicInteger tokens;
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong refilled = new AtomicLong();
    private final AtomicInteger lowWaterMark;

    TokenBucket(int capacity, int refillAmount) {
        this.capacity = capacity;
        this.refillAmount = refillAmount;
        this.tokens = new AtomicInteger(capacity);
        this.lowWaterMark = new AtomicInteger(capacity);
    }

    /** Starts the refill job on the given scheduler. */
    ScheduledFuture<?> startRefill(ScheduledExecutorService scheduler, long periodMillis) {
        return scheduler.scheduleAtFixedRate(this::refill, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** Adds up to {@code refillAmount} tokens without exceeding the capacity. */
    void refill() {
        int before = tokens.getAndAccumulate(refillAmount, (t, r) -> Math.min(capacity, t + r));
        refilled.addAndGet(Math.min(capacity, before + refillAmount) - before);
    }

    /** Takes a token if one is left. */
    boolean tryAcquire() {
        if (tokens.get() > 0) { // BUG: check on one atomic read ...
            int left = tokens.decrementAndGet(); // BUG: ... act in a separate update: two clients can take the last token
            lowWaterMark.accumulateAndGet(left, Math::min);
            admitted.incrementAndGet();
            return true;
        }
        rejected.incrementAndGet();
        return false;
    }

    int tokens() { return tokens.get(); }
    long admitted() { return admitted.get(); }
    long rejected() { return rejected.get(); }
    long refilled() { return refilled.get(); }
    int capacity() { return capacity; }
    int lowWaterMark() { return lowWaterMark.get(); }
}
