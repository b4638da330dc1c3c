package metricsbug;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonically increasing counter. */
final class Counter {
    private final String name;
    private final AtomicLong count = new AtomicLong();

    Counter(String name) { this.name = name; }

    void inc() { count.incrementAndGet(); }

    void inc(long n) { count.addAndGet(n); }

    long getCount() { return count.get(); }

    String name() { return name; }
}

/**
 * A registry of named counters shared by all request threads of a server. Counters are
 * created lazily on first use; there is exactly one counter per name.
 */
class MetricRegistry {
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong registrations = new AtomicLong();

    /** Returns the counter for {@code name}, registering it on first use. */
    Counter counter(String name) {
        // BUG: check-then-act on a concurrent map: get() and put() are each atomic, but two
        // threads can both miss and both register a counter; the first one is overwritten
        // and the increments made through it are lost.
        Counter existing = counters.get(name);
        if (existing != null) {
            return existing;
        }
        Counter fresh = new Counter(name);
        counters.put(name, fresh); // BUG: blind put based on the stale get() above
        registrations.incrementAndGet();
        return fresh;
    }

    /** Sum of all counters whose name starts with {@code prefix}. */
    long total(String prefix) {
        long sum = 0;
        for (Map.Entry<String, Counter> e : counters.entrySet()) {
            if (e.getKey().startsWith(prefix)) sum += e.getValue().getCount();
        }
        return sum;
    }

    long registrations() { return registrations.get(); }

    int size() { return counters.size(); }
}
