package connpool;

/**
 * A simulated database connection. It is used by one borrower at a time and
 * is handed between threads only through the pool, so its fields need no lock.
 */
final class Connection {
    private final int id;
    private int statements;
    private boolean open = true;

    Connection(int id) {
        this.id = id;
    }

    int id() {
        return id;
    }

    long executeQuery(String sql) {
        if (!open) {
            throw new IllegalStateException("connection " + id + " closed");
        }
        statements++;
        long h = 17;
        for (int i = 0; i < sql.length(); i++) {
            h = h * 31 + sql.charAt(i);
        }
        return h & 0xffff;
    }

    int statements() {
        return statements;
    }

    void close() {
        open = false;
    }
}
