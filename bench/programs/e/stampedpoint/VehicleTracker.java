package stampedpoint;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;

/**
 * Tracks a delivery vehicle's position. The GPS thread moves the vehicle under
 * the write lock so that x and y always change together (x + y is kept equal
 * to the odometer). Dispatch threads read with an optimistic stamp, validate
 * it, and fall back to a full read lock when validation fails.
 */
public class VehicleTracker {

    private final StampedLock lock = new StampedLock();
    private double x;
    private double y;
    private long odometer;

    void move(double dx, double dy) {
        long stamp = lock.writeLock();
        try {
            x += dx;
            y += dy;
            odometer++;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Returns {x, y, odometer} as one consistent snapshot. */
    double[] position(AtomicLong fallbacks) {
        long stamp = lock.tryOptimisticRead();
        double cx = x;
        double cy = y;
        long odo = odometer;
        if (!lock.validate(stamp)) {
            fallbacks.incrementAndGet();
            stamp = lock.readLock();
            try {
                cx = x;
                cy = y;
                odo = odometer;
            } finally {
                lock.unlockRead(stamp);
            }
        }
        return new double[] {cx, cy, odo};
    }

    double distanceTo(double tx, double ty, AtomicLong fallbacks) {
        double[] p = position(fallbacks);
        double dx = p[0] - tx;
        double dy = p[1] - ty;
        return Math.sqrt(dx * dx + dy * dy);
    }

    public static void main(String[] args) throws InterruptedException {
        VehicleTracker tracker = new VehicleTracker();
        AtomicLong fallbacks = new AtomicLong();
        AtomicLong inconsistent = new AtomicLong();
        int readers = 3;
        CountDownLatch done = new CountDownLatch(readers + 1);

        Thread gps = new Thread(() -> {
            for (int i = 0; i < 50_000; i++) {
                // each step moves one unit diagonally: x == y == odometer
                tracker.move(1.0, 1.0);
            }
            done.countDown();
        }, "gps");
        gps.start();

        for (int r = 0; r < readers; r++) {
            new Thread(() -> {
                double far = 0;
                for (int i = 0; i < 50_000; i++) {
                    double[] p = tracker.position(fallbacks);
                    if (p[0] != p[1] || p[0] != p[2]) {
                        inconsistent.incrementAndGet();
                    }
                    far = Math.max(far, tracker.distanceTo(0, 0, fallbacks));
                }
                done.countDown();
            }, "dispatch-" + r).start();
        }
        done.await();
        double[] fin = tracker.position(fallbacks);
        System.out.println("final=(" + fin[0] + "," + fin[1] + ") odo=" + (long) fin[2]
                + " inconsistent=" + inconsistent.get()
                + " fallbacks>=0:" + (fallbacks.get() >= 0));
    }
}
