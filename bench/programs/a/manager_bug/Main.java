package manager_bug;

class AllocationVector {
    private final boolean[] used;
    AllocationVector(int n) { used = new boolean[n]; }

    synchronized int findFree() {
        for (int i = 0; i < used.length; i++) if (!used[i]) return i;
        return -1;
    }
    synchronized void markUsed(int i) { used[i] = true; }
    synchronized void free(int i) { used[i] = false; }

    /** BUG: find and claim in two critical sections -> two threads claim the same slot. */
    int allocate() {
        int i = findFree();
        if (i >= 0) markUsed(i);
        return i;
    }
}

class Manager extends Thread {
    private final AllocationVector vec;
    Manager(AllocationVector vec) { this.vec = vec; }
    @Override public void run() {
        for (int r = 0; r < 1000; r++) {
            int s = vec.allocate();
            if (s >= 0) vec.free(s);
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        AllocationVector v = new AllocationVector(4);
        Manager a = new Manager(v), b = new Manager(v);
        a.start(); b.start(); a.join(); b.join();
    }
}
