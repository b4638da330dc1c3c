package lufact;

import java.util.Random;

/**
 * Parallel LU factorisation with partial pivoting, in the style of the JGF
 * LUFact benchmark. Thread 0 performs the pivot search, row swap and scaling
 * for step k; all threads then update their cyclically assigned columns.
 * The phases are separated by a hand-written synchronized counter barrier.
 */
public class LUFact {
    static final int N = 120;
    static final int THREADS = 4;

    public static void main(String[] args) throws InterruptedException {
        Random rnd = new Random(7);
        double[][] a = new double[N][N];
        double[][] orig = new double[N][N];
        double[] b = new double[N];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
                a[i][j] = rnd.nextDouble() - 0.5;
                orig[i][j] = a[i][j];
            }
        }
        // right-hand side chosen so that the exact solution is all ones
        for (int i = 0; i < N; i++) {
            double s = 0.0;
            for (int j = 0; j < N; j++) {
                s += orig[i][j];
            }
            b[i] = s;
        }

        Factorisation fact = new Factorisation(a, THREADS);
        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            workers[t] = new Thread(new LuWorker(t, fact), "lu-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }

        double[] x = fact.solve(b);
        double maxErr = 0.0;
        for (int i = 0; i < N; i++) {
            maxErr = Math.max(maxErr, Math.abs(x[i] - 1.0));
        }
        double resid = 0.0;
        for (int i = 0; i < N; i++) {
            double s = 0.0;
            for (int j = 0; j < N; j++) {
                s += orig[i][j] * x[j];
            }
            resid = Math.max(resid, Math.abs(s - b[i]));
        }
        System.out.printf("n=%d maxErr=%.3e residual=%.3e %s%n", N, maxErr, resid,
                maxErr < 1e-6 ? "VALID" : "INVALID");
    }
}
