package cart;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** The catalogue prices, in cents. */
final class Catalog {
    private static final Map<String, Long> PRICES = Map.of(
            "espresso-beans", 1_299L, "milk-frother", 3_450L, "paper-filters", 399L, "mug", 850L);

    static long priceOf(String sku) {
        return PRICES.get(sku);
    }

    static String[] skus() {
        return PRICES.keySet().toArray(new String[0]);
    }
}

/** What checkout charges: the lines and the total; immutable. */
final class Receipt {
    final Map<String, Integer> lines;
    final long totalCents;

    Receipt(Map<String, Integer> lines, long totalCents) {
        this.lines = lines;
        this.totalCents = totalCents;
    }

    /** True when the total is exactly the sum of the lines at catalogue prices. */
    boolean balanced() {
        long sum = 0;
        for (Map.Entry<String, Integer> line : lines.entrySet()) {
            sum += Catalog.priceOf(line.getKey()) * line.getValue();
        }
        return sum == totalCents;
    }
}

/**
 * A shared household cart: item quantities and the running total. One lock guards both, and
 * every add, remove and checkout touches them inside a single critical section.
 */
class ShoppingCart {
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Integer> items = new HashMap<>();
    private long totalCents;

    /** Adds {@code quantity} units of {@code sku}. */
    void add(String sku, int quantity) {
        long price = Catalog.priceOf(sku);
        lock.lock();
        try {
            items.merge(sku, quantity, Integer::sum);
            totalCents += price * quantity;
        } finally {
            lock.unlock();
        }
    }

    /** Removes one unit of {@code sku}; false when the cart has none. */
    boolean removeOne(String sku) {
        long price = Catalog.priceOf(sku);
        lock.lock();
        try {
            Integer have = items.get(sku);
            if (have == null) {
                return false;
            }
            if (have == 1) {
                items.remove(sku);
            } else {
                items.put(sku, have - 1);
            }
            totalCents -= price;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Prices the cart as it is now. */
    Receipt checkout() {
        lock.lock();
        try {
            return new Receipt(Map.copyOf(items), totalCents);
        } finally {
            lock.unlock();
        }
    }
}
