package sort;

import java.util.Arrays;
import java.util.Random;

class BubbleWorker extends Thread {
    private final int[] a;
    private final int lo, hi; // [lo, hi)
    BubbleWorker(int[] a, int lo, int hi) { this.a = a; this.lo = lo; this.hi = hi; }
    @Override public void run() {
        for (int i = hi - 1; i > lo; i--) {
            for (int j = lo; j < i; j++) {
                if (a[j] > a[j + 1]) {
                    int t = a[j];
                    a[j] = a[j + 1];
                    a[j + 1] = t;
                }
            }
        }
    }
}

public class Main {
    static void merge(int[] a, int lo, int mid, int hi) {
        int[] tmp = new int[hi - lo];
        int i = lo, j = mid, k = 0;
        while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
        while (i < mid) tmp[k++] = a[i++];
        while (j < hi) tmp[k++] = a[j++];
        System.arraycopy(tmp, 0, a, lo, tmp.length);
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 2000;
        int[] a = new int[n];
        Random r = new Random(42);
        for (int i = 0; i < n; i++) a[i] = r.nextInt(10000);
        int[] expected = a.clone();
        Arrays.sort(expected);

        int parts = 4;
        int step = n / parts;
        BubbleWorker[] ws = new BubbleWorker[parts];
        for (int p = 0; p < parts; p++) {
            int lo = p * step, hi = (p == parts - 1) ? n : lo + step;
            ws[p] = new BubbleWorker(a, lo, hi);
            ws[p].start();
        }
        for (BubbleWorker w : ws) w.join();   // happens-before: all slices sorted
        for (int p = 1; p < parts; p++) {
            int hi = (p == parts - 1) ? n : (p + 1) * step;
            merge(a, 0, p * step, hi);
        }
        System.out.println(Arrays.equals(a, expected) ? "OK" : "BUG");
    }
}
