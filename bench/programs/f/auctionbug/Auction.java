package auctionbug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An online auction for one lot: bidder threads outbid each other until their
 * budget runs out, and an auctioneer thread closes the auction and announces the winner.
 */
public class Auction {

    /** Immutable view of the auction state: the leading bidder and price belong together. */
    static final class Standing {
        final String bidder;
        final int price;
        final int bids;
        final boolean open;

        Standing(String bidder, int price, int bids, boolean open) {
            this.bidder = bidder;
            this.price = price;
            this.bids = bids;
            this.open = open;
        }

        @Override
        public String toString() {
            return (bidder == null ? "no sale" : bidder + " at " + price) + " after " + bids + " bids";
        }
    }

    private final String lot;
    private final int reservePrice;
    private String highestBidder = null; // guarded by this
    private int highestBid = 0;          // guarded by this
    private int bidCount = 0;            // guarded by this
    private boolean open = true;         // guarded by this

    Auction(String lot, int reservePrice) {
        this.lot = lot;
        this.reservePrice = reservePrice;
    }

    /** Current highest bid. */
    synchronized int highestBid() {
        return highestBid;
    }

    /** Records a new leading bid; returns false if the auction is already closed. */
    private synchronized boolean recordBid(String bidder, int amount) {
        if (!open) {
            return false;
        }
        highestBid = amount;
        highestBidder = bidder;
        bidCount++;
        return true;
    }

    /** Accepts the bid only if the auction is open and the amount beats the current highest bid. */
    boolean placeBid(String bidder, int amount) {
        int current = highestBid(); // BUG: highest bid read in one critical section ...
        if (amount < reservePrice || amount <= current) {
            return false;
        }
        return recordBid(bidder, amount); // BUG: ... and the stale comparison acted on in another: a lower bid can overwrite a higher one
    }

    /** What the bidders see on their screen. */
    synchronized Standing standing() {
        return new Standing(highestBidder, highestBid, bidCount, open);
    }

    /** Closes the auction; winner and price are taken in the same critical section. */
    synchronized Standing close() {
        open = false;
        return new Standing(highestBidder, highestBid, bidCount, false);
    }

    public static void main(String[] args) throws InterruptedException {
        final Auction auction = new Auction("Lot 17: Art Deco lamp", 50);
        final AtomicInteger rejected = new AtomicInteger();
        List<Thread> bidders = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            final String name = "bidder-" + b;
            final int budget = 2000 + 300 * b;
            final int increment = 5 + b;
            Thread t = new Thread(() -> {
                while (true) {
                    Standing s = auction.standing();
                    if (!s.open) {
                        return;
                    }
                    if (name.equals(s.bidder)) {
                        Thread.yield(); // already leading
                        continue;
                    }
                    int offer = Math.max(s.price, auction.reservePrice) + increment;
                    if (offer > budget) {
                        return;
                    }
                    if (!auction.placeBid(name, offer)) {
                        rejected.incrementAndGet(); // outbid meanwhile: look again
                    }
                }
            }, name);
            bidders.add(t);
            t.start();
        }
        final AtomicReference<Standing> result = new AtomicReference<>();
        Thread auctioneer = new Thread(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            result.set(auction.close());
        }, "auctioneer");
        auctioneer.start();
        for (Thread t : bidders) {
            t.join();
        }
        auctioneer.join();
        System.out.println(auction.lot + ": sold to " + result.get() + " (rejected bids " + rejected.get() + ")");
    }
}
