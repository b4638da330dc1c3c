package ratelimiter;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A token bucket: a periodic refill job adds tokens up to {@code capacity}, and every admitted
 * request takes one. Both the refill and the take are single atomic read-modify-write
 * operations on {@code tokens}, so the bucket never goes negative and never overflows.
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

    /** Takes a token if one is left; the test and the decrement are one atomic update. */
    boolean tryAcquire() {
        int before = tokens.getAndUpdate(t -> t > 0 ? t - 1 : t);
        if (before > 0) {
            lowWaterMark.accumulateAndGet(before - 1, Math::min);
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
