package poolbug;

import java.util.concurrent.atomic.AtomicBoolean;

public class Main {
    /** Borrows, uses and returns connections, as a request thread of an application server. */
    static Thread worker(String name, ConnectionPool pool, int rounds) {
        return new Thread(() -> {
            for (int i = 0; i < rounds; i++) {
                PooledConnection c = pool.borrowObject();
                if (c == null) {
                    Thread.yield();
                    continue;
                }
                c.execute("SELECT 1");
                pool.returnObject(c);
            }
        }, name);
    }

    public static void main(String[] args) throws InterruptedException {
        ConnectionPool pool = new ConnectionPool(4);
        AtomicBoolean running = new AtomicBoolean(true);
        int[] violations = new int[1];
        Thread monitor = new Thread(() -> {
            while (running.get()) {
                int[] s = pool.stats();
                if (s[1] != s[2] || s[0] + s[1] > pool.maxTotal()) {
                    violations[0]++;
                }
            }
        }, "jmx-monitor");
        Thread w1 = worker("exec-1", pool, 20000);
        Thread w2 = worker("exec-2", pool, 20000);
        Thread w3 = worker("exec-3", pool, 20000);
        monitor.start(); w1.start(); w2.start(); w3.start();
        w1.join(); w2.join(); w3.join();
        running.set(false);
        monitor.join();
        int[] s = pool.stats();
        System.out.println("active=" + s[0] + " idle=" + s[1] + "/" + s[2] + " created=" + s[3]
                + " violations=" + violations[0] + (violations[0] == 0 && s[3] <= pool.maxTotal() ? " OK" : " FAIL"));
    }
}
