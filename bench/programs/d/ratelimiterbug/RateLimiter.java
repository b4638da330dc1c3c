package ratelimiterbug;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A fixed-window rate limiter in front of an API: at most maxPerWindow calls per window. */
public class RateLimiter {

    private final int maxPerWindow;
    private final AtomicInteger used = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();

    RateLimiter(int maxPerWindow) {
        this.maxPerWindow = maxPerWindow;
    }

    /** Returns true if the caller may proceed in the current window. */
    boolean tryAcquire() {
        if (used.get() < maxPerWindow) { // BUG: check against the limit ...
            used.incrementAndGet(); // BUG: ... then act in a separate atomic op; several callers pass the check and exceed the limit
            return true;
        }
        rejected.incrementAndGet();
        return false;
    }

    /** Starts a new window; called by the scheduler between windows only. */
    void resetWindow() {
        used.set(0);
    }

    int used() {
        return used.get();
    }

    int rejected() {
        return rejected.get();
    }

    static final class ApiClient implements Runnable {
        private final RateLimiter limiter;
        private final AtomicInteger served;
        private final int calls;

        ApiClient(RateLimiter limiter, AtomicInteger served, int calls) {
            this.limiter = limiter;
            this.served = served;
            this.calls = calls;
        }

        @Override
        public void run() {
            for (int i = 0; i < calls; i++) {
                if (limiter.tryAcquire()) {
                    served.incrementAndGet();
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final int limit = 5_000;
        RateLimiter limiter = new RateLimiter(limit);
        AtomicInteger served = new AtomicInteger();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        for (int c = 0; c < 16; c++) {
            clients.execute(new ApiClient(limiter, served, 1_000));
        }
        clients.shutdown();
        if (!clients.awaitTermination(30, TimeUnit.SECONDS)) {
            clients.shutdownNow();
        }
        System.out.println("limit=" + limit + " served=" + served.get()
                + " counter=" + limiter.used() + " rejected=" + limiter.rejected());
        limiter.resetWindow();
    }
}
