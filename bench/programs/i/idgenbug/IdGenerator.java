package idgenbug;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Snowflake-style generator of unique, time-ordered 64-bit ids: 41 bits of milliseconds since a
 * custom epoch, 10 bits of worker id and 12 bits of per-millisecond sequence.
 *
 * <p>This class is thread-safe and lock-free. The timestamp and the sequence of the last id
 * issued are kept in {@link AtomicLong}s. When the clock goes backwards the
 * generator keeps the last timestamp; when a millisecond's sequence is used up it waits for the
 * clock to move on.
 */
public final class IdGenerator {
    public static final int WORKER_BITS = 10;
    public static final int SEQUENCE_BITS = 12;
    public static final long MAX_WORKER = (1L << WORKER_BITS) - 1;
    private static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;
    private static final int TIME_SHIFT = WORKER_BITS + SEQUENCE_BITS;

    private final long epochMillis;
    private final long workerId;
    private final LongSupplier clock;
    /** Timestamp of the last id issued. */
    private final AtomicLong lastTime = new AtomicLong();
    /** Sequence of the last id issued within {@code lastTime}. */
    private final AtomicLong sequence = new AtomicLong();

    public IdGenerator(long workerId, long epochMillis) {
        this(workerId, epochMillis, System::currentTimeMillis);
    }

    public IdGenerator(long workerId, long epochMillis, LongSupplier millisClock) {
        if (workerId < 0 || workerId > MAX_WORKER) throw new IllegalArgumentException("worker " + workerId);
        this.workerId = workerId;
        this.epochMillis = epochMillis;
        this.clock = millisClock;
    }

    /** Returns a new id, greater than every id this generator returned before. */
    public long nextId() {
        for (;;) {
            long prevTime = lastTime.get();
            long now = clock.getAsLong() - epochMillis;
            if (now > prevTime) {
                lastTime.set(now); // BUG: timestamp and sequence are two atomics updated in separate steps: two threads entering a new millisecond both see now > prevTime, both reset the sequence and both return the id (now, 0)
                sequence.set(0);
                return (now << TIME_SHIFT) | (workerId << SEQUENCE_BITS);
            }
            long seq = sequence.incrementAndGet(); // same millisecond, or the clock went back
            if (seq <= SEQUENCE_MASK) {
                return (prevTime << TIME_SHIFT) | (workerId << SEQUENCE_BITS) | seq;
            }
            Thread.onSpinWait(); // sequence used up: wait for the next millisecond
        }
    }

    /** The timestamp of the last id issued, in milliseconds since the epoch; a moment's value. */
    public long lastTimestamp() {
        return lastTime.get() + epochMillis;
    }

    public long workerId() {
        return workerId;
    }

    public static long timestampOf(long id, long epochMillis) {
        return (id >>> TIME_SHIFT) + epochMillis;
    }

    public static long workerOf(long id) {
        return (id >>> SEQUENCE_BITS) & MAX_WORKER;
    }

    public static long sequenceOf(long id) {
        return id & SEQUENCE_MASK;
    }
}
