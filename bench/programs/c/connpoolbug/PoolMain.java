package connpoolbug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Request handler threads borrow connections, run a few queries and give them back. */
public final class PoolMain {
    public static void main(String[] args) throws Exception {
        ConnectionPool pool = new ConnectionPool(4);
        ExecutorService handlers = Executors.newFixedThreadPool(10);
        List<Callable<int[]>> tasks = new ArrayList<>();
        for (int h = 0; h < 10; h++) {
            final int handler = h;
            tasks.add(() -> {
                int served = 0;
                int timeouts = 0;
                for (int r = 0; r < 100; r++) {
                    Connection c = pool.borrow(1000);
                    if (c == null) {
                        timeouts++;
                        continue;
                    }
                    try {
                        c.executeQuery("SELECT * FROM orders WHERE id=" + (handler * 100 + r));
                        c.executeQuery("UPDATE stats SET hits=hits+1 WHERE page=" + r);
                        if (r % 10 == 0) {
                            Thread.sleep(1);
                        }
                        served++;
                    } finally {
                        pool.release(c);
                    }
                }
                return new int[] {served, timeouts};
            });
        }
        int served = 0;
        int timeouts = 0;
        for (Future<int[]> f : handlers.invokeAll(tasks)) {
            int[] r = f.get();
            served += r[0];
            timeouts += r[1];
        }
        handlers.shutdown();
        handlers.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("served=" + served + " timeouts=" + timeouts);
        System.out.println(pool.stats());
        pool.closeAll();
    }
}
