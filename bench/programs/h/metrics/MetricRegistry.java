package metrics;

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

    /** Returns the counter for {@code name}, registering it atomically on first use. */
    Counter counter(String name) {
        Counter existing = counters.get(name);
        if (existing != null) {
            return existing;
        }
        Counter fresh = new Counter(name);
        Counter raced = counters.putIfAbsent(name, fresh);
        if (raced != null) {
            return raced; // another thread registered it first: use theirs
        }
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
