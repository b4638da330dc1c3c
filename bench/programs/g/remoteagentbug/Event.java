package remoteagentbug;

/**
 * An event that tasks signal and wait for, after the event objects of a spacecraft
 * executive. The counter records how often the event has been signalled so far.
 */
final class Event {
    private final String name;
    private final Object monitor = new Object();
    private long count;     // guarded by monitor
    private long stalls;    // guarded by monitor

    /** Upper bound for a single wait, so that a lost signal costs time instead of a hang. */
    static final long WATCHDOG_MILLIS = 1;

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

    /** Waits for the next signal or until the watchdog expires; false if no signal came. */
    boolean waitForEvent() throws InterruptedException {
        synchronized (monitor) {
            long before = count;
            monitor.wait(WATCHDOG_MILLIS);
            if (count != before) return true;
            stalls++;
            return false;
        }
    }

    long stalls() {
        synchronized (monitor) { return stalls; }
    }

    /** Blocks until the event has been signalled more often than {@code seen}; returns the new count. */
    long awaitAfter(long seen) throws InterruptedException {
        while (getCount() == seen) { // BUG: counter checked in one critical section ...
            waitForEvent(); // BUG: ... wait entered in another; a signal arriving in between is lost (Remote Agent missed-notify deadlock)
        }
        return getCount();
    }

    @Override public String toString() { return name; }
}
