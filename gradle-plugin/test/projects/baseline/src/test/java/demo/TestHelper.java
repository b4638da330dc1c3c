package demo;

/** In the test source set: found by staleCheckTest, not by the default staleCheck (main only). */
public class TestHelper {
    private long hits;

    public void hit() {
        long seen;
        synchronized (this) {
            seen = hits;
        }
        synchronized (this) {
            hits = seen + 1; // expect: stale-value (test source set)
        }
    }
}
