package inventory;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** Customers order, a supplier restocks, and a reporter checks snapshots. */
public final class InventoryMain {
    public static void main(String[] args) throws InterruptedException {
        String[] skus = {"bolt", "nut", "washer", "gear", "spring", "valve"};
        Inventory inv = new Inventory(skus, 50);
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger orderIds = new AtomicInteger();
        AtomicInteger deliveries = new AtomicInteger();
        final int customers = 5;
        CountDownLatch customersDone = new CountDownLatch(customers);

        for (int c = 0; c < customers; c++) {
            final int seed = c;
            new Thread(() -> {
                Random rnd = new Random(seed);
                try {
                    for (int i = 0; i < 2000; i++) {
                        Map<String, Integer> lines = new HashMap<>();
                        int n = 1 + rnd.nextInt(3);
                        for (int k = 0; k < n; k++) {
                            lines.merge(skus[rnd.nextInt(skus.length)], 1 + rnd.nextInt(4), Integer::sum);
                        }
                        if (i % 50 == 0) {
                            inv.restock(skus[rnd.nextInt(skus.length)], 10); // customer return
                        }
                        if (inv.place(new Order(orderIds.incrementAndGet(), lines))) {
                            accepted.incrementAndGet();
                        } else {
                            refused.incrementAndGet();
                        }
                    }
                } finally {
                    customersDone.countDown();
                }
            }, "customer-" + c).start();
        }

        Thread supplier = new Thread(() -> {
            Random rnd = new Random(99);
            while (customersDone.getCount() > 0) {
                String sku = skus[rnd.nextInt(skus.length)];
                if (inv.replenish(sku, 30, 60)) {
                    deliveries.incrementAndGet();
                }
            }
        }, "supplier");
        supplier.start();

        Thread reporter = new Thread(() -> {
            int bad = 0;
            for (int i = 0; i < 200; i++) {
                if (!inv.snapshot().consistent()) {
                    bad++;
                }
            }
            System.out.println("reporter: inconsistent snapshots=" + bad);
        }, "reporter");
        reporter.start();

        customersDone.await();
        supplier.join();
        reporter.join();

        Inventory.Snapshot s = inv.snapshot();
        System.out.println("accepted=" + accepted.get() + " refused=" + refused.get()
                + " deliveries=" + deliveries.get() + " shipped=" + s.shipped + " received=" + s.received
                + " consistent=" + s.consistent());
        System.out.println("stock=" + new TreeMap<>(s.stock));
    }
}
