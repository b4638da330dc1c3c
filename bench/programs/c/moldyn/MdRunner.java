package moldyn;

final class MdRunner extends Thread {
    private final int id;
    private final CounterBarrier barrier;
    private final int lo;
    private final int hi;

    MdRunner(int id, CounterBarrier barrier) {
        this.id = id;
        this.barrier = barrier;
        int chunk = (MolDyn.N + MolDyn.THREADS - 1) / MolDyn.THREADS;
        this.lo = Math.min(MolDyn.N, id * chunk);
        this.hi = Math.min(MolDyn.N, lo + chunk);
    }

    @Override
    public void run() {
        try {
            for (int step = 0; step < MolDyn.ITERATIONS; step++) {
                double pot = computeForces();
                barrier.await();
                double kin = reduceAndMove();
                barrier.await();
                MolDyn.epot[id] = pot;
                MolDyn.ekin[id] = kin;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Cyclic distribution of the outer particle loop, forces go into this thread's own array. */
    private double computeForces() {
        double[][] f = MolDyn.force[id];
        double pot = 0.0;
        int count = 0;
        double rc2 = MolDyn.CUTOFF * MolDyn.CUTOFF;
        for (int i = id; i < MolDyn.N; i += MolDyn.THREADS) {
            double[] pi = MolDyn.pos[i];
            for (int j = i + 1; j < MolDyn.N; j++) {
                double[] pj = MolDyn.pos[j];
                double dx = MolDyn.minimumImage(pi[0] - pj[0]);
                double dy = MolDyn.minimumImage(pi[1] - pj[1]);
                double dz = MolDyn.minimumImage(pi[2] - pj[2]);
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < rc2) {
                    double inv2 = 1.0 / r2;
                    double inv6 = inv2 * inv2 * inv2;
                    double ff = 48.0 * inv6 * (inv6 - 0.5) * inv2;
                    f[i][0] += ff * dx;
                    f[i][1] += ff * dy;
                    f[i][2] += ff * dz;
                    f[j][0] -= ff * dx;
                    f[j][1] -= ff * dy;
                    f[j][2] -= ff * dz;
                    pot += 4.0 * inv6 * (inv6 - 1.0);
                    count++;
                }
            }
        }
        MolDyn.interactions[id] += count;
        return pot;
    }

    /** Block distribution: sum all per-thread forces for owned particles, clear them, integrate. */
    private double reduceAndMove() {
        double kin = 0.0;
        for (int i = lo; i < hi; i++) {
            double fx = 0.0, fy = 0.0, fz = 0.0;
            for (int t = 0; t < MolDyn.THREADS; t++) {
                double[] ft = MolDyn.force[t][i];
                fx += ft[0];
                fy += ft[1];
                fz += ft[2];
                ft[0] = 0.0;
                ft[1] = 0.0;
                ft[2] = 0.0;
            }
            double[] v = MolDyn.vel[i];
            double[] p = MolDyn.pos[i];
            v[0] += fx * MolDyn.DT;
            v[1] += fy * MolDyn.DT;
            v[2] += fz * MolDyn.DT;
            for (int d = 0; d < 3; d++) {
                p[d] += v[d] * MolDyn.DT;
                if (p[d] < 0) {
                    p[d] += MolDyn.BOX;
                } else if (p[d] >= MolDyn.BOX) {
                    p[d] -= MolDyn.BOX;
                }
            }
            kin += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
        return kin;
    }
}
