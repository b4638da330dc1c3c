package cart;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Several devices of one household edit the same cart while the checkout page polls it. */
public class Main {
    /** One device: adds items round-robin and takes some back out. */
    private static Callable<Integer> device(ShoppingCart cart, int deviceId) {
        return () -> {
            String[] skus = Catalog.skus();
            int edits = 0;
            for (int i = 0; i < 2_000; i++) {
                String sku = skus[(i + deviceId) % skus.length];
                cart.add(sku, 1 + i % 3);
                edits++;
                if (i % 4 == 0 && cart.removeOne(sku)) {
                    edits++;
                }
            }
            return edits;
        };
    }

    /** The checkout page: prices the cart repeatedly and counts receipts that do not add up. */
    private static Callable<Integer> checkoutPage(ShoppingCart cart) {
        return () -> {
            int unbalanced = 0;
            for (int i = 0; i < 3_000; i++) {
                if (!cart.checkout().balanced()) {
                    unbalanced++;
                }
            }
            return unbalanced;
        };
    }

    public static void main(String[] args) throws Exception {
        ShoppingCart cart = new ShoppingCart();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> devices = new ArrayList<>();
        for (int d = 0; d < 3; d++) {
            devices.add(pool.submit(device(cart, d)));
        }
        Future<Integer> page = pool.submit(checkoutPage(cart));
        int edits = 0;
        for (Future<Integer> f : devices) {
            edits += f.get();
        }
        int unbalanced = page.get();
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        Receipt fin = cart.checkout();
        boolean ok = fin.balanced() && unbalanced == 0;
        System.out.println("edits=" + edits + " total=" + fin.totalCents + " unbalanced receipts=" + unbalanced
                + (ok ? " OK" : " TOTAL MISMATCH"));
    }
}
