package sessions;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A minimal HTTP session, immutable apart from the attributes nobody uses here. */
final class Session {
    private final String id;
    private final long creationTime;

    Session(String id, long creationTime) {
        this.id = id;
        this.creationTime = creationTime;
    }

    String getId() { return id; }

    long getCreationTime() { return creationTime; }
}

/** Notified when sessions are created or destroyed. */
interface SessionListener {
    void sessionCreated(Session s);
}

/**
 * Session manager that enforces an upper bound on the number of active sessions, in the
 * manner of a servlet container's standard manager with {@code maxActiveSessions} set.
 */
class SessionManager {
    private final int maxActiveSessions;
    private final Map<String, Session> sessions = Collections.synchronizedMap(new HashMap<>());
    private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicInteger idSequence = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();

    SessionManager(int maxActiveSessions) { this.maxActiveSessions = maxActiveSessions; }

    void addListener(SessionListener l) { listeners.add(l); }

    /**
     * Creates and registers a new session, or returns null when the limit is reached.
     * The limit check and the insertion happen under the map's own monitor, so no other
     * creator can slip in between them.
     */
    Session createSession() {
        Session session = new Session(generateSessionId(), System.nanoTime());
        synchronized (sessions) {
            if (sessions.size() >= maxActiveSessions) {
                rejected.incrementAndGet();
                return null;
            }
            sessions.put(session.getId(), session);
        }
        for (SessionListener l : listeners) {
            l.sessionCreated(session);
        }
        return session;
    }

    /** Invalidates a session; a no-op when it is already gone. */
    void expire(String id) { sessions.remove(id); }

    int getActiveSessions() { return sessions.size(); }

    int getRejectedSessions() { return rejected.get(); }

    int getMaxActiveSessions() { return maxActiveSessions; }

    private String generateSessionId() {
        return Integer.toHexString(0x5e550000 + idSequence.incrementAndGet());
    }
}

/** Simulates a connector thread serving login requests, each creating a session. */
class RequestProcessor extends Thread {
    private final SessionManager manager;
    private final int requests;

    RequestProcessor(String name, SessionManager manager, int requests) {
        super(name);
        this.manager = manager;
        this.requests = requests;
    }

    @Override public void run() {
        Deque<Session> own = new ArrayDeque<>();
        for (int i = 0; i < requests; i++) {
            Session s = manager.createSession();
            if (s != null) {
                own.addLast(s);
            }
            if (i % 2 == 1 && !own.isEmpty()) {
                manager.expire(own.removeFirst().getId()); // a logout
            }
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        SessionManager manager = new SessionManager(100);
        AtomicInteger created = new AtomicInteger();
        AtomicInteger overLimit = new AtomicInteger();
        manager.addListener(s -> created.incrementAndGet());
        manager.addListener(s -> {
            if (manager.getActiveSessions() > manager.getMaxActiveSessions()) overLimit.incrementAndGet();
        });
        Thread t1 = new RequestProcessor("http-nio-1", manager, 20000);
        Thread t2 = new RequestProcessor("http-nio-2", manager, 20000);
        t1.start(); t2.start();
        t1.join(); t2.join();
        int active = manager.getActiveSessions();
        System.out.println("created=" + created.get() + " rejected=" + manager.getRejectedSessions()
                + " active=" + active + " overLimit=" + overLimit.get()
                + (overLimit.get() == 0 && active <= manager.getMaxActiveSessions() ? " OK" : " FAIL"));
    }
}
