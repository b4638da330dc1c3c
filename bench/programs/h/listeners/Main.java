package listeners;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A znode change notification. */
final class WatchedEvent {
    final String path;
    final long zxid;

    WatchedEvent(String path, long zxid) {
        this.path = path;
        this.zxid = zxid;
    }
}

/** Callback for data changes. */
interface Watcher {
    void process(WatchedEvent event);
}

/**
 * Keeps the watchers of one path and delivers change events to them. Registration and
 * delivery may happen on different threads (client sessions vs. the commit processor).
 */
class WatchManager {
    private final List<Watcher> watchers = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger deliveryFailures = new AtomicInteger();

    void addWatcher(Watcher w) { watchers.add(w); }

    boolean removeWatcher(Watcher w) { return watchers.remove(w); }

    /**
     * Delivers an event to every watcher registered at the time of the call. The list is
     * copied under its own monitor and the callbacks run outside the lock, on the copy.
     */
    void triggerWatch(WatchedEvent event) {
        List<Watcher> snapshot;
        synchronized (watchers) {
            snapshot = new ArrayList<>(watchers);
        }
        for (int i = 0; i < snapshot.size(); i++) {
            deliver(snapshot.get(i), event);
        }
    }

    int deliveryFailures() { return deliveryFailures.get(); }

    private void deliver(Watcher w, WatchedEvent event) {
        try {
            w.process(event);
        } catch (RuntimeException e) {
            deliveryFailures.incrementAndGet();
        }
    }
}

public class Main {
    static final int EVENTS = 20000;

    public static void main(String[] args) throws InterruptedException {
        WatchManager manager = new WatchManager();
        AtomicInteger auditSeen = new AtomicInteger();
        manager.addWatcher(e -> auditSeen.incrementAndGet());
        AtomicInteger dispatchErrors = new AtomicInteger();
        Thread commitProcessor = new Thread(() -> {
            for (int z = 1; z <= EVENTS; z++) {
                try {
                    manager.triggerWatch(new WatchedEvent("/brokers/ids", z));
                } catch (IndexOutOfBoundsException e) {
                    dispatchErrors.incrementAndGet();
                }
            }
        }, "CommitProcessor");
        Thread sessions = new Thread(() -> {
            AtomicInteger sink = new AtomicInteger();
            List<Watcher> session = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                Watcher w = e -> sink.incrementAndGet();
                manager.addWatcher(w);
                session.add(w);
                if (session.size() == 4) { // the session closes: drop all its watches
                    for (Watcher old : session) manager.removeWatcher(old);
                    session.clear();
                }
            }
        }, "SessionTracker");
        commitProcessor.start(); sessions.start();
        commitProcessor.join(); sessions.join();
        boolean ok = auditSeen.get() == EVENTS && dispatchErrors.get() == 0 && manager.deliveryFailures() == 0;
        System.out.println("audit=" + auditSeen.get() + "/" + EVENTS + " dispatchErrors=" + dispatchErrors.get()
                + (ok ? " OK" : " FAIL"));
    }
}
