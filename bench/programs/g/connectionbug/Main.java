package connectionbug;

/** Two publishers share one broker connection while a supervisor keeps cycling it. */
public class Main {
    static final int MESSAGES = 50000;

    static final class Publisher extends Thread {
        private final Connection conn;
        int sent, deferred, failed;     // read by main after join

        Publisher(String name, Connection conn) { super(name); this.conn = conn; }

        @Override public void run() {
            byte[] frame = new byte[64];
            for (int i = 0; i < MESSAGES; i++) {
                frame[0] = (byte) i;
                try {
                    if (conn.isOpen()) { // BUG: connection state checked in one critical section ...
                        conn.send(frame); // BUG: ... frame sent in another; the supervisor may close the connection in between
                        sent++;
                    } else {
                        deferred++;     // would go to the retry queue
                    }
                } catch (IllegalStateException e) {
                    failed++;
                }
            }
        }
    }

    static final class Supervisor extends Thread {
        private final Connection conn;
        private volatile boolean running = true;

        Supervisor(Connection conn) { super("supervisor"); this.conn = conn; }

        void shutdown() { running = false; }

        @Override public void run() {
            while (running) {
                conn.close();           // simulated broker fail-over
                Thread.yield();
                conn.reconnect();
                Thread.yield();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Connection conn = new Connection();
        Publisher p1 = new Publisher("publisher-1", conn);
        Publisher p2 = new Publisher("publisher-2", conn);
        Supervisor supervisor = new Supervisor(conn);
        supervisor.start(); p1.start(); p2.start();
        p1.join(); p2.join();
        supervisor.shutdown();
        supervisor.join();
        int failed = p1.failed + p2.failed;
        System.out.println("sent=" + (p1.sent + p2.sent) + " deferred=" + (p1.deferred + p2.deferred)
                + " failed=" + failed + " bytes=" + conn.bytesSent() + " reconnects=" + conn.reconnects()
                + (failed == 0 ? " OK" : " BUG"));
    }
}
