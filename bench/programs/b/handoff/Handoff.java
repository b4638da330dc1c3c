package handoff;

/** Configuration written before the workers start and results read after they are joined. */
public class Handoff {
    static final class Range {
        private int lo, hi;
        synchronized void setLo(int v) { lo = v; }
        synchronized void setHi(int v) { hi = v; }
        synchronized int lo() { return lo; }
        synchronized int hi() { return hi; }
        /** Workers take both bounds together. */
        synchronized int[] both() { return new int[] {lo, hi}; }
        /** Workers narrow both bounds together. */
        synchronized void narrow() { if (lo < hi) { lo++; hi--; } }
    }

    public static void main(String[] args) throws InterruptedException {
        Range r = new Range();
        r.setLo(0);          // separate sections, but no other thread exists yet
        r.setHi(1000);
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 100; k++) {
                    int[] b = r.both();
                    if (b[0] < b[1]) r.narrow();
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        int lo = r.lo();     // separate sections, but every worker has been joined
        int hi = r.hi();
        System.out.println("width " + (hi - lo));
    }
}
