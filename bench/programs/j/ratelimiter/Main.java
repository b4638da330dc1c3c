package ratelimiter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** An API gateway that admits client calls through a shared token bucket. */
public class Main {
    /** One client: fires {@code calls} requests, pausing briefly between them. */
    private static Runnable client(TokenBucket bucket, int calls) {
        return () -> {
            for (int i = 0; i < calls; i++) {
                if (bucket.tryAcquire()) {
                    handleRequest(i);
                }
                LockSupport.parkNanos(50_000);
            }
        };
    }

    /** Stands in for the real work of a request. */
    private static void handleRequest(int i) {
        if (i < 0) {
            throw new IllegalStateException();
        }
    }

    public static void main(String[] args) throws Exception {
        TokenBucket bucket = new TokenBucket(40, 10);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        ScheduledFuture<?> refill = bucket.startRefill(scheduler, 5);
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            running.add(clients.submit(client(bucket, 400)));
        }
        for (Future<?> f : running) {
            f.get();
        }
        refill.cancel(false);
        scheduler.shutdown();
        clients.shutdown();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
        clients.awaitTermination(5, TimeUnit.SECONDS);
        long budget = bucket.capacity() + bucket.refilled();
        boolean ok = bucket.lowWaterMark() >= 0 && bucket.admitted() + bucket.tokens() == budget;
        System.out.println("admitted=" + bucket.admitted() + " rejected=" + bucket.rejected()
                + " left=" + bucket.tokens() + " budget=" + budget + (ok ? " OK" : " OVER LIMIT"));
    }
}
