package metricsreg;

import java.util.concurrent.locks.StampedLock;

/**
 * Counts events in a rolling window. The window's event count and its start
 * timestamp must always be read and written together, otherwise the computed
 * rate mixes events of one window with the duration of another.
 */
public final class Meter {
    /** A closed window: how many events happened during how many nanoseconds. */
    public record Window(String name, long count, long elapsedNanos) {
        public double perSecond() {
            return elapsedNanos <= 0 ? 0.0 : count * 1e9 / elapsedNanos;
        }
    }

    private final String name;
    private final StampedLock sl = new StampedLock();
    private long windowCount;       // guarded by sl
    private long windowStartNanos;  // guarded by sl: last reset time
    private long lifetimeCount;     // guarded by sl

    Meter(String name, long nowNanos) {
        this.name = name;
        this.windowStartNanos = nowNanos;
    }

    public String name() {
        return name;
    }

    public void mark(long n) {
        long stamp = sl.writeLock();
        try {
            windowCount += n;
            lifetimeCount += n;
        } finally {
            sl.unlockWrite(stamp);
        }
    }

    /** Events per second in the current (open) window. */
    public double currentRate(long nowNanos) {
        long stamp = sl.readLock();
        try {
            long elapsed = nowNanos - windowStartNanos;
            return elapsed <= 0 ? 0.0 : windowCount * 1e9 / elapsed;
        } finally {
            sl.unlockRead(stamp);
        }
    }

    /** Closes the current window and opens a new one starting at {@code nowNanos}. */
    Window roll(long nowNanos) {
        long stamp = sl.writeLock();
        try {
            long count = windowCount;
            windowCount = 0;
            Window closed = new Window(name, count, nowNanos - windowStartNanos);
            windowStartNanos = nowNanos;
            return closed;
        } finally {
            sl.unlockWrite(stamp);
        }
    }

    public long lifetimeCount() {
        long stamp = sl.readLock();
        try {
            return lifetimeCount;
        } finally {
            sl.unlockRead(stamp);
        }
    }
}
