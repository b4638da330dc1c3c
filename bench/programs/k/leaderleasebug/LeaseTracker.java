package leaderleasebug;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Single-leader lease with a monotonically increasing epoch (fencing token).
 * Every grant of leadership to a new holder bumps the epoch; each epoch must
 * belong to exactly one node.
 */
public final class LeaseTracker {
    public record Lease(String holder, long epoch, long expiresAtNanos) {
        boolean expired(long nowNanos) {
            return holder == null || expiresAtNanos - nowNanos <= 0;
        }
    }

    private final AtomicReference<Lease> current = new AtomicReference<>(new Lease(null, 0L, 0L));
    private final long ttlNanos;
    private final LongAdder grants = new LongAdder();

    public LeaseTracker(long ttl, TimeUnit unit) {
        this.ttlNanos = unit.toNanos(ttl);
    }

    /** Becomes leader if the lease is free or expired. Returns the held lease, or null. */
    public Lease tryAcquire(String node) {
        while (true) {
            long now = System.nanoTime();
            Lease cur = current.get();
            if (!cur.expired(now)) {
                return node.equals(cur.holder()) ? cur : null;
            }
            Lease next = new Lease(node, cur.epoch() + 1, now + ttlNanos);
            current.set(next); // BUG: unconditional set after get() instead of compareAndSet(cur, next); two nodes that both saw the expired lease each install epoch+1, so two leaders share one fencing epoch
            grants.increment();
            return next;
        }
    }

    /** Extends a lease that is still current and unexpired; null means leadership was lost. */
    public Lease heartbeat(Lease lease) {
        while (true) {
            long now = System.nanoTime();
            Lease cur = current.get();
            if (cur.epoch() != lease.epoch() || !lease.holder().equals(cur.holder()) || cur.expired(now)) {
                return null;
            }
            Lease renewed = new Lease(cur.holder(), cur.epoch(), now + ttlNanos);
            if (current.compareAndSet(cur, renewed)) {
                return renewed;
            }
        }
    }

    /** Voluntarily steps down; the epoch is kept so the next grant gets a fresh one. */
    public void release(Lease lease) {
        while (true) {
            Lease cur = current.get();
            if (cur.epoch() != lease.epoch() || !lease.holder().equals(cur.holder())) {
                return;
            }
            if (current.compareAndSet(cur, new Lease(null, cur.epoch(), 0L))) {
                return;
            }
        }
    }

    public long grants() {
        return grants.sum();
    }

    public long currentEpoch() {
        return current.get().epoch();
    }
}
