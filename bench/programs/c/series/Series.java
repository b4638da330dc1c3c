package series;

/**
 * Fourier coefficient computation in the style of the JGF Series benchmark.
 * The coefficients of f(x) = (x+1)^x on [0,2] are split into contiguous
 * ranges, each computed by one SeriesRunner thread, which writes only the
 * slots of testArray belonging to its range. Main reads after join().
 */
public class Series {
    static final int ARRAY_ROWS = 200;
    static final int THREADS = 4;

    public static void main(String[] args) throws InterruptedException {
        double[][] testArray = new double[2][ARRAY_ROWS];
        SeriesRunner[] runners = new SeriesRunner[THREADS];
        int chunk = (ARRAY_ROWS + THREADS - 1) / THREADS;
        for (int t = 0; t < THREADS; t++) {
            int lo = t * chunk;
            int hi = Math.min(ARRAY_ROWS, lo + chunk);
            runners[t] = new SeriesRunner(t, lo, hi, testArray);
        }
        for (SeriesRunner r : runners) {
            r.start();
        }
        for (SeriesRunner r : runners) {
            r.join();
        }

        // sequential reference for the first few coefficients, computed on a private array
        double[][] ref = new double[2][ARRAY_ROWS];
        new SeriesRunner(-1, 0, 4, ref).run();
        boolean ok = true;
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 2; j++) {
                if (Math.abs(testArray[j][i] - ref[j][i]) > 1e-12) {
                    ok = false;
                }
            }
        }
        long work = 0;
        for (SeriesRunner r : runners) {
            work += r.evaluations();
        }
        System.out.printf("a0=%.6f a1=%.6f b1=%.6f evaluations=%d %s%n",
                testArray[0][0], testArray[0][1], testArray[1][1], work, ok ? "VALID" : "INVALID");
    }
}
