package lufact;

/** Synchronized counter barrier (the JGF "simple barrier"), reusable via a generation number. */
final class SimpleBarrier {
    private final int parties;
    private int count;
    private int generation;

    SimpleBarrier(int parties) {
        this.parties = parties;
    }

    synchronized void await() throws InterruptedException {
        int gen = generation;
        if (++count == parties) {
            count = 0;
            generation++;
            notifyAll();
        } else {
            while (gen == generation) {
                wait();
            }
        }
    }
}
