package stats;

/** A statistics object whose counters are read together in one synchronized method and logged. */
public class Stats {
    private long requests;
    private long errors;
    private long bytes;

    synchronized void record(boolean ok, int size) {
        requests++;
        if (!ok) errors++;
        bytes += size;
    }

    /** A consistent snapshot of all counters. */
    synchronized long[] snapshot() {
        return new long[] {requests, errors, bytes};
    }

    synchronized double errorRate() {
        return requests == 0 ? 0.0 : (double) errors / requests;
    }

    void log() {
        long[] s = snapshot();
        System.out.println("requests=" + s[0] + " errors=" + s[1] + " bytes=" + s[2]
                + " avg=" + (s[0] == 0 ? 0 : s[2] / s[0]));
    }

    public static void main(String[] args) throws InterruptedException {
        Stats st = new Stats();
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            final int seed = i;
            ts[i] = new Thread(() -> {
                java.util.Random r = new java.util.Random(seed);
                for (int j = 0; j < 1000; j++) st.record(r.nextInt(10) != 0, r.nextInt(1000));
            });
            ts[i].start();
        }
        Thread logger = new Thread(() -> {
            for (int j = 0; j < 5; j++) {
                st.log();
                System.out.println("error rate " + st.errorRate());
            }
        });
        logger.start();
        for (Thread t : ts) t.join();
        logger.join();
        st.log();
    }
}
