package sessionmgr;

/**
 * A client session. All mutable state is guarded by the session's own monitor,
 * so the manager, the reaper and request threads can touch it concurrently.
 */
public final class Session {
    private final String clientId;
    private long lastActiveNanos;
    private long requests;
    private boolean open = true;

    Session(String clientId, long nowNanos) {
        this.clientId = clientId;
        this.lastActiveNanos = nowNanos;
    }

    public String clientId() {
        return clientId;
    }

    public synchronized boolean handleRequest(long nowNanos) {
        if (!open) {
            return false;
        }
        lastActiveNanos = nowNanos;
        requests++;
        return true;
    }

    synchronized void touch(long nowNanos) {
        lastActiveNanos = nowNanos;
    }

    synchronized boolean isIdle(long nowNanos, long timeoutNanos) {
        return nowNanos - lastActiveNanos > timeoutNanos;
    }

    synchronized void close() {
        open = false;
    }

    public synchronized boolean isOpen() {
        return open;
    }

    public synchronized long requests() {
        return requests;
    }
}
