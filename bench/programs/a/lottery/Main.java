package lottery;

import java.util.concurrent.atomic.AtomicInteger;

class Lottery {
    private final AtomicInteger ticketsSold = new AtomicInteger();
    private final AtomicInteger maxNumber = new AtomicInteger(-1);
    private final int limit;

    Lottery(int limit) { this.limit = limit; }

    /** Returns a ticket number or -1 when sold out; CAS loop re-validates the limit. */
    int buy() {
        while (true) {
            int cur = ticketsSold.get();
            if (cur >= limit) return -1;
            if (ticketsSold.compareAndSet(cur, cur + 1)) return cur;
        }
    }

    /** Record the highest number drawn; CAS loop. */
    void recordMax(int n) {
        int cur;
        do {
            cur = maxNumber.get();
            if (n <= cur) return;
        } while (!maxNumber.compareAndSet(cur, n));
    }

    int sold() { return ticketsSold.get(); }
    int max() { return maxNumber.get(); }
}

class Counter {
    private final AtomicInteger hits = new AtomicInteger();
    int hit() { return hits.incrementAndGet(); }
    int get() { return hits.get(); }
}

class Player extends Thread {
    private final Lottery lot; private final Counter counter;
    Player(Lottery lot, Counter counter) { this.lot = lot; this.counter = counter; }
    @Override public void run() {
        int t;
        while ((t = lot.buy()) >= 0) {
            lot.recordMax(t);
            counter.hit();
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Lottery lot = new Lottery(500);
        Counter c = new Counter();
        Player[] ps = new Player[3];
        for (int i = 0; i < ps.length; i++) { ps[i] = new Player(lot, c); ps[i].start(); }
        for (Player p : ps) p.join();
        boolean ok = lot.sold() == 500 && c.get() == 500 && lot.max() == 499;
        System.out.println(ok ? "OK" : "BUG");
    }
}
