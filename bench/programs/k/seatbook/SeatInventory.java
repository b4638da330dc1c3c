package seatbook;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seat reservations for one venue. A seat is held by at most one ticket;
 * the map entry is the single source of truth for ownership.
 */
public final class SeatInventory {
    public record Ticket(long id, String seat, String customer) {}

    private final Map<Character, List<String>> rows;            // immutable after construction
    private final ConcurrentHashMap<String, Ticket> holds = new ConcurrentHashMap<>();
    private final AtomicLong ticketIds = new AtomicLong();

    public SeatInventory(int rowCount, int seatsPerRow) {
        Map<Character, List<String>> r = new LinkedHashMap<>();
        for (int i = 0; i < rowCount; i++) {
            char row = (char) ('A' + i);
            List<String> seats = new ArrayList<>();
            for (int n = 1; n <= seatsPerRow; n++) {
                seats.add(row + Integer.toString(n));
            }
            r.put(row, Collections.unmodifiableList(seats));
        }
        this.rows = Collections.unmodifiableMap(r);
    }

    public List<Character> rowNames() {
        return List.copyOf(rows.keySet());
    }

    /** Reserves one specific seat; empty if it is already held. */
    public Optional<Ticket> reserve(String seat, String customer) {
        Ticket ticket = new Ticket(ticketIds.incrementAndGet(), seat, customer);
        Ticket previous = holds.putIfAbsent(seat, ticket);
        if (previous != null) {
            return Optional.empty();
        }
        return Optional.of(ticket);
    }

    /** Best seat (lowest number) still free in the row. */
    public Optional<Ticket> reserveBestInRow(char row, String customer) {
        List<String> seats = rows.get(row);
        if (seats == null) {
            throw new IllegalArgumentException("no such row: " + row);
        }
        for (String seat : seats) {
            Optional<Ticket> t = reserve(seat, customer);
            if (t.isPresent()) {
                return t;
            }
        }
        return Optional.empty();
    }

    /** Releases the seat only if this exact ticket still holds it. */
    public boolean cancel(Ticket ticket) {
        return holds.remove(ticket.seat(), ticket);
    }

    /** True if the ticket is the current holder of its seat. */
    public boolean isValid(Ticket ticket) {
        return holds.get(ticket.seat()) == ticket;
    }

    public int heldSeats() {
        return holds.size();
    }
}
