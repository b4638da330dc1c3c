package hedc;

import java.util.ArrayList;
import java.util.List;

/** Meta-search crawler: requests are split into per-archive tasks run by a shared pool. */
public final class Hedc {
    public static void main(String[] args) throws InterruptedException {
        Archive[] archives = {
            new Archive("simbad", 3), new Archive("ned", 5),
            new Archive("vizier", 11), new Archive("sao", 17)
        };
        String[] keywords = {"sun", "corona", "flare", "cme", "spicule", "prominence"};

        TaskPool pool = new TaskPool(4);
        pool.start();

        List<MetaSearchRequest> requests = new ArrayList<>();
        for (String kw : keywords) {
            MetaSearchRequest req = new MetaSearchRequest(kw, archives.length);
            requests.add(req);
            for (Archive a : archives) {
                pool.execute(req.taskFor(a));
            }
        }

        for (MetaSearchRequest req : requests) {
            System.out.println(req.awaitSummary());
        }
        pool.awaitQuiescence();
        pool.shutdownAndJoin();
        System.out.println("tasks completed: " + pool.completedTasks());
    }
}
