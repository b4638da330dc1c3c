package ratelimiter;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * A token-bucket rate limiter: up to {@code capacity} permits, refilled continuously at a fixed
 * rate.
 *
 * <p>This class is thread-safe and lock-free. The bucket (tokens left and the time they were
 * counted) is one immutable {@link State} held in an {@link AtomicReference}; a caller computes
 * the next state from the one it read and installs it with {@code compareAndSet}, retrying from
 * a fresh read when another thread got there first, so no permit is ever handed out twice.
 */
public final class TokenBucket {
    /** Immutable bucket state. */
    private static final class State {
        final double tokens;
        final long nanos;

        State(double tokens, long nanos) {
            this.tokens = tokens;
            this.nanos = nanos;
        }
    }

    private final AtomicReference<State> state;
    private final double capacity;
    private final double tokensPerNano;
    private final LongSupplier clock;

    public TokenBucket(long capacity, long permitsPerSecond) {
        this(capacity, permitsPerSecond, System::nanoTime);
    }

    public TokenBucket(long capacity, long permitsPerSecond, LongSupplier nanoClock) {
        if (capacity <= 0 || permitsPerSecond <= 0) throw new IllegalArgumentException();
        this.capacity = capacity;
        this.tokensPerNano = permitsPerSecond / (double) TimeUnit.SECONDS.toNanos(1);
        this.clock = nanoClock;
        this.state = new AtomicReference<>(new State(capacity, nanoClock.getAsLong()));
    }

    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    /** Takes {@code permits} permits if that many are available now; never blocks. */
    public boolean tryAcquire(int permits) {
        if (permits <= 0 || permits > capacity) throw new IllegalArgumentException("permits " + permits);
        for (;;) {
            State cur = state.get();
            long now = Math.max(clock.getAsLong(), cur.nanos);
            double available = refilled(cur, now);
            if (available < permits) return false; // nothing to write: refill is recomputed later
            State next = new State(available - permits, now);
            if (state.compareAndSet(cur, next)) return true;
            // lost the race: somebody else changed the bucket; recompute from the new state
        }
    }

    /** Gives back permits taken by a call that was then not made. */
    public void release(int permits) {
        if (permits <= 0) throw new IllegalArgumentException("permits " + permits);
        state.updateAndGet(s -> new State(Math.min(capacity, s.tokens + permits), s.nanos));
    }

    /** Permits available at the moment of the call; may be stale as soon as it returns. */
    public long availablePermits() {
        State s = state.get();
        return (long) refilled(s, Math.max(clock.getAsLong(), s.nanos));
    }

    /** Refills the bucket completely (e.g. after a configuration reload). */
    public void reset() {
        state.set(new State(capacity, clock.getAsLong()));
    }

    private double refilled(State s, long now) {
        return Math.min(capacity, s.tokens + (now - s.nanos) * tokensPerNano);
    }
}
