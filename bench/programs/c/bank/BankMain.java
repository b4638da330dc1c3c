package bank;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Tellers move money around while an interest thread deposits and an auditor checks totals. */
public final class BankMain {
    public static void main(String[] args) throws InterruptedException {
        final int accounts = 16;
        final long initial = 1_000;
        final Bank bank = new Bank(accounts, initial);
        List<Thread> threads = new ArrayList<>();

        for (int t = 0; t < 4; t++) {
            final int seed = t;
            threads.add(new Thread(() -> {
                Random rnd = new Random(seed);
                for (int i = 0; i < 20_000; i++) {
                    bank.transfer(rnd.nextInt(accounts), rnd.nextInt(accounts), 1 + rnd.nextInt(200));
                }
            }, "teller-" + t));
        }

        threads.add(new Thread(() -> {
            for (int round = 0; round < 200; round++) {
                for (int id = 0; id < accounts; id++) {
                    bank.payInterest(id, 1);
                }
            }
        }, "interest"));

        final long[] audits = new long[1];
        Thread auditor = new Thread(() -> {
            for (int i = 0; i < 100; i++) {
                long total = bank.audit();
                if (total < accounts * initial) {
                    System.out.println("audit saw money disappear: " + total);
                }
                audits[0]++;
                Thread.yield();
            }
        }, "auditor");
        threads.add(auditor);

        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }

        long expected = accounts * initial + bank.deposited();
        long actual = bank.audit();
        System.out.println("transfers=" + bank.transfers() + " rejected=" + bank.rejected()
                + " audits=" + audits[0]);
        System.out.println("expected total=" + expected + " actual total=" + actual
                + (expected == actual ? " OK" : " MISMATCH"));
    }
}
