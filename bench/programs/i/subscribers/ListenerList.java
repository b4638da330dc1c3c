package subscribers;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The listener list of an observable component (a file watcher, a cluster membership view).
 *
 * <p>This class is thread-safe. Listeners are kept in a {@link CopyOnWriteArrayList}: a listener
 * is registered with {@code addIfAbsent}, an atomic check-and-add, so it is registered at most
 * once however many threads add it; {@link #fire} iterates an immutable snapshot, so listeners
 * may add or remove listeners while being notified. {@link #close()} is idempotent
 * ({@code compareAndSet} on the closed flag); an add that races with close re-checks the flag
 * and takes its listener out again, so no listener stays registered after close, and
 * {@code onClose()} is called by whichever thread's {@code remove()} took the listener out.
 */
public final class ListenerList<E> implements AutoCloseable {
    /** Receives the events of one component. */
    public interface Listener<E> {
        void onEvent(E event);

        default void onClose() {}
    }

    private final CopyOnWriteArrayList<Listener<? super E>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Registers {@code listener}; false if it was already registered or the list is closed. */
    public boolean add(Listener<? super E> listener) {
        Objects.requireNonNull(listener, "listener");
        if (closed.get()) return false;
        if (!listeners.addIfAbsent(listener)) return false;
        if (closed.get() && listeners.remove(listener)) { // close() ran meanwhile and missed it
            listener.onClose();
            return false;
        }
        return true;
    }

    /** Unregisters {@code listener}; false if it was not registered. */
    public boolean remove(Listener<? super E> listener) {
        return listeners.remove(listener);
    }

    public boolean contains(Listener<? super E> listener) {
        return listeners.contains(listener);
    }

    /** Delivers {@code event} to the listeners registered when the call began; returns how many. */
    public int fire(E event) {
        if (closed.get()) return 0;
        int n = 0;
        for (Listener<? super E> l : listeners) { // snapshot iterator: never throws CME
            l.onEvent(event);
            n++;
        }
        return n;
    }

    public int size() {
        return listeners.size();
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Unregisters every listener, calling its onClose(). Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        for (Listener<? super E> l : listeners) {
            if (listeners.remove(l)) l.onClose(); // remove() succeeds for one thread only
        }
    }
}
