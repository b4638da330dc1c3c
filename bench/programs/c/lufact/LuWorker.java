package lufact;

final class LuWorker implements Runnable {
    private final int id;
    private final Factorisation f;

    LuWorker(int id, Factorisation f) {
        this.id = id;
        this.f = f;
    }

    @Override
    public void run() {
        try {
            for (int k = 0; k < f.n - 1; k++) {
                if (id == 0) {
                    f.pivotAndScale(k);
                }
                f.barrier.await();
                f.updateColumns(k, id);
                f.barrier.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
