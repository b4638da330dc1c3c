package hitcounterbug;

/** Global traffic statistics of a web server; request handlers flush local tallies into it. */
final class TrafficStats {
    private final Object lock = new Object();
    private long requests;      // guarded by lock
    private long bytesServed;   // guarded by lock

    /** Adds a batch of locally counted requests to the global totals. */
    void flush(int localRequests, long localBytes) {
        long totalRequests;
        long totalBytes;
        synchronized (lock) {
            totalRequests = requests; // BUG: totals read in one critical section ...
            totalBytes = bytesServed;
        }
        totalRequests += localRequests;
        totalBytes += localBytes;
        synchronized (lock) {
            requests = totalRequests; // BUG: ... and written back in another; a concurrent flush in between is overwritten (under-reporting)
            bytesServed = totalBytes; // BUG: same lost update for the byte total
        }
    }

    long requests() {
        synchronized (lock) { return requests; }
    }

    long bytesServed() {
        synchronized (lock) { return bytesServed; }
    }
}

/** Serves requests and keeps a local tally, which it flushes every FLUSH_EVERY requests. */
final class RequestHandler extends Thread {
    static final int FLUSH_EVERY = 16;
    private final TrafficStats stats;
    private final int requestsToServe;

    RequestHandler(String name, TrafficStats stats, int requestsToServe) {
        super(name);
        this.stats = stats;
        this.requestsToServe = requestsToServe;
    }

    static int responseSize(int request) {
        return 200 + (request % 50) * 12;
    }

    @Override public void run() {
        int pending = 0;
        long pendingBytes = 0;
        for (int i = 0; i < requestsToServe; i++) {
            pending++;
            pendingBytes += responseSize(i);
            if (pending == FLUSH_EVERY) {
                stats.flush(pending, pendingBytes);
                pending = 0;
                pendingBytes = 0;
            }
        }
        if (pending > 0) stats.flush(pending, pendingBytes);
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        final int perHandler = 100000;
        final int handlers = 3;
        TrafficStats stats = new TrafficStats();
        RequestHandler[] pool = new RequestHandler[handlers];
        for (int i = 0; i < handlers; i++) {
            pool[i] = new RequestHandler("http-worker-" + i, stats, perHandler);
            pool[i].start();
        }
        for (RequestHandler h : pool) h.join();

        long expectedBytes = 0;
        for (int i = 0; i < perHandler; i++) expectedBytes += RequestHandler.responseSize(i);
        expectedBytes *= handlers;
        long expectedRequests = (long) perHandler * handlers;
        boolean ok = stats.requests() == expectedRequests && stats.bytesServed() == expectedBytes;
        System.out.println("requests=" + stats.requests() + "/" + expectedRequests
                + " bytes=" + stats.bytesServed() + "/" + expectedBytes + (ok ? " OK" : " BUG"));
    }
}
