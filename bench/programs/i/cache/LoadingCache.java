package cache;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A memoizing cache that loads each value at most once per key.
 *
 * <p>This class is thread-safe: every method may be called concurrently from any number of
 * threads. A hit is a lock-free {@code get}; a miss goes through
 * {@link ConcurrentHashMap#computeIfAbsent}, which runs the loader at most once for a key and
 * makes every concurrent caller see the same value. Conditional removal and replacement use the
 * atomic two-argument forms of {@link ConcurrentMap}. The hit and miss counters are striped
 * ({@link LongAdder}); {@link #stats()} sums them one after the other, so it is an approximate
 * snapshot meant for monitoring.
 */
public final class LoadingCache<K, V> {
    private final ConcurrentMap<K, V> map = new ConcurrentHashMap<>();
    private final Function<? super K, ? extends V> loader;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    public LoadingCache(Function<? super K, ? extends V> loader) {
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    /** Returns the value for {@code key}, loading it if absent; the loader runs once per key. */
    public V get(K key) {
        V v = map.get(key); // lock-free fast path for hits
        if (v != null) {
            hits.increment();
            return v;
        }
        boolean[] loaded = {false};
        v = map.computeIfAbsent(key, k -> {
            loaded[0] = true;
            return loader.apply(k);
        });
        (loaded[0] ? misses : hits).increment();
        return v;
    }

    /** Returns the cached value, or null; never loads. */
    public V getIfPresent(K key) {
        return map.get(key);
    }

    /** Stores {@code value} unless a value is already cached; returns the value now cached. */
    public V putIfAbsent(K key, V value) {
        V prev = map.putIfAbsent(key, Objects.requireNonNull(value));
        return prev != null ? prev : value;
    }

    /** Reloads the value for {@code key} in place; concurrent get() calls wait for the reload. */
    public V refresh(K key) {
        return map.compute(key, (k, old) -> loader.apply(k));
    }

    /** Replaces the value only if it is still {@code expected}. */
    public boolean replace(K key, V expected, V value) {
        return map.replace(key, expected, value);
    }

    /** Removes the entry only if it still maps to {@code expected} (e.g. a value found stale). */
    public boolean invalidate(K key, V expected) {
        return map.remove(key, expected);
    }

    public void invalidate(K key) {
        map.remove(key);
    }

    public void invalidateAll() {
        map.clear();
    }

    /** Approximate number of entries. */
    public int size() {
        return map.size();
    }

    /** Approximate hit and miss counts (the two sums are not taken at one instant). */
    public Stats stats() {
        return new Stats(hits.sum(), misses.sum());
    }

    /** An immutable pair of counters. */
    public static final class Stats {
        private final long hits;
        private final long misses;

        public Stats(long hits, long misses) {
            this.hits = hits;
            this.misses = misses;
        }

        public long hits() { return hits; }

        public long misses() { return misses; }

        public double hitRate() {
            long total = hits + misses;
            return total == 0 ? 1.0 : (double) hits / total;
        }
    }
}
