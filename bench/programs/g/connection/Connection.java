package connection;

import java.util.concurrent.locks.ReentrantLock;

/** A client connection to a message broker; a supervisor may drop and re-establish it at any time. */
final class Connection {
    private final ReentrantLock lock = new ReentrantLock();
    private boolean open = true;    // guarded by lock
    private long bytesSent;         // guarded by lock
    private int reconnects;         // guarded by lock

    boolean isOpen() {
        lock.lock();
        try { return open; } finally { lock.unlock(); }
    }

    /** Writes the frame; the connection must be open. */
    void send(byte[] frame) {
        lock.lock();
        try {
            if (!open) throw new IllegalStateException("send on closed connection");
            bytesSent += frame.length;
        } finally {
            lock.unlock();
        }
    }

    /** Writes the frame if the connection is open; the check and the write form one critical section. */
    boolean sendIfOpen(byte[] frame) {
        lock.lock();
        try {
            if (!open) return false;
            bytesSent += frame.length;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try { open = false; } finally { lock.unlock(); }
    }

    void reconnect() {
        lock.lock();
        try {
            if (!open) {
                open = true;
                reconnects++;
            }
        } finally {
            lock.unlock();
        }
    }

    long bytesSent() {
        lock.lock();
        try { return bytesSent; } finally { lock.unlock(); }
    }

    int reconnects() {
        lock.lock();
        try { return reconnects; } finally { lock.unlock(); }
    }
}
