package garage;

import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Parking lot with a lock + condition; spaces are tracked as a count and a set of occupied bays. */
class Garage {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition spaceFree = lock.newCondition();
    private final boolean[] bays;
    private int free;

    Garage(int n) { bays = new boolean[n]; free = n; }

    int park() throws InterruptedException {
        lock.lock();
        try {
            while (free == 0) spaceFree.await();
            for (int i = 0; i < bays.length; i++) {
                if (!bays[i]) {
                    bays[i] = true;
                    free--;
                    return i;
                }
            }
            throw new IllegalStateException("free count out of sync");
        } finally {
            lock.unlock();
        }
    }

    void leave(int bay) {
        lock.lock();
        try {
            bays[bay] = false;
            free++;
            spaceFree.signal();
        } finally {
            lock.unlock();
        }
    }

    int freeSpaces() {
        lock.lock();
        try { return free; } finally { lock.unlock(); }
    }
}

/** Entrance gate: at most two cars pass the barrier at once. */
class Gate {
    private final Semaphore barrier = new Semaphore(2);
    private int passed;
    void pass() throws InterruptedException {
        barrier.acquire();
        try {
            synchronized (this) { passed++; }
        } finally {
            barrier.release();
        }
    }
    synchronized int getPassed() { return passed; }
}

class Car extends Thread {
    private final Garage g; private final Gate gate;
    Car(Garage g, Gate gate) { this.g = g; this.gate = gate; }
    @Override public void run() {
        try {
            for (int i = 0; i < 200; i++) {
                gate.pass();
                int bay = g.park();
                Thread.yield();
                g.leave(bay);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Garage g = new Garage(3);
        Gate gate = new Gate();
        Car[] cars = new Car[5];
        for (int i = 0; i < cars.length; i++) { cars[i] = new Car(g, gate); cars[i].start(); }
        for (Car c : cars) c.join();
        System.out.println(g.freeSpaces() == 3 && gate.getPassed() == 1000 ? "OK" : "BUG");
    }
}
