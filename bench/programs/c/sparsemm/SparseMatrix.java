package sparsemm;

import java.util.Arrays;
import java.util.Random;

/** Immutable coordinate-format sparse matrix with non-zeros sorted by row. */
final class SparseMatrix {
    final int n;
    final int nz;
    final int[] row;
    final int[] col;
    final double[] val;

    private SparseMatrix(int n, int[] row, int[] col, double[] val) {
        this.n = n;
        this.nz = row.length;
        this.row = row;
        this.col = col;
        this.val = val;
    }

    static SparseMatrix random(int n, int nz, Random rnd) {
        long[] keys = new long[nz];
        for (int k = 0; k < nz; k++) {
            keys[k] = (long) rnd.nextInt(n) * n + rnd.nextInt(n);
        }
        Arrays.sort(keys);
        int[] row = new int[nz];
        int[] col = new int[nz];
        double[] val = new double[nz];
        for (int k = 0; k < nz; k++) {
            row[k] = (int) (keys[k] / n);
            col[k] = (int) (keys[k] % n);
            val[k] = rnd.nextDouble();
        }
        return new SparseMatrix(n, row, col, val);
    }

    /** Split [0,nz) into ranges so that no row spans two ranges. */
    void partitionByRows(int parts, int[] lowsum, int[] highsum) {
        int target = (nz + parts - 1) / parts;
        int start = 0;
        for (int p = 0; p < parts; p++) {
            int end = Math.min(nz, start + target);
            while (end < nz && end > 0 && row[end] == row[end - 1]) {
                end++;
            }
            if (p == parts - 1) {
                end = nz;
            }
            lowsum[p] = start;
            highsum[p] = end;
            start = end;
        }
    }
}
