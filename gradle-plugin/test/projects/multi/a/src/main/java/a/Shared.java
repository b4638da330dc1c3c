package a;

/** Shared state of module a, also updated by other modules' classes. */
public class Shared {
    public int value;

    public void reset() {
        synchronized (this) {
            value = 0;
        }
    }
}
