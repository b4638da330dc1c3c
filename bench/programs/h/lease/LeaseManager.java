package lease;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Tracks write leases held by clients of a file system name node. Each renewal grants the
 * holder one more soft-limit period on top of what it already has (renewals are credits).
 * Lookups take the read lock; anything that changes the table takes the write lock.
 */
class LeaseManager {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Map<String, Long> expiry = new HashMap<>();
    private final long softLimit;

    LeaseManager(long softLimit) { this.softLimit = softLimit; }

    void addLease(String holder, long expiresAt) {
        rw.writeLock().lock();
        try {
            expiry.put(holder, expiresAt);
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** Extends the holder's lease by one period; false when it has no lease any more. */
    boolean renewLease(String holder) {
        rw.writeLock().lock();
        try {
            Long current = expiry.get(holder);
            if (current == null) {
                return false;
            }
            expiry.put(holder, current + softLimit);
            return true;
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** Removes every lease that expired before {@code now}; the test and removal are one section. */
    List<String> expireLeases(long now) {
        List<String> expired = new ArrayList<>();
        rw.writeLock().lock();
        try {
            expiry.entrySet().removeIf(e -> {
                boolean dead = e.getValue() < now;
                if (dead) expired.add(e.getKey());
                return dead;
            });
        } finally {
            rw.writeLock().unlock();
        }
        return expired;
    }

    /** The expiry time of a holder's lease, or -1 when it holds none. */
    long expiryOf(String holder) {
        rw.readLock().lock();
        try {
            Long e = expiry.get(holder);
            return e == null ? -1 : e;
        } finally {
            rw.readLock().unlock();
        }
    }
}
