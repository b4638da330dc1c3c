package bankbug;

import java.util.ArrayList;
import java.util.List;

/** A small bank: several tellers post deposits and withdrawals to shared accounts. */
public class Bank {

    static final class Account {
        private final String id;
        private long balance;

        Account(String id, long initial) {
            this.id = id;
            this.balance = initial;
        }

        public String getId() {
            return id;
        }

        public synchronized long getBalance() {
            return balance;
        }

        public synchronized void setBalance(long newBalance) {
            balance = newBalance;
        }

        /** Withdraws if funds suffice; atomic because the whole method is one critical section. */
        public synchronized boolean withdraw(long amount) {
            if (balance < amount) {
                return false;
            }
            balance -= amount;
            return true;
        }
    }

    private final Account[] accounts;

    Bank(int n, long initial) {
        accounts = new Account[n];
        for (int i = 0; i < n; i++) {
            accounts[i] = new Account("ACC-" + i, initial);
        }
    }

    /** Posts a deposit on behalf of a teller. */
    void deposit(int idx, long amount) {
        Account acc = accounts[idx];
        long current = acc.getBalance(); // BUG: balance read in one critical section (lock released on return) ...
        long updated = current + amount;
        acc.setBalance(updated); // BUG: ... stale value passed to a synchronized setter; concurrent deposits are lost
    }

    long totalBalance() {
        long sum = 0;
        for (Account a : accounts) {
            sum += a.getBalance();
        }
        return sum;
    }

    public static void main(String[] args) throws InterruptedException {
        final int tellers = 4;
        final int opsPerTeller = 20_000;
        final Bank bank = new Bank(3, 1_000);
        final long[] withdrawn = new long[tellers];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < tellers; t++) {
            final int teller = t;
            Thread th = new Thread(() -> {
                for (int i = 0; i < opsPerTeller; i++) {
                    int idx = (teller + i) % bank.accounts.length;
                    bank.deposit(idx, 5);
                    if (i % 10 == 0 && bank.accounts[idx].withdraw(3)) {
                        withdrawn[teller] += 3;
                    }
                }
            }, "teller-" + t);
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        long out = 0;
        for (long w : withdrawn) {
            out += w;
        }
        long expected = 3 * 1_000L + (long) tellers * opsPerTeller * 5 - out;
        System.out.println("expected total=" + expected + " actual total=" + bank.totalBalance());
    }
}
