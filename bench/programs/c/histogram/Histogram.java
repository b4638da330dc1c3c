package histogram;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Parallel histogram of a grey-scale "image". Each worker counts into its
 * own partial histogram (partial[id]), which main merges after join().
 * Progress and per-category statistics are kept in a LongAdder and a
 * ConcurrentHashMap of LongAdders, updated with single atomic operations.
 */
public class Histogram {
    static final int WIDTH = 640;
    static final int HEIGHT = 480;
    static final int BINS = 256;
    static final int THREADS = 4;

    public static void main(String[] args) throws InterruptedException {
        int[][] image = new int[HEIGHT][WIDTH];
        Random rnd = new Random(2024);
        for (int y = 0; y < HEIGHT; y++) {
            for (int x = 0; x < WIDTH; x++) {
                int v = (int) (128 + 40 * rnd.nextGaussian());
                image[y][x] = Math.max(0, Math.min(BINS - 1, v));
            }
        }

        int[][] partial = new int[THREADS][];
        LongAdder pixelsDone = new LongAdder();
        ConcurrentHashMap<String, LongAdder> categories = new ConcurrentHashMap<>();

        HistogramWorker[] workers = new HistogramWorker[THREADS];
        int rowsPer = (HEIGHT + THREADS - 1) / THREADS;
        for (int t = 0; t < THREADS; t++) {
            int lo = Math.min(HEIGHT, t * rowsPer);
            int hi = Math.min(HEIGHT, lo + rowsPer);
            workers[t] = new HistogramWorker(t, image, lo, hi, partial, pixelsDone, categories);
            workers[t].start();
        }
        for (HistogramWorker w : workers) {
            w.join();
        }

        int[] hist = new int[BINS];
        for (int t = 0; t < THREADS; t++) {
            for (int b = 0; b < BINS; b++) {
                hist[b] += partial[t][b];
            }
        }
        long total = 0;
        int mode = 0;
        for (int b = 0; b < BINS; b++) {
            total += hist[b];
            if (hist[b] > hist[mode]) {
                mode = b;
            }
        }
        Map<String, Long> cats = new TreeMap<>();
        categories.forEach((k, v) -> cats.put(k, v.sum()));
        boolean ok = total == (long) WIDTH * HEIGHT && pixelsDone.sum() == total;
        System.out.println("pixels=" + total + " mode=" + mode + " categories=" + cats + (ok ? " VALID" : " INVALID"));
    }
}
