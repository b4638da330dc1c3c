package leaserenewerbug;

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

/** The lock service's view of one lease. */
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

    /** Publishes a grant the caller has already decided on. */
    void install(Lease grant) {
        current.set(grant);
    }

    /** Operator action: revokes whatever grant is current. */
    void revoke() {
        current.updateAndGet(Lease::revoked);
    }

    Lease current() {
        return current.get();
    }
}
