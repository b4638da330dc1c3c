package retryclientbug;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wraps a {@link Transport} with retries (exponential backoff with jitter) and a
 * circuit breaker that stops calling the remote side after
 * {@code failureThreshold} consecutive failures, then lets a single probe
 * request through once {@code openDuration} has elapsed.
 *
 * <p>This class is thread-safe and meant to be shared by all threads talking
 * to the same endpoint. Circuit transitions happen under a private lock; the
 * failure counter is an atomic so it can be read without locking.
 */
public final class RetryingClient<Q, R> {

    public enum CircuitState { CLOSED, OPEN, HALF_OPEN }

    /** Thrown when the circuit breaker rejects a request without sending it. */
    public static final class CircuitOpenException extends IOException {
        private static final long serialVersionUID = 1L;

        CircuitOpenException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Transport<Q, R> transport;
    private final int maxAttempts;
    private final long baseBackoffNanos;
    private final int failureThreshold;
    private final long openDurationNanos;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final ReentrantLock circuitLock = new ReentrantLock();
    private CircuitState state = CircuitState.CLOSED; // guarded by circuitLock
    private long openedAtNanos; // guarded by circuitLock

    public RetryingClient(Transport<Q, R> transport, int maxAttempts, Duration baseBackoff,
                          int failureThreshold, Duration openDuration) {
        if (maxAttempts < 1 || failureThreshold < 1) {
            throw new IllegalArgumentException("maxAttempts and failureThreshold must be >= 1");
        }
        this.transport = Objects.requireNonNull(transport, "transport");
        this.maxAttempts = maxAttempts;
        this.baseBackoffNanos = baseBackoff.toNanos();
        this.failureThreshold = failureThreshold;
        this.openDurationNanos = openDuration.toNanos();
    }

    /** Sends {@code request}, retrying transient failures while the circuit allows it. */
    public R send(Q request) throws IOException, InterruptedException {
        IOException lastFailure = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            if (!tryAcquirePermission()) {
                throw new CircuitOpenException("circuit is open; request not sent", lastFailure);
            }
            try {
                R response = transport.send(request);
                onSuccess();
                return response;
            } catch (IOException e) {
                onFailure();
                lastFailure = e;
            } catch (RuntimeException | Error e) {
                onFailure();
                throw e;
            }
            if (attempt < maxAttempts) {
                long backoff = baseBackoffNanos << Math.min(attempt - 1, 16);
                TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1));
            }
        }
        throw lastFailure;
    }

    private boolean tryAcquirePermission() {
        circuitLock.lock();
        try {
            switch (state) {
                case CLOSED:
                    return true;
                case OPEN:
                    if (System.nanoTime() - openedAtNanos < openDurationNanos) {
                        return false;
                    }
                    state = CircuitState.HALF_OPEN; // this caller becomes the single probe
                    return true;
                default:
                    return false; // HALF_OPEN: a probe is already in flight
            }
        } finally {
            circuitLock.unlock();
        }
    }

    private void onSuccess() {
        circuitLock.lock();
        try {
            consecutiveFailures.set(0);
            if (state == CircuitState.HALF_OPEN) {
                state = CircuitState.CLOSED;
            }
        } finally {
            circuitLock.unlock();
        }
    }

    private void onFailure() {
        consecutiveFailures.set(consecutiveFailures.get() + 1); // BUG: non-atomic get-then-set outside the lock; concurrent failures (typical when the backend is down) overwrite each other's increments, so the threshold is reached late or never and the circuit stays closed
        circuitLock.lock();
        try {
            boolean trip = state == CircuitState.HALF_OPEN
                    || (state == CircuitState.CLOSED && consecutiveFailures.get() >= failureThreshold);
            if (trip) {
                state = CircuitState.OPEN;
                openedAtNanos = System.nanoTime();
            }
        } finally {
            circuitLock.unlock();
        }
    }

    public CircuitState getState() {
        circuitLock.lock();
        try {
            return state;
        } finally {
            circuitLock.unlock();
        }
    }

    public int getConsecutiveFailures() {
        return consecutiveFailures.get();
    }

    /** Forces the circuit closed, e.g. from an admin endpoint. */
    public void reset() {
        circuitLock.lock();
        try {
            consecutiveFailures.set(0);
            state = CircuitState.CLOSED;
        } finally {
            circuitLock.unlock();
        }
    }
}
