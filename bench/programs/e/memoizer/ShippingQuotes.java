package memoizer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Shipping-rate quoting: expensive route costs are memoised with
 * ConcurrentHashMap.computeIfAbsent (atomic per key). Each worker thread keeps
 * its own statistics in a ThreadLocal accumulator; main merges them after join.
 */
public class ShippingQuotes {

    /** Per-thread accumulator; only its owning thread mutates it before join. */
    static final class Tally {
        long quotes;
        long totalCents;
    }

    private final ConcurrentMap<String, Long> routeCost = new ConcurrentHashMap<>();
    private final List<Tally> allTallies = Collections.synchronizedList(new ArrayList<>());
    private final ThreadLocal<Tally> tally = ThreadLocal.withInitial(() -> {
        Tally t = new Tally();
        allTallies.add(t);
        return t;
    });

    private static long expensiveRouteCost(String route) {
        long h = 17;
        for (int i = 0; i < 20_000; i++) {
            h = h * 31 + route.charAt(i % route.length());
        }
        return 500 + Math.floorMod(h, 2000);
    }

    long costOf(String route) {
        // computeIfAbsent runs the mapping function at most once per key.
        return routeCost.computeIfAbsent(route, ShippingQuotes::expensiveRouteCost);
    }

    long quote(String from, String to, int kg) {
        long cents = costOf(from + "->" + to) * kg;
        Tally t = tally.get();
        t.quotes++;
        t.totalCents += cents;
        return cents;
    }

    public static void main(String[] args) throws InterruptedException {
        ShippingQuotes svc = new ShippingQuotes();
        String[] cities = {"OSL", "BER", "MAD", "ROM", "LIS"};
        Thread[] workers = new Thread[4];
        for (int w = 0; w < workers.length; w++) {
            final int seed = w;
            workers[w] = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    String from = cities[(i + seed) % cities.length];
                    String to = cities[(i * 3 + seed + 1) % cities.length];
                    svc.quote(from, to, 1 + (i % 5));
                }
            }, "quoter-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        long quotes = 0;
        long cents = 0;
        synchronized (svc.allTallies) {
            for (Tally t : svc.allTallies) {
                quotes += t.quotes;
                cents += t.totalCents;
            }
        }
        System.out.println("routes cached=" + svc.routeCost.size()
                + " quotes=" + quotes + " revenueCents=" + cents);
    }
}
