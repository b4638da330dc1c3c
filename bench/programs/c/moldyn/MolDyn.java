package moldyn;

/**
 * Lennard-Jones molecular dynamics in the style of the JGF MolDyn benchmark.
 * Forces are accumulated into per-thread force arrays (like sh_force2 in the
 * original), a hand-written counter barrier separates the force phase from
 * the reduction/update phase, and each thread reports its energy into its own
 * slot, which main combines after join.
 */
public class MolDyn {
    static final int SIDE = 5;
    static final int N = SIDE * SIDE * SIDE;
    static final int THREADS = 4;
    static final int ITERATIONS = 20;
    static final double SPACING = 1.12;
    static final double BOX = SIDE * SPACING;
    static final double CUTOFF = 2.5;
    static final double DT = 0.002;

    // shared particle state: positions and velocities
    static final double[][] pos = new double[N][3];
    static final double[][] vel = new double[N][3];
    // per-thread force accumulators: force[t][i][d] written only by thread t in the force phase
    static final double[][][] force = new double[THREADS][N][3];
    // per-thread result slots
    static final double[] epot = new double[THREADS];
    static final double[] ekin = new double[THREADS];
    static final int[] interactions = new int[THREADS];

    public static void main(String[] args) throws InterruptedException {
        initialise();
        CounterBarrier barrier = new CounterBarrier(THREADS);
        MdRunner[] runners = new MdRunner[THREADS];
        for (int t = 0; t < THREADS; t++) {
            runners[t] = new MdRunner(t, barrier);
            runners[t].start();
        }
        for (MdRunner r : runners) {
            r.join();
        }
        double totalPot = 0.0, totalKin = 0.0;
        long totalInter = 0;
        for (int t = 0; t < THREADS; t++) {
            totalPot += epot[t];
            totalKin += ekin[t];
            totalInter += interactions[t];
        }
        System.out.printf("particles=%d epot=%.6f ekin=%.6f interactions=%d%n", N, totalPot, totalKin, totalInter);
    }

    static void initialise() {
        java.util.Random rnd = new java.util.Random(42);
        int i = 0;
        for (int x = 0; x < SIDE; x++) {
            for (int y = 0; y < SIDE; y++) {
                for (int z = 0; z < SIDE; z++) {
                    pos[i][0] = (x + 0.5) * SPACING;
                    pos[i][1] = (y + 0.5) * SPACING;
                    pos[i][2] = (z + 0.5) * SPACING;
                    for (int d = 0; d < 3; d++) {
                        vel[i][d] = (rnd.nextDouble() - 0.5) * 0.1;
                    }
                    i++;
                }
            }
        }
    }

    static double minimumImage(double d) {
        if (d > 0.5 * BOX) {
            return d - BOX;
        }
        if (d < -0.5 * BOX) {
            return d + BOX;
        }
        return d;
    }
}
