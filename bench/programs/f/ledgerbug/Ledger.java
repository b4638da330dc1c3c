package ledgerbug;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Bank ledger. A transfer locks the two accounts involved, lower id first (no
 * deadlock), and moves money only if the source covers it. Transfers also hold
 * the read side of a ledger-wide ReadWriteLock, so they run concurrently with
 * each other; the auditor takes the write side, which excludes every transfer,
 * and sums all balances from one consistent state. The total never changes.
 */
public class Ledger {

    static final class Account {
        final int id;
        private long balance; // guarded by this account's monitor (and the ledger write lock for audits)

        Account(int id, long balance) {
            this.id = id;
            this.balance = balance;
        }
    }

    private final Account[] accounts;
    private final ReentrantReadWriteLock auditLock = new ReentrantReadWriteLock();

    Ledger(int n, long initial) {
        accounts = new Account[n];
        for (int i = 0; i < n; i++) {
            accounts[i] = new Account(i, initial);
        }
    }

    boolean transfer(int fromId, int toId, long amount) {
        if (fromId == toId) {
            return false;
        }
        Account from = accounts[fromId];
        Account to = accounts[toId];
        Account first = from.id < to.id ? from : to;
        Account second = from.id < to.id ? to : from;
        auditLock.readLock().lock();
        try {
            synchronized (first) {
                synchronized (second) {
                    if (from.balance < amount) {
                        return false;
                    }
                    from.balance -= amount;
                    to.balance += amount;
                    return true;
                }
            }
        } finally {
            auditLock.readLock().unlock();
        }
    }

    long audit() {
        long total = 0;
        for (Account a : accounts) {
            synchronized (a) { // BUG: each balance read in its own critical section, no ledger-wide lock ...
                total += a.balance; // BUG: ... a transfer between two reads is counted twice or not at all
            }
        }
        return total;
    }

    public static void main(String[] args) throws InterruptedException {
        final int n = 8;
        final long initial = 1_000;
        Ledger ledger = new Ledger(n, initial);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger badAudits = new AtomicInteger();
        AtomicInteger audits = new AtomicInteger();
        AtomicBoolean trading = new AtomicBoolean(true);
        Thread[] tellers = new Thread[4];
        for (int t = 0; t < tellers.length; t++) {
            final int seed = t;
            tellers[t] = new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    int from = (i * 7 + seed) % n;
                    int to = (i * 3 + seed * 5 + 1) % n;
                    if (ledger.transfer(from, to, 1 + (i % 97))) {
                        done.incrementAndGet();
                    }
                }
            }, "teller-" + t);
        }
        Thread auditor = new Thread(() -> {
            while (trading.get()) {
                audits.incrementAndGet();
                if (ledger.audit() != n * initial) {
                    badAudits.incrementAndGet();
                }
            }
        }, "auditor");
        auditor.start();
        for (Thread t : tellers) {
            t.start();
        }
        for (Thread t : tellers) {
            t.join();
        }
        trading.set(false);
        auditor.join();
        System.out.println("transfers=" + done.get() + " final total=" + ledger.audit()
                + " audits=" + audits.get() + " inconsistent=" + badAudits.get());
    }
}
