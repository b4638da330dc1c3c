package elevator;

import java.util.ArrayList;
import java.util.List;

/** Elevator simulation: a Controls object holds pending floor requests; elevators claim them under the lock. */
public class Elevator extends Thread {
    static final int FLOORS = 10;

    static class Request {
        final int floor;
        final boolean up;
        Request(int floor, boolean up) { this.floor = floor; this.up = up; }
    }

    static class Controls {
        private final List<Request> pending = new ArrayList<>();
        private boolean closed = false;
        private int served = 0;

        synchronized void call(int floor, boolean up) {
            pending.add(new Request(floor, up));
            notifyAll();
        }

        synchronized void close() {
            closed = true;
            notifyAll();
        }

        /** Claims the request closest to the given floor, or returns null when closed and empty. */
        synchronized Request claim(int at) throws InterruptedException {
            while (pending.isEmpty() && !closed) {
                wait();
            }
            if (pending.isEmpty()) {
                return null;
            }
            int best = 0;
            for (int i = 1; i < pending.size(); i++) {
                if (Math.abs(pending.get(i).floor - at) < Math.abs(pending.get(best).floor - at)) {
                    best = i;
                }
            }
            return pending.remove(best);
        }

        synchronized void served() { served++; }

        synchronized int servedCount() { return served; }
    }

    private final Controls controls;
    private final int id;
    private int floor = 0;   // owned by this elevator thread
    private int moves = 0;

    Elevator(int id, Controls controls) {
        this.id = id;
        this.controls = controls;
    }

    @Override
    public void run() {
        try {
            Request r;
            while ((r = controls.claim(floor)) != null) {
                moves += Math.abs(r.floor - floor);
                floor = r.floor;
                controls.served();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.out.println("elevator " + id + " moved " + moves + " floors");
    }

    public static void main(String[] args) throws InterruptedException {
        Controls controls = new Controls();
        List<Elevator> cars = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Elevator e = new Elevator(i, controls);
            cars.add(e);
            e.start();
        }
        Thread people = new Thread(() -> {
            java.util.Random rnd = new java.util.Random(42);
            for (int i = 0; i < 100; i++) {
                controls.call(rnd.nextInt(FLOORS), rnd.nextBoolean());
            }
            controls.close();
        });
        people.start();
        people.join();
        for (Elevator e : cars) {
            e.join();
        }
        System.out.println("served " + controls.servedCount());
    }
}
