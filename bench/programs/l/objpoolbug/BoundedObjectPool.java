package objpoolbug;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded, LIFO pool of reusable objects (connections, parsers, buffers...).
 *
 * <p>This class is thread-safe: any number of threads may borrow, return,
 * evict and close concurrently. The number of live instances (idle, borrowed,
 * or being created) never exceeds {@code maxTotal}. Factory callbacks are
 * always invoked without holding the pool lock.
 */
public final class BoundedObjectPool<T> implements AutoCloseable {

    private record Idle<T>(T object, long returnedAtNanos) {
    }

    private final PooledObjectFactory<T> factory;
    private final int maxTotal;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition slotAvailable = lock.newCondition();
    private final Deque<Idle<T>> idle = new ArrayDeque<>(); // newest first; guarded by lock
    private final Map<T, Boolean> borrowed = new IdentityHashMap<>(); // guarded by lock
    private int total; // idle + borrowed + being created; guarded by lock
    private boolean closed; // guarded by lock

    public BoundedObjectPool(PooledObjectFactory<T> factory, int maxTotal) {
        if (maxTotal <= 0) {
            throw new IllegalArgumentException("maxTotal must be positive: " + maxTotal);
        }
        this.factory = factory;
        this.maxTotal = maxTotal;
    }

    /**
     * Borrows an instance, creating one if the pool is below its limit, or
     * waiting up to {@code timeout} for another thread to return one.
     */
    public T borrow(long timeout, TimeUnit unit) throws Exception {
        long remaining = unit.toNanos(timeout);
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("pool is closed");
                }
                Idle<T> candidate = idle.pollFirst();
                if (candidate != null) {
                    borrowed.put(candidate.object(), Boolean.TRUE);
                    return candidate.object();
                }
                if (total < maxTotal) {
                    break; // BUG: room is checked here, but the slot is only taken (total++) in a later critical section in createNewObject(); concurrent borrowers all pass this check and the pool grows past maxTotal
                }
                if (remaining <= 0L) {
                    throw new NoSuchElementException("timed out waiting for a pooled object");
                }
                remaining = slotAvailable.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
        return createNewObject();
    }

    private T createNewObject() throws Exception {
        T created = null;
        boolean ok = false;
        try {
            created = Objects.requireNonNull(factory.create(), "factory returned null");
            ok = true;
        } finally {
            if (!ok) {
                lock.lock();
                try {
                    slotAvailable.signal();
                } finally {
                    lock.unlock();
                }
            }
        }
        lock.lock();
        try {
            if (!closed) {
                total++; // BUG: the insert into the pool's accounting happens in a different critical section than the total < maxTotal check in borrow()
                borrowed.put(created, Boolean.TRUE);
                return created;
            }
        } finally {
            lock.unlock();
        }
        factory.destroy(created);
        throw new IllegalStateException("pool was closed while creating an object");
    }

    /** Returns a borrowed instance; invalid instances are destroyed. */
    public void giveBack(T object) {
        boolean valid = factory.validate(object);
        boolean destroy;
        lock.lock();
        try {
            if (borrowed.remove(object) == null) {
                throw new IllegalArgumentException("object was not borrowed from this pool");
            }
            destroy = closed || !valid;
            if (destroy) {
                total--;
            } else {
                idle.addFirst(new Idle<>(object, System.nanoTime()));
            }
            slotAvailable.signal();
        } finally {
            lock.unlock();
        }
        if (destroy) {
            factory.destroy(object);
        }
    }

    /** Destroys idle instances unused for at least {@code maxIdle}; returns how many. */
    public int evictIdle(long maxIdle, TimeUnit unit) {
        long now = System.nanoTime();
        long maxIdleNanos = unit.toNanos(maxIdle);
        List<T> evicted = new ArrayList<>();
        lock.lock();
        try {
            Iterator<Idle<T>> oldestFirst = idle.descendingIterator();
            while (oldestFirst.hasNext()) {
                Idle<T> entry = oldestFirst.next();
                if (now - entry.returnedAtNanos() < maxIdleNanos) {
                    break;
                }
                oldestFirst.remove();
                evicted.add(entry.object());
                total--;
            }
            if (!evicted.isEmpty()) {
                slotAvailable.signalAll();
            }
        } finally {
            lock.unlock();
        }
        evicted.forEach(factory::destroy);
        return evicted.size();
    }

    public int getNumActive() {
        lock.lock();
        try {
            return borrowed.size();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the pool: idle instances are destroyed now, borrowed ones when returned. */
    @Override
    public void close() {
        List<T> drained = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            for (Idle<T> entry : idle) {
                drained.add(entry.object());
            }
            idle.clear();
            total -= drained.size();
            slotAvailable.signalAll();
        } finally {
            lock.unlock();
        }
        drained.forEach(factory::destroy);
    }
}
