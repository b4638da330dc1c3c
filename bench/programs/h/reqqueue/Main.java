package reqqueue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Two transport threads feed one dispatcher through the bounded request queue. */
public class Main {
    static final int PER_PRODUCER = 20000;

    static Thread transport(String name, RequestQueue<String> queue, AtomicInteger accepted) {
        return new Thread(() -> {
            for (int i = 0; i < PER_PRODUCER; i++) {
                if (queue.offer(name + ":msg-" + i)) {
                    accepted.incrementAndGet();
                }
            }
        }, name);
    }

    public static void main(String[] args) throws InterruptedException {
        RequestQueue<String> queue = new RequestQueue<>(16);
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger dispatched = new AtomicInteger();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread dispatcher = new Thread(() -> {
            try {
                while (true) {
                    String req = queue.poll(1);
                    if (req != null) {
                        dispatched.incrementAndGet();
                    } else if (!producing.get()) {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "dispatcher");
        Thread p1 = transport("tcp-1", queue, accepted);
        Thread p2 = transport("tcp-2", queue, accepted);
        dispatcher.start(); p1.start(); p2.start();
        p1.join(); p2.join();
        producing.set(false);
        dispatcher.join();
        int[] s = queue.stats();
        boolean ok = s[1] <= queue.capacity() && accepted.get() == dispatched.get();
        System.out.println("accepted=" + accepted.get() + " dispatched=" + dispatched.get() + " rejected=" + s[0]
                + " highWater=" + s[1] + "/" + queue.capacity() + (ok ? " OK" : " FAIL"));
    }
}
