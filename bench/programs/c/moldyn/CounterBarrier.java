package moldyn;

/** Reusable generation-counting barrier; the whole arrive/wait protocol is one monitor section. */
final class CounterBarrier {
    private final int parties;
    private int arrived;
    private long generation;

    CounterBarrier(int parties) {
        this.parties = parties;
    }

    synchronized void await() throws InterruptedException {
        long myGeneration = generation;
        arrived++;
        if (arrived == parties) {
            arrived = 0;
            generation++;
            notifyAll();
            return;
        }
        while (myGeneration == generation) {
            wait();
        }
    }
}
