package manager;

/** Allocation vector: find a free slot and claim it in one critical section. */
class AllocationVector {
    private final boolean[] used;
    AllocationVector(int n) { used = new boolean[n]; }

    synchronized int allocate() {
        for (int i = 0; i < used.length; i++) {
            if (!used[i]) {
                used[i] = true;
                return i;
            }
        }
        return -1;
    }

    synchronized void free(int i) {
        if (!used[i]) throw new IllegalStateException("double free " + i);
        used[i] = false;
    }

    synchronized int inUse() {
        int n = 0;
        for (boolean b : used) if (b) n++;
        return n;
    }
}

class Manager extends Thread {
    private final AllocationVector vec;
    private final int rounds;
    private int failures;
    Manager(AllocationVector vec, int rounds) { this.vec = vec; this.rounds = rounds; }
    @Override public void run() {
        for (int r = 0; r < rounds; r++) {
            int slot = vec.allocate();
            if (slot < 0) { failures++; continue; }
            // the slot is now owned exclusively by this thread
            Thread.yield();
            vec.free(slot);
        }
    }
    int getFailures() { return failures; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        AllocationVector v = new AllocationVector(4);
        Manager[] ms = new Manager[3];
        for (int i = 0; i < ms.length; i++) { ms[i] = new Manager(v, 1000); ms[i].start(); }
        int fails = 0;
        for (Manager m : ms) { m.join(); fails += m.getFailures(); }
        System.out.println(v.inUse() == 0 && fails == 0 ? "OK" : "BUG");
    }
}
