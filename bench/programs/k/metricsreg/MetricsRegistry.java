package metricsreg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** Named meters, created lazily, periodically rolled by a reporter. */
public final class MetricsRegistry {
    private final ConcurrentHashMap<String, Meter> meters = new ConcurrentHashMap<>();

    public Meter meter(String name) {
        return meters.computeIfAbsent(name, n -> new Meter(n, System.nanoTime()));
    }

    /** Rolls every meter; each meter's window is closed atomically on its own. */
    public List<Meter.Window> rollAll() {
        List<Meter.Window> out = new ArrayList<>();
        for (Meter m : meters.values()) {
            out.add(m.roll(System.nanoTime()));
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        MetricsRegistry registry = new MetricsRegistry();
        String[] names = {"http.requests", "db.queries", "cache.hits", "cache.misses"};
        Map<String, LongAdder> reported = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + 300_000_000L;

        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (System.nanoTime() < deadline) {
                    registry.meter(names[rnd.nextInt(names.length)]).mark(1 + rnd.nextInt(3));
                }
            }, "worker-" + t));
        }
        DoubleAccumulator peak = new DoubleAccumulator(Math::max, 0.0);
        Thread dashboard = new Thread(() -> {
            while (System.nanoTime() < deadline) {
                for (String n : names) {
                    peak.accumulate(registry.meter(n).currentRate(System.nanoTime()));
                }
            }
        }, "dashboard");
        Thread reporter = new Thread(() -> {
            while (System.nanoTime() < deadline) {
                for (Meter.Window w : registry.rollAll()) {
                    reported.computeIfAbsent(w.name(), k -> new LongAdder()).add(w.count());
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "reporter");
        threads.add(dashboard);
        threads.add(reporter);
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        for (Meter.Window w : registry.rollAll()) {
            reported.computeIfAbsent(w.name(), k -> new LongAdder()).add(w.count());
        }
        long lifetime = 0, sumReported = 0;
        for (String n : names) {
            lifetime += registry.meter(n).lifetimeCount();
            sumReported += reported.getOrDefault(n, new LongAdder()).sum();
        }
        System.out.printf("lifetime=%d reported=%d consistent=%b peakRate=%.0f/s%n",
                lifetime, sumReported, lifetime == sumReported, peak.get());
    }
}
