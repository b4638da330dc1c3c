package hedc;

import java.util.ArrayDeque;

/**
 * A bounded-lifetime task pool in the style of hedc's thread pool: tasks are
 * queued under the pool monitor, idle workers wait on the monitor, and the
 * pool keeps track of how many tasks are still outstanding.
 */
final class TaskPool {
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private final PoolWorker[] workers;
    private boolean shutdown = false;
    private int outstanding = 0;
    private int completed = 0;

    TaskPool(int size) {
        workers = new PoolWorker[size];
        for (int i = 0; i < size; i++) {
            workers[i] = new PoolWorker(this, "hedc-worker-" + i);
        }
    }

    void start() {
        for (PoolWorker w : workers) {
            w.start();
        }
    }

    synchronized void execute(Runnable task) {
        if (shutdown) {
            throw new IllegalStateException("pool is shut down");
        }
        queue.addLast(task);
        outstanding++;
        notifyAll();
    }

    /** Returns the next task, or null once the pool is shut down and drained. */
    synchronized Runnable next() throws InterruptedException {
        while (queue.isEmpty() && !shutdown) {
            wait();
        }
        return queue.pollFirst();
    }

    synchronized void taskDone() {
        outstanding--;
        completed++;
        if (outstanding == 0) {
            notifyAll();
        }
    }

    synchronized void awaitQuiescence() throws InterruptedException {
        while (outstanding > 0) {
            wait();
        }
    }

    synchronized int completedTasks() {
        return completed;
    }

    void shutdownAndJoin() throws InterruptedException {
        synchronized (this) {
            shutdown = true;
            notifyAll();
        }
        for (PoolWorker w : workers) {
            w.join();
        }
    }
}
