package bankbug;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Transfers lock both accounts, always in increasing id order, so the
 * check-and-move is atomic and no two transfers can deadlock.
 */
final class Bank {
    private final Account[] accounts;
    private final AtomicLong transfers = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong deposited = new AtomicLong();

    Bank(int n, long initial) {
        accounts = new Account[n];
        for (int i = 0; i < n; i++) {
            accounts[i] = new Account(i, initial);
        }
    }

    int size() {
        return accounts.length;
    }

    boolean transfer(int fromId, int toId, long amount) {
        if (fromId == toId) {
            return false;
        }
        Account from = accounts[fromId];
        Account to = accounts[toId];
        Account first = fromId < toId ? from : to;
        Account second = fromId < toId ? to : from;
        synchronized (first) {
            synchronized (second) {
                if (!from.withdraw(amount)) {
                    rejected.incrementAndGet();
                    return false;
                }
                to.deposit(amount);
            }
        }
        transfers.incrementAndGet();
        return true;
    }

    void payInterest(int id, long amount) {
        Account a = accounts[id];
        long current = a.balance();      // BUG: balance read in one synchronized call ...
        a.setBalance(current + amount);  // BUG: ... and written back in another; a concurrent transfer in between is lost
        deposited.addAndGet(amount);
    }

    /** Sums all balances while holding every account lock (taken in id order). */
    long audit() {
        return sumFrom(0);
    }

    private long sumFrom(int i) {
        if (i == accounts.length) {
            return 0;
        }
        Account a = accounts[i];
        synchronized (a) {
            return a.balance() + sumFrom(i + 1);
        }
    }

    long transfers() {
        return transfers.get();
    }

    long rejected() {
        return rejected.get();
    }

    long deposited() {
        return deposited.get();
    }
}
