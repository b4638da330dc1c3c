package bufwriter;

import java.io.ByteArrayOutputStream;

/** Writers append into a shared buffer; a flusher thread drains it. */
class BufWriter {
    private final StringBuilder buf = new StringBuilder();
    private final ByteArrayOutputStream sink = new ByteArrayOutputStream();
    private final int threshold;
    private boolean closed;

    BufWriter(int threshold) { this.threshold = threshold; }

    void write(String s) {
        synchronized (buf) {
            buf.append(s);
            if (buf.length() >= threshold) buf.notifyAll();
        }
    }

    /** Swap the buffer contents out and write them, all under the buffer lock. */
    void flush() {
        synchronized (buf) {
            if (buf.length() == 0) return;
            String data = buf.toString();
            buf.setLength(0);
            synchronized (sink) {
                sink.writeBytes(data.getBytes());
            }
        }
    }

    void close() {
        synchronized (buf) { closed = true; buf.notifyAll(); }
    }

    /** Flusher loop: waits for data or close, drains. */
    void flusherLoop() throws InterruptedException {
        while (true) {
            synchronized (buf) {
                while (buf.length() < threshold && !closed) buf.wait();
                if (closed) { flush(); return; }
                flush();
            }
        }
    }

    int written() { synchronized (sink) { return sink.size(); } }
}

class Writer extends Thread {
    private final BufWriter w;
    Writer(BufWriter w) { this.w = w; }
    @Override public void run() { for (int i = 0; i < 1000; i++) w.write("x"); }
}

class Flusher extends Thread {
    private final BufWriter w;
    Flusher(BufWriter w) { this.w = w; }
    @Override public void run() {
        try { w.flusherLoop(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        BufWriter w = new BufWriter(64);
        Flusher f = new Flusher(w);
        Writer a = new Writer(w), b = new Writer(w);
        f.start(); a.start(); b.start();
        a.join(); b.join();
        w.close();
        f.join();
        System.out.println(w.written() == 2000 ? "OK" : "BUG " + w.written());
    }
}
