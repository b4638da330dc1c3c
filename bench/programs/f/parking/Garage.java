package parking;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A parking garage: a fair semaphore counts free spaces at the gate, and the
 * spot-to-car map (guarded by the garage monitor) records who parks where.
 */
public class Garage {

    private final int capacity;
    private final Semaphore freeSpaces;
    private final Map<Integer, String> spots = new HashMap<>(); // guarded by this
    private int totalParked;                                     // guarded by this

    Garage(int capacity) {
        this.capacity = capacity;
        this.freeSpaces = new Semaphore(capacity, true);
    }

    /** Finds a free spot and assigns it to the car in one critical section. */
    private synchronized int assignSpot(String car) {
        for (int s = 0; s < capacity; s++) {
            if (!spots.containsKey(s)) {
                spots.put(s, car);
                totalParked++;
                return s;
            }
        }
        throw new IllegalStateException("a permit was held but every spot is taken");
    }

    /** Waits at the gate for a free space, then parks; returns the spot number. */
    int enter(String car) throws InterruptedException {
        freeSpaces.acquire();
        return assignSpot(car);
    }

    /** Frees the spot (only if this car is in it), then lets the next car through the gate. */
    boolean leave(int spot, String car) {
        boolean wasThere;
        synchronized (this) {
            wasThere = spots.remove(spot, car);
        }
        freeSpaces.release();
        return wasThere;
    }

    synchronized int occupied() {
        return spots.size();
    }

    synchronized int totalParked() {
        return totalParked;
    }

    public static void main(String[] args) throws InterruptedException {
        final Garage garage = new Garage(5);
        final AtomicInteger lostCars = new AtomicInteger();
        List<Thread> cars = new ArrayList<>();
        for (int c = 0; c < 12; c++) {
            final String plate = "CAR-" + (100 + c);
            Thread t = new Thread(() -> {
                try {
                    for (int visit = 0; visit < 40; visit++) {
                        int spot = garage.enter(plate);
                        Thread.yield(); // shopping
                        if (!garage.leave(spot, plate)) {
                            lostCars.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, plate);
            cars.add(t);
            t.start();
        }
        for (Thread t : cars) {
            t.join();
        }
        System.out.println("parked=" + garage.totalParked() + " stillInside=" + garage.occupied()
                + " carsNotFoundAtTheirSpot=" + lostCars.get());
    }
}
