package sessionbug;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Registry of login sessions keyed by user; a new login replaces the user's previous session. */
public class SessionRegistry {

    static final class Session {
        final String user;
        final String token;
        final long createdAt;

        Session(String user, String token) {
            this.user = user;
            this.token = token;
            this.createdAt = System.nanoTime();
        }
    }

    private final Map<String, Session> sessions = Collections.synchronizedMap(new HashMap<>());
    private final AtomicLong tokenSeq = new AtomicLong();
    private final AtomicInteger auditEntries = new AtomicInteger();

    private void audit(String user) {
        auditEntries.incrementAndGet();
    }

    /** Logs the user in and returns the token of the session created for this login. */
    String login(String user) {
        Session fresh = new Session(user, user + "-tok-" + tokenSeq.incrementAndGet());
        sessions.put(user, fresh); // BUG: this thread writes the user's session ...
        audit(user);
        return sessions.get(user).token; // BUG: ... and reads it back in a separate critical section; a concurrent login may have replaced it, so this caller gets another login's token
    }

    void logout(String user, String token) {
        synchronized (sessions) {
            Session s = sessions.get(user);
            if (s != null && s.token.equals(token)) {
                sessions.remove(user);
            }
        }
    }

    boolean validate(String user, String token) {
        Session s = sessions.get(user);
        return s != null && s.token.equals(token);
    }

    public static void main(String[] args) throws InterruptedException {
        final SessionRegistry registry = new SessionRegistry();
        final Set<String> handedOut = ConcurrentHashMap.newKeySet();
        final AtomicInteger logins = new AtomicInteger();
        ExecutorService frontends = Executors.newFixedThreadPool(4);
        for (int f = 0; f < 4; f++) {
            frontends.execute(() -> {
                for (int i = 0; i < 20_000; i++) {
                    String user = "user" + (i % 16);
                    String token = registry.login(user);
                    logins.incrementAndGet();
                    handedOut.add(token);
                }
            });
        }
        frontends.shutdown();
        if (!frontends.awaitTermination(30, TimeUnit.SECONDS)) {
            frontends.shutdownNow();
        }
        System.out.println("logins=" + logins.get() + " distinct tokens handed out=" + handedOut.size()
                + " audit entries=" + registry.auditEntries.get());
    }
}
