package genbarrier;

/** A hand-made cyclic barrier with a generation counter (the classic monitor solution). */
public class GenBarrier {
    private final int parties;
    private int waiting = 0;
    private int generation = 0;

    GenBarrier(int parties) { this.parties = parties; }

    synchronized void await() throws InterruptedException {
        int gen = generation;
        waiting++;
        if (waiting == parties) {
            waiting = 0;
            generation++;
            notifyAll();
            return;
        }
        while (gen == generation) {
            wait();
        }
    }

    static final class Accum {
        private long sum;
        synchronized void add(long v) { sum += v; }
        synchronized long sum() { return sum; }
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 4;
        GenBarrier b = new GenBarrier(n);
        Accum acc = new Accum();
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            ts[i] = new Thread(() -> {
                try {
                    for (int round = 0; round < 10; round++) {
                        acc.add(id + round);
                        b.await();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("sum " + acc.sum());
    }
}
