package demo;

/** A lost update: read under the lock, written back under the lock again. */
public class Account {
    private final Object lock = new Object();
    private long balance;

    public void deposit(long amount) {
        long b;
        synchronized (lock) {
            b = balance;
        }
        long next = b + amount;
        synchronized (lock) {
            balance = next;
        }
    }

    public long balance() {
        synchronized (lock) {
            return balance;
        }
    }
}
