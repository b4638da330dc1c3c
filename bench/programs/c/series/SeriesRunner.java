package series;

final class SeriesRunner extends Thread {
    private static final int STEPS = 1000;
    private final int id;
    private final int lo;
    private final int hi;
    private final double[][] testArray;
    private long evaluations; // written by this thread, read by main after join

    SeriesRunner(int id, int lo, int hi, double[][] testArray) {
        super("series-" + id);
        this.id = id;
        this.lo = lo;
        this.hi = hi;
        this.testArray = testArray;
    }

    long evaluations() {
        return evaluations;
    }

    @Override
    public void run() {
        double omega = Math.PI; // fundamental frequency for the interval [0,2]
        for (int i = lo; i < hi; i++) {
            if (i == 0) {
                testArray[0][0] = trapezoid(0.0, 2.0, STEPS, 0.0, 0) / 2.0;
                testArray[1][0] = 0.0;
            } else {
                testArray[0][i] = trapezoid(0.0, 2.0, STEPS, omega * i, 1);
                testArray[1][i] = trapezoid(0.0, 2.0, STEPS, omega * i, 2);
            }
        }
    }

    /** select: 0 = f(x), 1 = f(x)cos(wx), 2 = f(x)sin(wx). */
    private double trapezoid(double x0, double x1, int nsteps, double omegan, int select) {
        double dx = (x1 - x0) / nsteps;
        double rvalue = f(x0, omegan, select) / 2.0;
        double x = x0;
        for (int k = 1; k < nsteps; k++) {
            x += dx;
            rvalue += f(x, omegan, select);
        }
        rvalue += f(x1, omegan, select) / 2.0;
        return rvalue * dx;
    }

    private double f(double x, double omegan, int select) {
        evaluations++;
        double base = Math.pow(x + 1.0, x);
        switch (select) {
            case 0:
                return base;
            case 1:
                return base * Math.cos(omegan * x);
            default:
                return base * Math.sin(omegan * x);
        }
    }

    @Override
    public String toString() {
        return "SeriesRunner[" + id + ":" + lo + ".." + hi + "]";
    }
}
