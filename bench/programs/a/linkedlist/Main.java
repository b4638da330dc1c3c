package linkedlist;

/** A small synchronized singly linked list. */
class SyncList<T> {
    private static final class Node<T> {
        final T value; Node<T> next;
        Node(T value) { this.value = value; }
    }
    private Node<T> head, tail;
    private int size;

    synchronized void add(T v) {
        Node<T> n = new Node<>(v);
        if (tail == null) { head = tail = n; } else { tail.next = n; tail = n; }
        size++;
    }

    synchronized T removeFirst() {
        if (head == null) return null;
        T v = head.value;
        head = head.next;
        if (head == null) tail = null;
        size--;
        return v;
    }

    synchronized boolean contains(T v) {
        for (Node<T> n = head; n != null; n = n.next) if (n.value.equals(v)) return true;
        return false;
    }

    synchronized int size() { return size; }
    synchronized boolean isEmpty() { return size == 0; }
}

class Worker extends Thread {
    private final SyncList<Integer> list; private final int base;
    private int removed;
    Worker(SyncList<Integer> list, int base) { this.list = list; this.base = base; }
    @Override public void run() {
        for (int i = 0; i < 500; i++) {
            Integer v = base + i;
            // compound put-if-absent under the list's own lock
            synchronized (list) {
                if (!list.contains(v)) list.add(v);
            }
            // compound check-then-remove under the list's own lock
            synchronized (list) {
                if (!list.isEmpty()) {
                    list.removeFirst();
                    removed++;
                }
            }
        }
    }
    int getRemoved() { return removed; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        SyncList<Integer> list = new SyncList<>();
        Worker a = new Worker(list, 0), b = new Worker(list, 10000);
        a.start(); b.start();
        a.join(); b.join();
        System.out.println(list.size() == 0 && a.getRemoved() + b.getRemoved() == 1000 ? "OK" : "BUG");
    }
}
