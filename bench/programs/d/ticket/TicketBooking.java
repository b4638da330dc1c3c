package ticket;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Ticket booking for a concert: several sales agents try to book numbered tickets. */
public class TicketBooking {

    private final int capacity;
    private final ConcurrentHashMap<Integer, String> bookings = new ConcurrentHashMap<>();
    private final AtomicInteger confirmations = new AtomicInteger();

    TicketBooking(int capacity) {
        this.capacity = capacity;
    }

    /** Books the given ticket for the customer; returns true if a confirmation was sent. */
    boolean book(int ticketNo, String customer) {
        if (ticketNo < 0 || ticketNo >= capacity) {
            return false;
        }
        if (bookings.putIfAbsent(ticketNo, customer) == null) {
            confirmations.incrementAndGet();
            return true;
        }
        return false;
    }

    /** Cancels a booking held by the customer. */
    boolean cancel(int ticketNo, String customer) {
        return bookings.remove(ticketNo, customer);
    }

    String holder(int ticketNo) {
        return bookings.get(ticketNo);
    }

    int booked() {
        return bookings.size();
    }

    public static void main(String[] args) throws InterruptedException {
        final int capacity = 2_000;
        final TicketBooking box = new TicketBooking(capacity);
        List<Thread> agents = new ArrayList<>();
        for (int a = 0; a < 4; a++) {
            final String agent = "agent-" + a;
            Thread t = new Thread(() -> {
                int mine = 0;
                for (int ticket = 0; ticket < capacity; ticket++) {
                    if (box.book(ticket, agent + "/customer-" + ticket)) {
                        mine++;
                    }
                }
                System.out.println(agent + " confirmed " + mine + " tickets");
            }, agent);
            agents.add(t);
            t.start();
        }
        for (Thread t : agents) {
            t.join();
        }
        System.out.println("confirmations sent=" + box.confirmations.get()
                + " tickets actually booked=" + box.booked() + " capacity=" + capacity);
    }
}
