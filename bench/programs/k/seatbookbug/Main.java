package seatbookbug;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

public final class Main {
    record Outcome(int booked, int cancelled, List<SeatInventory.Ticket> kept) {}

    public static void main(String[] args) throws Exception {
        SeatInventory venue = new SeatInventory(4, 25);
        List<Character> rows = venue.rowNames();
        ExecutorService box = Executors.newFixedThreadPool(6);
        List<CompletableFuture<Outcome>> customers = new ArrayList<>();
        for (int c = 0; c < 12; c++) {
            String customer = "cust-" + c;
            customers.add(CompletableFuture.supplyAsync(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                List<SeatInventory.Ticket> mine = new ArrayList<>();
                int booked = 0, cancelled = 0;
                for (int attempt = 0; attempt < 3_000; attempt++) {
                    if (!mine.isEmpty() && rnd.nextInt(3) == 0) {
                        SeatInventory.Ticket t = mine.remove(rnd.nextInt(mine.size()));
                        if (venue.cancel(t)) {
                            cancelled++;
                        }
                        continue;
                    }
                    Optional<SeatInventory.Ticket> t =
                            venue.reserveBestInRow(rows.get(rnd.nextInt(rows.size())), customer);
                    if (t.isPresent()) {
                        booked++;
                        mine.add(t.get());
                    }
                }
                return new Outcome(booked, cancelled, mine);
            }, box));
        }
        CompletableFuture.allOf(customers.toArray(new CompletableFuture<?>[0])).get(15, TimeUnit.SECONDS);
        box.shutdown();
        box.awaitTermination(5, TimeUnit.SECONDS);

        int booked = 0, cancelled = 0, kept = 0, invalid = 0;
        for (CompletableFuture<Outcome> f : customers) {
            Outcome o = f.join();
            booked += o.booked();
            cancelled += o.cancelled();
            kept += o.kept().size();
            for (SeatInventory.Ticket t : o.kept()) {
                if (!venue.isValid(t)) {
                    invalid++;
                }
            }
        }
        System.out.println("booked=" + booked + " cancelled=" + cancelled + " ticketsHeld=" + kept
                + " seatsHeld=" + venue.heldSeats() + " doubleBookedTickets=" + invalid);
    }
}
