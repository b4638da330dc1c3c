package jobslots;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Admission control for a batch scheduler: at most maxConcurrent jobs may run at a time. */
final class Throttle {
    private final int maxConcurrent;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();

    Throttle(int maxConcurrent) { this.maxConcurrent = maxConcurrent; }

    /** Takes a slot if one is free. The limit check and the increment are one compare-and-set. */
    boolean tryAcquire() {
        while (true) {
            int current = running.get();
            if (current >= maxConcurrent) {
                rejected.incrementAndGet();
                return false;
            }
            if (running.compareAndSet(current, current + 1)) {
                peak.accumulateAndGet(current + 1, Math::max);
                return true;
            }
        }
    }

    void release() { running.decrementAndGet(); }

    int maxConcurrent() { return maxConcurrent; }
    int peak() { return peak.get(); }
    long rejected() { return rejected.get(); }
}
