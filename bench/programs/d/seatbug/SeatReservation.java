package seatbug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/** Seat reservation for a flight: seats are handed out front to back by several check-in desks. */
public class SeatReservation {

    private final ReentrantLock lock = new ReentrantLock();
    private final String[] seats;
    private int nextFree = 0;

    SeatReservation(int numSeats) {
        seats = new String[numSeats];
    }

    /** Returns the number of the next free seat. */
    private int peekNextFree() {
        lock.lock();
        try {
            return nextFree;
        } finally {
            lock.unlock();
        }
    }

    /** Assigns a seat to a passenger and moves the free-seat cursor past it. */
    private void assign(int seat, String passenger) {
        lock.lock();
        try {
            seats[seat] = passenger;
            nextFree = seat + 1;
        } finally {
            lock.unlock();
        }
    }

    /** Reserves the next free seat; returns its number, or -1 if the flight is full. */
    int reserve(String passenger) {
        int seat = peekNextFree(); // BUG: seat index read under the lock, then the lock is released ...
        if (seat >= seats.length) {
            return -1;
        }
        assign(seat, passenger); // BUG: ... stale index used to write after re-acquiring; two passengers get the same seat
        return seat;
    }

    int occupied() {
        lock.lock();
        try {
            int n = 0;
            for (String s : seats) {
                if (s != null) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final SeatReservation flight = new SeatReservation(400);
        final AtomicInteger boardingPasses = new AtomicInteger();
        List<Thread> desks = new ArrayList<>();
        for (int d = 0; d < 4; d++) {
            final int desk = d;
            Thread t = new Thread(() -> {
                for (int p = 0; p < 100; p++) {
                    if (flight.reserve("desk" + desk + "-pax" + p) >= 0) {
                        boardingPasses.incrementAndGet();
                    }
                }
            }, "desk-" + d);
            desks.add(t);
            t.start();
        }
        for (Thread t : desks) {
            t.join();
        }
        System.out.println("boarding passes issued=" + boardingPasses.get()
                + " seats occupied=" + flight.occupied());
    }
}
