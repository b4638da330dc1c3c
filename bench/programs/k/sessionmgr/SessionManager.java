package sessionmgr;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one session per client id, evicts sessions that stay idle longer than
 * the timeout, and closes everything on shutdown. Once close() has returned,
 * no session handed out by this manager may remain open.
 */
public final class SessionManager {
    private final Object lock = new Object();
    private final Map<String, Session> sessions = new HashMap<>(); // guarded by lock
    private final long idleTimeoutNanos;
    private volatile boolean closed;                               // written under lock
    private long evicted;                                          // guarded by lock

    public SessionManager(long idleTimeout, TimeUnit unit) {
        this.idleTimeoutNanos = unit.toNanos(idleTimeout);
    }

    public Session open(String clientId) {
        if (closed) { // cheap fast path, avoids contending on the lock after shutdown
            throw new IllegalStateException("session manager closed");
        }
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("session manager closed");
            }
            long now = System.nanoTime();
            Session s = sessions.get(clientId);
            if (s == null || !s.isOpen()) {
                s = new Session(clientId, now);
                sessions.put(clientId, s);
            } else {
                s.touch(now);
            }
            return s;
        }
    }

    /** Reaper loop: wakes up periodically, or immediately when the manager is closed. */
    public void runReaper(long periodMillis) throws InterruptedException {
        synchronized (lock) {
            while (!closed) {
                lock.wait(periodMillis);
                long now = System.nanoTime();
                for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
                    Session s = it.next();
                    if (s.isIdle(now, idleTimeoutNanos)) {
                        s.close();
                        it.remove();
                        evicted++;
                    }
                }
            }
        }
    }

    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (Session s : sessions.values()) {
                s.close();
            }
            sessions.clear();
            lock.notifyAll();
        }
    }

    public long evictedCount() {
        synchronized (lock) {
            return evicted;
        }
    }

    public static void main(String[] args) throws Exception {
        SessionManager mgr = new SessionManager(2, TimeUnit.MILLISECONDS);
        Set<Session> handedOut = ConcurrentHashMap.newKeySet(); // identity set
        ExecutorService pool = Executors.newFixedThreadPool(5);
        pool.submit(() -> {
            mgr.runReaper(1);
            return null;
        });
        List<java.util.concurrent.Future<Long>> clients = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            clients.add(pool.submit(() -> {
                long served = 0;
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                try {
                    while (true) {
                        Session s = mgr.open("client-" + rnd.nextInt(64));
                        handedOut.add(s);
                        if (s.handleRequest(System.nanoTime())) {
                            served++;
                        }
                        if (rnd.nextInt(50) == 0) {
                            Thread.sleep(3); // long enough for some sessions to go idle
                        }
                    }
                } catch (IllegalStateException closedNow) {
                    return served;
                }
            }));
        }
        Thread.sleep(300);
        mgr.close();
        long served = 0;
        for (java.util.concurrent.Future<Long> f : clients) {
            served += f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        long leaked = handedOut.stream().filter(Session::isOpen).count();
        System.out.println("served=" + served + " evicted=" + mgr.evictedCount() + " leakedOpenSessions=" + leaked);
    }
}
