package histogram;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

final class HistogramWorker extends Thread {
    private final int id;
    private final int[][] image;
    private final int lo;
    private final int hi;
    private final int[][] partial;
    private final LongAdder pixelsDone;
    private final ConcurrentHashMap<String, LongAdder> categories;

    HistogramWorker(int id, int[][] image, int lo, int hi, int[][] partial,
                    LongAdder pixelsDone, ConcurrentHashMap<String, LongAdder> categories) {
        super("hist-" + id);
        this.id = id;
        this.image = image;
        this.lo = lo;
        this.hi = hi;
        this.partial = partial;
        this.pixelsDone = pixelsDone;
        this.categories = categories;
    }

    @Override
    public void run() {
        int[] local = new int[Histogram.BINS];
        int dark = 0, mid = 0, bright = 0;
        for (int y = lo; y < hi; y++) {
            int[] row = image[y];
            for (int v : row) {
                local[v]++;
                if (v < 85) {
                    dark++;
                } else if (v < 170) {
                    mid++;
                } else {
                    bright++;
                }
            }
            pixelsDone.add(row.length);
        }
        categories.computeIfAbsent("dark", k -> new LongAdder()).add(dark);
        categories.computeIfAbsent("mid", k -> new LongAdder()).add(mid);
        categories.computeIfAbsent("bright", k -> new LongAdder()).add(bright);
        partial[id] = local; // publish this thread's slot; read by main after join
    }
}
