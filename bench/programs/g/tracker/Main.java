package tracker;

/**
 * The autopilot flies the drone along its corridor, the line y = 2x. Two telemetry
 * threads sample the position and raise an alarm whenever a fix lies off the corridor.
 */
public class Main {
    static final int STEPS = 200000;

    static final class Autopilot extends Thread {
        private final Position position;
        Autopilot(Position position) { super("autopilot"); this.position = position; }

        @Override public void run() {
            for (int step = 1; step <= STEPS; step++) {
                int x = step % 1000;            // fly out and jump back to base
                position.moveTo(x, 2 * x);
            }
        }
    }

    static final class Telemetry extends Thread {
        private final Position position;
        private final Autopilot autopilot;
        int samples;        // read by main after join
        int offCorridor;
        double farthest;

        Telemetry(String name, Position position, Autopilot autopilot) {
            super(name);
            this.position = position;
            this.autopilot = autopilot;
        }

        @Override public void run() {
            while (autopilot.isAlive()) {
                int[] fix = position.fix();
                int x = fix[0];
                int y = fix[1];
                samples++;
                if (y != 2 * x) offCorridor++;
                farthest = Math.max(farthest, Math.hypot(x, y));
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Position position = new Position();
        Autopilot autopilot = new Autopilot(position);
        Telemetry t1 = new Telemetry("telemetry-1", position, autopilot);
        Telemetry t2 = new Telemetry("telemetry-2", position, autopilot);
        autopilot.start(); t1.start(); t2.start();
        autopilot.join(); t1.join(); t2.join();
        int alarms = t1.offCorridor + t2.offCorridor;
        System.out.printf("samples=%d false alarms=%d farthest=%.1f%s%n",
                t1.samples + t2.samples, alarms, Math.max(t1.farthest, t2.farthest),
                alarms == 0 ? " OK" : " BUG");
    }
}
