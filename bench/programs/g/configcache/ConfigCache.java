package configcache;

/** Process-wide configuration, loaded lazily and reloaded after every invalidation. */
final class ConfigCache {
    private static final Object LOCK = new Object();
    private static Config current;          // guarded by LOCK; null until loaded
    private static int invalidations;       // guarded by LOCK

    private ConfigCache() { }

    /** Returns the cached configuration, loading it first if necessary; check and load are one critical section. */
    static Config get() {
        synchronized (LOCK) {
            if (current == null) {
                current = Config.load();
            }
            return current;
        }
    }

    /** Drops the cached configuration, if one is loaded, e.g. after the admin edited the source. */
    static boolean invalidateIfLoaded() {
        synchronized (LOCK) {
            if (current == null) return false;
            current = null;
            invalidations++;
            return true;
        }
    }

    static int invalidations() {
        synchronized (LOCK) { return invalidations; }
    }
}
