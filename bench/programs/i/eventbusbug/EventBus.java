package eventbusbug;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A synchronous publish/subscribe event bus keyed by event class.
 *
 * <p>This class is thread-safe. The handlers of each event type are a copy-on-write array that
 * is never modified once published: {@link #subscribe} and {@link #unsubscribe} build a new
 * array and install it with {@link ConcurrentHashMap#compute} / {@code computeIfPresent}, and
 * the last handler of a type is removed with its key. {@link #publish} reads the
 * current array without locking and delivers to that snapshot; a handler removed during a
 * publish may still receive that one event. The counters are approximate statistics.
 */
public final class EventBus {
    /** Receives events of one type. */
    public interface Handler<E> {
        void on(E event);
    }

    /** Cancels one subscription. */
    public interface Subscription {
        void cancel();
    }

    private final ConcurrentHashMap<Class<?>, Handler<?>[]> handlers = new ConcurrentHashMap<>();
    private final LongAdder published = new LongAdder();
    private final LongAdder undelivered = new LongAdder();

    public <E> Subscription subscribe(Class<E> type, Handler<? super E> handler) {
        Objects.requireNonNull(handler, "handler");
        handlers.compute(type, (t, cur) -> {
            if (cur == null) return new Handler<?>[] {handler};
            Handler<?>[] next = Arrays.copyOf(cur, cur.length + 1);
            next[cur.length] = handler;
            return next;
        });
        return () -> unsubscribe(type, handler);
    }

    /** Removes one registration of {@code handler} for {@code type}; false if there was none. */
    public boolean unsubscribe(Class<?> type, Handler<?> handler) {
        Handler<?>[] seen = handlers.get(type);
        if (seen == null || indexOf(seen, handler) < 0) return false;
        if (seen.length == 1) {
            handlers.remove(type); // BUG: check-then-act on a stale snapshot: a handler subscribed after get() saw a single entry is dropped together with the key (use remove(type, seen) or computeIfPresent)
            return true;
        }
        boolean[] removed = {false};
        handlers.computeIfPresent(type, (t, cur) -> {
            int i = indexOf(cur, handler);
            if (i < 0) return cur;
            removed[0] = true;
            return without(cur, i); // null removes the mapping
        });
        return removed[0];
    }

    /** Delivers {@code event} to the handlers of its exact class; returns how many got it. */
    @SuppressWarnings("unchecked")
    public int publish(Object event) {
        published.increment();
        Handler<?>[] snapshot = handlers.get(event.getClass()); // immutable once installed
        if (snapshot == null) {
            undelivered.increment();
            return 0;
        }
        for (Handler<?> h : snapshot) ((Handler<Object>) h).on(event);
        return snapshot.length;
    }

    public int subscriberCount(Class<?> type) {
        Handler<?>[] snapshot = handlers.get(type);
        return snapshot == null ? 0 : snapshot.length;
    }

    /** Approximate: events published so far, and those nobody was subscribed to. */
    public long[] counters() {
        return new long[] {published.sum(), undelivered.sum()};
    }

    private static int indexOf(Handler<?>[] array, Handler<?> handler) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == handler) return i;
        }
        return -1;
    }

    private static Handler<?>[] without(Handler<?>[] array, int i) {
        if (array.length == 1) return null;
        Handler<?>[] next = new Handler<?>[array.length - 1];
        System.arraycopy(array, 0, next, 0, i);
        System.arraycopy(array, i + 1, next, i, array.length - i - 1);
        return next;
    }
}
