package handoverlist;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sorted set of session ids stored in a singly linked list with one
 * ReentrantLock per node. Traversals use hand-over-hand locking: the lock on
 * the next node is acquired before the lock on the current node is released,
 * so the (pred, curr) window being inspected is always held.
 */
public class SortedSessionList {

    static final class Node {
        final int key;
        Node next; // guarded by this node's lock
        final ReentrantLock lock = new ReentrantLock();

        Node(int key, Node next) {
            this.key = key;
            this.next = next;
        }
    }

    private final Node head;

    SortedSessionList() {
        Node tail = new Node(Integer.MAX_VALUE, null);
        head = new Node(Integer.MIN_VALUE, tail);
    }

    boolean add(int key) {
        Node pred = head;
        pred.lock.lock();
        Node curr = pred.next;
        curr.lock.lock();
        try {
            while (curr.key < key) {
                pred.lock.unlock();
                pred = curr;
                curr = curr.next;
                curr.lock.lock();
            }
            if (curr.key == key) {
                return false;
            }
            pred.next = new Node(key, curr);
            return true;
        } finally {
            curr.lock.unlock();
            pred.lock.unlock();
        }
    }

    boolean remove(int key) {
        Node pred = head;
        pred.lock.lock();
        Node curr = pred.next;
        curr.lock.lock();
        try {
            while (curr.key < key) {
                pred.lock.unlock();
                pred = curr;
                curr = curr.next;
                curr.lock.lock();
            }
            if (curr.key == key) {
                pred.next = curr.next;
                return true;
            }
            return false;
        } finally {
            curr.lock.unlock();
            pred.lock.unlock();
        }
    }

    int size() {
        int n = 0;
        Node pred = head;
        pred.lock.lock();
        Node curr = pred.next;
        curr.lock.lock();
        try {
            while (curr.key != Integer.MAX_VALUE) {
                n++;
                pred.lock.unlock();
                pred = curr;
                curr = curr.next;
                curr.lock.lock();
            }
            return n;
        } finally {
            curr.lock.unlock();
            pred.lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        SortedSessionList sessions = new SortedSessionList();
        int workers = 4;
        int perWorker = 400;
        CountDownLatch done = new CountDownLatch(workers);
        int[] kept = new int[workers];
        for (int w = 0; w < workers; w++) {
            final int id = w;
            new Thread(() -> {
                int mine = 0;
                // each worker owns keys congruent to id mod workers
                for (int i = 0; i < perWorker; i++) {
                    if (sessions.add(i * workers + id)) {
                        mine++;
                    }
                }
                for (int i = 0; i < perWorker; i += 2) {
                    if (sessions.remove(i * workers + id)) {
                        mine--;
                    }
                }
                kept[id] = mine;
                done.countDown();
            }, "session-worker-" + w).start();
        }
        done.await();
        int expected = 0;
        for (int k : kept) {
            expected += k;
        }
        int size = sessions.size();
        System.out.println("size=" + size + " expected=" + expected + " ok=" + (size == expected));
    }
}
