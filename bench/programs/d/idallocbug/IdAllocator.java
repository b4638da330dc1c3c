package idallocbug;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Allocates order ids of the form PREFIX-n; ids must be unique across all threads. */
public class IdAllocator {

    private final String prefix;
    private final AtomicLong next;

    IdAllocator(String prefix, long firstId) {
        this.prefix = prefix;
        this.next = new AtomicLong(firstId);
    }

    /** The id the next allocation will return. */
    private long peekNext() {
        return next.get();
    }

    /** Moves the allocation cursor. */
    private void advanceTo(long value) {
        next.set(value);
    }

    String allocate() {
        long id = peekNext(); // BUG: reads the counter in one atomic operation ...
        advanceTo(id + 1); // BUG: ... and writes back id+1 in another; concurrent allocations return duplicate ids (lost update)
        return prefix + "-" + id;
    }

    /** Skips a block of ids reserved by a legacy system (startup only). */
    void reserveBlock(long upTo) {
        next.accumulateAndGet(upTo, Math::max);
    }

    public static void main(String[] args) throws InterruptedException {
        final IdAllocator ids = new IdAllocator("ORD", 1);
        ids.reserveBlock(1_000);
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final AtomicInteger allocations = new AtomicInteger();
        ExecutorService checkout = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 8; t++) {
            checkout.submit(() -> {
                for (int i = 0; i < 10_000; i++) {
                    seen.add(ids.allocate());
                    allocations.incrementAndGet();
                }
            });
        }
        checkout.shutdown();
        if (!checkout.awaitTermination(30, TimeUnit.SECONDS)) {
            checkout.shutdownNow();
        }
        System.out.println("allocations=" + allocations.get() + " distinct ids=" + seen.size());
    }
}
