package confholderbug;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reconfigures a (simulated) connection pool whenever the configuration is
 * reloaded. Cluster k always lives at host db-k.internal on port 5400+k.
 */
public final class PoolConfigurer implements ConfigHolder.Listener {
    private long appliedVersion;   // guarded by this
    private String endpoint = "";  // guarded by this
    private int size;              // guarded by this
    private final AtomicLong mismatched = new AtomicLong();

    @Override
    public void onReload(ConfigHolder source) {
        long version = source.version();
        String host = source.dbHost();
        int port = source.dbPort(); // BUG: host and port (and version, pool size) are read in separate read-lock sections; a concurrent reload in between yields a host of one config paired with the port of another
        int poolSize = source.poolSize();
        reconfigure(version, host, port, poolSize);
    }

    private synchronized void reconfigure(long version, String host, int port, int poolSize) {
        if (version <= appliedVersion) {
            return; // a newer configuration was already applied by another reload
        }
        int cluster = Integer.parseInt(host.substring(3, host.indexOf('.')));
        if (port != 5400 + cluster || poolSize != 4 + cluster % 8) {
            mismatched.incrementAndGet(); // would open connections to the wrong server
        }
        appliedVersion = version;
        endpoint = host + ":" + port;
        size = poolSize;
    }

    public synchronized String describe() {
        return "v" + appliedVersion + " " + endpoint + " x" + size;
    }

    static Properties cluster(int k) {
        Properties p = new Properties();
        p.setProperty("db.host", "db-" + k + ".internal");
        p.setProperty("db.port", Integer.toString(5400 + k));
        p.setProperty("db.pool.size", Integer.toString(4 + k % 8));
        return p;
    }

    public static void main(String[] args) throws Exception {
        ConfigHolder holder = new ConfigHolder(cluster(0));
        PoolConfigurer pool = new PoolConfigurer();
        holder.addListener(pool);
        AtomicLong tornSnapshots = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 3; w++) { // e.g. file watcher, admin endpoint, service discovery
            threads.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < 20_000; i++) {
                    holder.reload(cluster(rnd.nextInt(1, 100)));
                }
            }, "reloader-" + w));
        }
        threads.add(new Thread(() -> {
            for (int i = 0; i < 50_000; i++) {
                ConfigHolder.Snapshot s = holder.snapshot();
                if (!s.dbHost().equals("db-" + (s.dbPort() - 5400) + ".internal")) {
                    tornSnapshots.incrementAndGet();
                }
            }
        }, "request-handler"));
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("configVersion=" + holder.version() + " pool=" + pool.describe()
                + " mismatchedReconfigurations=" + pool.mismatched.get()
                + " tornSnapshots=" + tornSnapshots.get());
    }
}
