package casbank;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A prepaid wallet whose whole state (balance, number of operations, number of
 * rejected withdrawals) lives in one immutable object swapped by
 * compare-and-set. Every read-check-write happens on a single snapshot and is
 * retried if another thread installed a newer snapshot in between.
 */
public class Wallet {

    static final class State {
        final long balance;
        final int ops;
        final int rejected;

        State(long balance, int ops, int rejected) {
            this.balance = balance;
            this.ops = ops;
            this.rejected = rejected;
        }
    }

    private final AtomicReference<State> state = new AtomicReference<>(new State(0, 0, 0));

    void deposit(long amount) {
        while (true) {
            State cur = state.get();
            State next = new State(cur.balance + amount, cur.ops + 1, cur.rejected);
            if (state.compareAndSet(cur, next)) {
                return;
            }
        }
    }

    /** Returns true if the withdrawal was applied; never lets balance go negative. */
    boolean withdraw(long amount) {
        while (true) {
            State cur = state.get();
            State next;
            boolean ok = cur.balance >= amount;
            if (ok) {
                next = new State(cur.balance - amount, cur.ops + 1, cur.rejected);
            } else {
                next = new State(cur.balance, cur.ops + 1, cur.rejected + 1);
            }
            if (state.compareAndSet(cur, next)) {
                return ok;
            }
        }
    }

    State snapshot() {
        return state.get();
    }

    public static void main(String[] args) throws InterruptedException {
        Wallet wallet = new Wallet();
        int depositors = 3;
        int spenders = 3;
        CountDownLatch done = new CountDownLatch(depositors + spenders);
        long[] withdrawn = new long[spenders];

        for (int d = 0; d < depositors; d++) {
            new Thread(() -> {
                for (int i = 0; i < 5000; i++) {
                    wallet.deposit(10);
                }
                done.countDown();
            }, "depositor-" + d).start();
        }
        for (int s = 0; s < spenders; s++) {
            final int slot = s;
            new Thread(() -> {
                long mine = 0;
                for (int i = 0; i < 6000; i++) {
                    if (wallet.withdraw(7)) {
                        mine += 7;
                    }
                }
                withdrawn[slot] = mine;
                done.countDown();
            }, "spender-" + s).start();
        }
        done.await();

        long totalOut = 0;
        for (long w : withdrawn) {
            totalOut += w;
        }
        State st = wallet.snapshot();
        long deposited = depositors * 5000L * 10;
        System.out.println("balance=" + st.balance + " ops=" + st.ops
                + " rejected=" + st.rejected
                + " consistent=" + (st.balance == deposited - totalOut && st.balance >= 0));
    }
}
