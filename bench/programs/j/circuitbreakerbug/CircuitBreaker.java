package circuitbreakerbug;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** The breaker's mode, its consecutive-failure count and when it opened; immutable. */
final class BreakerState {
    enum Mode { CLOSED, OPEN, HALF_OPEN }

    static final BreakerState INITIAL = new BreakerState(Mode.CLOSED, 0, 0);
    final Mode mode;
    final int failures;
    final long openedAtNanos;

    BreakerState(Mode mode, int failures, long openedAtNanos) {
        this.mode = mode;
        this.failures = failures;
        this.openedAtNanos = openedAtNanos;
    }

    /** One more failure: counts it while closed, opens at the threshold, re-opens a failed trial. */
    BreakerState afterFailure(int threshold, long nowNanos) {
        switch (mode) {
            case OPEN:
                return this;
            case HALF_OPEN:
                return new BreakerState(Mode.OPEN, failures, nowNanos);
            default:
                int f = failures + 1;
                return f >= threshold ? new BreakerState(Mode.OPEN, f, nowNanos) : new BreakerState(Mode.CLOSED, f, 0);
        }
    }

    BreakerState afterSuccess() {
        return mode == Mode.OPEN ? this : INITIAL;
    }

    BreakerState trial() {
        return new BreakerState(Mode.HALF_OPEN, failures, openedAtNanos);
    }
}

/** Thrown for calls the open breaker refuses without contacting the service. */
class CallRejectedException extends RuntimeException {
    CallRejectedException() {
        super("circuit open");
    }
}

/**
 * A circuit breaker in front of a remote service. The mode and failure count live in one
 * immutable {@link BreakerState}.
 */
class CircuitBreaker {
    private final int threshold;
    private final long cooldownNanos;
    private final AtomicReference<BreakerState> state = new AtomicReference<>(BreakerState.INITIAL);
    private final AtomicInteger rejected = new AtomicInteger();

    CircuitBreaker(int threshold, long cooldownNanos) {
        this.threshold = threshold;
        this.cooldownNanos = cooldownNanos;
    }

    /** Whether a call may go out now; after the cool-down exactly one caller gets the trial. */
    boolean allowRequest() {
        BreakerState s = state.get();
        switch (s.mode) {
            case CLOSED:
                return true;
            case HALF_OPEN:
                return false;
            default:
                return System.nanoTime() - s.openedAtNanos >= cooldownNanos && state.compareAndSet(s, s.trial());
        }
    }

    void recordSuccess() {
        state.updateAndGet(BreakerState::afterSuccess);
    }

    void recordFailure() {
        long now = System.nanoTime();
        BreakerState s = state.get(); // BUG: state read ...
        state.set(s.afterFailure(threshold, now)); // BUG: ... and replaced without a CAS: concurrent failures are lost
    }

    /** Runs {@code remote} on {@code executor} through the breaker, recording its outcome. */
    <T> CompletableFuture<T> call(Supplier<T> remote, Executor executor) {
        if (!allowRequest()) {
            rejected.incrementAndGet();
            return CompletableFuture.failedFuture(new CallRejectedException());
        }
        return CompletableFuture.supplyAsync(remote, executor).whenComplete((result, error) -> {
            if (error == null) {
                recordSuccess();
            } else {
                recordFailure();
            }
        });
    }

    BreakerState state() { return state.get(); }
    int rejected() { return rejected.get(); }
}
