package configcache;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service that lazily loads an immutable configuration snapshot using
 * double-checked locking on a volatile field, and a process-wide codec
 * registry created through the lazy-holder idiom.
 */
public class ConfigService {

    /** Immutable configuration: all fields final, map wrapped unmodifiable. */
    static final class Config {
        private final Map<String, String> values;
        private final long loadedAt;

        Config(Map<String, String> values, long loadedAt) {
            this.values = Collections.unmodifiableMap(new HashMap<>(values));
            this.loadedAt = loadedAt;
        }

        String get(String key, String dflt) {
            String v = values.get(key);
            return v == null ? dflt : v;
        }

        long loadedAt() {
            return loadedAt;
        }
    }

    /** Lazy holder: the JVM guarantees Registry.INSTANCE is initialised exactly once. */
    static final class CodecRegistry {
        private final Map<String, Integer> codecs;

        private CodecRegistry() {
            Map<String, Integer> m = new HashMap<>();
            m.put("utf8", 8);
            m.put("utf16", 16);
            m.put("latin1", 1);
            codecs = Collections.unmodifiableMap(m);
            CREATIONS.incrementAndGet();
        }

        private static final class Holder {
            static final CodecRegistry INSTANCE = new CodecRegistry();
        }

        static CodecRegistry getInstance() {
            return Holder.INSTANCE;
        }

        int width(String name) {
            Integer w = codecs.get(name);
            return w == null ? -1 : w;
        }
    }

    static final AtomicInteger CREATIONS = new AtomicInteger();
    static final AtomicInteger LOADS = new AtomicInteger();

    private final Object loadLock = new Object();
    private volatile Config config;

    /** Double-checked locking: the second check happens while holding loadLock. */
    Config getConfig() {
        Config c = config;
        if (c == null) {
            synchronized (loadLock) {
                c = config;
                if (c == null) {
                    c = load();
                    config = c;
                }
            }
        }
        return c;
    }

    private Config load() {
        LOADS.incrementAndGet();
        Map<String, String> m = new HashMap<>();
        m.put("pool.size", "4");
        m.put("encoding", "utf16");
        m.put("retries", "3");
        return new Config(m, System.nanoTime());
    }

    public static void main(String[] args) throws Exception {
        ConfigService service = new ConfigService();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        Future<?>[] futures = new Future<?>[12];
        AtomicInteger totalWidth = new AtomicInteger();
        for (int i = 0; i < futures.length; i++) {
            futures[i] = pool.submit(() -> {
                for (int k = 0; k < 1000; k++) {
                    Config c = service.getConfig();
                    String enc = c.get("encoding", "utf8");
                    int w = CodecRegistry.getInstance().width(enc);
                    if (k == 0) {
                        totalWidth.addAndGet(w);
                    }
                }
            });
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        System.out.println("config loads=" + LOADS.get()
                + " registry creations=" + CREATIONS.get()
                + " totalWidth=" + totalWidth.get()
                + " pool.size=" + service.getConfig().get("pool.size", "?"));
    }
}
