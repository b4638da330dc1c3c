package boundedbuf;

/**
 * Classic monitor-based bounded buffer (ConTest BoundedBuffer / ProducerConsumer):
 * each operation checks its condition in a while loop and performs the
 * transfer in the same synchronized method.
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

    synchronized int take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        int item = items[takeIdx];
        items[takeIdx] = 0;
        takeIdx = (takeIdx + 1) % items.length;
        count--;
        notifyAll();
        return item;
    }

    synchronized int size() {
        return count;
    }
}
