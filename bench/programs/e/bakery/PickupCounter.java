package bakery;

import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;

/**
 * A bakery pickup counter with a bounded shelf. All shelf changes happen inside
 * synchronized methods that wait in a loop and act in the same critical
 * section. Couriers first peek with hasReady() as a cheap hint and then call
 * takeIfReady(), which re-checks under the monitor and may return null.
 * Separate synchronized getters are used only to print progress.
 */
public class PickupCounter {

    static final class Order {
        final int id;
        Order(int id) {
            this.id = id;
        }
    }

    private final ArrayDeque<Order> shelf = new ArrayDeque<>();
    private final int capacity;
    private boolean closed;
    private int baked;
    private int pickedUp;

    PickupCounter(int capacity) {
        this.capacity = capacity;
    }

    synchronized void putReady(Order o) throws InterruptedException {
        while (shelf.size() == capacity) {
            wait();
        }
        shelf.addLast(o);
        baked++;
        notifyAll();
    }

    /** Blocks until an order is available; returns null once closed and empty. */
    synchronized Order awaitAndTake() throws InterruptedException {
        while (shelf.isEmpty() && !closed) {
            wait();
        }
        Order o = shelf.pollFirst();
        if (o != null) {
            pickedUp++;
            notifyAll();
        }
        return o;
    }

    synchronized boolean hasReady() {
        return !shelf.isEmpty();
    }

    /** Re-checks under the lock: a hint from hasReady() may be stale. */
    synchronized Order takeIfReady() {
        Order o = shelf.pollFirst();
        if (o != null) {
            pickedUp++;
            notifyAll();
        }
        return o;
    }

    synchronized void close() {
        closed = true;
        notifyAll();
    }

    // reporting only
    synchronized int baked() { return baked; }
    synchronized int pickedUp() { return pickedUp; }
    synchronized int onShelf() { return shelf.size(); }

    public static void main(String[] args) throws InterruptedException {
        PickupCounter counter = new PickupCounter(5);
        int couriers = 3;
        int ordersToBake = 3000;
        CountDownLatch couriersDone = new CountDownLatch(couriers);
        int[] delivered = new int[couriers];

        Thread kitchen = new Thread(() -> {
            try {
                for (int i = 0; i < ordersToBake; i++) {
                    counter.putReady(new Order(i));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                counter.close();
            }
        }, "kitchen");
        kitchen.start();

        for (int c = 0; c < couriers; c++) {
            final int slot = c;
            new Thread(() -> {
                int mine = 0;
                try {
                    while (true) {
                        Order o = null;
                        if (counter.hasReady()) {
                            o = counter.takeIfReady();
                        }
                        if (o == null) {
                            o = counter.awaitAndTake();
                            if (o == null) {
                                break; // closed and empty
                            }
                        }
                        mine++;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                delivered[slot] = mine;
                couriersDone.countDown();
            }, "courier-" + c).start();
        }

        for (int i = 0; i < 3; i++) {
            Thread.sleep(2);
            System.out.println("progress: baked=" + counter.baked()
                    + " picked=" + counter.pickedUp() + " shelf=" + counter.onShelf());
        }
        kitchen.join();
        couriersDone.await();
        int total = 0;
        for (int d : delivered) {
            total += d;
        }
        System.out.println("delivered=" + total + " baked=" + counter.baked()
                + " picked=" + counter.pickedUp() + " shelf=" + counter.onShelf());
    }
}
