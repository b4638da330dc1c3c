package leaserenewer;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/** A lease on a distributed lock: owner, fencing epoch and expiry time; immutable. */
final class Lease {
    static final String NOBODY = "nobody";
    final String owner;
    final long epoch;
    final long expiresAtMillis;

    Lease(String owner, long epoch, long expiresAtMillis) {
        this.owner = owner;
        this.epoch = epoch;
        this.expiresAtMillis = expiresAtMillis;
    }

    boolean heldBy(String node, long epoch) {
        return owner.equals(node) && this.epoch == epoch;
    }

    boolean expired(long nowMillis) {
        return nowMillis >= expiresAtMillis;
    }

    /** The same grant with a later expiry. */
    Lease renewed(long nowMillis, long ttlMillis) {
        return new Lease(owner, epoch, nowMillis + ttlMillis);
    }

    /** A fresh grant to {@code node} under the next fencing epoch. */
    Lease grantedTo(String node, long nowMillis, long ttlMillis) {
        return new Lease(node, epoch + 1, nowMillis + ttlMillis);
    }

    /** Taken away by an operator: expired at once, under the next epoch. */
    Lease revoked() {
        return new Lease(NOBODY, epoch + 1, 0);
    }
}

/**
 * The lock service's view of one lease. Every change is a single compare-and-set or
 * {@code updateAndGet} on the immutable {@link Lease}, so a renewal can only extend the grant
 * it checked, and the fencing epoch never goes backwards.
 */
class LeaseService {
    private final AtomicReference<Lease> current = new AtomicReference<>(new Lease(Lease.NOBODY, 0, 0));

    /** Grants the lease to {@code node} if the present grant has expired. */
    Optional<Lease> tryAcquire(String node, long nowMillis, long ttlMillis) {
        Lease present = current.get();
        if (!present.expired(nowMillis)) {
            return Optional.empty();
        }
        Lease grant = present.grantedTo(node, nowMillis, ttlMillis);
        return current.compareAndSet(present, grant) ? Optional.of(grant) : Optional.empty();
    }

    /** Extends {@code mine} if it is still the current grant; false when the lease was lost. */
    boolean renew(Lease mine, long nowMillis, long ttlMillis) {
        Lease after = current.updateAndGet(
                present -> present.heldBy(mine.owner, mine.epoch) ? present.renewed(nowMillis, ttlMillis) : present);
        return after.heldBy(mine.owner, mine.epoch);
    }

    /** Operator action: revokes whatever grant is current. */
    void revoke() {
        current.updateAndGet(Lease::revoked);
    }

    Lease current() {
        return current.get();
    }
}
