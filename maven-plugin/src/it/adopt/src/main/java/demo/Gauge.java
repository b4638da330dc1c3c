package demo;

/** A second lost update, added after the baseline was written: a new finding. */
public class Gauge {
    private int level;

    public void raise(int by) {
        int current;
        synchronized (this) {
            current = level;
        }
        synchronized (this) {
            level = current + by; // expect: stale-value
        }
    }
}
