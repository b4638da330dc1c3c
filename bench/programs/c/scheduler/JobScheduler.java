package scheduler;

import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A priority job scheduler. The queue, the sequence counter, the shutdown flag
 * and the pending count are all guarded by one ReentrantLock; workers block on
 * a Condition and the submitter can wait until the scheduler is idle.
 */
final class JobScheduler {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition idle = lock.newCondition();
    private final PriorityQueue<Job> queue = new PriorityQueue<>();
    private final ConcurrentHashMap<String, Long> results = new ConcurrentHashMap<>();
    private final Worker[] workers;
    private long nextSequence = 0;
    private int pending = 0;
    private boolean shutdown = false;

    JobScheduler(int threads) {
        workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker("sched-" + i);
            workers[i].start();
        }
    }

    void submit(String name, int priority, int workload) {
        lock.lock();
        try {
            if (shutdown) {
                throw new IllegalStateException("scheduler shut down");
            }
            queue.add(new Job(name, priority, nextSequence++, workload));
            pending++;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    private Job take() throws InterruptedException {
        lock.lock();
        try {
            while (queue.isEmpty() && !shutdown) {
                notEmpty.await();
            }
            return queue.poll(); // null only when shut down and drained
        } finally {
            lock.unlock();
        }
    }

    private void completed() {
        lock.lock();
        try {
            if (--pending == 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    void awaitIdle() throws InterruptedException {
        lock.lock();
        try {
            while (pending > 0) {
                idle.await();
            }
        } finally {
            lock.unlock();
        }
    }

    void shutdown() throws InterruptedException {
        lock.lock();
        try {
            shutdown = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        for (Worker w : workers) {
            w.join();
        }
    }

    ConcurrentHashMap<String, Long> results() {
        return results;
    }

    private final class Worker extends Thread {
        private int executed = 0; // confined to this worker

        Worker(String name) {
            super(name);
        }

        @Override
        public void run() {
            try {
                Job job;
                while ((job = take()) != null) {
                    try {
                        results.put(job.name, job.execute());
                        executed++;
                    } finally {
                        completed();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            results.merge("executed-by-workers", (long) executed, Long::sum);
        }
    }
}
