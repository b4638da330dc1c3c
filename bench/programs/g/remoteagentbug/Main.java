package remoteagentbug;

/**
 * Planner and executive hand work back and forth: the planner publishes a plan and waits
 * until the executive reports it done; the executive waits for a plan, executes it and reports.
 */
public class Main {
    static final int PLANS = 300;

    static final class Planner extends Thread {
        private final Event planReady, planDone;
        long checksum;      // read by main after join

        Planner(Event planReady, Event planDone) {
            super("planner");
            this.planReady = planReady;
            this.planDone = planDone;
        }

        @Override public void run() {
            long seen = 0;    // events start out unsignalled
            try {
                for (int plan = 0; plan < PLANS; plan++) {
                    checksum += plan * 31L;
                    planReady.signal();
                    seen = planDone.awaitAfter(seen);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static final class Executive extends Thread {
        private final Event planReady, planDone;
        int executed;       // read by main after join

        Executive(Event planReady, Event planDone) {
            super("executive");
            this.planReady = planReady;
            this.planDone = planDone;
        }

        @Override public void run() {
            long seen = 0;
            try {
                while (executed < PLANS) {
                    seen = planReady.awaitAfter(seen);
                    executed++;
                    planDone.signal();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Event planReady = new Event("plan-ready");
        Event planDone = new Event("plan-done");
        Planner planner = new Planner(planReady, planDone);
        Executive executive = new Executive(planReady, planDone);
        executive.start();
        planner.start();
        planner.join();
        executive.join();
        System.out.println("plans executed=" + executive.executed + "/" + PLANS
                + " checksum=" + planner.checksum + " signals=" + planDone.getCount()
                + " watchdog stalls=" + (planReady.stalls() + planDone.stalls())
                + (planReady.stalls() + planDone.stalls() == 0 ? " OK" : " BUG"));
    }
}
