package registry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** An expensive-to-build service; immutable configuration plus thread-safe counters. */
final class Service {
    private final String name;
    private final long[] table;
    private final LongAdder calls = new LongAdder();
    private final AtomicLong slowest = new AtomicLong();

    Service(String name) {
        this.name = name;
        // simulate costly initialisation
        long[] t = new long[4096];
        long x = name.hashCode();
        for (int i = 0; i < t.length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            t[i] = x >>> 33;
        }
        this.table = t;
    }

    String name() {
        return name;
    }

    long call(int arg) {
        calls.increment();
        long cost = table[arg & (table.length - 1)] % 1000;
        recordLatency(cost);
        return cost;
    }

    /** Keeps the maximum with a compare-and-set loop. */
    private void recordLatency(long cost) {
        long prev = slowest.get();
        while (cost > prev) {
            if (slowest.compareAndSet(prev, cost)) {
                return;
            }
            prev = slowest.get();
        }
    }

    long calls() {
        return calls.sum();
    }

    long slowest() {
        return slowest.get();
    }
}
