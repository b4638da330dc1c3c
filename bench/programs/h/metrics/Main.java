package metrics;

/** Request handlers that record per-endpoint and per-status metrics. */
public class Main {
    static final int REQUESTS = 20000;
    static final int ENDPOINTS = 2000;

    static Thread handler(String name, MetricRegistry registry) {
        return new Thread(() -> {
            for (int i = 0; i < REQUESTS; i++) {
                String endpoint = "/api/v1/items/" + (i % ENDPOINTS);
                registry.counter("requests." + endpoint).inc();
                registry.counter("bytes." + endpoint).inc(128);
            }
        }, name);
    }

    public static void main(String[] args) throws InterruptedException {
        MetricRegistry registry = new MetricRegistry();
        Thread h1 = handler("qtp-1", registry);
        Thread h2 = handler("qtp-2", registry);
        h1.start(); h2.start();
        h1.join(); h2.join();
        long requests = registry.total("requests.");
        long bytes = registry.total("bytes.");
        boolean ok = requests == 2L * REQUESTS && bytes == 2L * REQUESTS * 128
                && registry.registrations() == registry.size();
        System.out.println("requests=" + requests + " bytes=" + bytes + " counters=" + registry.size()
                + " registrations=" + registry.registrations() + (ok ? " OK" : " FAIL"));
    }
}
