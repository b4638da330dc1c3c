package hedc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A simulated remote astrophysics archive; immutable, so it can be shared freely. */
final class Archive {
    private final String name;
    private final int seed;

    Archive(String name, int seed) {
        this.name = name;
        this.seed = seed;
    }

    String name() {
        return name;
    }

    /** Simulates a query; the answer depends only on the arguments. */
    List<String> query(String keyword) {
        int h = Math.abs((keyword.hashCode() * 31 + seed) % 7) + 1;
        List<String> hits = new ArrayList<>(h);
        for (int i = 0; i < h; i++) {
            hits.add(name + ":" + keyword + "#" + i);
        }
        try {
            Thread.sleep(1 + (seed + keyword.length()) % 3);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Collections.unmodifiableList(hits);
    }
}
