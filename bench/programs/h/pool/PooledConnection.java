package pool;

/** A fake JDBC-style connection; only identity and use count matter here. */
final class PooledConnection {
    private final int id;
    private int uses; // touched only by the borrowing thread, handed over through the pool lock

    PooledConnection(int id) { this.id = id; }

    int id() { return id; }

    /** Executes a statement; a stand-in for real I/O. */
    int execute(String sql) {
        uses++;
        return sql.length() + id;
    }

    int uses() { return uses; }
}
