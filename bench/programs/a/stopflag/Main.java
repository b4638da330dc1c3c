package stopflag;

import java.util.concurrent.atomic.AtomicLong;

/** Workers spin until a volatile stop flag is set; progress is counted atomically. */
class Worker extends Thread {
    private volatile boolean running = true;
    private final AtomicLong progress;
    Worker(AtomicLong progress) { this.progress = progress; }
    void shutdown() { running = false; }
    @Override public void run() {
        while (running) {
            progress.incrementAndGet();
            Thread.onSpinWait();
        }
    }
}

class Monitor extends Thread {
    private final AtomicLong progress;
    private final Worker[] workers;
    Monitor(AtomicLong progress, Worker[] workers) { this.progress = progress; this.workers = workers; }
    @Override public void run() {
        while (progress.get() < 10_000) Thread.onSpinWait();
        for (Worker w : workers) w.shutdown();
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        AtomicLong progress = new AtomicLong();
        Worker[] ws = { new Worker(progress), new Worker(progress) };
        Monitor m = new Monitor(progress, ws);
        for (Worker w : ws) w.start();
        m.start();
        m.join();
        for (Worker w : ws) w.join();
        System.out.println(progress.get() >= 10_000 ? "OK" : "BUG");
    }
}
