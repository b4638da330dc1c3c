package reqqueue;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded queue between a broker's transport threads and its dispatcher. A producer that
 * finds the queue full gets its request rejected (flow control) instead of blocking.
 */
class RequestQueue<T> {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<T> items = new ArrayDeque<>();
    private final int capacity;
    private int rejected;
    private int highWaterMark;

    RequestQueue(int capacity) { this.capacity = capacity; }

    /** Enqueues unless full. The capacity test and the insertion are one lock hold. */
    boolean offer(T request) {
        lock.lock();
        try {
            if (items.size() >= capacity) {
                rejected++;
                return false;
            }
            items.addLast(request);
            highWaterMark = Math.max(highWaterMark, items.size());
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Dequeues, waiting at most {@code millis} for a request; null on timeout. */
    T poll(long millis) throws InterruptedException {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (items.isEmpty()) {
                if (nanos <= 0) return null;
                nanos = notEmpty.awaitNanos(nanos);
            }
            return items.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    /** {rejected, high-water mark, current depth}. */
    int[] stats() {
        lock.lock();
        try {
            return new int[] {rejected, highWaterMark, items.size()};
        } finally {
            lock.unlock();
        }
    }

    int capacity() { return capacity; }
}
