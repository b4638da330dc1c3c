package scheduler;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;

/** A unit of work submitted to the scheduler. */
final class Job {
    static final Job SHUTDOWN = new Job("shutdown", 0);
    final String name;
    final int cost;

    Job(String name, int cost) {
        this.name = name;
        this.cost = cost;
    }

    /** Burns a little CPU in place of real work. */
    long execute() {
        long h = name.hashCode();
        for (int i = 0; i < cost; i++) {
            h = h * 31 + i;
        }
        return h;
    }
}

/** Counters published by the scheduler; immutable. */
final class SchedulerStats {
    final int queued;
    final int running;
    final int finished;

    SchedulerStats(int queued, int running, int finished) {
        this.queued = queued;
        this.running = running;
        this.finished = finished;
    }

    @Override public String toString() {
        return "queued=" + queued + " running=" + running + " finished=" + finished;
    }
}

/**
 * A job scheduler: submitted jobs wait in a blocking queue and dispatcher tasks on a thread pool
 * take and run them. The queued/running/finished counters are guarded by one lock, and each
 * transition of a job (queued to running, running to finished) changes them in a single
 * critical section, so every {@link #stats()} snapshot accounts for every submitted job.
 */
class JobScheduler {
    private final BlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final ReentrantLock countersLock = new ReentrantLock();
    private int queued;
    private int running;
    private int finished;

    /** Enqueues a job and counts it as queued. */
    void submit(Job job) throws InterruptedException {
        countersLock.lock();
        try {
            queued++;
        } finally {
            countersLock.unlock();
        }
        queue.put(job);
    }

    /** Starts {@code workers} dispatcher loops on the pool. */
    void startDispatchers(ExecutorService pool, int workers) {
        for (int i = 0; i < workers; i++) {
            pool.submit(this::dispatchLoop);
        }
    }

    /** Asks every dispatcher to stop once the queue has drained. */
    void stopDispatchers(int workers) throws InterruptedException {
        for (int i = 0; i < workers; i++) {
            queue.put(Job.SHUTDOWN);
        }
    }

    private Void dispatchLoop() throws InterruptedException {
        while (true) {
            Job job = queue.take();
            if (job == Job.SHUTDOWN) {
                return null;
            }
            markStarted();
            try {
                job.execute();
            } finally {
                markFinished();
            }
        }
    }

    private void markStarted() {
        countersLock.lock();
        try {
            queued--;
            running++;
        } finally {
            countersLock.unlock();
        }
    }

    private void markFinished() {
        countersLock.lock();
        try {
            running--;
            finished++;
        } finally {
            countersLock.unlock();
        }
    }

    /** A consistent snapshot of the three counters. */
    SchedulerStats stats() {
        countersLock.lock();
        try {
            return new SchedulerStats(queued, running, finished);
        } finally {
            countersLock.unlock();
        }
    }
}
