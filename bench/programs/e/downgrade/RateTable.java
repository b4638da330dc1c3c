package downgrade;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Currency conversion with a cached rate table. A converter that finds the
 * table stale upgrades by releasing the read lock and taking the write lock,
 * re-checks validity, reloads, then downgrades: it acquires the read lock while
 * still holding the write lock and only then releases the write lock, so it
 * uses exactly the table it just loaded.
 */
public class RateTable {

    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Map<String, Double> rates = new HashMap<>(); // guarded by rw
    private boolean valid;       // guarded by rw
    private int generation;      // guarded by rw
    private final AtomicInteger reloads = new AtomicInteger();

    private void reloadLocked() {
        generation++;
        rates.clear();
        // every generation scales all rates equally so that EUR->USD->EUR stays 1.0
        double f = 1.0 + generation * 0.001;
        rates.put("EUR", 1.0);
        rates.put("USD", 1.08 * f);
        rates.put("GBP", 0.85 * f);
        rates.put("JPY", 160.0 * f);
        valid = true;
        reloads.incrementAndGet();
    }

    double convert(double amount, String from, String to) {
        rw.readLock().lock();
        if (!valid) {
            rw.readLock().unlock();
            rw.writeLock().lock();
            try {
                if (!valid) { // another thread may have reloaded meanwhile
                    reloadLocked();
                }
                rw.readLock().lock(); // downgrade: take read before releasing write
            } finally {
                rw.writeLock().unlock();
            }
        }
        try {
            double eur = amount / rates.get(from);
            return eur * rates.get(to);
        } finally {
            rw.readLock().unlock();
        }
    }

    void invalidate() {
        rw.writeLock().lock();
        try {
            valid = false;
        } finally {
            rw.writeLock().unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        RateTable table = new RateTable();
        int converters = 3;
        CountDownLatch done = new CountDownLatch(converters + 1);
        AtomicInteger roundTripErrors = new AtomicInteger();

        new Thread(() -> {
            for (int i = 0; i < 200; i++) {
                table.invalidate();
                Thread.yield();
            }
            done.countDown();
        }, "feed").start();

        for (int c = 0; c < converters; c++) {
            new Thread(() -> {
                String[] cur = {"USD", "GBP", "JPY"};
                for (int i = 0; i < 20_000; i++) {
                    String to = cur[i % cur.length];
                    double usd = table.convert(100.0, "EUR", to);
                    if (!(usd > 0)) {
                        roundTripErrors.incrementAndGet();
                    }
                }
                done.countDown();
            }, "converter-" + c).start();
        }
        done.await();
        System.out.println("reloads>0:" + (table.reloads.get() > 0)
                + " errors=" + roundTripErrors.get()
                + " 100EUR->EUR=" + table.convert(100.0, "EUR", "EUR"));
    }
}
