package hedc;

/** Worker thread of the task pool; runs tasks until the pool drains after shutdown. */
final class PoolWorker extends Thread {
    private final TaskPool pool;

    PoolWorker(TaskPool pool, String name) {
        super(name);
        this.pool = pool;
    }

    @Override
    public void run() {
        try {
            Runnable task;
            while ((task = pool.next()) != null) {
                try {
                    task.run();
                } finally {
                    pool.taskDone();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
