package workqueue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounded multi-producer / multi-consumer queue with batch hand-off.
 * Consumers acknowledge processed items; {@link #awaitDrained} lets the
 * owner wait until every accepted item has been processed.
 */
public final class BoundedWorkQueue<T> {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final Condition drainedCond = lock.newCondition();
    private final ArrayDeque<T> items = new ArrayDeque<>(); // guarded by lock
    private final int capacity;
    private boolean shutdown;  // guarded by lock
    private long accepted;     // guarded by lock
    private long drained;      // guarded by lock: items processed and acknowledged

    public BoundedWorkQueue(int capacity) {
        this.capacity = capacity;
    }

    /** @return false if the queue was shut down or the timeout elapsed. */
    public boolean offer(T item, long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (!shutdown && items.size() == capacity) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = notFull.awaitNanos(nanos);
            }
            if (shutdown) {
                return false;
            }
            items.addLast(item);
            accepted++;
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Blocks for at least one item; returns an empty batch once shut down and empty. */
    public List<T> takeBatch(int max) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (items.isEmpty() && !shutdown) {
                notEmpty.await();
            }
            List<T> batch = new ArrayList<>(Math.min(max, items.size()));
            while (batch.size() < max && !items.isEmpty()) {
                batch.add(items.pollFirst());
            }
            if (!batch.isEmpty()) {
                notFull.signalAll();
            }
            return batch;
        } finally {
            lock.unlock();
        }
    }

    /** Called by a consumer after it finished processing {@code n} items. */
    public void acknowledge(int n) {
        lock.lock();
        try {
            drained += n;
            if (drained == accepted) {
                drainedCond.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    public boolean awaitDrained(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (drained != accepted) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = drainedCond.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    public void shutdown() {
        lock.lock();
        try {
            shutdown = true;
            notEmpty.signalAll();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public long drainedCount() {
        lock.lock();
        try {
            return drained;
        } finally {
            lock.unlock();
        }
    }

    public long acceptedCount() {
        lock.lock();
        try {
            return accepted;
        } finally {
            lock.unlock();
        }
    }
}
