package config;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Read-mostly config cache: values computed once per key. */
class ConfigCache {
    private final ConcurrentHashMap<String, String> cache = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> hits = new ConcurrentHashMap<>();
    private final AtomicInteger loads = new AtomicInteger();

    String get(String key) {
        hits.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return cache.computeIfAbsent(key, this::load);
    }

    private String load(String key) {
        loads.incrementAndGet();
        return key.toUpperCase() + "=" + key.length();
    }

    void override(String key, String value) { cache.put(key, value); }

    /** Merge is atomic per key. */
    void countExternal(String key) { hits.merge(key, new AtomicInteger(1), (a, b) -> { a.addAndGet(b.get()); return a; }); }

    int loads() { return loads.get(); }
    int hits(String key) { AtomicInteger h = hits.get(key); return h == null ? 0 : h.get(); }
    Map<String, String> snapshot() { return Map.copyOf(cache); }
}

class Reader extends Thread {
    private final ConfigCache c;
    Reader(ConfigCache c) { this.c = c; }
    @Override public void run() {
        String[] keys = {"host", "port", "user", "timeout"};
        for (int i = 0; i < 1000; i++) c.get(keys[i % keys.length]);
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        ConfigCache c = new ConfigCache();
        Reader[] rs = new Reader[3];
        for (int i = 0; i < rs.length; i++) { rs[i] = new Reader(c); rs[i].start(); }
        for (Reader r : rs) r.join();
        System.out.println(c.loads() == 4 && c.hits("host") == 750 ? "OK" : "BUG");
    }
}
