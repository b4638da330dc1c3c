package buffer;

class BoundedBuffer {
    private final int[] items;
    private int head, tail, count;

    BoundedBuffer(int capacity) { items = new int[capacity]; }

    synchronized void put(int x) throws InterruptedException {
        while (count == items.length) wait();
        items[tail] = x;
        tail = (tail + 1) % items.length;
        count++;
        notifyAll();
    }

    synchronized int take() throws InterruptedException {
        while (count == 0) wait();
        int x = items[head];
        head = (head + 1) % items.length;
        count--;
        notifyAll();
        return x;
    }
}

class Producer extends Thread {
    private final BoundedBuffer buf; private final int n;
    Producer(BoundedBuffer buf, int n) { this.buf = buf; this.n = n; }
    @Override public void run() {
        try { for (int i = 1; i <= n; i++) buf.put(i); }
        catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }
}

class Consumer extends Thread {
    private final BoundedBuffer buf; private final int n;
    private long sum;
    Consumer(BoundedBuffer buf, int n) { this.buf = buf; this.n = n; }
    @Override public void run() {
        try { for (int i = 0; i < n; i++) sum += buf.take(); }
        catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }
    long getSum() { return sum; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        BoundedBuffer b = new BoundedBuffer(5);
        int n = 1000;
        Producer p1 = new Producer(b, n), p2 = new Producer(b, n);
        Consumer c1 = new Consumer(b, n), c2 = new Consumer(b, n);
        p1.start(); p2.start(); c1.start(); c2.start();
        p1.join(); p2.join(); c1.join(); c2.join();
        long expect = 2L * n * (n + 1) / 2;
        long got = c1.getSum() + c2.getSum();
        System.out.println(got == expect ? "OK" : "BUG " + got);
    }
}
