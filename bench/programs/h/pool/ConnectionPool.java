package pool;

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
        synchronized (poolLock) {
            PooledConnection c = idle.pollFirst();
            if (c != null) {
                numIdle--;
                numActive++;
                return c;
            }
            if (numActive + numIdle >= maxTotal) {
                return null;
            }
            numActive++;
            created++;
            return new PooledConnection(created);
        }
    }

    /** Returns a borrowed connection to the idle list. */
    void returnObject(PooledConnection c) {
        synchronized (poolLock) {
            numActive--;
            idle.addFirst(c);
            numIdle++;
        }
    }

    /** A consistent snapshot: {active, idle counter, idle list length, created}. */
    int[] stats() {
        synchronized (poolLock) {
            return new int[] {numActive, numIdle, idle.size(), created};
        }
    }

    int maxTotal() { return maxTotal; }
}
