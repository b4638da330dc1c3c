package c;

import a.Shared;

/** A lost update on another module's object: the value read in one block is written back in the next. */
public class Tally {
    private final Shared shared = new Shared();

    public void add(int n) {
        int v;
        synchronized (this) {
            v = shared.value;
        }
        synchronized (this) {
            shared.value = v + n; // expect: stale-value
        }
    }
}
