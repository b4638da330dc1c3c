package listeners;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process event bus. The subscriber list is copy-on-write: mutators build
 * a new immutable list while holding a lock and publish it through a volatile
 * field; publishers iterate whatever snapshot they read, without locking.
 * close() sets a volatile flag and is idempotent.
 */
public class EventBus implements AutoCloseable {

    interface Listener {
        void onEvent(String topic, long payload);
    }

    static final class CountingListener implements Listener {
        private final AtomicLong seen = new AtomicLong();

        @Override
        public void onEvent(String topic, long payload) {
            seen.addAndGet(payload);
        }

        long seen() {
            return seen.get();
        }
    }

    private final Object writeLock = new Object();
    private volatile List<Listener> listeners = Collections.emptyList();
    private volatile boolean closed;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    void subscribe(Listener l) {
        synchronized (writeLock) {
            List<Listener> next = new ArrayList<>(listeners);
            next.add(l);
            listeners = Collections.unmodifiableList(next);
        }
    }

    void unsubscribe(Listener l) {
        synchronized (writeLock) {
            List<Listener> next = new ArrayList<>(listeners);
            next.remove(l);
            listeners = Collections.unmodifiableList(next);
        }
    }

    void publish(String topic, long payload) {
        if (closed) {
            dropped.incrementAndGet();
            return;
        }
        List<Listener> snapshot = listeners; // one volatile read, then iterate the immutable snapshot
        for (Listener l : snapshot) {
            l.onEvent(topic, payload);
            delivered.incrementAndGet();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return; // already closed; calling again is harmless
        }
        closed = true;
    }

    public static void main(String[] args) throws InterruptedException {
        EventBus bus = new EventBus();
        CountingListener permanent = new CountingListener();
        bus.subscribe(permanent);
        ExecutorService pool = Executors.newFixedThreadPool(4);

        pool.execute(() -> {
            for (int i = 0; i < 500; i++) {
                CountingListener temp = new CountingListener();
                bus.subscribe(temp);
                bus.unsubscribe(temp);
            }
        });
        for (int p = 0; p < 3; p++) {
            pool.execute(() -> {
                for (int i = 0; i < 10_000; i++) {
                    bus.publish("orders", 1);
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);

        bus.close();
        bus.close();
        bus.publish("orders", 1);
        System.out.println("permanent saw=" + permanent.seen()
                + " delivered>=" + 30_000 + ":" + (bus.delivered.get() >= 30_000)
                + " dropped=" + bus.dropped.get()
                + " listeners=" + bus.listeners.size());
    }
}
