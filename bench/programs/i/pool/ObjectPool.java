package pool;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded pool of reusable objects (connections, buffers, parsers).
 *
 * <p>This class is thread-safe and lock-free. Idle objects sit in a {@link ConcurrentLinkedQueue}
 * and are handed over with {@code poll()}, so each idle object goes to exactly one borrower. The
 * number of live objects is bounded by reserving a slot with {@code incrementAndGet()}: a borrower
 * whose reservation overshoots the bound gives its own slot back with {@code decrementAndGet()}.
 * {@link #close()} is idempotent; objects released after close are destroyed, not pooled.
 */
public final class ObjectPool<T> implements AutoCloseable {
    /** Creates and destroys pooled objects. */
    public interface Factory<T> {
        T create();

        void destroy(T object);
    }

    private final Queue<T> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger live = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Factory<T> factory;
    private final int maxSize;

    public ObjectPool(Factory<T> factory, int maxSize) {
        if (maxSize <= 0) throw new IllegalArgumentException("maxSize " + maxSize);
        this.factory = Objects.requireNonNull(factory, "factory");
        this.maxSize = maxSize;
    }

    /** Returns an idle object, or a new one if the pool is below its bound, or null if exhausted. */
    public T tryBorrow() {
        if (closed.get()) throw new IllegalStateException("pool closed");
        T object = idle.poll();
        if (object != null) return object;
        int n = live.incrementAndGet();
        if (n > maxSize) {
            live.decrementAndGet(); // undo exactly our own reservation
            return null;
        }
        try {
            return factory.create();
        } catch (RuntimeException e) {
            live.decrementAndGet();
            throw e;
        }
    }

    /** Returns a borrowed object to the pool. */
    public void release(T object) {
        Objects.requireNonNull(object);
        if (closed.get()) {
            destroy(object);
            return;
        }
        idle.offer(object);
        if (closed.get()) drainIdle(); // close() may have drained before our offer: re-check
    }

    /** Destroys a borrowed object found broken; frees its slot for a new one. */
    public void invalidate(T object) {
        destroy(Objects.requireNonNull(object));
    }

    /** Number of objects alive (borrowed or idle); a moment's value. */
    public int liveCount() {
        return live.get();
    }

    /** Number of idle objects; approximate. */
    public int idleCount() {
        return idle.size();
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Closes the pool and destroys the idle objects. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        drainIdle();
    }

    private void drainIdle() {
        T object;
        while ((object = idle.poll()) != null) destroy(object); // poll hands each one to one thread
    }

    private void destroy(T object) {
        try {
            factory.destroy(object);
        } finally {
            live.decrementAndGet();
        }
    }
}
