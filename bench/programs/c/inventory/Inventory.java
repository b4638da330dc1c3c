package inventory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Warehouse stock guarded by a ReentrantReadWriteLock. Queries and snapshots
 * share the read lock; an order checks every line and reserves all of them
 * inside a single write-locked section, so it is all-or-nothing.
 */
final class Inventory {
    private final ReadWriteLock rw = new ReentrantReadWriteLock();
    private final Map<String, Integer> stock = new HashMap<>();
    private long received = 0;
    private long shipped = 0;

    Inventory(String[] skus, int initial) {
        for (String s : skus) {
            stock.put(s, initial);
            received += initial;
        }
    }

    int available(String sku) {
        rw.readLock().lock();
        try {
            return stock.getOrDefault(sku, 0);
        } finally {
            rw.readLock().unlock();
        }
    }

    boolean place(Order order) {
        rw.writeLock().lock();
        try {
            for (Map.Entry<String, Integer> line : order.lines.entrySet()) {
                if (stock.getOrDefault(line.getKey(), 0) < line.getValue()) {
                    return false;
                }
            }
            for (Map.Entry<String, Integer> line : order.lines.entrySet()) {
                stock.merge(line.getKey(), -line.getValue(), Integer::sum);
                shipped += line.getValue();
            }
            return true;
        } finally {
            rw.writeLock().unlock();
        }
    }

    void restock(String sku, int quantity) {
        rw.writeLock().lock();
        try {
            stock.merge(sku, quantity, Integer::sum);
            received += quantity;
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** Tops a SKU up when it has fallen below the reorder point; decided and done under one lock. */
    boolean replenish(String sku, int reorderPoint, int quantity) {
        rw.writeLock().lock();
        try {
            if (stock.getOrDefault(sku, 0) >= reorderPoint) {
                return false;
            }
            stock.merge(sku, quantity, Integer::sum);
            received += quantity;
            return true;
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** A consistent view: stock levels and counters taken under one read lock. */
    Snapshot snapshot() {
        rw.readLock().lock();
        try {
            return new Snapshot(new HashMap<>(stock), received, shipped);
        } finally {
            rw.readLock().unlock();
        }
    }

    static final class Snapshot {
        final Map<String, Integer> stock;
        final long received;
        final long shipped;

        Snapshot(Map<String, Integer> stock, long received, long shipped) {
            this.stock = stock;
            this.received = received;
            this.shipped = shipped;
        }

        boolean consistent() {
            long onHand = 0;
            for (int q : stock.values()) {
                if (q < 0) {
                    return false;
                }
                onHand += q;
            }
            return onHand == received - shipped;
        }
    }
}
