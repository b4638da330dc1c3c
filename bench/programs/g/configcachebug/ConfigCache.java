package configcachebug;

/** Process-wide configuration, loaded lazily and reloaded after every invalidation. */
final class ConfigCache {
    private static final Object LOCK = new Object();
    private static Config current;          // guarded by LOCK; null until loaded
    private static int invalidations;       // guarded by LOCK

    private ConfigCache() { }

    /** Returns the cached configuration, loading it first if necessary; the load runs outside the lock. */
    static Config get() {
        Config config;
        synchronized (LOCK) {
            config = current;
        }
        if (config == null) { // BUG: null check on a value read in an earlier critical section (stale) ...
            config = Config.load();
            synchronized (LOCK) {
                current = config; // BUG: ... published in a second one without re-checking; concurrent loaders overwrite each other
            }
        }
        return config;
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
