package lazybug;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A value computed on first use and then shared, like Guava's {@code Suppliers.memoize}.
 *
 * <p>This class is thread-safe. {@link #get()} reads a volatile field: once the value is set,
 * readers take no lock; until then the field is checked under the lock, and the supplier runs
 * outside the lock so that a slow computation does not block other readers. A
 * {@link #reset()} discards the value atomically; the next get() computes a fresh one.
 */
public final class Lazy<T> implements Supplier<T> {
    private final Object lock = new Object();
    private final Supplier<? extends T> supplier;
    private volatile T value; // written only under lock
    private int computations; // guarded by lock

    public Lazy(Supplier<? extends T> supplier) {
        this.supplier = Objects.requireNonNull(supplier, "supplier");
    }

    public static <T> Lazy<T> of(Supplier<? extends T> supplier) {
        return new Lazy<>(supplier);
    }

    /** Returns the value, computing it on the first call. */
    @Override
    public T get() {
        T v = value; // one volatile read on the fast path
        if (v != null) return v;
        boolean mustCompute;
        synchronized (lock) {
            v = value;
            mustCompute = v == null;
        }
        if (!mustCompute) return v;
        v = Objects.requireNonNull(supplier.get(), "supplier returned null"); // not under the lock: may be slow
        synchronized (lock) {
            computations++;
            value = v; // BUG: checked in the block above, set in this one: two callers that both saw null both run the supplier, the second overwrites the first and they return different instances
        }
        return v;
    }

    public boolean isComputed() {
        return value != null;
    }

    /** The value if already computed, else null; never runs the supplier. */
    public T getIfComputed() {
        return value;
    }

    /** Discards the value; returns the discarded value, or null if there was none. */
    public T reset() {
        synchronized (lock) {
            T old = value;
            value = null;
            return old;
        }
    }

    /** Discards the value only if it is still {@code expected} (e.g. a value found broken). */
    public boolean resetIf(T expected) {
        synchronized (lock) {
            if (value != expected) return false;
            value = null;
            return true;
        }
    }

    /** How many times the supplier has run. */
    public int computations() {
        synchronized (lock) {
            return computations;
        }
    }

    /** A lazy value derived from this one; computed, at most once, on its own first use. */
    public <R> Lazy<R> map(Function<? super T, ? extends R> f) {
        Objects.requireNonNull(f, "f");
        return new Lazy<>(() -> f.apply(get()));
    }
}
