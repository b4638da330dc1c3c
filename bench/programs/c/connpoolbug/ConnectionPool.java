package connpoolbug;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Bounded connection pool. A fair Semaphore limits the number of concurrent
 * borrowers to maxSize; idle connections and the creation count are guarded
 * by the pool lock.
 */
final class ConnectionPool {
    private final int maxSize;
    private final Semaphore permits;
    private final Object lock = new Object();
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final List<Connection> all = new ArrayList<>();
    private int created = 0;
    private int inUse = 0;
    private int peakInUse = 0;

    ConnectionPool(int maxSize) {
        this.maxSize = maxSize;
        this.permits = new Semaphore(maxSize, true);
    }

    Connection borrow(long timeoutMs) throws InterruptedException {
        if (!permits.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS)) {
            return null;
        }
        try {
            return checkout();
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private Connection checkout() {
        Connection c;
        synchronized (lock) {
            c = idle.pollFirst();
            if (c == null && created >= maxSize) { // BUG: pool size checked in this synchronized block ...
                throw new IllegalStateException("pool exhausted despite permit");
            }
        }
        if (c == null) {
            synchronized (lock) {
                created++;                         // BUG: ... but incremented in a second one, so the bound is not enforced atomically
                c = new Connection(created);
                all.add(c);
            }
        }
        synchronized (lock) {
            inUse++;
            if (inUse > peakInUse) {
                peakInUse = inUse;
            }
        }
        return c;
    }

    void release(Connection c) {
        synchronized (lock) {
            inUse--;
            idle.addFirst(c);
        }
        permits.release();
    }

    void closeAll() {
        synchronized (lock) {
            for (Connection c : all) {
                c.close();
            }
            idle.clear();
        }
    }

    String stats() {
        synchronized (lock) {
            int statements = 0;
            for (Connection c : all) {
                statements += c.statements();
            }
            return "created=" + created + " max=" + maxSize + " peakInUse=" + peakInUse
                    + " inUse=" + inUse + " statements=" + statements;
        }
    }
}
