package jobslotsbug;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Admission control for a batch scheduler: at most maxConcurrent jobs may run at a time. */
final class Throttle {
    private final int maxConcurrent;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();

    Throttle(int maxConcurrent) { this.maxConcurrent = maxConcurrent; }

    /** Takes a slot if one is free. */
    boolean tryAcquire() {
        if (running.get() < maxConcurrent) { // BUG: limit checked with one atomic read ...
            int now = running.incrementAndGet(); // BUG: ... slot taken by a separate atomic update; other dispatchers may pass the check in between
            peak.accumulateAndGet(now, Math::max);
            return true;
        }
        rejected.incrementAndGet();
        return false;
    }

    void release() { running.decrementAndGet(); }

    int maxConcurrent() { return maxConcurrent; }
    int peak() { return peak.get(); }
    long rejected() { return rejected.get(); }
}
