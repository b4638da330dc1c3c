package account;

class Account {
    private final int id;
    private int balance;

    Account(int id, int balance) { this.id = id; this.balance = balance; }

    int getId() { return id; }

    synchronized int getBalance() { return balance; }

    synchronized void deposit(int amount) { balance += amount; }

    synchronized boolean withdraw(int amount) {
        if (balance < amount) return false;
        balance -= amount;
        return true;
    }

    /** Locks both accounts in id order to avoid deadlock; the whole transfer is one critical section. */
    static boolean transfer(Account from, Account to, int amount) {
        Account first = from.id < to.id ? from : to;
        Account second = from.id < to.id ? to : from;
        synchronized (first) {
            synchronized (second) {
                if (from.balance < amount) return false;
                from.balance -= amount;
                to.balance += amount;
                return true;
            }
        }
    }
}

class Bank {
    private final Account[] accounts;
    Bank(Account[] accounts) { this.accounts = accounts; }

    /** Total under all locks, taken in id order. */
    int total() { return totalFrom(0); }

    private int totalFrom(int i) {
        if (i == accounts.length) return 0;
        synchronized (accounts[i]) {
            return accounts[i].getBalance() + totalFrom(i + 1);
        }
    }
}

class Transferer extends Thread {
    private final Account a, b;
    private final int n;
    Transferer(Account a, Account b, int n) { this.a = a; this.b = b; this.n = n; }
    @Override public void run() {
        for (int i = 0; i < n; i++) {
            Account.transfer(a, b, 10);
            Account.transfer(b, a, 7);
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Account a = new Account(1, 1000);
        Account b = new Account(2, 1000);
        Bank bank = new Bank(new Account[] {a, b});
        Thread t1 = new Transferer(a, b, 1000);
        Thread t2 = new Transferer(b, a, 1000);
        t1.start(); t2.start();
        t1.join(); t2.join();
        int total = bank.total();
        System.out.println("total=" + total + (total == 2000 ? " OK" : " BUG"));
    }
}
