package pipeline;

import java.util.ArrayDeque;
import java.util.Deque;

/** Hand-over protocol (Artho's Fig. 5): each stage takes an item from one buffer and puts a transformed item into the next. */
public class Pipeline {
    static final class Buffer {
        private final Deque<Integer> items = new ArrayDeque<>();
        private final int capacity;
        private boolean closed;
        Buffer(int capacity) { this.capacity = capacity; }

        synchronized void put(int v) throws InterruptedException {
            while (items.size() == capacity) wait();
            items.addLast(v);
            notifyAll();
        }

        /** Returns the next item, or null once closed and drained. */
        synchronized Integer take() throws InterruptedException {
            while (items.isEmpty() && !closed) wait();
            if (items.isEmpty()) return null;
            Integer v = items.removeFirst();
            notifyAll();
            return v;
        }

        synchronized void close() { closed = true; notifyAll(); }
    }

    public static void main(String[] args) throws InterruptedException {
        Buffer a = new Buffer(4), b = new Buffer(4);
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; i < 100; i++) a.put(i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            a.close();
        });
        Thread stage = new Thread(() -> {
            try {
                Integer v;
                while ((v = a.take()) != null) {
                    b.put(v * v);          // the taken item is this thread's own
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            b.close();
        });
        Thread consumer = new Thread(() -> {
            long sum = 0;
            try {
                Integer v;
                while ((v = b.take()) != null) sum += v;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.println("sum " + sum);
        });
        producer.start(); stage.start(); consumer.start();
        producer.join(); stage.join(); consumer.join();
    }
}
