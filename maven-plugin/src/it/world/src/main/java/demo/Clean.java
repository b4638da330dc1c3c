package demo;

/** Correct: each update reads and writes the field inside one critical section (no warning). */
public class Clean {
    private final Object lock = new Object();
    private int count;

    public void inc() {
        synchronized (lock) {
            count++;
        }
    }

    public int get() {
        synchronized (lock) {
            return count;
        }
    }
}
