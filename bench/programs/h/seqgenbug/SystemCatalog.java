package seqgenbug;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Stand-in for the persistent system tables holding each sequence's high-water mark. */
class SystemCatalog {
    private final ConcurrentHashMap<String, Long> highWater = new ConcurrentHashMap<>();
    private final AtomicInteger writes = new AtomicInteger();

    long load(String sequence) { return highWater.getOrDefault(sequence, 1L); }

    void store(String sequence, long value) {
        highWater.merge(sequence, value, Math::max);
        writes.incrementAndGet();
    }

    int writes() { return writes.get(); }
}
