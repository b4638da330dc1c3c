package boundedbufbug;

/**
 * Classic monitor-based bounded buffer (ConTest BoundedBuffer / ProducerConsumer):
 * each operation checks its condition in a while loop and performs the
 * transfer in the same synchronized method.
 * (Buggy twin: take() checks and removes in two separate critical sections.)
 */
final class BoundedBuffer {
    private final int[] items;
    private int putIdx;
    private int takeIdx;
    private int count;

    BoundedBuffer(int capacity) {
        items = new int[capacity];
    }

    synchronized void put(int item) throws InterruptedException {
        while (count == items.length) {
            wait();
        }
        items[putIdx] = item;
        putIdx = (putIdx + 1) % items.length;
        count++;
        notifyAll();
    }

    int take() throws InterruptedException {
        synchronized (this) {
            if (count == 0) { // BUG: 'if' instead of 'while', and the emptiness check is in its own critical section
                wait();
            }
        }
        synchronized (this) { // BUG: removal in a second critical section; another consumer may have emptied the buffer since the check
            int item = items[takeIdx];
            items[takeIdx] = 0;
            takeIdx = (takeIdx + 1) % items.length;
            count--;
            notifyAll();
            return item;
        }
    }

    synchronized int size() {
        return count;
    }
}
