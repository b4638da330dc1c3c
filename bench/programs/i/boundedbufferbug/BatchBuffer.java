package boundedbufferbug;

import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A bounded FIFO buffer between many producers and a sink, as used by batching appenders and
 * exporters: producers {@link #offer} or {@link #put} records, and any thread may call
 * {@link #flush} to drain them to the sink.
 *
 * <p>This class is thread-safe. The ring buffer is guarded by one {@link ReentrantLock} with
 * {@code notFull}/{@code notEmpty} conditions. Flushing is serialized by a second lock taken with
 * {@code tryLock()}: if a flush is already running the caller returns at once instead of
 * queueing behind it. The flusher hands records over one at a time with {@link #poll()}, so
 * each record reaches the sink exactly once even while producers keep adding.
 */
public final class BatchBuffer<E> {
    private final Object[] items;
    private int head; // guarded by lock
    private int tail; // guarded by lock
    private int count; // guarded by lock
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition notEmpty = lock.newCondition();
    private final ReentrantLock flushLock = new ReentrantLock();

    public BatchBuffer(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity " + capacity);
        items = new Object[capacity];
    }

    /** Adds {@code e} if there is room; false if the buffer is full. */
    public boolean offer(E e) {
        Objects.requireNonNull(e);
        if (size() == items.length) return false; // size() takes and releases the lock
        lock.lock();
        try {
            enqueue(e); // BUG: capacity checked via size() in one critical section, record inserted in another: two producers that both saw one free slot both enqueue, overwriting the oldest record and pushing count past capacity
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Adds {@code e}, waiting for room. */
    public void put(E e) throws InterruptedException {
        Objects.requireNonNull(e);
        lock.lockInterruptibly();
        try {
            while (count == items.length) notFull.await();
            enqueue(e);
        } finally {
            lock.unlock();
        }
    }

    /** Removes and returns the oldest record, or null if the buffer is empty. */
    public E poll() {
        lock.lock();
        try {
            return count == 0 ? null : dequeue();
        } finally {
            lock.unlock();
        }
    }

    /** Removes and returns the oldest record, waiting for one. */
    public E take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (count == 0) notEmpty.await();
            return dequeue();
        } finally {
            lock.unlock();
        }
    }

    /** Drains the buffer to {@code sink}; returns 0 at once if another flush is running. */
    public int flush(Consumer<? super E> sink) {
        if (!flushLock.tryLock()) return 0; // single flusher
        try {
            int n = 0;
            for (E e; (e = poll()) != null; n++) sink.accept(e);
            return n;
        } finally {
            flushLock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    public int capacity() {
        return items.length;
    }

    private void enqueue(E e) { // caller holds lock, count < capacity
        items[tail] = e;
        tail = (tail + 1) % items.length;
        count++;
        notEmpty.signal();
    }

    @SuppressWarnings("unchecked")
    private E dequeue() { // caller holds lock, count > 0
        E e = (E) items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        count--;
        notFull.signal();
        return e;
    }
}
