package wronglock;

/** Correct version of the classic WrongLock: every access to the counter uses the same lock. */
class Data {
    static final Object LOCK = new Object();
    static int value;
}

class Incrementer extends Thread {
    @Override public void run() {
        for (int i = 0; i < 1000; i++) {
            synchronized (Data.LOCK) { Data.value++; }
        }
    }
}

class Doubler extends Thread {
    @Override public void run() {
        for (int i = 0; i < 10; i++) {
            synchronized (Data.LOCK) {
                int v = Data.value;
                Data.value = v + v - v + 1;   // read and write under the same lock
            }
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Thread a = new Incrementer(), b = new Incrementer(), c = new Doubler();
        a.start(); b.start(); c.start();
        a.join(); b.join(); c.join();
        int v;
        synchronized (Data.LOCK) { v = Data.value; }
        System.out.println(v == 2010 ? "OK" : "BUG " + v);
    }
}
