package connection;

import java.io.IOException;
import java.util.Objects;

/**
 * A client connection with the life cycle NEW, CONNECTING, CONNECTED, CLOSED.
 *
 * <p>This class is thread-safe. The state is guarded by {@code this}, and every transition is a
 * compare-and-transition inside one synchronized method: it moves to the next state only if the
 * current state is the expected one, so a late "connected" can never resurrect a closed
 * connection. The slow {@link Transport#open()} runs outside the lock. The volatile
 * {@code closed} flag lets {@link #send} fail fast without locking; it is re-checked under the
 * lock before writing. {@link #close()} is idempotent and closes the transport exactly once.
 */
public final class Connection implements AutoCloseable {
    public enum State { NEW, CONNECTING, CONNECTED, CLOSED }

    private final Transport transport;
    private State state = State.NEW; // guarded by this
    private long bytesSent; // guarded by this
    private volatile boolean closed;

    public Connection(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    public synchronized State state() {
        return state;
    }

    /** Moves from {@code expected} to {@code next} atomically; false if the state was another. */
    private synchronized boolean transition(State expected, State next) {
        if (state != expected) return false;
        state = next;
        return true;
    }

    /** Opens the transport. May be called once; a concurrent close() makes it fail. */
    public void connect() throws IOException {
        if (!transition(State.NEW, State.CONNECTING)) throw new IllegalStateException("not new");
        try {
            transport.open();
        } catch (IOException e) {
            close();
            throw e;
        }
        if (!transition(State.CONNECTING, State.CONNECTED)) {
            transport.close(); // closed while opening: close() left the transport to us
            throw new IOException("closed during connect");
        }
    }

    /** Writes one message; fails if the connection is not connected. */
    public void send(byte[] message) throws IOException {
        if (closed) throw new IOException("connection closed"); // fast path, no lock
        synchronized (this) {
            if (state != State.CONNECTED) throw new IOException("not connected: " + state);
            transport.write(message);
            bytesSent += message.length;
        }
    }

    public synchronized long bytesSent() {
        return bytesSent;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the connection. Idempotent: only the first call closes the transport. */
    @Override
    public void close() {
        if (closed) return; // fast path; the authoritative check is under the lock
        State previous;
        synchronized (this) {
            previous = state;
            if (previous == State.CLOSED) return;
            state = State.CLOSED;
            closed = true;
        }
        if (previous == State.CONNECTED) transport.close(); // NEW has nothing; CONNECTING closes its own
    }
}
