package rcubug;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Read-copy-update routing table. Route updates (announce/withdraw) are rare
 * and serialised by a writer lock: the writer copies the current immutable
 * snapshot, changes the copy and publishes a new snapshot through a volatile
 * field. Lookups take no lock: they read the volatile field once and resolve
 * the destination against that one snapshot, so the next hop and the table
 * version they report always belong together.
 */
public class RoutingTable {

    /** Immutable: a routing map and the version it was published as. */
    static final class Snapshot {
        final Map<String, String> routes;
        final long version;

        Snapshot(Map<String, String> routes, long version) {
            this.routes = Collections.unmodifiableMap(routes);
            this.version = version;
        }
    }

    /** Result of one lookup: next hop and the table version used. */
    static final class Resolution {
        final String nextHop;
        final long version;

        Resolution(String nextHop, long version) {
            this.nextHop = nextHop;
            this.version = version;
        }
    }

    private final Object writeLock = new Object();
    private volatile Snapshot current = new Snapshot(new HashMap<>(), 0);

    void announce(String prefix, String nextHop) {
        Snapshot cur = current; // BUG: snapshot read and copied outside the writer lock ...
        Map<String, String> copy = new HashMap<>(cur.routes);
        copy.put(prefix, nextHop);
        synchronized (writeLock) {
            current = new Snapshot(copy, cur.version + 1); // BUG: ... stale copy published; a concurrent announce/withdraw is lost
        }
    }

    void withdraw(String prefix) {
        synchronized (writeLock) {
            Snapshot cur = current;
            if (!cur.routes.containsKey(prefix)) {
                return;
            }
            Map<String, String> copy = new HashMap<>(cur.routes);
            copy.remove(prefix);
            current = new Snapshot(copy, cur.version + 1);
        }
    }

    /** Longest-prefix match against a single snapshot. */
    Resolution resolve(String destination) {
        Snapshot snap = current;
        for (int len = destination.length(); len >= 0; len--) {
            String hop = snap.routes.get(destination.substring(0, len));
            if (hop != null) {
                return new Resolution(hop, snap.version);
            }
        }
        return new Resolution("drop", snap.version);
    }

    long version() {
        return current.version;
    }

    int size() {
        return current.routes.size();
    }

    public static void main(String[] args) throws InterruptedException {
        RoutingTable table = new RoutingTable();
        table.announce("", "gw-default");
        AtomicLong lookups = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        Thread[] threads = new Thread[5];
        for (int w = 0; w < 2; w++) {
            final int id = w;
            threads[w] = new Thread(() -> {
                for (int i = 0; i < 300; i++) {
                    String prefix = "10." + ((i + id) % 16);
                    if (i % 3 == 2) {
                        table.withdraw(prefix);
                    } else {
                        table.announce(prefix, "gw-" + id + "-" + i);
                    }
                }
            }, "bgp-speaker-" + w);
        }
        for (int r = 2; r < threads.length; r++) {
            final int id = r;
            threads[r] = new Thread(() -> {
                for (int i = 0; i < 3000; i++) {
                    Resolution res = table.resolve("10." + ((i * 7 + id) % 20) + ".1.1");
                    lookups.incrementAndGet();
                    if (res.nextHop.equals("drop")) {
                        dropped.incrementAndGet();
                    }
                }
            }, "forwarder-" + r);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("routes=" + table.size() + " version=" + table.version()
                + " lookups=" + lookups.get() + " dropped=" + dropped.get());
    }
}
