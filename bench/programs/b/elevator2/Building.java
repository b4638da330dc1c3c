package elevator2;

/** von Praun-style elevator: per-floor call flags; a lift scans the flags, then claims a floor with a re-check. */
public class Building {
    static final int FLOORS = 8;

    static final class Controls {
        private final boolean[] up = new boolean[FLOORS];
        private final boolean[] down = new boolean[FLOORS];
        private int pending = 0;
        private boolean done = false;

        synchronized void pushUp(int f) { if (!up[f]) { up[f] = true; pending++; notifyAll(); } }
        synchronized void pushDown(int f) { if (!down[f]) { down[f] = true; pending++; notifyAll(); } }

        synchronized boolean upFlag(int f) { return up[f]; }
        synchronized boolean downFlag(int f) { return down[f]; }

        /** Claims the up call at f if it is still there. */
        synchronized boolean claimUp(int f) {
            if (up[f]) { up[f] = false; pending--; return true; }
            return false;
        }

        synchronized boolean claimDown(int f) {
            if (down[f]) { down[f] = false; pending--; return true; }
            return false;
        }

        synchronized boolean waitForWork() throws InterruptedException {
            while (pending == 0 && !done) wait();
            return pending > 0;
        }

        synchronized boolean waitForWorkNonBlocking() { return pending > 0; }

        synchronized void finish() { done = true; notifyAll(); }
    }

    static final class Lift extends Thread {
        private final Controls c;
        private int floor = 0;
        private int stops = 0;
        Lift(Controls c) { this.c = c; }

        @Override
        public void run() {
            try {
                while (c.waitForWork()) {
                    for (int f = 0; f < FLOORS; f++) {
                        if (c.upFlag(f) && c.claimUp(f)) { floor = f; stops++; }
                        if (c.downFlag(f) && c.claimDown(f)) { floor = f; stops++; }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Controls c = new Controls();
        Lift[] lifts = { new Lift(c), new Lift(c) };
        for (Lift l : lifts) l.start();
        Thread people = new Thread(() -> {
            java.util.Random r = new java.util.Random(3);
            for (int i = 0; i < 200; i++) {
                int f = r.nextInt(FLOORS);
                if (r.nextBoolean()) c.pushUp(f); else c.pushDown(f);
            }
        });
        people.start();
        people.join();
        // let the lifts drain, then stop them
        while (c.waitForWorkNonBlocking()) Thread.sleep(1);
        c.finish();
        for (Lift l : lifts) l.join();
        int stops = 0;
        for (Lift l : lifts) stops += l.stops;
        System.out.println("stops " + stops);
    }
}
