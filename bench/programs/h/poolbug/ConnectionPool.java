package poolbug;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A bounded LIFO connection pool. {@code numIdle} mirrors {@code idle.size()} so that
 * monitoring can read it cheaply; the invariants are
 * {@code numIdle == idle.size()} and {@code numActive + numIdle <= maxTotal}.
 */
class ConnectionPool {
    private final Object poolLock = new Object();
    private final Deque<PooledConnection> idle = new ArrayDeque<>();
    private final int maxTotal;
    private int numIdle;
    private int numActive;
    private int created;

    ConnectionPool(int maxTotal) { this.maxTotal = maxTotal; }

    /** Borrows an idle connection or creates one; returns null when the pool is exhausted. */
    PooledConnection borrowObject() {
        PooledConnection c = pollIdle();
        if (c != null) {
            // BUG: the idle list was shrunk in pollIdle()'s critical section, the counters are
            // adjusted in another one; the monitor sees numIdle != idle.size() in between.
            markBorrowed();
            return c;
        }
        // BUG: check-then-act: capacity is tested in one critical section and the new
        // connection is accounted for in another; two borrowers can exceed maxTotal.
        if (!hasCapacity()) {
            return null;
        }
        return createAccounted(); // BUG: acts on the stale capacity check
    }

    /** Returns a borrowed connection to the idle list. */
    void returnObject(PooledConnection c) {
        synchronized (poolLock) {
            numActive--;
        }
        // BUG: numActive was decremented in a separate section from the list/counter update
        synchronized (poolLock) {
            idle.addFirst(c);
            numIdle++;
        }
    }

    /** A snapshot: {active, idle counter, idle list length, created}. */
    int[] stats() {
        synchronized (poolLock) {
            return new int[] {numActive, numIdle, idle.size(), created};
        }
    }

    int maxTotal() { return maxTotal; }

    private PooledConnection pollIdle() {
        synchronized (poolLock) {
            return idle.pollFirst();
        }
    }

    private void markBorrowed() {
        synchronized (poolLock) {
            numIdle--;
            numActive++;
        }
    }

    private boolean hasCapacity() {
        synchronized (poolLock) {
            return numActive + numIdle < maxTotal;
        }
    }

    private PooledConnection createAccounted() {
        synchronized (poolLock) {
            numActive++;
            created++;
            return new PooledConnection(created);
        }
    }
}
