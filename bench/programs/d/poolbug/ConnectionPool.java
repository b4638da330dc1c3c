package poolbug;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A small database connection pool whose idle connections are periodically refreshed. */
public class ConnectionPool {

    static final class Connection {
        final int id;
        final int generation;

        Connection(int id, int generation) {
            this.id = id;
            this.generation = generation;
        }

        int query(int x) {
            return x * 2 + id;
        }
    }

    private final Deque<Connection> idle = new ArrayDeque<>();
    private int generation;
    private int nextId;

    ConnectionPool(int size) {
        fill(size);
    }

    /** Returns an idle connection, or null if the pool is exhausted. */
    synchronized Connection borrow() {
        return idle.pollFirst();
    }

    /** Returns a connection; connections from an older generation are discarded. */
    synchronized void giveBack(Connection c) {
        if (c.generation == generation) {
            idle.addLast(c);
        }
    }

    private synchronized void drainIdle() {
        idle.clear();
        generation++;
    }

    private synchronized void fill(int size) {
        for (int i = 0; i < size; i++) {
            idle.addLast(new Connection(nextId++, generation));
        }
    }

    /** Replaces all idle connections with fresh ones, e.g. after a credential rotation. */
    void refresh(int size) {
        drainIdle(); // BUG: first write leaves the pool empty in one critical section ...
        fill(size); // BUG: ... and the second write refills it in another; borrowers in between see a spuriously exhausted pool
    }

    public static void main(String[] args) throws InterruptedException {
        final int size = 8;
        final ConnectionPool pool = new ConnectionPool(size);
        final AtomicInteger exhausted = new AtomicInteger();
        final AtomicInteger queries = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 50_000; i++) {
                    Connection c = pool.borrow();
                    if (c == null) {
                        exhausted.incrementAndGet(); // at most 3 of 8 are ever borrowed, so this should not happen
                        continue;
                    }
                    try {
                        c.query(i);
                        queries.incrementAndGet();
                    } finally {
                        pool.giveBack(c);
                    }
                }
            }, "worker-" + w));
        }
        threads.add(new Thread(() -> {
            for (int i = 0; i < 5_000; i++) {
                pool.refresh(size);
            }
        }, "maintenance"));
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("queries=" + queries.get() + " spurious 'pool exhausted' errors=" + exhausted.get());
    }
}
