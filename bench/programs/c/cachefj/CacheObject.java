package cachefj;

/** Immutable cache entry: value plus the logical time it was stored. */
final class CacheObject {
    private final Object value;
    private final long createdAt;

    CacheObject(Object value, long createdAt) {
        this.value = value;
        this.createdAt = createdAt;
    }

    Object value() {
        return value;
    }

    boolean expired(long now, long ttl) {
        return now - createdAt > ttl;
    }
}
