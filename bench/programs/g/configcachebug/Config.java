package configcachebug;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Immutable snapshot of the application configuration; building one is expensive. */
final class Config {
    private static final AtomicInteger LOADS = new AtomicInteger();

    final int version;
    private final Map<String, String> settings;

    private Config(int version, Map<String, String> settings) {
        this.version = version;
        this.settings = settings;
    }

    /** Parses the configuration source; every call produces a new version. */
    static Config load() {
        int version = LOADS.incrementAndGet();
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            m.put("service." + i + ".timeout", Integer.toString(100 + i * version % 17));
        }
        return new Config(version, Collections.unmodifiableMap(m));
    }

    static int loadCount() { return LOADS.get(); }

    String get(String key) { return settings.get(key); }
}
