package printqueue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** Print spooler: jobs wait in a synchronized list and are taken by several printer threads. */
final class Spooler {
    private final List<String> jobs = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Returned by nextJob() once the spooler is closed and every job has been taken. */
    static final String SHUTDOWN = new String("<shutdown>");

    void submit(String job) { jobs.add(job); }

    void close() { closed.set(true); }

    boolean isClosed() { return closed.get(); }

    /** Takes the oldest waiting job; null if none is waiting right now, SHUTDOWN if none will ever come. */
    String nextJob() {
        synchronized (jobs) {   // client-side locking: the list's own monitor
            if (!jobs.isEmpty()) return jobs.remove(0);
            return closed.get() ? SHUTDOWN : null;     // jobs are only submitted before close()
        }
    }

    /** The most recently submitted job that is still waiting, or null. */
    String newestJob() {
        synchronized (jobs) {
            return jobs.isEmpty() ? null : jobs.get(jobs.size() - 1);
        }
    }
}

final class Printer extends Thread {
    private final Spooler spooler;
    int printed;    // read by main after join
    int errors;

    Printer(String name, Spooler spooler) { super(name); this.spooler = spooler; }

    @Override public void run() {
        while (true) {
            String job;
            try {
                job = spooler.nextJob();
            } catch (IndexOutOfBoundsException e) {
                errors++;
                continue;
            }
            if (job == Spooler.SHUTDOWN) return;
            if (job == null) {
                Thread.yield();
                continue;
            }
            printed++;
        }
    }
}

/** Front panel that keeps showing the newest waiting job. */
final class StatusPanel extends Thread {
    private final Spooler spooler;
    int refreshes;  // read by main after join
    int errors;

    StatusPanel(Spooler spooler) { super("status-panel"); this.spooler = spooler; }

    @Override public void run() {
        while (!spooler.isClosed()) {
            try {
                String newest = spooler.newestJob();
                if (newest != null) refreshes++;
            } catch (IndexOutOfBoundsException e) {
                errors++;
            }
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        final int jobs = 20000;
        Spooler spooler = new Spooler();
        Printer p1 = new Printer("printer-1", spooler);
        Printer p2 = new Printer("printer-2", spooler);
        StatusPanel panel = new StatusPanel(spooler);
        p1.start(); p2.start(); panel.start();
        for (int i = 0; i < jobs; i++) {
            spooler.submit("job-" + i);
        }
        spooler.close();
        p1.join(); p2.join(); panel.join();
        int printed = p1.printed + p2.printed;
        int errors = p1.errors + p2.errors + panel.errors;
        System.out.println("printed=" + printed + "/" + jobs + " panel refreshes=" + panel.refreshes
                + " errors=" + errors + (printed == jobs && errors == 0 ? " OK" : " BUG"));
    }
}
