package registry2;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Service-discovery registry. Each service name maps to an immutable set of
 * endpoints that is replaced atomically with compute (a service disappears when
 * its last endpoint goes); lookups read one set snapshot. Per-service lookup
 * statistics are created at most once with computeIfAbsent; heartbeats are
 * counted with merge. A single leader lease (holder + epoch) lives in an AtomicReference and
 * is acquired or renewed with a compareAndSet retry loop, so every epoch is
 * handed to exactly one node.
 */
public class ServiceRegistry {

    /** Immutable leader lease. */
    static final class Lease {
        final String holder;
        final long epoch;

        Lease(String holder, long epoch) {
            this.holder = holder;
            this.epoch = epoch;
        }
    }

    /** Per-service statistics; created once, never removed. */
    static final class ServiceInfo {
        final String name;
        final LongAdder lookups = new LongAdder();
        final LongAdder misses = new LongAdder();

        ServiceInfo(String name) {
            this.name = name;
        }
    }

    private final ConcurrentHashMap<String, Set<String>> endpoints = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ServiceInfo> infos = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> heartbeats = new ConcurrentHashMap<>();
    private final AtomicReference<Lease> leader = new AtomicReference<>(new Lease("nobody", 0));
    private final ConcurrentHashMap<Long, String> epochOwners = new ConcurrentHashMap<>();
    private final AtomicInteger duplicateEpochs = new AtomicInteger();

    void register(String service, String endpoint) {
        endpoints.compute(service, (s, set) -> {
            Set<String> next = set == null ? new TreeSet<>() : new TreeSet<>(set);
            next.add(endpoint);
            return Collections.unmodifiableSet(next);
        });
    }

    /** Picks an endpoint from one snapshot of the service's set, or null. */
    String lookup(String service, int hint) {
        ServiceInfo info = infos.computeIfAbsent(service, ServiceInfo::new);
        info.lookups.increment();
        Set<String> snapshot = endpoints.get(service);
        if (snapshot == null || snapshot.isEmpty()) {
            info.misses.increment();
            return null;
        }
        int skip = Math.floorMod(hint, snapshot.size());
        for (String ep : snapshot) {
            if (skip-- == 0) {
                return ep;
            }
        }
        throw new AssertionError("snapshot changed under us");
    }

    void heartbeat(String service) {
        heartbeats.merge(service, 1L, Long::sum);
    }

    /** Removes an endpoint, and the service itself if that was its last endpoint. */
    void deregister(String service, String endpoint) {
        endpoints.compute(service, (s, set) -> {
            if (set == null || !set.contains(endpoint)) {
                return set;
            }
            Set<String> next = new TreeSet<>(set);
            next.remove(endpoint);
            return next.isEmpty() ? null : Collections.unmodifiableSet(next);
        });
    }

    /** Takes over leadership for a new epoch; returns the epoch won. */
    long takeLeadership(String node) {
        while (true) {
            Lease cur = leader.get();
            Lease next = new Lease(node, cur.epoch + 1);
            if (leader.compareAndSet(cur, next)) {
                String prev = epochOwners.putIfAbsent(next.epoch, node);
                if (prev != null) {
                    duplicateEpochs.incrementAndGet();
                }
                return next.epoch;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        ServiceRegistry registry = new ServiceRegistry();
        String[] services = {"billing", "search", "auth", "cart"};
        CountDownLatch start = new CountDownLatch(1);
        Thread[] nodes = new Thread[4];
        for (int n = 0; n < nodes.length; n++) {
            final String node = "node-" + n;
            nodes[n] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 1000; i++) {
                    String svc = services[i % services.length];
                    String ep = node + ":" + (8000 + i % 3);
                    registry.register(svc, ep);
                    registry.heartbeat(svc);
                    registry.lookup(services[(i + 1) % services.length], i);
                    if (i % 4 == 3) {
                        registry.deregister(svc, ep);
                    }
                    if (i % 10 == 0) {
                        registry.takeLeadership(node);
                    }
                }
            }, node);
            nodes[n].start();
        }
        start.countDown();
        for (Thread t : nodes) {
            t.join();
        }
        System.out.println("services=" + new TreeMap<>(registry.endpoints).keySet()
                + " heartbeats=" + new TreeMap<>(registry.heartbeats)
                + " lookups=" + registry.infos.get("auth").lookups.sum()
                + " epoch=" + registry.leader.get().epoch
                + " duplicate epochs=" + registry.duplicateEpochs.get());
    }
}
