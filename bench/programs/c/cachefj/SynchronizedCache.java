package cachefj;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * cache4j-style synchronized LRU cache with a logical-clock time to live.
 * Every operation, including the load on a miss, happens while holding the
 * cache monitor, so a key is never loaded twice concurrently and the
 * statistics are always consistent with the contents.
 */
final class SynchronizedCache {
    private final int capacity;
    private final long ttl;
    private final LinkedHashMap<Object, CacheObject> map;
    private long clock = 0;
    private long hits = 0;
    private long misses = 0;
    private long evictions = 0;
    private long expirations = 0;

    SynchronizedCache(int capacity, long ttl) {
        this.capacity = capacity;
        this.ttl = ttl;
        this.map = new LinkedHashMap<Object, CacheObject>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Object, CacheObject> eldest) {
                if (size() > SynchronizedCache.this.capacity) {
                    evictions++;
                    return true;
                }
                return false;
            }
        };
    }

    public synchronized Object get(Object key, Function<Object, Object> loader) {
        clock++;
        CacheObject co = map.get(key);
        if (co != null && !co.expired(clock, ttl)) {
            hits++;
            return co.value();
        }
        if (co != null) {
            expirations++;
            map.remove(key);
        }
        misses++;
        Object value = loader.apply(key);
        map.put(key, new CacheObject(value, clock));
        return value;
    }

    public synchronized void put(Object key, Object value) {
        clock++;
        map.put(key, new CacheObject(value, clock));
    }

    public synchronized void remove(Object key) {
        map.remove(key);
    }

    public synchronized Stats stats() {
        return new Stats(hits, misses, evictions, expirations, map.size());
    }

    static final class Stats {
        final long hits;
        final long misses;
        final long evictions;
        final long expirations;
        final int size;

        Stats(long hits, long misses, long evictions, long expirations, int size) {
            this.hits = hits;
            this.misses = misses;
            this.evictions = evictions;
            this.expirations = expirations;
            this.size = size;
        }

        @Override
        public String toString() {
            return "hits=" + hits + " misses=" + misses + " evictions=" + evictions
                    + " expirations=" + expirations + " size=" + size
                    + " requests=" + (hits + misses);
        }
    }
}
