package jobqueuebug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A FIFO job queue shared by one producer and several worker threads. */
public class JobQueue {

    static final class Job {
        final int id;
        final int cost;

        Job(int id, int cost) {
            this.id = id;
            this.cost = cost;
        }
    }

    private final CopyOnWriteArrayList<Job> jobs = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    void submit(Job job) {
        jobs.add(job);
    }

    void close() {
        closed = true;
    }

    boolean drained() {
        return closed && jobs.isEmpty();
    }

    /** Takes the oldest job, or returns null if there is none right now. */
    Job next() {
        if (!jobs.isEmpty()) { // BUG: check that a job is waiting ...
            return jobs.remove(0); // BUG: ... then take it; another worker may take the last job in between -> IndexOutOfBoundsException
        }
        return null;
    }

    public static void main(String[] args) throws InterruptedException {
        final JobQueue queue = new JobQueue();
        final AtomicInteger processed = new AtomicInteger();
        final AtomicInteger crashes = new AtomicInteger();
        final int total = 4_000;

        Thread producer = new Thread(() -> {
            for (int i = 0; i < total; i++) {
                queue.submit(new Job(i, i % 5));
                if (i % 50 == 0) {
                    Thread.yield();
                }
            }
            queue.close();
        }, "producer");

        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            Thread t = new Thread(() -> {
                long work = 0;
                while (!queue.drained()) {
                    Job job;
                    try {
                        job = queue.next();
                    } catch (IndexOutOfBoundsException e) {
                        crashes.incrementAndGet();
                        continue;
                    }
                    if (job == null) {
                        Thread.yield();
                        continue;
                    }
                    work += job.cost;
                    processed.incrementAndGet();
                }
                if (work < 0) {
                    System.out.println("impossible");
                }
            }, "worker-" + w);
            workers.add(t);
            t.start();
        }
        producer.start();
        producer.join();
        for (Thread t : workers) {
            t.join();
        }
        System.out.println("submitted=" + total + " processed=" + processed.get()
                + " failed takes=" + crashes.get());
    }
}
