package printerbug;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** An office print spooler: clients submit jobs, printer threads take and print them. */
public class PrintSpooler {

    static final class Job {
        final int id;
        final String owner;
        final int pages;

        Job(int id, String owner, int pages) {
            this.id = id;
            this.owner = owner;
            this.pages = pages;
        }
    }

    /** Immutable, consistent view of the spooler counters. */
    static final class Status {
        final int submitted, queued, printing, printed;

        Status(int submitted, int queued, int printing, int printed) {
            this.submitted = submitted;
            this.queued = queued;
            this.printing = printing;
            this.printed = printed;
        }

        boolean balanced() {
            return submitted == queued + printing + printed;
        }

        @Override
        public String toString() {
            return "submitted=" + submitted + " queued=" + queued + " printing=" + printing + " printed=" + printed;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition jobAvailable = lock.newCondition();
    private final ArrayDeque<Job> queue = new ArrayDeque<>(); // guarded by lock
    private int nextId = 1;                                   // guarded by lock
    private int submitted, printing, printed;                 // guarded by lock
    private boolean shutDown;                                 // guarded by lock

    /** Returns the id the next job will get. */
    private int peekNextId() {
        lock.lock();
        try {
            return nextId;
        } finally {
            lock.unlock();
        }
    }

    /** Queues a job and returns its id, or -1 if the spooler is shut down. */
    int submit(String owner, int pages) {
        int id = peekNextId(); // BUG: job id read under the lock, lock released ...
        lock.lock();
        try {
            if (shutDown) {
                return -1;
            }
            nextId = id + 1; // BUG: ... and the stale id incremented in a second acquisition: two jobs share an id
            queue.addLast(new Job(id, owner, pages));
            submitted++;
            jobAvailable.signal();
            return id;
        } finally {
            lock.unlock();
        }
    }

    /** Blocks until a job is available; returns null once shut down and drained. */
    Job take() throws InterruptedException {
        lock.lock();
        try {
            while (queue.isEmpty() && !shutDown) {
                jobAvailable.await();
            }
            Job job = queue.pollFirst();
            if (job != null) {
                printing++;
            }
            return job;
        } finally {
            lock.unlock();
        }
    }

    void finished(Job job) {
        lock.lock();
        try {
            printing--;
            printed++;
        } finally {
            lock.unlock();
        }
    }

    Status status() {
        lock.lock();
        try {
            return new Status(submitted, queue.size(), printing, printed);
        } finally {
            lock.unlock();
        }
    }

    void shutDown() {
        lock.lock();
        try {
            shutDown = true;
            jobAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final PrintSpooler spooler = new PrintSpooler();
        final Set<Integer> printedIds = ConcurrentHashMap.newKeySet();
        final AtomicInteger duplicateIds = new AtomicInteger();
        final AtomicInteger unbalanced = new AtomicInteger();
        List<Thread> printers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            Thread t = new Thread(() -> {
                try {
                    Job job;
                    while ((job = spooler.take()) != null) {
                        long ink = 0;
                        for (int page = 0; page < job.pages * 200; page++) {
                            ink += (page ^ job.id) & 7;
                        }
                        if (!printedIds.add(job.id) || ink < 0) {
                            duplicateIds.incrementAndGet();
                        }
                        spooler.finished(job);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "printer-" + p);
            printers.add(t);
            t.start();
        }
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            final String owner = "desk-" + c;
            Thread t = new Thread(() -> {
                for (int j = 0; j < 200; j++) {
                    spooler.submit(owner, 1 + j % 4);
                }
            }, owner);
            clients.add(t);
            t.start();
        }
        Thread monitor = new Thread(() -> {
            for (int i = 0; i < 500; i++) {
                if (!spooler.status().balanced()) {
                    unbalanced.incrementAndGet();
                }
            }
        }, "status-panel");
        monitor.start();
        for (Thread t : clients) {
            t.join();
        }
        spooler.shutDown();
        for (Thread t : printers) {
            t.join();
        }
        monitor.join();
        System.out.println(spooler.status() + " duplicateIds=" + duplicateIds.get()
                + " unbalancedSnapshots=" + unbalanced.get());
    }
}
