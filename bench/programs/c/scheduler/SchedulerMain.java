package scheduler;

import java.util.Map;
import java.util.TreeMap;

public final class SchedulerMain {
    public static void main(String[] args) throws InterruptedException {
        JobScheduler scheduler = new JobScheduler(4);

        Thread[] submitters = new Thread[3];
        for (int s = 0; s < submitters.length; s++) {
            final int id = s;
            submitters[s] = new Thread(() -> {
                for (int j = 0; j < 40; j++) {
                    scheduler.submit("job-" + id + "-" + j, j % 5, 2_000 + 500 * (j % 7));
                }
            }, "submitter-" + s);
            submitters[s].start();
        }
        for (Thread t : submitters) {
            t.join();
        }

        scheduler.awaitIdle();
        scheduler.shutdown();

        Map<String, Long> sorted = new TreeMap<>(scheduler.results());
        long totalPrimes = 0;
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            if (e.getKey().startsWith("job-")) {
                totalPrimes += e.getValue();
            }
        }
        System.out.println("jobs=" + (sorted.size() - 1)
                + " executed=" + sorted.get("executed-by-workers")
                + " primes=" + totalPrimes);
    }
}
