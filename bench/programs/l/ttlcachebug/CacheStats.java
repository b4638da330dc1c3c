package ttlcachebug;

/** Hit/miss/eviction counters of an {@link ExpiringCache}; thread-safe. */
public final class CacheStats {

    /** An immutable, mutually consistent view of the counters. */
    public record Snapshot(long hits, long misses, long evictions, long expirations) {
        public double hitRate() {
            long requests = hits + misses;
            return requests == 0 ? 1.0 : (double) hits / requests;
        }
    }

    private long hits;
    private long misses;
    private long evictions;
    private long expirations;

    synchronized void recordHit() {
        hits++;
    }

    synchronized void recordMiss(boolean expired) {
        misses++;
        if (expired) {
            expirations++;
        }
    }

    synchronized void recordEviction() {
        evictions++;
    }

    synchronized void recordExpiration() {
        expirations++;
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(hits, misses, evictions, expirations);
    }
}
