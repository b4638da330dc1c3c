package tspbug;

import java.util.ArrayDeque;
import java.util.Deque;

/** Branch-and-bound TSP. Workers prune with the shared bound and update it after re-checking under the lock. */
public class Tsp {
    static final class Solver {
        private final int[][] dist;
        private int bestLength = Integer.MAX_VALUE;
        private int[] bestTour;
        private final Deque<int[]> work = new ArrayDeque<>();

        Solver(int[][] dist) { this.dist = dist; }

        synchronized int bound() { return bestLength; }

        /** Installs the tour only if it is still better than the current best (re-check under the lock). */
        synchronized boolean offer(int length, int[] tour) {
            if (length < bestLength) {
                bestLength = length;
                bestTour = tour.clone();
                return true;
            }
            return false;
        }

        synchronized int[] take() { return work.poll(); }

        synchronized void put(int[] prefix) { work.add(prefix); }

        synchronized int[] bestTour() { return bestTour; }

        void search(int[] path, int depth, int length, boolean[] used) {
            int n = dist.length;
            if (length >= bound()) {
                return;   // prune: bound only decreases, so a stale bound is merely less tight
            }
            if (depth == n) {
                int total = length + dist[path[n - 1]][path[0]];
                if (total < bound()) {          // BUG: compared in one critical section...
                    synchronized (this) {       // ...installed in another without re-checking
                        bestLength = total;
                        bestTour = path.clone();
                    }
                }
                return;
            }
            for (int c = 1; c < n; c++) {
                if (!used[c]) {
                    used[c] = true;
                    path[depth] = c;
                    search(path, depth + 1, length + dist[path[depth - 1]][c], used);
                    used[c] = false;
                }
            }
        }
    }

    static final class Worker extends Thread {
        private final Solver solver;
        Worker(Solver s) { solver = s; }

        @Override
        public void run() {
            int n = solver.dist.length;
            int[] prefix;
            while ((prefix = solver.take()) != null) {
                int[] path = new int[n];
                boolean[] used = new boolean[n];
                path[0] = 0;
                used[0] = true;
                path[1] = prefix[0];
                used[prefix[0]] = true;
                solver.search(path, 2, solver.dist[0][prefix[0]], used);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 9;
        int[][] d = new int[n][n];
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                d[i][j] = d[j][i] = 1 + r.nextInt(100);
        Solver s = new Solver(d);
        for (int c = 1; c < n; c++) s.put(new int[] {c});
        Worker[] ws = new Worker[4];
        for (int i = 0; i < ws.length; i++) { ws[i] = new Worker(s); ws[i].start(); }
        for (Worker w : ws) w.join();
        System.out.println("best " + s.bound() + " " + java.util.Arrays.toString(s.bestTour()));
    }
}
