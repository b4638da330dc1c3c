package leaserenewer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A cluster node that keeps the lease alive with a periodic renewal job. */
class LeaseHolder {
    static final long TTL_MILLIS = 50;
    final String name;
    private final LeaseService service;
    private final ExecutorService rpc;
    private final AtomicReference<Lease> held = new AtomicReference<>();
    final AtomicInteger acquisitions = new AtomicInteger();
    final AtomicInteger renewals = new AtomicInteger();

    LeaseHolder(String name, LeaseService service, ExecutorService rpc) {
        this.name = name;
        this.service = service;
        this.rpc = rpc;
    }

    /** The periodic job: acquire the lease when it is free, otherwise renew the grant held. */
    void tick() {
        long now = System.nanoTime() / 1_000_000;
        Lease mine = held.get();
        if (mine == null) {
            service.tryAcquire(name, now, TTL_MILLIS).ifPresent(grant -> {
                acquisitions.incrementAndGet();
                held.compareAndSet(null, grant);
            });
            return;
        }
        renew(mine, now).join();
    }

    /** Sends the renewal to the lock service; forgets the grant when the service refuses it. */
    private CompletableFuture<Boolean> renew(Lease mine, long now) {
        return CompletableFuture.supplyAsync(() -> service.renew(mine, now, TTL_MILLIS), rpc)
                .thenApply(ok -> {
                    if (ok) {
                        renewals.incrementAndGet();
                    } else {
                        held.compareAndSet(mine, null);
                    }
                    return ok;
                });
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        LeaseService service = new LeaseService();
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
        ExecutorService rpc = Executors.newFixedThreadPool(3);
        List<LeaseHolder> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LeaseHolder node = new LeaseHolder("node-" + i, service, rpc);
            nodes.add(node);
            timers.scheduleAtFixedRate(node::tick, 0, 1, TimeUnit.MILLISECONDS);
        }
        CountDownLatch enoughRevocations = new CountDownLatch(40);
        AtomicInteger revocations = new AtomicInteger();
        timers.scheduleAtFixedRate(() -> {
            service.revoke();
            revocations.incrementAndGet();
            enoughRevocations.countDown();
        }, 2, 2, TimeUnit.MILLISECONDS);

        enoughRevocations.await();
        timers.shutdown();
        timers.awaitTermination(5, TimeUnit.SECONDS);
        rpc.shutdown();
        rpc.awaitTermination(5, TimeUnit.SECONDS);

        int acquired = 0;
        int renewed = 0;
        for (LeaseHolder node : nodes) {
            acquired += node.acquisitions.get();
            renewed += node.renewals.get();
        }
        Lease last = service.current();
        // Every acquisition and every revocation moves the epoch on by exactly one.
        boolean ok = last.epoch == acquired + revocations.get();
        System.out.println("epoch=" + last.epoch + " acquired=" + acquired + " renewed=" + renewed
                + (ok ? " OK" : " EPOCH WENT BACKWARDS"));
    }
}
