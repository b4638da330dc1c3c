package inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** A hold on some units of one SKU, taken on behalf of an order. */
final class Reservation {
    final String orderId;
    final String sku;
    final int quantity;

    Reservation(String orderId, String sku, int quantity) {
        this.orderId = orderId;
        this.sku = sku;
        this.quantity = quantity;
    }
}

/**
 * Stock levels per SKU. A reservation takes units out of {@code available} inside one
 * {@link ConcurrentHashMap#computeIfPresent} call, so the availability check and the
 * decrement happen atomically for that SKU and stock can never be oversold.
 */
class InventoryService {
    private final ConcurrentHashMap<String, Integer> available = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Reservation> reservations = new ConcurrentHashMap<>();

    /** Adds units of a SKU to the shelf. */
    void restock(String sku, int units) {
        available.merge(sku, units, Integer::sum);
    }

    /** Reserves {@code quantity} units for an order, or returns empty when stock is short. */
    Optional<Reservation> reserve(String orderId, String sku, int quantity) {
        boolean[] granted = {false};
        available.computeIfPresent(sku, (key, units) -> {
            if (units < quantity) {
                return units;
            }
            granted[0] = true;
            return units - quantity;
        });
        if (!granted[0]) {
            return Optional.empty();
        }
        Reservation reservation = new Reservation(orderId, sku, quantity);
        reservations.put(orderId, reservation);
        return Optional.of(reservation);
    }

    /** Cancels an order's reservation and puts its units back on the shelf. */
    void release(String orderId) {
        Reservation reservation = reservations.remove(orderId);
        if (reservation != null) {
            restock(reservation.sku, reservation.quantity);
        }
    }

    int available(String sku) {
        return available.getOrDefault(sku, 0);
    }

    int reservedUnits(String sku) {
        int total = 0;
        for (Reservation r : reservations.values()) {
            if (r.sku.equals(sku)) {
                total += r.quantity;
            }
        }
        return total;
    }
}

public class Main {
    private static final String SKU = "SKU-4711";
    private static final int INITIAL_STOCK = 120;

    /** One checkout: reserve two units, and cancel every fifth order. */
    private static Callable<Boolean> checkout(InventoryService inventory, int orderNo) {
        return () -> {
            String orderId = "order-" + orderNo;
            Optional<Reservation> held = inventory.reserve(orderId, SKU, 2);
            if (held.isPresent() && orderNo % 5 == 0) {
                inventory.release(orderId);
            }
            return held.isPresent();
        };
    }

    public static void main(String[] args) throws Exception {
        InventoryService inventory = new InventoryService();
        inventory.restock(SKU, INITIAL_STOCK);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Callable<Boolean>> orders = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            orders.add(checkout(inventory, i));
        }
        int granted = 0;
        for (Future<Boolean> f : pool.invokeAll(orders)) {
            if (f.get()) {
                granted++;
            }
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        int left = inventory.available(SKU);
        int reserved = inventory.reservedUnits(SKU);
        boolean ok = left >= 0 && left + reserved == INITIAL_STOCK;
        System.out.println("granted=" + granted + " available=" + left + " reserved=" + reserved
                + (ok ? " OK" : " STOCK MISCOUNTED"));
    }
}
