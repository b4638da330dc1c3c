package configcache;

/** Worker threads read the configuration constantly while an admin thread keeps invalidating it. */
public class Main {
    static final class Worker extends Thread {
        int lookups;        // read by main after join
        Worker(String name) { super(name); }

        @Override public void run() {
            for (int i = 0; i < 50000; i++) {
                Config config = ConfigCache.get();
                if (config.get("service." + (i % 40) + ".timeout") != null) lookups++;
            }
        }
    }

    /** Invalidates the configuration whenever one is loaded, until the workers are done. */
    static final class Admin extends Thread {
        private final Thread[] workers;
        Admin(Thread... workers) { super("admin"); this.workers = workers; }

        private boolean workersRunning() {
            for (Thread w : workers) if (w.isAlive()) return true;
            return false;
        }

        @Override public void run() {
            while (workersRunning()) {
                if (!ConfigCache.invalidateIfLoaded()) {
                    Thread.yield();     // nothing cached yet: give the workers a chance to reload
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Worker w1 = new Worker("worker-1");
        Worker w2 = new Worker("worker-2");
        Worker w3 = new Worker("worker-3");
        Admin admin = new Admin(w1, w2, w3);
        w1.start(); w2.start(); w3.start(); admin.start();
        w1.join(); w2.join(); w3.join(); admin.join();
        int loads = Config.loadCount();
        int invalidations = ConfigCache.invalidations();
        // at most one load for the initial state and one after each invalidation
        boolean ok = loads <= invalidations + 1;
        System.out.println("lookups=" + (w1.lookups + w2.lookups + w3.lookups) + " loads=" + loads
                + " invalidations=" + invalidations + (ok ? " OK" : " BUG (duplicate loads)"));
    }
}
