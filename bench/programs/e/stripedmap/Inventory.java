package stripedmap;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Warehouse stock levels partitioned into stripes. Stripe i's HashMap is only
 * touched while holding locks[i]; the stripe is chosen from the SKU's hash.
 * Reservations first try the stripe lock without blocking and, if it is busy,
 * record the contention and fall back to a blocking acquire.
 */
public class Inventory {

    private static final int STRIPES = 8;
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
    @SuppressWarnings("unchecked")
    private final Map<String, Integer>[] stock = new Map[STRIPES];
    private final AtomicLong contended = new AtomicLong();

    Inventory() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
            stock[i] = new HashMap<>();
        }
    }

    private static int stripeOf(String sku) {
        return Math.floorMod(sku.hashCode(), STRIPES);
    }

    void restock(String sku, int qty) {
        int s = stripeOf(sku);
        locks[s].lock();
        try {
            stock[s].merge(sku, qty, Integer::sum);
        } finally {
            locks[s].unlock();
        }
    }

    /** Atomically checks availability and decrements; returns whether reserved. */
    boolean reserve(String sku, int qty) {
        int s = stripeOf(sku);
        ReentrantLock lock = locks[s];
        if (!lock.tryLock()) {
            contended.incrementAndGet();
            lock.lock();
        }
        try {
            int have = stock[s].getOrDefault(sku, 0);
            if (have < qty) {
                return false;
            }
            stock[s].put(sku, have - qty);
            return true;
        } finally {
            lock.unlock();
        }
    }

    int level(String sku) {
        int s = stripeOf(sku);
        locks[s].lock();
        try {
            return stock[s].getOrDefault(sku, 0);
        } finally {
            locks[s].unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Inventory inv = new Inventory();
        String[] skus = new String[20];
        for (int i = 0; i < skus.length; i++) {
            skus[i] = "SKU-" + (1000 + i);
            inv.restock(skus[i], 500);
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        AtomicLong reserved = new AtomicLong();
        AtomicLong restocked = new AtomicLong();
        for (int w = 0; w < 4; w++) {
            final int seed = w;
            pool.execute(() -> {
                for (int i = 0; i < 5000; i++) {
                    String sku = skus[(i * 7 + seed) % skus.length];
                    if (inv.reserve(sku, 1 + i % 3)) {
                        reserved.addAndGet(1 + i % 3);
                    }
                }
            });
        }
        for (int r = 0; r < 2; r++) {
            pool.execute(() -> {
                for (int i = 0; i < 1000; i++) {
                    inv.restock(skus[i % skus.length], 2);
                    restocked.addAndGet(2);
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);

        long remaining = 0;
        boolean nonNegative = true;
        for (String sku : skus) {
            int lvl = inv.level(sku);
            nonNegative &= lvl >= 0;
            remaining += lvl;
        }
        long initial = 500L * skus.length;
        System.out.println("remaining=" + remaining + " nonNegative=" + nonNegative
                + " balanced=" + (initial + restocked.get() - reserved.get() == remaining)
                + " contended>=0:" + (inv.contended.get() >= 0));
    }
}
