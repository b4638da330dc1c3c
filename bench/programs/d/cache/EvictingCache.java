package cache;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** A bounded read-through cache of rendered product pages; the oldest entry is evicted when full. */
public class EvictingCache {

    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    // insertion-ordered, so get() does not modify the map and may run under the read lock
    private final LinkedHashMap<String, String> map = new LinkedHashMap<>();
    private final int maxEntries;
    final AtomicInteger hits = new AtomicInteger();
    final AtomicInteger misses = new AtomicInteger();

    EvictingCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    private String load(String key) {
        return "<html>page for " + key + "</html>";
    }

    /** Caches a freshly loaded page unless another thread cached one first; returns the cached page. */
    String install(String key, String value) {
        rw.writeLock().lock();
        try {
            String existing = map.get(key);
            if (existing != null) {
                return existing;
            }
            map.put(key, value);
            Iterator<String> eldest = map.keySet().iterator();
            while (map.size() > maxEntries && eldest.hasNext()) {
                eldest.next();
                eldest.remove();
            }
            return value;
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** Returns the cached page, loading and caching it on a miss. */
    String get(String key) {
        String page;
        rw.readLock().lock();
        try {
            page = map.get(key);
        } finally {
            rw.readLock().unlock();
        }
        if (page != null) {
            hits.incrementAndGet();
            return page;
        }
        misses.incrementAndGet();
        return install(key, load(key));
    }

    public static void main(String[] args) throws InterruptedException {
        final EvictingCache cache = new EvictingCache(32);
        final AtomicInteger nullPages = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int w = 0; w < 4; w++) {
            pool.execute(() -> {
                for (int i = 0; i < 50_000; i++) {
                    String key = "product-" + ThreadLocalRandom.current().nextInt(40);
                    if (cache.get(key) == null) {
                        nullPages.incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
            pool.shutdownNow();
        }
        System.out.println("hits=" + cache.hits.get() + " misses=" + cache.misses.get()
                + " null pages served=" + nullPages.get());
    }
}
