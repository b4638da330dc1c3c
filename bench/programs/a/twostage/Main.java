package twostage;

/** Two-stage update done correctly: both stages under one lock. */
class TwoStage {
    private final Object lock = new Object();
    private int data1, data2;

    void update() {
        synchronized (lock) {
            data1 = data1 + 1;
            data2 = data1 + 1;   // invariant: data2 == data1 + 1
        }
    }

    boolean check() {
        synchronized (lock) {
            return data2 == data1 + 1;
        }
    }
}

class Stager extends Thread {
    private final TwoStage ts;
    Stager(TwoStage ts) { this.ts = ts; }
    @Override public void run() { for (int i = 0; i < 1000; i++) ts.update(); }
}

class Checker extends Thread {
    private final TwoStage ts;
    private volatile boolean broken;
    Checker(TwoStage ts) { this.ts = ts; }
    @Override public void run() { for (int i = 0; i < 1000; i++) if (!ts.check()) broken = true; }
    boolean isBroken() { return broken; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        TwoStage ts = new TwoStage();
        Stager s1 = new Stager(ts), s2 = new Stager(ts);
        Checker c = new Checker(ts);
        s1.start(); s2.start(); c.start();
        s1.join(); s2.join(); c.join();
        System.out.println(c.isBroken() ? "BUG" : "OK");
    }
}
