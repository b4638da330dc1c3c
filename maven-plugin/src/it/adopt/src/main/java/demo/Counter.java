package demo;

/** A lost update: the value read in the first block is written back in the second. */
public class Counter {
    private final Object lock = new Object();
    private int count;

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = count;
        }
        tmp++;
        synchronized (lock) {
            count = tmp; // expect: stale-value
        }
    }
}
