package schedulerbug;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Submits batches of jobs from several clients while a monitor samples the counters. */
public class Main {
    private static final int WORKERS = 4;
    private static final int CLIENTS = 3;
    private static final int JOBS_PER_CLIENT = 300;

    public static void main(String[] args) throws Exception {
        JobScheduler scheduler = new JobScheduler();
        ExecutorService dispatchers = Executors.newFixedThreadPool(WORKERS);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger samples = new AtomicInteger();
        AtomicInteger badSamples = new AtomicInteger();
        monitor.scheduleAtFixedRate(() -> {
            SchedulerStats s = scheduler.stats();
            samples.incrementAndGet();
            if (s.queued < 0 || s.running < 0 || s.running > WORKERS) {
                badSamples.incrementAndGet();
            }
        }, 0, 1, TimeUnit.MILLISECONDS);

        scheduler.startDispatchers(dispatchers, WORKERS);
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            clients.submit(() -> {
                for (int j = 0; j < JOBS_PER_CLIENT; j++) {
                    scheduler.submit(new Job("client" + client + "-job" + j, 2_000 + j));
                }
                return null;
            });
        }
        clients.shutdown();
        clients.awaitTermination(5, TimeUnit.SECONDS);
        scheduler.stopDispatchers(WORKERS);
        dispatchers.shutdown();
        dispatchers.awaitTermination(5, TimeUnit.SECONDS);
        monitor.shutdown();
        monitor.awaitTermination(5, TimeUnit.SECONDS);

        SchedulerStats end = scheduler.stats();
        boolean ok = end.queued == 0 && end.running == 0 && end.finished == CLIENTS * JOBS_PER_CLIENT
                && badSamples.get() == 0;
        System.out.println(end + " samples=" + samples.get() + (ok ? " OK" : " COUNTS DRIFTED"));
    }
}
