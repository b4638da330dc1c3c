package histogram;

/** Request threads record latencies while a metrics reporter publishes snapshots. */
public class Main {
    static final int SAMPLES = 100000;

    static final class RequestThread extends Thread {
        private final LatencyHistogram histogram;
        private final long seed;

        RequestThread(String name, LatencyHistogram histogram, long seed) {
            super(name);
            this.histogram = histogram;
            this.seed = seed;
        }

        @Override public void run() {
            long x = seed;
            for (int i = 0; i < SAMPLES; i++) {
                x ^= x << 13; x ^= x >>> 7; x ^= x << 17;    // xorshift: pseudo-random latency
                histogram.record(50 + Math.floorMod(x, 20000));
            }
        }
    }

    static final class Reporter extends Thread {
        private final LatencyHistogram histogram;
        private final Thread[] sources;
        int reports, inconsistent;      // read by main after join

        Reporter(LatencyHistogram histogram, Thread... sources) {
            super("metrics-reporter");
            this.histogram = histogram;
            this.sources = sources;
        }

        @Override public void run() {
            boolean active = true;
            while (active) {
                active = false;
                for (Thread t : sources) active |= t.isAlive();
                LatencyHistogram.Snapshot s = histogram.snapshot();
                reports++;
                if (!s.consistent()) inconsistent++;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        LatencyHistogram histogram = new LatencyHistogram();
        RequestThread r1 = new RequestThread("request-1", histogram, 88172645463325252L);
        RequestThread r2 = new RequestThread("request-2", histogram, 1181783497276652981L);
        Reporter reporter = new Reporter(histogram, r1, r2);
        r1.start(); r2.start(); reporter.start();
        r1.join(); r2.join(); reporter.join();
        LatencyHistogram.Snapshot last = histogram.snapshot();
        System.out.printf("samples=%d mean=%.1fus reports=%d inconsistent reports=%d%s%n",
                last.count, last.meanMicros(), reporter.reports, reporter.inconsistent,
                reporter.inconsistent == 0 && last.count == 2L * SAMPLES ? " OK" : " BUG");
    }
}
