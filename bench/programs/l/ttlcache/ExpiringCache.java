package ttlcache;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A size-bounded cache whose entries expire a fixed time after they were written.
 *
 * <p>This class is thread-safe. Reads are lock-free; writes are serialized by
 * an internal lock that also maintains the write-order queue used for both
 * expiration and size-based eviction (oldest write first). Statistics are
 * updated atomically and {@link #stats()} returns a consistent snapshot.
 */
public final class ExpiringCache<K, V> {

    private static final class Entry<K, V> {
        final K key;
        final V value;
        final long expiresAtNanos;

        Entry(K key, V value, long expiresAtNanos) {
            this.key = key;
            this.value = value;
            this.expiresAtNanos = expiresAtNanos;
        }

        boolean isExpired(long now) {
            return now - expiresAtNanos >= 0;
        }
    }

    private final ConcurrentHashMap<K, Entry<K, V>> map = new ConcurrentHashMap<>();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Entries in write order; may hold superseded entries (skipped lazily). Guarded by writeLock. */
    private final ArrayDeque<Entry<K, V>> writeOrder = new ArrayDeque<>();
    private final CacheStats stats = new CacheStats();
    private final int maximumSize;
    private final long ttlNanos;

    public ExpiringCache(int maximumSize, long ttl, TimeUnit unit) {
        if (maximumSize <= 0 || ttl <= 0) {
            throw new IllegalArgumentException("maximumSize and ttl must be positive");
        }
        this.maximumSize = maximumSize;
        this.ttlNanos = unit.toNanos(ttl);
    }

    /** Returns the live value for {@code key}, or {@code null} if absent or expired. */
    public V get(K key) {
        Entry<K, V> entry = map.get(key);
        if (entry == null) {
            stats.recordMiss(false);
            return null;
        }
        if (entry.isExpired(System.nanoTime())) {
            // Only drop the entry we looked at: a fresh value may have been put since.
            stats.recordMiss(map.remove(key, entry));
            return null;
        }
        stats.recordHit();
        return entry.value;
    }

    /** Stores {@code value}, evicting the oldest writes if the cache is full. */
    public void put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        writeLock.lock();
        try {
            long now = System.nanoTime();
            Entry<K, V> entry = new Entry<>(key, value, now + ttlNanos);
            map.put(key, entry);
            writeOrder.addLast(entry);
            expireAndEvict(now);
        } finally {
            writeLock.unlock();
        }
    }

    /** Removes the mapping for {@code key}, if any. */
    public void invalidate(K key) {
        map.remove(key);
    }

    /** Removes all expired entries; intended to be called periodically by a maintenance thread. */
    public void cleanUp() {
        writeLock.lock();
        try {
            expireAndEvict(System.nanoTime());
        } finally {
            writeLock.unlock();
        }
    }

    // Called with writeLock held. TTL is fixed, so write order is also expiration order.
    private void expireAndEvict(long now) {
        Entry<K, V> head;
        while ((head = writeOrder.peekFirst()) != null) {
            if (map.get(head.key) != head) {
                writeOrder.pollFirst(); // superseded or already removed
            } else if (head.isExpired(now)) {
                writeOrder.pollFirst();
                if (map.remove(head.key, head)) {
                    stats.recordExpiration();
                }
            } else if (map.size() > maximumSize) {
                writeOrder.pollFirst();
                if (map.remove(head.key, head)) {
                    stats.recordEviction();
                }
            } else {
                break;
            }
        }
        if (writeOrder.size() > 2 * maximumSize) {
            writeOrder.removeIf(e -> map.get(e.key) != e); // drop superseded entries
        }
    }

    public int size() {
        return map.size();
    }

    public CacheStats.Snapshot stats() {
        return stats.snapshot();
    }
}
