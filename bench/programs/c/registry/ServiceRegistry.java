package registry;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lazily initialised service registry. computeIfAbsent guarantees each
 * service is constructed exactly once no matter how many threads ask for it
 * first; lookups per name are tallied with merge.
 */
final class ServiceRegistry {
    private final ConcurrentHashMap<String, Service> services = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> lookups = new ConcurrentHashMap<>();
    private final AtomicInteger constructions = new AtomicInteger();

    Service lookup(String name) {
        lookups.merge(name, 1, Integer::sum);
        return services.computeIfAbsent(name, n -> {
            constructions.incrementAndGet();
            return new Service(n);
        });
    }

    int constructions() {
        return constructions.get();
    }

    Map<String, String> report() {
        Map<String, String> out = new TreeMap<>();
        services.forEach((name, s) ->
                out.put(name, "calls=" + s.calls() + " slowest=" + s.slowest()
                        + " lookups=" + lookups.get(name)));
        return out;
    }
}
