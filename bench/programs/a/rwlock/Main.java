package rwlock;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** Price table: readers under the read lock, updates (read-modify-write) under the write lock. */
class PriceTable {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Map<String, Integer> prices = new HashMap<>();
    private int version;

    Integer price(String item) {
        rw.readLock().lock();
        try { return prices.get(item); } finally { rw.readLock().unlock(); }
    }

    void raise(String item, int delta) {
        rw.writeLock().lock();
        try {
            Integer old = prices.get(item);
            prices.put(item, (old == null ? 0 : old) + delta);
            version++;
        } finally {
            rw.writeLock().unlock();
        }
    }

    int version() {
        rw.readLock().lock();
        try { return version; } finally { rw.readLock().unlock(); }
    }
}

class Updater extends Thread {
    private final PriceTable t;
    Updater(PriceTable t) { this.t = t; }
    @Override public void run() { for (int i = 0; i < 500; i++) t.raise(i % 2 == 0 ? "tea" : "milk", 1); }
}

class Reader extends Thread {
    private final PriceTable t;
    private long seen;
    Reader(PriceTable t) { this.t = t; }
    @Override public void run() {
        for (int i = 0; i < 500; i++) {
            Integer p = t.price("tea");
            if (p != null) seen += p;
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        PriceTable t = new PriceTable();
        Updater u1 = new Updater(t), u2 = new Updater(t);
        Reader r = new Reader(t);
        u1.start(); u2.start(); r.start();
        u1.join(); u2.join(); r.join();
        System.out.println(t.price("tea") == 500 && t.version() == 1000 ? "OK" : "BUG");
    }
}
