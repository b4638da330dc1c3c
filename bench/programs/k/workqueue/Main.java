package workqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

public final class Main {
    record Job(int producer, int seq, String payload) {}

    public static void main(String[] args) throws Exception {
        BoundedWorkQueue<Job> queue = new BoundedWorkQueue<>(64);
        LongAdder checksum = new LongAdder();
        ExecutorService consumers = Executors.newFixedThreadPool(4);
        for (int c = 0; c < 4; c++) {
            consumers.submit(() -> {
                while (true) {
                    List<Job> batch = queue.takeBatch(8);
                    if (batch.isEmpty()) {
                        return null; // shut down and empty
                    }
                    for (Job j : batch) {
                        checksum.add(j.payload().hashCode() & 0xff);
                    }
                    queue.acknowledge(batch.size());
                }
            });
        }

        ExecutorService producers = Executors.newFixedThreadPool(3);
        List<Future<Integer>> offered = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            final int id = p;
            offered.add(producers.submit(() -> {
                int ok = 0;
                for (int i = 0; i < 20_000; i++) {
                    if (queue.offer(new Job(id, i, "job-" + id + "-" + i), 1, TimeUnit.SECONDS)) {
                        ok++;
                    }
                }
                return ok;
            }));
        }
        long submitted = 0;
        for (Future<Integer> f : offered) {
            submitted += f.get();
        }
        producers.shutdown();

        boolean drained = queue.awaitDrained(3, TimeUnit.SECONDS);
        queue.shutdown();
        consumers.shutdown();
        consumers.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("submitted=" + submitted + " accepted=" + queue.acceptedCount()
                + " drained=" + queue.drainedCount() + " fullyDrained=" + drained
                + " checksum=" + checksum.sum());
    }
}
