package seqgenbug;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands out unique, increasing identifiers for a table's identity column. Values are
 * preallocated in ranges: only the end of the current range is persisted to the catalog,
 * so a crash wastes at most one range but never reissues a value.
 */
class SequenceGenerator {
    private final ReentrantLock lock = new ReentrantLock();
    private final SystemCatalog catalog;
    private final String sequenceName;
    private final int rangeSize;
    private long nextValue;
    private long rangeEnd; // exclusive

    SequenceGenerator(SystemCatalog catalog, String sequenceName, int rangeSize) {
        this.catalog = catalog;
        this.sequenceName = sequenceName;
        this.rangeSize = rangeSize;
        this.nextValue = catalog.load(sequenceName);
        this.rangeEnd = nextValue;
    }

    /** Returns the next identifier. */
    long getNextValue() {
        long candidate = peek();
        ensureRange(candidate);
        // BUG: read-modify-write split over two lock holds: nextValue was read by peek()
        // and candidate+1 is stored under a second acquisition; two sessions can read the
        // same value and both return it (duplicate key).
        storeNext(candidate + 1);
        return candidate;
    }

    /** Persists a new range when {@code value} lies beyond the current one. */
    private void ensureRange(long value) {
        lock.lock();
        try {
            if (value >= rangeEnd) {
                rangeEnd = value + rangeSize;
                catalog.store(sequenceName, rangeEnd);
            }
        } finally {
            lock.unlock();
        }
    }

    private void storeNext(long value) {
        lock.lock();
        try {
            nextValue = value; // BUG: overwrites any increment made since peek()
        } finally {
            lock.unlock();
        }
    }

    /** The value the next call would return, for diagnostics. */
    long peek() {
        lock.lock();
        try {
            return nextValue;
        } finally {
            lock.unlock();
        }
    }
}
