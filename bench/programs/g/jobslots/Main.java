package jobslots;

/** Several dispatcher threads compete for a small number of execution slots. */
public class Main {
    static final class Dispatcher extends Thread {
        private final Throttle throttle;
        int completed;      // read by main after join
        long checksum;

        Dispatcher(String name, Throttle throttle) { super(name); this.throttle = throttle; }

        /** Stand-in for a short job: hashes its id a few times. */
        private static long runJob(int jobId) {
            long h = jobId;
            for (int i = 0; i < 200; i++) h = h * 6364136223846793005L + 1442695040888963407L;
            return h;
        }

        @Override public void run() {
            for (int job = 0; job < 5000; job++) {
                while (!throttle.tryAcquire()) {
                    Thread.yield();     // rejected: back off and retry
                }
                try {
                    checksum ^= runJob(job);
                    completed++;
                } finally {
                    throttle.release();
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Throttle throttle = new Throttle(1);      // only one licensed solver instance
        Dispatcher[] dispatchers = new Dispatcher[4];
        for (int i = 0; i < dispatchers.length; i++) {
            dispatchers[i] = new Dispatcher("dispatcher-" + i, throttle);
            dispatchers[i].start();
        }
        int completed = 0;
        for (Dispatcher d : dispatchers) {
            d.join();
            completed += d.completed;
        }
        boolean ok = throttle.peak() <= throttle.maxConcurrent();
        System.out.println("completed=" + completed + " rejected=" + throttle.rejected()
                + " peak=" + throttle.peak() + "/" + throttle.maxConcurrent() + (ok ? " OK" : " BUG"));
    }
}
