package workqueue;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A small work-stealing pool summing an array by recursive splitting. Each worker
 * owns a deque guarded by its own lock; idle workers steal the oldest task of a
 * victim. A pending-task counter decides termination.
 */
public class StealingPool {

    static final int THRESHOLD = 500;

    final class RangeTask {
        final int lo, hi;

        RangeTask(int lo, int hi) {
            this.lo = lo;
            this.hi = hi;
        }

        void run(Worker self) {
            if (hi - lo > THRESHOLD) {
                int mid = (lo + hi) >>> 1;
                spawn(self, new RangeTask(lo, mid));
                spawn(self, new RangeTask(mid, hi));
            } else {
                long s = 0;
                for (int i = lo; i < hi; i++) {
                    s += data[i];
                }
                total.addAndGet(s);
            }
            taskDone();
        }
    }

    final class Worker extends Thread {
        private final ReentrantLock lock = new ReentrantLock();
        private final ArrayDeque<RangeTask> deque = new ArrayDeque<>(); // guarded by lock
        private final int index;

        Worker(int index) {
            super("worker-" + index);
            this.index = index;
        }

        void push(RangeTask t) {
            lock.lock();
            try {
                deque.addLast(t);
            } finally {
                lock.unlock();
            }
        }

        /** Owner takes the newest task (LIFO). */
        RangeTask popLocal() {
            lock.lock();
            try {
                return deque.pollLast();
            } finally {
                lock.unlock();
            }
        }

        /** A thief takes the oldest task (FIFO), or null if there is none. */
        RangeTask steal() {
            lock.lock();
            try {
                return deque.isEmpty() ? null : deque.removeFirst();
            } finally {
                lock.unlock();
            }
        }

        private RangeTask trySteal() {
            for (int k = 1; k < workers.length; k++) {
                Worker victim = workers[(index + k) % workers.length];
                RangeTask t = victim.steal();
                if (t != null) {
                    steals.incrementAndGet();
                    return t;
                }
            }
            return null;
        }

        @Override
        public void run() {
            while (!finished) {
                RangeTask t = popLocal();
                if (t == null) {
                    t = trySteal();
                }
                if (t == null) {
                    Thread.onSpinWait();
                    continue;
                }
                t.run(this);
            }
        }
    }

    private final int[] data;
    private final Worker[] workers;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong total = new AtomicLong();
    private final AtomicInteger steals = new AtomicInteger();
    private volatile boolean finished;

    StealingPool(int[] data, int nWorkers) {
        this.data = data;
        this.workers = new Worker[nWorkers];
        for (int i = 0; i < nWorkers; i++) {
            workers[i] = new Worker(i);
        }
    }

    /** The counter is raised before the task becomes visible, so it never reaches 0 early. */
    void spawn(Worker self, RangeTask t) {
        pending.incrementAndGet();
        self.push(t);
    }

    /** Exactly one thread observes the transition to zero and ends the computation. */
    void taskDone() {
        if (pending.decrementAndGet() == 0) {
            finished = true;
        }
    }

    long sum() throws InterruptedException {
        spawn(workers[0], new RangeTask(0, data.length));
        for (Worker w : workers) {
            w.start();
        }
        for (Worker w : workers) {
            w.join();
        }
        return total.get();
    }

    public static void main(String[] args) throws InterruptedException {
        int[] data = new int[400_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = i % 1000;
        }
        StealingPool pool = new StealingPool(data, 4);
        long sum = pool.sum();
        long expected = 0;
        for (int v : data) {
            expected += v;
        }
        System.out.println("sum=" + sum + " expected=" + expected + " steals=" + pool.steals.get());
    }
}
