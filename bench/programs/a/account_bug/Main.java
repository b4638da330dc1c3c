package account_bug;

class Account {
    private int balance;
    Account(int balance) { this.balance = balance; }
    synchronized int getBalance() { return balance; }
    synchronized void setBalance(int b) { balance = b; }

    /** BUG: balance read in one critical section, written in another. */
    void deposit(int amount) {
        int b = getBalance();
        setBalance(b + amount);
    }

    /** BUG: check-then-act across two critical sections. */
    boolean withdraw(int amount) {
        if (getBalance() >= amount) {
            synchronized (this) { balance -= amount; }
            return true;
        }
        return false;
    }
}

class Worker extends Thread {
    private final Account acc;
    Worker(Account acc) { this.acc = acc; }
    @Override public void run() {
        for (int i = 0; i < 1000; i++) {
            acc.deposit(10);
            acc.withdraw(10);
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Account acc = new Account(100);
        Thread t1 = new Worker(acc), t2 = new Worker(acc);
        t1.start(); t2.start();
        t1.join(); t2.join();
        System.out.println(acc.getBalance());
    }
}
