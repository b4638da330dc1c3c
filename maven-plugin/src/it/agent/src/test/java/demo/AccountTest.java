package demo;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class AccountTest {
    @Test
    public void depositsFromFourThreads() throws InterruptedException {
        final Account account = new Account();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(new Runnable() {
                @Override
                public void run() {
                    for (int i = 0; i < 200; i++) {
                        account.deposit(1);
                    }
                }
            }, "depositor-" + t);
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        // The lost update is the agent's to see; the test only checks that the deposits ran.
        assertTrue(account.balance() > 0);
    }
}
