package leasebug;

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
        long current = expiryOf(holder);
        if (current < 0) {
            return false;
        }
        // BUG: lost update: the expiry was read under the read lock and is written back under
        // a separate write-lock hold; a concurrent renewal in between is overwritten, and a
        // lease the monitor removed in between is resurrected.
        storeExpiry(holder, current + softLimit);
        return true;
    }

    /** Removes every lease that expired before {@code now}. */
    List<String> expireLeases(long now) {
        List<String> expired = findExpired(now);
        // BUG: check-then-act: the expired holders were found under the read lock; a renewal
        // may extend one of them before the removal below takes the write lock.
        removeLeases(expired);
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

    private void storeExpiry(String holder, long expiresAt) {
        rw.writeLock().lock();
        try {
            expiry.put(holder, expiresAt);
        } finally {
            rw.writeLock().unlock();
        }
    }

    private List<String> findExpired(long now) {
        List<String> expired = new ArrayList<>();
        rw.readLock().lock();
        try {
            for (Map.Entry<String, Long> e : expiry.entrySet()) {
                if (e.getValue() < now) expired.add(e.getKey());
            }
        } finally {
            rw.readLock().unlock();
        }
        return expired;
    }

    private void removeLeases(List<String> holders) {
        rw.writeLock().lock();
        try {
            for (String h : holders) expiry.remove(h); // BUG: removes by key, possibly a just-renewed lease
        } finally {
            rw.writeLock().unlock();
        }
    }
}
