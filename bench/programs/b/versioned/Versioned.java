package versioned;

/** Optimistic update: read a snapshot and its version, compute outside the lock, install only if the version is unchanged. */
public class Versioned {
    private long version;
    private double[] weights = {1, 1, 1, 1};

    synchronized long version() { return version; }

    synchronized double[] weights() { return weights.clone(); }

    void rebalance(int i) {
        while (true) {
            long seen;
            double[] w;
            synchronized (this) {
                seen = version;
                w = weights.clone();
            }
            double total = 0;
            for (double d : w) total += d;
            w[i] += total / w.length;          // expensive computation outside the lock
            synchronized (this) {
                if (version == seen) {         // validated: nobody installed in between
                    weights = w;
                    version = seen + 1;
                    return;
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Versioned v = new Versioned();
        Thread[] ts = new Thread[3];
        for (int t = 0; t < ts.length; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                for (int k = 0; k < 100; k++) v.rebalance((id + k) % 4);
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        System.out.println(v.version() + " " + java.util.Arrays.toString(v.weights()));
    }
}
