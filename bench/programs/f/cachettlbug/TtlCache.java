package cachettlbug;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session-token cache whose entries expire after a time-to-live. Entries are
 * immutable; expired ones are dropped with a conditional remove and a background
 * refresher extends hot entries with a conditional replace.
 */
public class TtlCache {

    static final class Entry {
        final String value;
        final long expiresAt;

        Entry(String value, long expiresAt) {
            this.value = value;
            this.expiresAt = expiresAt;
        }

        boolean expiredAt(long now) {
            return now >= expiresAt;
        }
    }

    private final ConcurrentHashMap<String, Entry> map = new ConcurrentHashMap<>();
    private final AtomicLong clock = new AtomicLong(); // logical time: one tick per lookup
    private final long ttl;
    final AtomicInteger loads = new AtomicInteger();
    final AtomicInteger expirations = new AtomicInteger();
    final AtomicInteger refreshes = new AtomicInteger();

    TtlCache(long ttl) {
        this.ttl = ttl;
    }

    private String load(String key, long now) {
        loads.incrementAndGet();
        return "token(" + key + ")@" + now;
    }

    /** Returns the cached value, loading it when it is missing or expired. */
    String get(String key) {
        long now = clock.incrementAndGet();
        Entry e = map.get(key);
        if (e != null && e.expiredAt(now)) {
            // BUG: expiry decided on the entry read by get(), but the key is removed unconditionally:
            // BUG: a fresh entry installed meanwhile by refresh()/another get() is thrown away
            if (map.remove(key) != null) {
                expirations.incrementAndGet();
            }
            e = null;
        }
        if (e != null) {
            return e.value;
        }
        Entry fresh = new Entry(load(key, now), now + ttl);
        Entry winner = map.putIfAbsent(key, fresh);
        return winner == null ? fresh.value : winner.value;
    }

    /** Extends the entry's lifetime with a reloaded value unless it changed meanwhile. */
    boolean refresh(String key) {
        Entry old = map.get(key);
        if (old == null) {
            return false;
        }
        long now = clock.get();
        Entry fresh = new Entry(load(key, now), now + ttl);
        if (map.replace(key, old, fresh)) {
            refreshes.incrementAndGet();
            return true;
        }
        return false; // someone else expired or replaced it; their entry wins
    }

    int size() {
        return map.size();
    }

    public static void main(String[] args) throws InterruptedException {
        final TtlCache cache = new TtlCache(200);
        final AtomicInteger nulls = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int w = 0; w < 3; w++) {
            final int seed = w;
            pool.execute(() -> {
                for (int i = 0; i < 20_000; i++) {
                    if (cache.get("user-" + ((i * 7 + seed) % 25)) == null) {
                        nulls.incrementAndGet();
                    }
                }
            });
        }
        pool.execute(() -> {
            for (int i = 0; i < 20_000; i++) {
                cache.refresh("user-" + (i % 5)); // the five hottest users are kept warm
            }
        });
        pool.shutdown();
        if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("cache workers did not finish");
        }
        System.out.println("entries=" + cache.size() + " loads=" + cache.loads.get()
                + " expirations=" + cache.expirations.get() + " refreshes=" + cache.refreshes.get()
                + " nulls=" + nulls.get());
    }
}
