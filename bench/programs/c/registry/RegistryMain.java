package registry;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * All client threads are held at a start gate so that they race to the
 * registry at the same moment; the main thread waits on an end gate.
 */
public final class RegistryMain {
    public static void main(String[] args) throws InterruptedException {
        final String[] names = {"auth", "billing", "catalog", "search", "mailer", "geo"};
        final int clients = 8;
        final ServiceRegistry registry = new ServiceRegistry();
        final CountDownLatch startGate = new CountDownLatch(1);
        final CountDownLatch endGate = new CountDownLatch(clients);
        final LongAdder total = new LongAdder();

        ExecutorService exec = Executors.newFixedThreadPool(clients);
        for (int c = 0; c < clients; c++) {
            final int id = c;
            exec.execute(() -> {
                try {
                    startGate.await();
                    long local = 0;
                    for (int i = 0; i < 5000; i++) {
                        Service s = registry.lookup(names[(i + id) % names.length]);
                        local += s.call(i * 31 + id);
                    }
                    total.add(local);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    endGate.countDown();
                }
            });
        }

        startGate.countDown();
        endGate.await();
        exec.shutdown();
        exec.awaitTermination(5, TimeUnit.SECONDS);

        System.out.println("constructions=" + registry.constructions() + " (expected "
                + names.length + ") total=" + total.sum());
        registry.report().forEach((k, v) -> System.out.println(k + ": " + v));
    }
}
