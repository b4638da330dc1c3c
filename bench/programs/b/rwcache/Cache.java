package rwcache;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** Thread-safe cache: read lock for lookups, write lock for loading, with a re-check after acquiring the write lock. */
public class Cache {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Map<Integer, String> map = new HashMap<>();
    private int loads = 0;

    private static String compute(int key) {
        return "value-" + (key * key);
    }

    String get(int key) {
        rw.readLock().lock();
        try {
            String v = map.get(key);
            if (v != null) {
                return v;
            }
        } finally {
            rw.readLock().unlock();
        }
        rw.writeLock().lock();
        try {
            String v = map.get(key);   // re-check: another thread may have loaded it meanwhile
            if (v == null) {
                v = compute(key);
                map.put(key, v);
                loads++;
            }
            return v;
        } finally {
            rw.writeLock().unlock();
        }
    }

    int loads() {
        rw.readLock().lock();
        try {
            return loads;
        } finally {
            rw.readLock().unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Cache c = new Cache();
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 1000; k++) c.get(k % 37);
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("loads " + c.loads());   // always 37
    }
}
