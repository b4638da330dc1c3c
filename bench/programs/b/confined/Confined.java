package confined;

/** Per-thread accumulators of a (reusable) synchronized class: each object is used by one thread only. */
public class Confined {
    static final class Counter {
        private int count;
        private int max;
        synchronized int count() { return count; }
        synchronized void setCount(int c) { count = c; }
        synchronized int max() { return max; }
        synchronized void setMax(int m) { max = m; }
    }

    static final class Worker extends Thread {
        final Counter mine = new Counter();   // only this worker touches it until joined
        private final int seed;
        Worker(int seed) { this.seed = seed; }

        @Override
        public void run() {
            java.util.Random r = new java.util.Random(seed);
            for (int i = 0; i < 1000; i++) {
                int v = r.nextInt(100);
                int c = mine.count();
                mine.setCount(c + 1);
                if (v > mine.max()) mine.setMax(v);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Worker[] ws = new Worker[3];
        for (int i = 0; i < ws.length; i++) { ws[i] = new Worker(i); ws[i].start(); }
        int total = 0, max = 0;
        for (Worker w : ws) {
            w.join();
            total += w.mine.count();
            max = Math.max(max, w.mine.max());
        }
        System.out.println(total + " " + max);
    }
}
