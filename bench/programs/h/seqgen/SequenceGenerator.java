package seqgen;

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

    /** Returns the next identifier; the test, the refill and the increment are one lock hold. */
    long getNextValue() {
        lock.lock();
        try {
            if (nextValue >= rangeEnd) {
                rangeEnd = nextValue + rangeSize;
                catalog.store(sequenceName, rangeEnd);
            }
            return nextValue++;
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
