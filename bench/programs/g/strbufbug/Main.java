package strbufbug;

/** Updates a shared status line while a journaling thread keeps copying it into its log. */
public class Main {
    static final int ROUNDS = 20000;

    static final class StatusUpdater extends Thread {
        private final TextBuffer status;
        private volatile boolean stopped;
        StatusUpdater(TextBuffer status) { super("status-updater"); this.status = status; }

        void shutdown() { stopped = true; }

        @Override public void run() {
            for (int i = 0; !stopped; i++) {
                // alternate between a short and a long message so the status shrinks and grows
                status.assign(i % 2 == 0 ? "idle" : "flushing journal segment " + i);
            }
            status.assign("stopped");
        }
    }

    static final class Journaler extends Thread {
        private final TextBuffer status;
        final TextBuffer journal = new TextBuffer(4096);
        int entries;        // read by main after join
        int failures;

        Journaler(String name, TextBuffer status) { super(name); this.status = status; }

        @Override public void run() {
            for (int i = 0; i < ROUNDS; i++) {
                try {
                    journal.append(status).append("\n");
                    entries++;
                } catch (StringIndexOutOfBoundsException e) {
                    failures++;
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        TextBuffer status = new TextBuffer(64);
        status.assign("starting");
        StatusUpdater updater = new StatusUpdater(status);
        Journaler j1 = new Journaler("journal-1", status);
        Journaler j2 = new Journaler("journal-2", status);
        updater.start(); j1.start(); j2.start();
        j1.join(); j2.join();
        updater.shutdown();
        updater.join();
        int entries = j1.entries + j2.entries;
        int failures = j1.failures + j2.failures;
        System.out.println("final status: " + status);
        System.out.println("journal entries=" + entries + " failed appends=" + failures
                + " journal chars=" + (j1.journal.length() + j2.journal.length())
                + (failures == 0 ? " OK" : " BUG"));
    }
}
