package cartbug;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

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
 * A shared household cart: item quantities in a concurrent map and the running total in an
 * atomic counter.
 */
class ShoppingCart {
    private final ConcurrentHashMap<String, Integer> items = new ConcurrentHashMap<>();
    private final AtomicLong totalCents = new AtomicLong();

    /** Adds {@code quantity} units of {@code sku}. */
    void add(String sku, int quantity) {
        long price = Catalog.priceOf(sku);
        items.merge(sku, quantity, Integer::sum); // BUG: the lines and the total are updated ...
        totalCents.addAndGet(price * quantity); // BUG: ... in two separate atomic steps
    }

    /** Removes one unit of {@code sku}; false when the cart has none. */
    boolean removeOne(String sku) {
        long price = Catalog.priceOf(sku);
        boolean[] removed = {false};
        items.computeIfPresent(sku, (k, have) -> {
            removed[0] = true;
            return have == 1 ? null : have - 1;
        });
        if (!removed[0]) {
            return false;
        }
        totalCents.addAndGet(-price); // BUG: total lags the line already removed above
        return true;
    }

    /** Prices the cart as it is now. */
    Receipt checkout() {
        Map<String, Integer> lines = Map.copyOf(items); // BUG: lines and total read separately,
        return new Receipt(lines, totalCents.get()); // BUG: so a receipt can mix two cart states
    }
}
