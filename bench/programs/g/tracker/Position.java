package tracker;

import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Grid position of a delivery drone, written by the autopilot and read by telemetry.
 * The two coordinates only make sense together.
 */
final class Position {
    private final ReadWriteLock rw = new ReentrantReadWriteLock();
    private int x;  // guarded by rw
    private int y;  // guarded by rw

    int getX() {
        rw.readLock().lock();
        try { return x; } finally { rw.readLock().unlock(); }
    }

    int getY() {
        rw.readLock().lock();
        try { return y; } finally { rw.readLock().unlock(); }
    }

    /** Both coordinates as one consistent fix, read under a single read lock. */
    int[] fix() {
        rw.readLock().lock();
        try { return new int[] {x, y}; } finally { rw.readLock().unlock(); }
    }

    void moveTo(int newX, int newY) {
        rw.writeLock().lock();
        try {
            x = newX;
            y = newY;
        } finally {
            rw.writeLock().unlock();
        }
    }
}
