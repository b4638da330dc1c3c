package lottery_bug;

import java.util.concurrent.atomic.AtomicInteger;

class Lottery {
    private final AtomicInteger ticketsSold = new AtomicInteger();
    private final int limit;
    Lottery(int limit) { this.limit = limit; }

    /** BUG: get() then set(): lost update, and the limit check is stale. */
    int buy() {
        int cur = ticketsSold.get();
        if (cur >= limit) return -1;
        ticketsSold.set(cur + 1);
        return cur;
    }
    int sold() { return ticketsSold.get(); }
}

class Player extends Thread {
    private final Lottery lot;
    Player(Lottery lot) { this.lot = lot; }
    @Override public void run() { while (lot.buy() >= 0) { } }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Lottery lot = new Lottery(500);
        Player[] ps = new Player[3];
        for (int i = 0; i < ps.length; i++) { ps[i] = new Player(lot); ps[i].start(); }
        for (Player p : ps) p.join();
        System.out.println(lot.sold());
    }
}
