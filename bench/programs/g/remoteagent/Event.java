package remoteagent;

/**
 * An event that tasks signal and wait for, after the event objects of a spacecraft
 * executive. The counter records how often the event has been signalled so far.
 */
final class Event {
    private final String name;
    private final Object monitor = new Object();
    private long count;     // guarded by monitor

    Event(String name) { this.name = name; }

    long getCount() {
        synchronized (monitor) { return count; }
    }

    void signal() {
        synchronized (monitor) {
            count++;
            monitor.notifyAll();
        }
    }

    /**
     * Blocks until the event has been signalled more often than {@code seen} and returns
     * the new count. Checking the counter and waiting happen under the same monitor, so
     * a signal cannot slip in between.
     */
    long awaitAfter(long seen) throws InterruptedException {
        synchronized (monitor) {
            while (count == seen) {
                monitor.wait();
            }
            return count;
        }
    }

    @Override public String toString() { return name; }
}
