package bankbug;

/** A bank account; all state is guarded by the account's own monitor. */
final class Account {
    private final int id;
    private long balance;
    private int transactions;

    Account(int id, long initial) {
        this.id = id;
        this.balance = initial;
    }

    int id() {
        return id;
    }

    synchronized long balance() {
        return balance;
    }

    synchronized void setBalance(long newBalance) {
        balance = newBalance;
        transactions++;
    }

    synchronized void deposit(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("negative deposit");
        }
        balance += amount;
        transactions++;
    }

    /** Withdraws if covered; returns whether the money was taken. */
    synchronized boolean withdraw(long amount) {
        if (amount < 0 || balance < amount) {
            return false;
        }
        balance -= amount;
        transactions++;
        return true;
    }

    synchronized int transactions() {
        return transactions;
    }
}
